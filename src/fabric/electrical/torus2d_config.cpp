// The 2D torus's scenario keys (docs/scenarios.md, fabric type torus2d).
#include <cstdint>
#include <string>

#include "sipsim/fabric/electrical/torus2d.hpp"

namespace sipsim::fabric {

Torus2dSpec read_torus2d(base::MapReader& f) {
  Torus2dSpec t;
  const base::Value dims = f.required("dims");
  const auto list = dims.as_list();
  if (list.size() != 2) dims.fail("expected two dimensions, e.g. [128, 512]");
  t.dims[0] = list[0].as_u32(1, 1u << 16);
  t.dims[1] = list[1].as_u32(1, 1u << 16);
  const std::uint64_t nodes = std::uint64_t{t.dims[0]} * t.dims[1];
  if (nodes < 2) dims.fail("a torus needs at least two nodes");
  if (nodes > (1u << 24)) {
    dims.fail(std::to_string(t.dims[0]) + " x " + std::to_string(t.dims[1]) + " = " +
              std::to_string(nodes) + " nodes; at most 2^24 = 16777216");
  }
  t.link_rate_bps = f.required("link_bandwidth").as_positive_bandwidth_bps();
  t.hop_latency = f.required("hop_latency").as_time_ps();
  return t;
}

}  // namespace sipsim::fabric
