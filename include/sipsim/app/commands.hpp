#pragma once
// The subcommands behind the CLI. main() only parses arguments.
#include <boost/mpi/communicator.hpp>
#include <optional>
#include <string>
#include <vector>

namespace sipsim::app {

// Exit codes, documented in docs/user-guide.md.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRunFailed = 1;  // the simulation stopped with an error
inline constexpr int kExitBadInput = 2;   // scenario, command line or output path
// Interrupted by SIGINT or SIGTERM: 128 + the signal (app/signals.hpp).

struct RunArgs {
  std::string scenario;
  // Unset: <scenario stem>.h5 in the working directory; empty (-o ''): an error.
  std::optional<std::string> output;
  bool force = false;
  bool quiet = false;
  bool check_bounds = false;           // debug: verify the engine's derived bounds as the run goes
  std::vector<std::string> overrides;  // --set key.path=value
  bool print = true;                   // the results and the summary (compare reads the file)
};

int run_command(const RunArgs& args, const boost::mpi::communicator& comm);
// The closed-form estimate for the scenario: per algorithm and
// size for collectives, the expected event count for PHOLD.
// `max_work`: the most member-steps one estimate may evaluate
// (analytical::estimate_critical_path); larger ones are reported as skipped.
int analyze_command(const std::string& scenario, const std::vector<std::string>& overrides,
                    std::uint64_t max_work, const boost::mpi::communicator& comm);
// Several scenarios side by side. Collectives (RAMP §8): per size, each
// scenario's best algorithm by the critical-path estimate, and its time over
// the first scenario's. Training jobs (and run files): each simulated, then
// its iteration time, TFLOP/s and breakdown over the first's
// (compare_training.hpp; `force` runs again what a finished run file holds).
// `overrides` apply to every scenario.
int compare_command(const std::vector<std::string>& scenarios,
                    const std::vector<std::string>& overrides, bool csv, bool force,
                    std::uint64_t max_work, const boost::mpi::communicator& comm);
// Fabric facts: nodes, links, bisection, lookahead for a rank
// count, and for RAMP its physical budget, power and cost.
struct InfoOptions {
  std::string scenario;
  std::vector<std::string> overrides;
  int ranks = 1;  // for the partition and the lookahead
  // Not empty: instead, write the owning rank of every LP for `ranks` ranks
  // to this file, one line per LP.
  std::string owners;
  // Not empty: a finished run file of the scenario, from whose figures the
  // scaling model predicts the efficiency at more ranks (docs/scaling.md).
  std::string run;
};
int info_command(const InfoOptions& options, const boost::mpi::communicator& comm);
int validate_command(const std::string& scenario, const std::vector<std::string>& overrides,
                     const boost::mpi::communicator& comm);

}  // namespace sipsim::app
