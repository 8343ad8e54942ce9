// The 2D torus's scenario keys (docs/scenarios.md, fabric type torus2d).
#include "sipsim/fabric/electrical/torus2d.hpp"

namespace sipsim::fabric {

Torus2dSpec read_torus2d(base::MapReader& f) {
  Torus2dSpec t;
  const base::Value dims = f.required("dims");
  const auto list = dims.as_list();
  if (list.size() != 2) dims.fail("expected two dimensions, e.g. [128, 512]");
  t.dims[0] = list[0].as_u32(1, 1u << 16);
  t.dims[1] = list[1].as_u32(1, 1u << 16);
  if (t.dims[0] * t.dims[1] < 2) dims.fail("a torus needs at least two nodes");
  t.link_rate_bps = f.required("link_bandwidth").as_positive_bandwidth_bps();
  t.hop_latency = f.required("hop_latency").as_time_ps();
  return t;
}

}  // namespace sipsim::fabric
