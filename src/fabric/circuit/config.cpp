// TopoOpt's scenario keys (docs/scenarios.md, fabric type topoopt).
#include "sipsim/fabric/circuit/topoopt.hpp"

namespace sipsim::fabric {

TopooptSpec read_topoopt(base::MapReader& f, std::uint32_t nodes) {
  TopooptSpec t;
  t.degree = f.get_u32("degree", 4, 2, 64);
  if (const std::string why = topoopt_degree_problem(nodes, t.degree); !why.empty()) {
    // The default degree is refused only for too few nodes: name them then.
    f.required(f.has("degree") ? "degree" : "nodes").fail(why);
  }
  t.link_rate_bps = f.required("link_bandwidth").as_positive_bandwidth_bps();
  t.link_latency = f.required("latency").as_time_ps();
  if (auto r = f.optional("reconfiguration")) {
    base::MapReader m = r->as_map();
    TopooptReconfiguration c;
    c.period = m.required("period").as_time_ps();
    if (c.period == 0)
      m.required("period").fail("must be > 0: the circuits are re-planned every period");
    c.delay = m.get_time_ps("delay", 0);
    if (c.delay >= c.period) m.required("delay").fail("must be shorter than the period");
    m.finish();
    t.reconfiguration = c;
  }
  return t;
}

}  // namespace sipsim::fabric
