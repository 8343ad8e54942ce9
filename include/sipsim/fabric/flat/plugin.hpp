#pragma once
// The Elect-Flat fabric's plug-in (fabric/plugin.hpp): `fabric: elect-flat`.
#include "sipsim/fabric/plugin.hpp"

namespace sipsim::fabric {

std::unique_ptr<Plugin> elect_flat_plugin(base::MapReader& section);

}  // namespace sipsim::fabric
