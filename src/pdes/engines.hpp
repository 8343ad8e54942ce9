#pragma once
// The two engines behind pdes::run (engine.cpp). Each runs a scheduler that
// run() has set up and initialised to the end time or the last event, and
// fills `result` but for what the scheduler collects and the wall time.
#include <boost/mpi/communicator.hpp>

#include "epochs.hpp"
#include "scheduler.hpp"
#include "sipsim/pdes/engine.hpp"
#include "sipsim/pdes/model.hpp"

namespace sipsim::pdes::detail {

// Sequential (sequential.cpp): every event in key order, no windows, no
// communication; one rank only.
void run_sequential(const Model& model, Scheduler& s, Epochs& epochs,
                    const boost::mpi::communicator& comm, const EngineOptions& options,
                    RunResult& result);

// Conservative windows of at least `lookahead` (windowed.cpp), at any rank
// count; every rank calls it.
void run_windowed(const Model& model, Scheduler& s, Epochs& epochs,
                  const boost::mpi::communicator& comm, const EngineOptions& options,
                  Time lookahead, RunResult& result);

}  // namespace sipsim::pdes::detail
