#pragma once
// What the plug-ins of the routed fabrics share (fabric/plugin.hpp): the
// routed network's keys (chunk, io_latency, forwarding), then their
// topology's. Each routed family derives its plug-ins from RoutedPlugin.
#include "sipsim/fabric/plugin.hpp"
#include "sipsim/fabric/routed/routed_network.hpp"

namespace sipsim::fabric {

class RoutedPlugin : public Plugin {
 public:
  explicit RoutedPlugin(base::MapReader& section);
  std::uint32_t nodes() const override { return nodes_; }
  std::unique_ptr<Network> build() const override;

 protected:
  virtual std::unique_ptr<Topology> topology() const = 0;
  std::uint32_t nodes_ = 0;

 private:
  RoutedSpec routed_;
};

}  // namespace sipsim::fabric
