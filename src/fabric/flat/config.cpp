// Elect-Flat's scenario keys (docs/scenarios.md, fabric type elect-flat).
#include "sipsim/fabric/flat/elect_flat.hpp"

namespace sipsim::fabric {

ElectFlatSpec read_elect_flat(base::MapReader& f) {
  ElectFlatSpec c;
  c.nodes = f.required("nodes").as_u32(2, 1u << 24);
  c.bandwidth_bps = f.required("bandwidth").as_positive_bandwidth_bps();
  c.latency = f.required("latency").as_time_ps();
  return c;
}

}  // namespace sipsim::fabric
