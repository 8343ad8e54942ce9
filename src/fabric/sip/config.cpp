// The silicon-photonic fabrics' scenario keys (docs/scenarios.md, fabric
// types sipac, sip-ocs and sip-ring).
#include <string>

#include "sipsim/fabric/circuit/circuit_network.hpp"
#include "sipsim/fabric/sip/ocs_allocation.hpp"
#include "sipsim/fabric/sip/sip_ocs.hpp"
#include "sipsim/fabric/sip/sip_ring.hpp"
#include "sipsim/fabric/sip/sipac.hpp"

namespace sipsim::fabric {

std::uint32_t sipac_units(const SipacSpec& spec) {
  std::uint64_t n = 1;
  for (std::uint32_t k = 0; k <= spec.level; ++k) n *= spec.ports;
  return static_cast<std::uint32_t>(n);
}

std::uint64_t sipac_lightpath_rate_bps(const SipacSpec& spec) {
  const std::uint64_t paths = std::uint64_t{spec.level + 1} * (spec.ports - 1);
  return paths == 0 ? 0 : spec.bandwidth_bps / paths;
}

SipacSpec read_sipac(base::MapReader& f) {
  SipacSpec s;
  s.ports = f.required("ports").as_u32(2, 1024);
  s.level = f.required("level").as_u32(1, 7);
  s.bandwidth_bps = f.required("bandwidth").as_positive_bandwidth_bps();
  s.wss_latency = f.get_time_ps("wss_latency", 0);
  s.propagation = f.get_time_ps("propagation", 0);
  std::uint64_t n = 1;
  for (std::uint32_t k = 0; k <= s.level; ++k) {
    n *= s.ports;
    if (n > (1u << 24)) f.required("level").fail("more than 2^24 units");
  }
  if (sipac_lightpath_rate_bps(s) == 0) {
    f.required("bandwidth")
        .fail("is less than 1 bps per lightpath ((level + 1) * (ports - 1) of them)");
  }
  return s;
}

SipOcsSpec read_sip_ocs(base::MapReader& f) {
  SipOcsSpec s;
  s.gpus = f.required("nodes").as_u32(2, 1u << 16);
  s.switches = f.get_u32("switches", 16, 1, 1024);
  s.bandwidth_bps = f.required("bandwidth").as_positive_bandwidth_bps();
  if (s.bandwidth_bps < s.switches) {
    f.required("bandwidth").fail("is less than 1 bit/s per circuit (bandwidth / switches)");
  }
  s.transport = read_circuit_transport(f, s.transport.chunk_bytes);
  const std::string method = f.has("allocation")
                                 ? f.required("allocation").as_enum({"ilp", "heuristic"})
                                 : (s.gpus <= 16 ? "ilp" : "heuristic");
  s.allocation = method == "ilp" ? OcsMethod::ilp : OcsMethod::heuristic;
  if (s.allocation == OcsMethod::ilp && s.gpus > static_cast<std::uint32_t>(kOcsIlpMaxGpus)) {
    f.required("allocation")
        .fail("ilp is for at most " + std::to_string(kOcsIlpMaxGpus) + " GPUs; use heuristic");
  }
  s.ilp_time_limit_s = f.get_double("ilp_time_limit", 30);
  if (!(s.ilp_time_limit_s > 0)) f.required("ilp_time_limit").fail("must be > 0 seconds");
  const std::string mode =
      f.has("mode") ? f.required("mode").as_enum({"one-shot", "dynamic"}) : "one-shot";
  s.dynamic = mode == "dynamic";
  s.reconfiguration_delay = f.get_time_ps("reconfiguration_delay", s.reconfiguration_delay);
  if (s.dynamic && s.reconfiguration_delay == 0) {
    f.required("reconfiguration_delay").fail("must be > 0 in dynamic mode (the period is 5d)");
  }
  if (s.dynamic) {
    const std::string why =
        periods_per_chunk_problem(sip_ocs_circuit_rate_bps(s), s.transport.chunk_bytes,
                                  5 * s.reconfiguration_delay, "circuit");
    if (!why.empty()) f.required("bandwidth").fail(why);
  }
  return s;
}

SipRingSpec read_sip_ring(base::MapReader& f) {
  SipRingSpec s;
  s.gpus = f.required("nodes").as_u32(2, 1u << 16);
  s.wavelengths = f.get_u32("wavelengths", 64, 1, 4096);
  s.wavelength_rate_bps = f.get_bandwidth_bps("wavelength_rate", s.wavelength_rate_bps);
  if (s.wavelength_rate_bps == 0) f.required("wavelength_rate").fail("must be > 0");
  s.transport = read_circuit_transport(f, s.transport.chunk_bytes);
  s.period = f.get_time_ps("period", s.period);
  if (s.period == 0) f.required("period").fail("must be > 0");
  s.reconfiguration_delay = f.get_time_ps("reconfiguration_delay", s.reconfiguration_delay);
  if (s.reconfiguration_delay >= s.period) {
    f.required(f.has("reconfiguration_delay") ? "reconfiguration_delay" : "period")
        .fail("the reconfiguration delay must be shorter than the period");
  }
  if (const std::string why = periods_per_chunk_problem(
          s.wavelength_rate_bps, s.transport.chunk_bytes, s.period, "wavelength");
      !why.empty()) {
    (f.has("wavelength_rate") ? f.required("wavelength_rate") : f.value()).fail(why);
  }
  s.loss_per_node_db = f.get_double("loss_per_node", s.loss_per_node_db);
  s.power_budget_db = f.get_double("power_budget", s.power_budget_db);
  if (!(s.loss_per_node_db > 0)) f.required("loss_per_node").fail("must be > 0 dB");
  if (!(s.power_budget_db > 0)) f.required("power_budget").fail("must be > 0 dB");
  if (f.has("planner")) {
    s.solver =
        f.required("planner").as_enum({"shortest-path", "network-simplex"}) == "shortest-path"
            ? RingSolver::kShortestPath
            : RingSolver::kNetworkSimplex;
  }
  if (sip_ring_reach(s) == 0) {
    f.required(f.has("power_budget") ? "power_budget" : "loss_per_node")
        .fail("leaves no reach: a one-hop lightpath passes two node interfaces");
  }
  return s;
}

}  // namespace sipsim::fabric
