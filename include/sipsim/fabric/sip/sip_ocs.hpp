#pragma once
// SiP-OCS (SiP-ML §3.1, App. A.2; docs/models.md "SiP-OCS"): N GPUs, Q
// optical circuit switches of N ports, one B/Q link from every GPU to every
// switch (degree Q). The circuits are allocated once for the job from its
// traffic matrix (one-shot), or, in dynamic mode, every 5d from the traffic
// of the last 5d, each reconfiguration dark for d (§4.3, Fig. 9).
#include <cstdint>
#include <memory>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/circuit/circuit_network.hpp"
#include "sipsim/fabric/sip/ocs_allocation.hpp"

namespace sipsim::fabric {

// A GPU's port on one OCS failed, from `at` until `until`
// (docs/faults.md): the allocation gives the GPU's pairs circuits on its
// other switches, from the next allocation on.
struct FailedOcsPort {
  pdes::Time at = 0, until = pdes::kTimeMax;
  std::uint32_t gpu = 0, ocs = 0;
};

struct SipOcsSpec {
  std::uint32_t gpus = 0;
  std::uint32_t switches = 16;      // Q
  std::uint64_t bandwidth_bps = 0;  // B per GPU, over its Q links
  // latency, chunk (default 1 MiB), log_plans; make_sip_ocs fills the rest.
  CircuitFabricSpec transport;
  OcsMethod allocation = OcsMethod::heuristic;
  double ilp_time_limit_s = 30;
  bool dynamic = false;
  pdes::Time reconfiguration_delay = 10'000'000'000;  // d: 10 ms
  std::vector<FailedOcsPort> failed;                  // faults
};

// The per-circuit rate B/Q.
std::uint64_t sip_ocs_circuit_rate_bps(const SipOcsSpec& spec);
std::unique_ptr<CircuitController> make_sip_ocs_controller(const SipOcsSpec& spec);
std::unique_ptr<Network> make_sip_ocs(const SipOcsSpec& spec);

// The keys of a `fabric: {type: sip-ocs}` section (docs/scenarios.md).
SipOcsSpec read_sip_ocs(base::MapReader& section);

}  // namespace sipsim::fabric
