#pragma once
// Critical-path estimates of a scenario's collectives (RAMP §7.4.1), shared by
// `analyze` and `compare` (private to app/).
#include <boost/mpi/communicator.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/setup/setup.hpp"

namespace sipsim::app {

// One (size, algorithm) line of `analyze`: the critical-path estimate, or why
// there is none at this scale.
struct Estimated {
  std::uint64_t bytes = 0;
  collective::Algorithm algorithm{};
  std::optional<analytical::CollectiveEstimate> estimate;
  std::string skipped;
  // The idle-fabric estimate's total (analytical::estimate_collective), where
  // asked for and p * steps <= max_work.
  std::optional<pdes::Time> idle;
};

// Every size of the sweep with every algorithm the scenario allows (all valid
// ones for `auto`), estimated with RAMP §7.4.1's critical path. The estimates
// are independent, so the ranks share them (round robin) and rank 0 gets all
// of them; the other ranks get an empty list.
// Rank 0's progress over a command's estimates, on stderr at most every 5 s of
// wall time: estimates done out of its share (and how far the current one is),
// elapsed time and an ETA from the rate so far (estimates at 65,536 nodes take
// seconds each, a few longer).
class EstimateProgress {
 public:
  explicit EstimateProgress(const boost::mpi::communicator& comm);
  // A job of `tasks` estimates, shared round robin among the ranks (estimate_job).
  void add(std::size_t tasks);
  void done_one();
  // Progress within the estimate being run: the estimators call this (as
  // their analytical::Progress) every so many member-steps, so that one long
  // estimate reports too.
  void within(std::uint64_t member_steps, std::uint64_t total);
  analytical::Progress callback();
  void finish();

 private:
  void report(double now, double part);
  bool report_;
  int rank_, ranks_;
  std::size_t share_ = 0, done_ = 0;
  double start_ = 0, last_ = 0;
};

// The (size, algorithm) estimates a job asks for: every size of the sweep with
// the job's algorithm, or with every valid algorithm `auto` may choose
// (workload.auto_among).
std::vector<collective::CollectiveSpec> estimate_tasks(const setup::CollectiveJob& job);

// With `with_idle`, each estimate also gives the idle-fabric one beside it
// (analytical::estimate_critical_path_with_idle: one walk for both).
std::vector<Estimated> estimate_job(const setup::CollectiveJob& job, std::uint64_t max_work,
                                    const fabric::CostModel& network,
                                    const boost::mpi::communicator& comm,
                                    EstimateProgress& progress, bool with_idle = false);

}  // namespace sipsim::app
