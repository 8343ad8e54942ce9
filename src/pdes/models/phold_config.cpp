// PHOLD's scenario keys (docs/scenarios.md, workload type phold).
#include "sipsim/pdes/models/phold_config.hpp"

namespace sipsim::pdes::models {

PholdConfig read_phold(base::MapReader& w) {
  PholdConfig c;
  c.lps = w.required("lps").as_u32(1);
  if (auto v = w.optional("start_events_per_lp")) {
    c.start_events_per_lp = v->as_u32(1, 1'000'000);
  }
  c.remote_fraction = w.get_double("remote_fraction", c.remote_fraction);
  if (c.remote_fraction < 0 || c.remote_fraction > 1) {
    w.required("remote_fraction").fail("must be between 0 and 1");
  }
  c.lookahead = w.required("lookahead").as_time_ps();
  if (c.lookahead == 0) w.required("lookahead").fail("must be greater than 0");
  c.mean_increment = w.get_time_ps("mean_increment", c.mean_increment);
  if (auto v = w.optional("epoch")) {
    c.epoch = v->as_time_ps();
    if (c.epoch == 0) v->fail("must be greater than 0");
  }
  return c;
}

}  // namespace sipsim::pdes::models
