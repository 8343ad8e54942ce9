#pragma once
// The composition root (DESIGN.md §1): a loaded scenario becomes a runnable
// simulation (its model and its results). Only setup/ and app/ may read
// analytical/: `algorithm: auto` is resolved here, with the critical-path
// estimator, before the simulator is built.
#include "sipsim/scenario/scenario.hpp"
#include "sipsim/workload/results.hpp"

namespace sipsim::setup {

// Builds the fabric and the workload's model. Errors in the fabric's or the
// workload's parameters found while building are base::ScenarioErrors located
// at their section.
workload::Simulation make_simulation(const scenario::Scenario& scenario);

}  // namespace sipsim::setup
