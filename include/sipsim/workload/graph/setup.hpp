#pragma once
// `workload: graph`'s plug-in (workload/plugin.hpp).
#include "sipsim/workload/plugin.hpp"

namespace sipsim::workload::graph {

std::unique_ptr<Plugin> plugin(base::MapReader& section, const Context& context);

}  // namespace sipsim::workload::graph
