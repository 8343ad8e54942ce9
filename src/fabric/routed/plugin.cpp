// The routed fabrics' shared plug-in part (fabric/routed/plugin.hpp).
#include "sipsim/fabric/routed/plugin.hpp"

#include <memory>
#include <string>

#include "sipsim/fabric/routed/faults.hpp"

namespace sipsim::fabric {

GroupShape digit_levels(std::uint32_t p, std::uint32_t radix, std::uint32_t digits,
                        bool contiguous) {
  GroupShape shape;
  if (!contiguous || radix < 2 || p % radix != 0) return shape;
  std::uint32_t rest = p;
  while (rest % radix == 0 && rest > 1 && shape.levels.size() + 1 < digits) {
    shape.levels.push_back(radix);
    rest /= radix;
  }
  if (rest > 1) shape.levels.push_back(rest);
  return shape;
}

RoutedPlugin::RoutedPlugin(base::MapReader& section) : routed_(read_routed(section)) {}

std::unique_ptr<Network> RoutedPlugin::build() const {
  std::unique_ptr<Topology> topo = topology();
  if (!faults_.empty()) {
    std::vector<LinkFault> links = resolve_faults(*topo, faults_);
    topo = std::make_unique<FaultedTopology>(std::move(topo), std::move(links));
  }
  return make_routed(std::move(topo), routed_.chunk_bytes, routed_.io_latency, routed_.forwarding);
}

FaultTargets RoutedPlugin::fault_targets() const {
  FaultTargets t;
  t.kinds = {FaultKind::kLink, FaultKind::kSwitch, FaultKind::kNic};
  t.read = read_routed_target;
  // Random draws of switches and NICs: the topology names its switches
  // (built once here, for the listing); links are not listed.
  std::shared_ptr<const Topology> topo = topology();
  t.count = [topo](FaultKind kind) -> std::uint64_t {
    if (kind == FaultKind::kNic) return topo->nodes();
    if (kind == FaultKind::kSwitch && topo->switches() > 0 && topo->switch_name(topo->nodes()))
      return topo->switches();
    return 0;
  };
  t.capacity = [topo](FaultKind kind, const base::Value& target) {
    return routed_capacity(*topo, kind, target);
  };
  t.nth = [topo](FaultKind kind, std::uint64_t i) {
    if (kind == FaultKind::kNic) return "{node: " + std::to_string(i) + "}";
    const auto [tier, index] = *topo->switch_name(topo->nodes() + static_cast<Vertex>(i));
    return "{tier: " + std::to_string(tier) + ", index: " + std::to_string(index) + "}";
  };
  return t;
}

}  // namespace sipsim::fabric
