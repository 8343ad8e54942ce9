// `fabric: topoopt` (fabric/plugin.hpp): a routed network over the circuits.
#include "sipsim/fabric/circuit/plugin.hpp"

#include <string>

#include "sipsim/fabric/circuit/circuit_network.hpp"
#include "sipsim/fabric/circuit/topoopt.hpp"
#include "sipsim/fabric/routed/plugin.hpp"

namespace sipsim::fabric {

namespace {

// At most 2^16 GPUs, as SiP-OCS and SiP-Ring take.
constexpr std::uint32_t kMaxReconfiguredGpus = 1u << 16;

class TopooptPlugin final : public RoutedPlugin {
 public:
  explicit TopooptPlugin(base::MapReader& f) : RoutedPlugin(f) {
    nodes_ = f.required("nodes").as_u32(2, 1u << 24);
    spec_ = read_topoopt(f, nodes_);
    if (spec_.reconfiguration) {
      if (nodes_ > kMaxReconfiguredGpus) {
        f.required("nodes").fail("reconfigured circuits serve at most " +
                                 std::to_string(kMaxReconfiguredGpus) + " GPUs");
      }
      const std::string why = periods_per_chunk_problem(spec_.link_rate_bps, routed().chunk_bytes,
                                                        spec_.reconfiguration->period, "circuit");
      if (!why.empty()) f.required("link_bandwidth").fail(why);
    }
  }
  std::string_view type() const override { return "topoopt"; }
  std::uint64_t slowest_rate_bps() const override { return spec_.link_rate_bps; }
  // Faults are routed around on the fixed circuits only.
  FaultTargets fault_targets() const override {
    return spec_.reconfiguration ? FaultTargets{} : RoutedPlugin::fault_targets();
  }
  // Reconfigured: a circuit fabric whose GPUs' `degree` ports go to the pairs
  // with traffic every period; a message's node I/O latency joins the
  // circuit's (the circuit transport has none of its own).
  std::unique_ptr<Network> build() const override {
    if (!spec_.reconfiguration) return RoutedPlugin::build();
    CircuitFabricSpec c;
    c.gpus = nodes_;
    c.unit_rate_bps = spec_.link_rate_bps;
    c.units_per_gpu = spec_.degree;
    c.latency = spec_.link_latency + routed().io_latency;
    c.chunk_bytes = routed().chunk_bytes;
    c.name = "topoopt";
    c.log_plans = false;  // a row per pair and change: millions at a training job's periods
    return make_circuit_network(
        c, make_topoopt_reconfig_controller(nodes_, spec_.degree, *spec_.reconfiguration));
  }

 private:
  std::unique_ptr<Topology> topology() const override { return make_topoopt(spec_, nodes_); }
  TopooptSpec spec_;
};

}  // namespace

std::unique_ptr<Plugin> topoopt_plugin(base::MapReader& section) {
  return std::make_unique<TopooptPlugin>(section);
}

}  // namespace sipsim::fabric
