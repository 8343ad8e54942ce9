#pragma once
// BCube (a routed topology).
#include <cstdint>
#include <memory>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/routed/topology.hpp"

namespace sipsim::fabric {

// BCube(n, k) (Guo et al., SIGCOMM 2009) with levels = k + 1: n^levels nodes,
// levels * n^(levels-1) switches of n ports; node digits (a_{k}..a_0) in base
// n; the level-l switch of a node joins the n nodes that differ only in digit
// l. Nodes relay; routing corrects the highest differing digit first.
// Switch ids follow the nodes: level-l switch of node v = nodes +
// l * n^(levels-1) + (v's digits without digit l, as a base-n number).
// groups(): n, by the top digit; a switch takes its lowest member's group.
struct BcubeSpec {
  std::uint32_t ports = 0;   // n
  std::uint32_t levels = 0;  // k + 1
  std::uint64_t link_rate_bps = 0;
  pdes::Time switch_latency = 0;
  pdes::Time propagation = 0;
};
std::unique_ptr<Topology> make_bcube(const BcubeSpec& spec);

// The keys of a `fabric: {type: bcube}` section: ports, levels, link_bandwidth,
// switch_latency, propagation (at most 2^24 nodes).
BcubeSpec read_bcube(base::MapReader& section);
std::uint32_t bcube_nodes(const BcubeSpec& spec);  // ports^levels

}  // namespace sipsim::fabric
