// The routed fabrics' shared plug-in part (fabric/routed/plugin.hpp).
#include "sipsim/fabric/routed/plugin.hpp"

namespace sipsim::fabric {

RoutedPlugin::RoutedPlugin(base::MapReader& section) : routed_(read_routed(section)) {}

std::unique_ptr<Network> RoutedPlugin::build() const {
  return make_routed(topology(), routed_.chunk_bytes, routed_.io_latency, routed_.forwarding);
}

}  // namespace sipsim::fabric
