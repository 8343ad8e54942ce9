#include "sipsim/scenario/scenario.hpp"

#include <filesystem>

namespace sipsim::scenario {

Scenario load_scenario(const base::Document& document) {
  Scenario s;
  s.path = document.name();
  s.yaml_text = document.text();
  base::MapReader root = document.root().as_map();

  s.name = root.get_string("name", std::filesystem::path(document.name()).stem().string());
  s.seed = root.get_uint("seed", s.seed);

  if (auto sim = root.optional("simulation")) {
    base::MapReader m = sim->as_map();
    s.simulation.end_time = m.get_time_ps("end_time", s.simulation.end_time);
    if (s.simulation.end_time == 0) m.required("end_time").fail("must be greater than 0");
    if (auto engine = m.optional("engine")) {
      const std::string kind = engine->as_enum({"auto", "sequential", "windowed"});
      s.simulation.engine = kind == "sequential" ? pdes::EngineKind::kSequential
                            : kind == "windowed" ? pdes::EngineKind::kWindowed
                                                 : pdes::EngineKind::kAuto;
    }
    if (auto p = m.optional("progress_interval")) {
      const pdes::Time interval = p->as_time_ps();
      if (interval == 0) p->fail("must be greater than 0 (run -q silences the progress lines)");
      s.simulation.progress_interval_s = pdes::to_seconds(interval);
    }
    m.finish();
  }
  s.fabric = root.optional("fabric");
  s.compute = root.optional("compute");
  s.workload = root.required("workload");
  if (auto out = root.optional("output")) {
    base::MapReader m = out->as_map();
    if (auto t = m.optional("trace")) {
      s.trace = t->as_enum({"none", "ops", "collectives", "steps"});
    }
    m.finish();
    s.output = out;
  }
  s.training = root.optional("training");  // read by setup/ (workload::read_training)
  s.faults = root.optional("faults");      // read by setup/ (fabric::read_faults)
  root.finish();
  return s;
}

}  // namespace sipsim::scenario
