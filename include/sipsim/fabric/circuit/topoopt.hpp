#pragma once
// TopoOpt: circuits fixed for the job (a routed topology), or reconfigured
// every period from the traffic (a circuit fabric).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/circuit/circuit_network.hpp"
#include "sipsim/fabric/routed/topology.hpp"

namespace sipsim::fabric {

// TopoOpt-style direct-connect circuits fixed for the job (Wang et al.,
// NSDI'23; RAMP §7.5): degree d = 2m links per node forming m bidirectional
// ring permutations with offsets s_1 = 1 < s_2 < ... < s_m, each offset the
// smallest integer > the previous one that is coprime with the node count
// (TotientPerms); every link carries link_rate_bps. Nodes relay; shortest
// paths in this circulant graph (ties broken by the ECMP hash). Offsets are
// taken from [1, nodes/2] only, since s and nodes - s give the same ring; a
// degree needing more offsets than exist is rejected. groups(): blocks of 64
// consecutive nodes.
// With `reconfiguration` (RAMP §7.5's TopoOpt, whose circuits the comparison
// reconfigures for free per collective) the circuits are not the rings: every
// `period` each GPU's `degree` transmit and receive ports go to the pairs
// that had traffic in the last period (max-min by bytes per circuit), and a
// changed circuit is dark for `delay` (0: RAMP's assumption). The network is
// then a circuit fabric (circuit_network.hpp), not a routed one.
struct TopooptReconfiguration {
  pdes::Time period = 0;
  pdes::Time delay = 0;
};
struct TopooptSpec {
  std::uint32_t degree = 2;
  std::uint64_t link_rate_bps = 0;
  pdes::Time link_latency = 0;
  std::optional<TopooptReconfiguration> reconfiguration;
};
std::unique_ptr<Topology> make_topoopt(const TopooptSpec& spec, std::uint32_t nodes);
// The controller of TopoOpt's reconfigured circuits on `gpus` GPUs.
std::unique_ptr<CircuitController> make_topoopt_reconfig_controller(std::uint32_t gpus,
                                                                    std::uint32_t degree,
                                                                    TopooptReconfiguration r);

// The ring offsets of `degree` / 2 rings on `nodes` nodes: the smallest
// integers in [1, nodes/2] coprime with nodes, at most degree / 2 of them
// (fewer when fewer exist: the degree is then too large for the node count).
std::vector<std::uint32_t> topoopt_offsets(std::uint32_t nodes, std::uint32_t degree);
// Why make_topoopt refuses `degree` on `nodes` nodes, or "".
std::string topoopt_degree_problem(std::uint32_t nodes, std::uint32_t degree);

// The keys of a `fabric: {type: topoopt}` section after `nodes` (read by the
// caller): degree (checked against `nodes`), link_bandwidth, latency,
// reconfiguration ({period, delay}).
TopooptSpec read_topoopt(base::MapReader& section, std::uint32_t nodes);

}  // namespace sipsim::fabric
