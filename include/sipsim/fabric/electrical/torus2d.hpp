#pragma once
// 2D torus (a routed topology).
#include <cstdint>
#include <memory>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/routed/topology.hpp"

namespace sipsim::fabric {

// 2D torus of dims[0] x dims[1] nodes, node (x, y) = y*dims[0] + x, four
// duplex links per node (to x±1 and y±1, wrapping), dimension-order routing
// (x first) in the shorter direction (ties: ECMP hash). A dimension of size 2
// has one duplex link per node pair (the + and - neighbours coincide), one of
// size 1 has no links. groups(): one per row y.
struct Torus2dSpec {
  std::uint32_t dims[2] = {0, 0};
  std::uint64_t link_rate_bps = 0;  // per direction per link
  pdes::Time hop_latency = 0;
};
std::unique_ptr<Topology> make_torus2d(const Torus2dSpec& spec);

// The keys of a `fabric: {type: torus2d}` section: dims, link_bandwidth, hop_latency.
Torus2dSpec read_torus2d(base::MapReader& section);

}  // namespace sipsim::fabric
