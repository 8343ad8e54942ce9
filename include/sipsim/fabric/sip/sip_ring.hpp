#pragma once
// SiP-Ring (SiP-ML §3.1, §4.1, App. A.1; docs/models.md "SiP-Ring"): N GPUs
// on a fibre ring, W wavelengths per GPU of 25 Gb/s each; a lightpath uses
// one wavelength on every segment it crosses, within the reach the power
// budget allows (file 003 §5: 0.525-0.625 dB per node against 10 dB). A
// controller re-plans the wavelengths every period (100 us) from the traffic
// of the last period with the App. A.1 planner (fabric/sip/ring_planner);
// changed wavelengths are dark for the MRR reconfiguration time (25 us).
#include <cstdint>
#include <memory>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/circuit/circuit_network.hpp"
#include "sipsim/fabric/sip/ring_planner.hpp"

namespace sipsim::fabric {

// SiP-Ring's transport defaults: 256 KiB chunks, 84 us on one 25 Gb/s
// wavelength, so that a chunk on the wire at an epoch is a small error.
inline CircuitFabricSpec ring_transport() {
  CircuitFabricSpec t;
  t.chunk_bytes = 256 << 10;
  return t;
}

// A wavelength lost on the whole ring (its laser or comb line failed), from
// `at` until `until` (docs/faults.md): the planner plans with the others
// from its next epoch on.
struct LostWavelength {
  pdes::Time at = 0, until = pdes::kTimeMax;
  std::uint32_t wavelength = 0;
};

struct SipRingSpec {
  std::uint32_t gpus = 0;
  std::uint32_t wavelengths = 64;  // W
  std::uint64_t wavelength_rate_bps = 25'000'000'000;
  // latency, chunk (default 256 KiB), log_plans; make_sip_ring fills the rest.
  CircuitFabricSpec transport = ring_transport();
  pdes::Time period = 100'000'000;                // 100 us
  pdes::Time reconfiguration_delay = 25'000'000;  // 25 us
  double loss_per_node_db = 0.625;                // the testbed's worst case
  double power_budget_db = 10;
  RingSolver solver = RingSolver::kShortestPath;  // `planner`
  std::vector<LostWavelength> lost;               // faults
};

// The longest lightpath in hops: a path of h hops passes h + 1 node
// interfaces (sender, h - 1 bypassed, receiver), each losing
// loss_per_node_db, within the power budget: 15 at 0.625 dB and 10 dB
// (SiP-ML §5: "every GPU only interacts with, at most, a GPU that is 15
// nodes away (i.e., the node degree is 16)"). 0 when not even one hop fits.
std::uint32_t sip_ring_reach(const SipRingSpec& spec);
std::unique_ptr<CircuitController> make_sip_ring_controller(const SipRingSpec& spec);
std::unique_ptr<Network> make_sip_ring(const SipRingSpec& spec);

// The keys of a `fabric: {type: sip-ring}` section (docs/scenarios.md).
SipRingSpec read_sip_ring(base::MapReader& section);

}  // namespace sipsim::fabric
