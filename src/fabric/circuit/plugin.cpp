// `fabric: topoopt` (fabric/plugin.hpp): a routed network over the circuits.
#include "sipsim/fabric/circuit/plugin.hpp"

#include "sipsim/fabric/circuit/topoopt.hpp"
#include "sipsim/fabric/routed/plugin.hpp"

namespace sipsim::fabric {

namespace {

class TopooptPlugin final : public RoutedPlugin {
 public:
  explicit TopooptPlugin(base::MapReader& f) : RoutedPlugin(f) {
    nodes_ = f.required("nodes").as_u32(2, 1u << 24);
    spec_ = read_topoopt(f, nodes_);
  }
  std::string_view type() const override { return "topoopt"; }
  std::uint64_t slowest_rate_bps() const override { return spec_.link_rate_bps; }

 private:
  std::unique_ptr<Topology> topology() const override { return make_topoopt(spec_, nodes_); }
  TopooptSpec spec_;
};

}  // namespace

std::unique_ptr<Plugin> topoopt_plugin(base::MapReader& section) {
  return std::make_unique<TopooptPlugin>(section);
}

}  // namespace sipsim::fabric
