#include "sipsim/pdes/models/phold_config.hpp"

#include <cstdint>
#include <limits>
#include <string>

namespace sipsim::pdes::models {

namespace {

std::uint32_t as_u32(const base::Value& v, std::uint64_t min, std::uint64_t max) {
  const std::uint64_t x = v.as_uint();
  if (x < min || x > max) {
    v.fail("must be between " + std::to_string(min) + " and " + std::to_string(max));
  }
  return static_cast<std::uint32_t>(x);
}

}  // namespace

PholdConfig read_phold(base::MapReader& w) {
  PholdConfig c;
  c.lps = as_u32(w.required("lps"), 1, std::numeric_limits<std::uint32_t>::max());
  if (auto v = w.optional("start_events_per_lp")) {
    c.start_events_per_lp = as_u32(*v, 1, 1'000'000);
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
