#pragma once
// The sequential engine and the conservative windowed MPI engine (docs/architecture.md).
#include <boost/mpi/communicator.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sipsim/pdes/model.hpp"
#include "sipsim/pdes/partition.hpp"
#include "sipsim/pdes/time.hpp"

namespace sipsim::pdes {

// A model broke a kernel rule (lookahead, causality, unknown LP, epochs) or
// threw. The ranks that saw it carry the message; the others name the lowest
// of them, which is the one that prints it (origin()).
class EngineError : public std::runtime_error {
 public:
  EngineError(const std::string& message, bool origin)
      : std::runtime_error(message), origin_(origin) {}
  // True on the lowest rank where the error happened (the one that prints it).
  bool origin() const { return origin_; }

 private:
  bool origin_;
};

// The run was asked to stop (base::request_interrupt, from SIGINT or SIGTERM
// in `sipsim run`). Thrown on every rank, which all stop in the same window.
class Interrupted : public std::runtime_error {
 public:
  Interrupted(int signal, Time at);
  int signal() const { return signal_; }
  // Simulated time reached: the timestamp of the last committed event.
  Time time() const { return time_; }

 private:
  int signal_;
  Time time_;
};

enum class EngineKind {
  kAuto,        // sequential on one rank, windowed otherwise
  kSequential,  // one rank only: all events in key order, no windows
  kWindowed,    // conservative windows of width = lookahead, any rank count
};

struct EngineOptions {
  std::uint64_t seed = 1;
  Time end_time = kTimeMax;  // events at or after end_time are not processed
  EngineKind kind = EngineKind::kAuto;
  double progress_interval_s = 5.0;  // <= 0: no progress lines
  // Debug: every window asks the model for its bound (no rest phases) and the
  // model checks its derived bounds as it runs (Model::check_bounds).
  bool check_bounds = false;
};

struct RunResult {
  // Totals over all ranks (identical on every rank).
  std::uint64_t committed_events = 0;
  Time last_event_time = 0;         // timestamp of the last committed event
  Time lookahead = 0;               // window width used (kTimeMax when sequential)
  Time mean_window = 0;             // mean window width (> lookahead with Model::remote_bound)
  std::uint64_t windows = 0;        // synchronisation rounds
  std::uint64_t epochs = 0;         // epochs run (Model::next_epoch), at any rank count
  double wall_seconds = 0;          // slowest rank, engine only (no set-up, no output)
  std::uint64_t remote_events = 0;  // events that crossed ranks
  // Time spent processing events (windowed engine): the slowest rank and the
  // mean. wall_seconds minus busy_seconds_max is synchronisation and waiting.
  double busy_seconds_max = 0;
  double busy_seconds_mean = 0;
  // Time in the epochs (their reduction, shares and plan), this rank's (the
  // summary prints rank 0's): every rank runs each epoch's plan whole.
  double epoch_seconds = 0;
  // Scaling figures (docs/scaling.md), identical on every rank. Counts are
  // exact; the *_seconds are measured. Windows of the sequential engine: 1.
  std::uint64_t critical_path_events = 0;  // sum over windows of the busiest rank's events
  double critical_path_seconds = 0;        // sum over windows of the slowest rank's busy time
  // Events per window per rank, as WindowHistogram buckets 0..K-1: over all
  // ranks (K entries), and per rank (ranks x K, row-major).
  std::vector<std::uint64_t> window_histogram;
  std::vector<std::uint64_t> rank_window_histogram;
  std::vector<std::uint64_t> rank_events;      // events committed by each rank
  std::vector<std::uint64_t> rank_window_max;  // each rank's largest window
  std::vector<double> rank_busy_seconds;       // each rank's time processing events
  // This rank's LPs, in the order of Partition::lps_of(rank).
  std::vector<std::uint64_t> lp_events;  // events processed per LP
  std::vector<std::uint64_t> lp_digest;  // order-sensitive hash of each LP's history
  // This rank's pending-event set at its largest.
  std::uint64_t peak_pending = 0;
  std::uint64_t queue_bytes = 0;  // capacity of the queue's storage at the end
};

// Memory the kernel needs on each rank, at least, to run `lps` LPs on
// `ranks` ranks: the partition (every rank holds all of it) and, for an even
// share of the LPs, their records and one pending event each. Known before
// anything is allocated, so a run that cannot fit is refused up front.
std::uint64_t kernel_memory(std::uint64_t lps, int ranks);

// Runs `model` on `comm` (every rank calls it). Throws EngineError on every
// rank when any rank detects a model error (an exception the model throws,
// std::bad_alloc included), Interrupted when base::interrupt_signal() is set
// on any rank.
RunResult run(Model& model, const Partition& partition, const boost::mpi::communicator& comm,
              const EngineOptions& options);

}  // namespace sipsim::pdes
