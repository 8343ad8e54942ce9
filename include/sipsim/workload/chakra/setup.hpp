#pragma once
// `workload: chakra`'s plug-in (workload/plugin.hpp).
#include "sipsim/workload/plugin.hpp"

namespace sipsim::workload::chakra {

std::unique_ptr<Plugin> plugin(base::MapReader& section, const Context& context);

}  // namespace sipsim::workload::chakra
