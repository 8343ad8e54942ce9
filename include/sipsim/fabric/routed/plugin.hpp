#pragma once
// What the plug-ins of the routed fabrics share (fabric/plugin.hpp): the
// routed network's keys (chunk, io_latency, forwarding), then their
// topology's. Each routed family derives its plug-ins from RoutedPlugin.
#include "sipsim/fabric/plugin.hpp"
#include "sipsim/fabric/routed/routed_network.hpp"

namespace sipsim::fabric {

// The levels of a group of p consecutive nodes on a BCube-like fabric whose
// node digits are base `radix` over `digits` levels (BCube, SiPAC): one level
// per digit while p divides by the radix, the rest of p as the last level;
// none for a group that is not contiguous or whose size the radix does not
// divide (the algorithms then take their defaults). A group aligned on its
// size then has the digit groups of the fabric's switches as its levels.
GroupShape digit_levels(std::uint32_t p, std::uint32_t radix, std::uint32_t digits,
                        bool contiguous);

class RoutedPlugin : public Plugin {
 public:
  explicit RoutedPlugin(base::MapReader& section);
  std::uint32_t nodes() const override { return nodes_; }
  std::unique_ptr<Network> build() const override;
  // Failed or degraded links and NICs and failed switches, routed around
  // (fabric/routed/faults.hpp).
  FaultTargets fault_targets() const override;
  void set_faults(std::vector<Fault> faults) override { faults_ = std::move(faults); }

 protected:
  virtual std::unique_ptr<Topology> topology() const = 0;
  const RoutedSpec& routed() const { return routed_; }
  std::uint32_t nodes_ = 0;

 private:
  RoutedSpec routed_;
  std::vector<Fault> faults_;
};

}  // namespace sipsim::fabric
