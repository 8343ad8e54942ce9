#include "sipsim/scenario/scenario.hpp"

#include <filesystem>
#include <limits>

namespace sipsim::scenario {

namespace {

workload::PholdConfig load_phold(MapReader& w) {
  workload::PholdConfig c;
  const std::uint64_t lps = w.required("lps").as_uint();
  if (lps == 0 || lps > std::numeric_limits<std::uint32_t>::max()) {
    w.required("lps").fail("must be between 1 and 4294967295");
  }
  c.lps = static_cast<std::uint32_t>(lps);
  const std::uint64_t start = w.get_uint("start_events_per_lp", c.start_events_per_lp);
  if (start == 0 || start > 1'000'000) {
    w.required("start_events_per_lp").fail("must be between 1 and 1000000");
  }
  c.start_events_per_lp = static_cast<std::uint32_t>(start);
  c.remote_fraction = w.get_double("remote_fraction", c.remote_fraction);
  if (c.remote_fraction < 0 || c.remote_fraction > 1) {
    w.required("remote_fraction").fail("must be between 0 and 1");
  }
  c.lookahead = w.required("lookahead").as_time_ps();
  if (c.lookahead == 0) w.required("lookahead").fail("must be greater than 0");
  c.mean_increment = w.get_time_ps("mean_increment", c.mean_increment);
  return c;
}

}  // namespace

Scenario load_scenario(const Document& document) {
  Scenario s;
  s.path = document.name();
  s.yaml_text = document.text();
  MapReader root = document.root().as_map();

  s.name = root.get_string("name", std::filesystem::path(document.name()).stem().string());
  s.seed = root.get_uint("seed", s.seed);

  if (auto sim = root.optional("simulation")) {
    MapReader m = sim->as_map();
    s.simulation.end_time = m.get_time_ps("end_time", s.simulation.end_time);
    if (s.simulation.end_time == 0) m.required("end_time").fail("must be greater than 0");
    if (auto engine = m.optional("engine")) {
      const std::string kind = engine->as_enum({"auto", "sequential", "windowed"});
      s.simulation.engine = kind == "sequential" ? pdes::EngineKind::kSequential
                            : kind == "windowed" ? pdes::EngineKind::kWindowed
                                                 : pdes::EngineKind::kAuto;
    }
    if (auto p = m.optional("progress_interval")) {
      s.simulation.progress_interval_s = pdes::to_seconds(p->as_time_ps());
    }
    m.finish();
  }

  Value workload_value = root.required("workload");
  MapReader w = workload_value.as_map();
  const std::string type = w.required("type").as_enum({"phold"});
  if (type == "phold") {
    s.workload = load_phold(w);
    if (s.simulation.end_time == pdes::kTimeMax) {
      workload_value.fail(
          "PHOLD never ends by itself: set simulation.end_time (e.g. end_time: 4000us)");
    }
  }
  w.finish();
  root.finish();
  return s;
}

}  // namespace sipsim::scenario
