#pragma once
// The silicon-photonic fabrics' plug-ins (fabric/plugin.hpp): `fabric:
// sipac`, `sip-ocs` and `sip-ring`.
#include "sipsim/fabric/plugin.hpp"

namespace sipsim::fabric {

std::unique_ptr<Plugin> sipac_plugin(base::MapReader& section);
std::unique_ptr<Plugin> sip_ocs_plugin(base::MapReader& section);
std::unique_ptr<Plugin> sip_ring_plugin(base::MapReader& section);

}  // namespace sipsim::fabric
