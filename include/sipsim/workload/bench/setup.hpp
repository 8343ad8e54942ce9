#pragma once
// The benchmarks' plug-ins (workload/plugin.hpp): `workload: collectives`
// and `workload: phold`.
#include "sipsim/workload/plugin.hpp"

namespace sipsim::workload {

std::unique_ptr<Plugin> collectives_plugin(base::MapReader& section, const Context& context);
std::unique_ptr<Plugin> phold_plugin(base::MapReader& section, const Context& context);

}  // namespace sipsim::workload
