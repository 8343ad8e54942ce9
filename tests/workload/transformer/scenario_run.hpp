#pragma once
// A transformer scenario run through setup/ for the transformer's tests.
#include <gtest/gtest.h>

#include <boost/mpi/communicator.hpp>
#include <sstream>
#include <string>

#include "sipsim/pdes/engine.hpp"
#include "sipsim/setup/setup.hpp"
#include "sipsim/workload/training_results.hpp"

namespace sipsim::workload::transformer {

// A scenario's training run through setup/ (read, build, run, collect): the
// first iteration's time, the last one's period, GPU 0's breakdown in the
// first, the fabric's counters and the printed results.
struct ScenarioRun {
  pdes::Time iteration = 0;
  pdes::Time last_period = 0;  // the last iteration's (TrainingResults::period)
  Breakdown gpu0{};
  std::uint64_t rule_conflicts = 0;  // RAMP's serialised transfers
  std::string printed;
};
inline ScenarioRun run_scenario(const std::string& text) {
  const setup::Setup s = setup::read(base::Document::load_string(text, "t.yaml"));
  workload::Simulation sim = setup::build(s);
  const boost::mpi::communicator world;
  pdes::EngineOptions o;
  o.progress_interval_s = 0;
  pdes::run(*sim.model, sim.model->partition(world.size()), world, o);
  EXPECT_EQ(sim.results->unfinished(world), "");
  sim.results->collect(world);
  const auto& r = dynamic_cast<const TrainingResults&>(*sim.results);
  ScenarioRun out{r.iteration_time(0), r.period(r.shape().iterations - 1), r.breakdown(0, 0), 0,
                  ""};
  std::ostringstream printed;
  r.print(printed);
  out.printed = printed.str();
  for (const auto& c : sim.network->counters()) {
    if (c.name == "rule_b_conflicts" || c.name == "rule_c_conflicts") out.rule_conflicts += c.value;
  }
  return out;
}

}  // namespace sipsim::workload::transformer
