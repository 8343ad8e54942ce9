// TopoOpt's scenario keys (docs/scenarios.md, fabric type topoopt).
#include "sipsim/fabric/circuit/topoopt.hpp"

namespace sipsim::fabric {

TopooptSpec read_topoopt(base::MapReader& f) {
  TopooptSpec t;
  t.degree = f.get_u32("degree", 4, 2, 64);
  t.link_rate_bps = f.required("link_bandwidth").as_positive_bandwidth_bps();
  t.link_latency = f.required("latency").as_time_ps();
  return t;
}

}  // namespace sipsim::fabric
