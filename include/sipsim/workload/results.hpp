#pragma once
// What a workload gives back (docs/architecture.md): a simulation model to run and a
// Results object that reports on the run. The app talks to every workload
// through these two and to every fabric through its named counters
// (fabric::Report::counters), never through a concrete type.
#include <boost/mpi/communicator.hpp>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sipsim/fabric/network.hpp"
#include "sipsim/output/h5.hpp"
#include "sipsim/pdes/model.hpp"
#include "sipsim/workload/slowdown.hpp"
#include "sipsim/workload/trace.hpp"

namespace sipsim::workload {

class Estimators;
struct StepsToTarget;

class Results {
 public:
  virtual ~Results() = default;
  // Before the run: record the event trace at `level` (docs/output.md,
  // /trace/events); workloads without one refuse any level but none.
  virtual void set_trace(TraceLevel level) {
    if (level != TraceLevel::kNone) {
      throw std::invalid_argument(
          "only training workloads (transformer, dlrm, graph, chakra) have an event trace");
    }
  }
  // Before the run, where the workload uses estimates (`replay-shapes`'
  // contention between the communicators of one shape).
  virtual void use_estimators(const Estimators& /*estimators*/) {}
  // Before the run: the iterations to the target accuracy (the scenario's
  // `training` section); only training workloads have them.
  virtual void set_steps_to_target(const StepsToTarget& /*steps*/) {
    throw std::invalid_argument(
        "only training workloads (transformer, dlrm, graph) have a time to accuracy");
  }
  // Before the run: the GPUs' faults (docs/faults.md). Slowdowns stretch
  // their GPU's compute; `failure` is when a GPU fails and the run ends
  // (the app stops the engine there), after which the results keep only the
  // work completed before it. Workloads that run no programs refuse both.
  virtual void set_faults(std::vector<Slowdown> slowdowns, std::optional<pdes::Time> failure) {
    if (!slowdowns.empty() || failure) {
      throw std::invalid_argument(
          "only workloads that run programs (training, collectives) model GPU faults");
    }
  }
  // Every rank, once after the run: combines the ranks' views (collective).
  virtual void collect(const boost::mpi::communicator& /*comm*/) {}
  // What the run left undone that makes it fail (a program that could not
  // finish), identical on every rank; "" when nothing. Collective.
  virtual std::string unfinished(const boost::mpi::communicator& /*comm*/) const { return ""; }
  // Collective: writes the workload's tables into the run file.
  virtual void write(output::h5::File& /*file*/) const {}
  // Rank 0, after the run file is complete: the workload's summary (stdout).
  virtual void print(std::ostream& /*out*/) const {}
};

// A built scenario. `results` may refer to `model` (it is destroyed first).
struct Simulation {
  std::unique_ptr<pdes::Model> model;
  std::unique_ptr<Results> results;
  const fabric::Network* network = nullptr;  // the model's fabric; null without one (PHOLD)
};

}  // namespace sipsim::workload
