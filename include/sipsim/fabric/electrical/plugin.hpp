#pragma once
// The electrical fabrics' plug-ins (fabric/plugin.hpp): `fabric: cluster`,
// `torus2d` and `bcube`.
#include "sipsim/fabric/plugin.hpp"

namespace sipsim::fabric {

std::unique_ptr<Plugin> cluster_plugin(base::MapReader& section);
std::unique_ptr<Plugin> torus2d_plugin(base::MapReader& section);
std::unique_ptr<Plugin> bcube_plugin(base::MapReader& section);

}  // namespace sipsim::fabric
