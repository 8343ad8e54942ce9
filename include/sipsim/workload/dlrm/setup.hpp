#pragma once
// `workload: dlrm`'s plug-in (workload/plugin.hpp).
#include "sipsim/workload/plugin.hpp"

namespace sipsim::workload::dlrm {

std::unique_ptr<Plugin> plugin(base::MapReader& section, const Context& context);

}  // namespace sipsim::workload::dlrm
