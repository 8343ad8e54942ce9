#include "sipsim/pdes/engine.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>

#include "engines.hpp"
#include "epochs.hpp"
#include "messages.hpp"
#include "scheduler.hpp"
#include "sipsim/base/interrupt.hpp"
#include "sipsim/base/units.hpp"
#include "wall_clock.hpp"

namespace sipsim::pdes {
namespace {

using detail::Clock;
using detail::describe;
using detail::Epochs;
using detail::Scheduler;
using detail::seconds_since;

// Throws EngineError on every rank when `error` is set on any; the lowest
// such rank is the one that prints it.
void agree_on_error(const boost::mpi::communicator& comm, const std::string& error) {
  const auto rank = static_cast<std::uint64_t>(comm.rank());
  const std::uint64_t mine = error.empty() ? ~std::uint64_t{0} : rank;
  std::uint64_t lowest = 0;
  MPI_Allreduce(&mine, &lowest, 1, MPI_UINT64_T, MPI_MIN, MPI_Comm(comm));
  if (lowest == ~std::uint64_t{0}) return;
  if (!error.empty()) throw EngineError(error, lowest == rank);
  throw EngineError("stopped: rank " + std::to_string(lowest) + " reported a model error", false);
}

}  // namespace

Interrupted::Interrupted(int signal, Time at)
    : std::runtime_error(std::string("interrupted by ") + base::signal_name(signal) +
                         " at simulated time " + base::format_time_ps(at)),
      signal_(signal),
      time_(at) {}

std::uint64_t kernel_memory(std::uint64_t lps, int ranks) {
  // The partition: owner, local index and the LPs by rank, 4 bytes each.
  const std::uint64_t partition = lps * 3 * sizeof(std::uint32_t);
  const auto r = static_cast<std::uint64_t>(std::max(ranks, 1));
  const std::uint64_t local = (lps + r - 1) / r;
  return partition + local * (sizeof(detail::LpRecord) + sizeof(Event));
}

RunResult run(Model& model, const Partition& partition, const boost::mpi::communicator& comm,
              const EngineOptions& options) {
  if (partition.ranks() != comm.size()) {
    throw std::invalid_argument("partition is for " + std::to_string(partition.ranks()) +
                                " ranks, the communicator has " + std::to_string(comm.size()));
  }
  const bool sequential = options.kind == EngineKind::kSequential ||
                          (options.kind == EngineKind::kAuto && comm.size() == 1);
  if (sequential && comm.size() != 1) {
    throw std::invalid_argument("the sequential engine runs on one rank only");
  }
  const Time lookahead = sequential ? kTimeMax : model.lookahead(partition);
  // Bad input, like the sequential engine on several ranks: every rank finds
  // it, before anything ran (`validate` makes the same check).
  if (!sequential && lookahead == 0) {
    throw std::invalid_argument(
        "the model's lookahead is 0: it cannot run in conservative windows "
        "(run it on one rank with the sequential engine)");
  }

  const auto t0 = Clock::now();
  // Set-up allocates per LP (the model's state, the records): a failure on
  // one rank, std::bad_alloc included, must stop every rank before the first
  // window's reduction, which the others would wait in.
  std::optional<Scheduler> scheduler;
  std::string setup_error;
  try {
    model.check_bounds(options.check_bounds && !sequential);
    model.setup(partition, comm.rank());
    scheduler.emplace(model, partition, comm.rank(), options, lookahead);
  } catch (const std::exception& e) {
    setup_error = "setting up the model: " + describe(e);
  }
  agree_on_error(comm, setup_error);
  scheduler->init_all();
  Epochs epochs(model, *scheduler, options.seed, comm.rank(), comm.size());

  RunResult result;
  if (sequential) {
    if (scheduler->failed()) throw EngineError(scheduler->error(), true);
    detail::run_sequential(model, *scheduler, epochs, comm, options, result);
  } else {
    detail::run_windowed(model, *scheduler, epochs, comm, options, lookahead, result);
  }
  // A failure receiving the last round's events has no later reduction to
  // report it.
  std::string collect_error = scheduler->failed() ? scheduler->error() : std::string();
  try {
    scheduler->collect(result);
  } catch (const std::exception& e) {
    collect_error = "collecting the results: " + describe(e);
  }
  agree_on_error(comm, collect_error);
  const double wall = seconds_since(t0);
  MPI_Allreduce(&wall, &result.wall_seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_Comm(comm));
  return result;
}

}  // namespace sipsim::pdes
