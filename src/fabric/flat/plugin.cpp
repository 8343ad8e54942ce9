// `fabric: elect-flat` (fabric/plugin.hpp): the ideal switch, no facts.
#include "sipsim/fabric/flat/plugin.hpp"

#include "sipsim/fabric/flat/elect_flat.hpp"

namespace sipsim::fabric {

namespace {

class ElectFlatPlugin final : public Plugin {
 public:
  explicit ElectFlatPlugin(base::MapReader& f) : spec_(read_elect_flat(f)) {}
  std::string_view type() const override { return "elect-flat"; }
  std::uint32_t nodes() const override { return spec_.nodes; }
  std::uint64_t slowest_rate_bps() const override { return spec_.bandwidth_bps; }
  std::unique_ptr<Network> build() const override {
    return make_elect_flat(spec_.nodes, spec_.bandwidth_bps, spec_.latency, faults_);
  }
  // A node's NIC, failed or at a share of its rate: {node: N}.
  FaultTargets fault_targets() const override {
    const std::uint32_t nodes = spec_.nodes;
    FaultTargets t;
    t.kinds = {FaultKind::kNic};
    t.read = [nodes](FaultKind, const base::Value& target) {
      return "nic of node " + std::to_string(read_target_index(target, "node", nodes));
    };
    t.count = [nodes](FaultKind) { return std::uint64_t{nodes}; };
    const std::uint64_t rate = spec_.bandwidth_bps;
    t.capacity = [rate](FaultKind, const base::Value&) { return 2 * rate; };  // both ports
    t.nth = [](FaultKind, std::uint64_t i) { return "{node: " + std::to_string(i) + "}"; };
    return t;
  }
  void set_faults(std::vector<Fault> faults) override {
    for (const Fault& f : faults) {
      faults_.push_back(
          {f.at, f.until, read_target_index(*f.where, "node", spec_.nodes), f.factor, f.target});
    }
  }

 private:
  ElectFlatSpec spec_;
  std::vector<FlatFault> faults_;
};

}  // namespace

std::unique_ptr<Plugin> elect_flat_plugin(base::MapReader& section) {
  return std::make_unique<ElectFlatPlugin>(section);
}

}  // namespace sipsim::fabric
