#pragma once
// The circuit fabrics' plug-in (fabric/plugin.hpp): `fabric: topoopt`.
#include "sipsim/fabric/plugin.hpp"

namespace sipsim::fabric {

std::unique_ptr<Plugin> topoopt_plugin(base::MapReader& section);

}  // namespace sipsim::fabric
