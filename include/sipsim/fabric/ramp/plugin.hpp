#pragma once
// RAMP's plug-in (fabric/plugin.hpp): `fabric: ramp`.
#include "sipsim/fabric/plugin.hpp"

namespace sipsim::fabric::ramp {

std::unique_ptr<Plugin> plugin(base::MapReader& section);

}  // namespace sipsim::fabric::ramp
