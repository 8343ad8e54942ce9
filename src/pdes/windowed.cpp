// The windowed engine: conservative windows at any rank count.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "engines.hpp"
#include "messages.hpp"
#include "progress.hpp"
#include "run_stats.hpp"
#include "sipsim/base/interrupt.hpp"
#include "sipsim/pdes/window_histogram.hpp"
#include "wall_clock.hpp"
#include "window_search.hpp"
#include "window_stats.hpp"

namespace sipsim::pdes::detail {
namespace {

// The window reduction's error_rank when no rank has an error.
constexpr std::uint64_t kNoRank = ~std::uint64_t{0};
// A window runs all its events: process_until's limit is its bound alone.
constexpr std::uint64_t kWholeWindow = ~std::uint64_t{0};

// Once per round: the events go straight to the peers they are for; one
// reduction carries the statistics and, per rank, how many ranks send to it,
// so each rank receives exactly that many messages. Cost per rank: one
// allreduce (O(log P) steps) plus the peers actually sent to.
class Exchange {
 public:
  Exchange(const boost::mpi::communicator& comm, Scheduler& s)
      : c_(comm),
        rank_(comm.rank()),
        s_(s),
        types_(comm.size()),
        local_buf_(kStatsWords + static_cast<std::size_t>(comm.size())),
        global_buf_(local_buf_.size()) {
    requests_.reserve(static_cast<std::size_t>(comm.size()));
  }

  // Sends the scheduler's outbox, reduces `local` over the ranks and hands
  // the scheduler the events sent to this rank. Returns the reduced stats.
  WindowStats run(WindowStats local) {
    // Alternating tags: a rank can start the next round's sends while a peer
    // still receives this round's (it has left the reduction, the peer not
    // yet), never two rounds ahead (the next reduction waits for the peer).
    const int tag = kTag + static_cast<int>(rounds_++ & 1);
    send(tag, local);
    local.remote_events = remote_sent_;
    std::memcpy(local_buf_.data(), &local, sizeof local);
    MPI_Allreduce(local_buf_.data(), global_buf_.data(), 1, types_.stats(), types_.merge(), c_);
    WindowStats global{};
    std::memcpy(&global, global_buf_.data(), sizeof global);
    receive(tag, global_buf_[kStatsWords + static_cast<std::size_t>(rank_)]);
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    for (auto& box : s_.outbox()) box.clear();
    return global;
  }

  // Events this rank has sent to other ranks, over the run.
  std::uint64_t remote_sent() const { return remote_sent_; }

 private:
  static constexpr int kTag = 7001;  // and kTag + 1: the window exchange's messages

  // One message per rank sent to, which this rank counts in that rank's word
  // of the sender counts; `local.next_time` includes the events in flight.
  void send(int tag, WindowStats& local) {
    auto& outbox = s_.outbox();
    std::fill(local_buf_.begin() + kStatsWords, local_buf_.end(), 0);
    requests_.clear();
    for (std::size_t r = 0; r < outbox.size(); ++r) {
      if (outbox[r].empty()) continue;
      remote_sent_ += outbox[r].size();
      local_buf_[kStatsWords + r] = 1;
      for (const Event& ev : outbox[r]) local.next_time = std::min(local.next_time, ev.time);
      requests_.emplace_back();
      MPI_Isend(outbox[r].data(), static_cast<int>(outbox[r].size()), types_.event(),
                static_cast<int>(r), tag, c_, &requests_.back());
    }
  }

  // The `incoming` messages of this round, from whichever ranks sent them.
  void receive(int tag, std::uint64_t incoming) {
    bool receive_failed = false;
    for (std::uint64_t m = 0; m < incoming; ++m) {
      MPI_Message message{};
      MPI_Status status{};
      MPI_Mprobe(MPI_ANY_SOURCE, tag, c_, &message, &status);
      int count = 0;
      MPI_Get_count(&status, types_.event(), &count);
      try {
        inbox_.resize(static_cast<std::size_t>(count));
      } catch (const std::bad_alloc&) {
        // The peer's send is under way and cannot be called off: stopping
        // all ranks is the only way not to hang them.
        std::cerr << "sipsim: error: rank " << rank_ << ": out of memory receiving " << count
                  << " events from rank " << status.MPI_SOURCE << "\n";
        MPI_Abort(c_, 1);
      }
      MPI_Mrecv(inbox_.data(), count, types_.event(), &message, MPI_STATUS_IGNORE);
      // The queue orders by (time, dst, src, seq): arrival order is irrelevant.
      try {
        if (!receive_failed) s_.receive(inbox_);
      } catch (const std::bad_alloc& e) {
        // Reported by the next round's reduction, like a model error.
        receive_failed = true;
        s_.fail("receiving events from other ranks: " + describe(e));
      }
    }
  }

  MPI_Comm c_;
  int rank_;
  Scheduler& s_;
  MpiTypes types_;
  std::vector<std::uint64_t> local_buf_, global_buf_;
  std::vector<Event> inbox_;
  std::vector<MPI_Request> requests_;
  std::uint64_t remote_sent_ = 0;
  std::uint64_t rounds_ = 0;
};

// Every rank's epoch share, in rank order: the sizes, then the words.
void gather_shares(const boost::mpi::communicator& comm, const std::vector<std::uint64_t>& mine,
                   std::vector<std::vector<std::uint64_t>>& all) {
  const auto ranks = static_cast<std::size_t>(comm.size());
  const int count = static_cast<int>(mine.size());
  std::vector<int> counts(ranks), displs(ranks);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_Comm(comm));
  std::size_t total = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    displs[r] = static_cast<int>(total);
    total += static_cast<std::size_t>(counts[r]);
  }
  std::vector<std::uint64_t> words(total);
  MPI_Allgatherv(mine.data(), count, MPI_UINT64_T, words.data(), counts.data(), displs.data(),
                 MPI_UINT64_T, MPI_Comm(comm));
  all.resize(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    const auto first = words.begin() + displs[r];
    all[r].assign(first, first + counts[r]);
  }
}

// What this rank's windows add up to, and the critical path the rounds
// report (RunResult, docs/scaling.md).
struct WindowTally {
  std::uint64_t windows = 0;
  Time spanned = 0;  // the windows' widths, summed
  std::uint64_t busy_ns = 0;
  std::uint64_t epoch_ns = 0;
  // The window just processed, reported by the next round.
  std::uint64_t window_events = 0, window_busy_ns = 0;
  std::uint64_t critical_events = 0, critical_ns = 0;
  WindowHistogram histogram;
};

// Stops every rank alike on what the round's reduction reports: a model
// error on any rank, ranks that disagree on the epochs, an interrupt.
void stop_if_asked(const WindowStats& global, const Scheduler& s, int rank) {
  if (global.error_rank != kNoRank) {
    // The lowest failed rank prints; a planner that throws fails them all.
    const bool origin = global.error_rank == static_cast<std::uint64_t>(rank);
    if (s.failed()) throw EngineError(s.error(), origin);
    throw EngineError(
        "stopped: rank " + std::to_string(global.error_rank) + " reported a model error", false);
  }
  if (global.epoch_min != global.epoch_max || global.counters_min != global.counters_max) {
    throw EngineError(
        "the ranks disagree on the model's epochs (next epoch " + time_str(global.epoch_min) +
            " to " + time_str(global.epoch_max) + ", " + std::to_string(global.counters_min) +
            " to " + std::to_string(global.counters_max) +
            " counters): Model::next_epoch and epoch_counters must not depend on the rank",
        rank == 0);
  }
  // Ranks get a signal at slightly different times (mpirun forwards it):
  // the reduction makes all of them stop after the same window.
  if (global.interrupt != 0) {
    throw Interrupted(static_cast<int>(global.interrupt), global.last_time);
  }
}

// The run's totals from the last round's reduction and this rank's tally.
void fill_result(const WindowStats& global, const WindowTally& tally, Time lookahead,
                 const Epochs& epochs, const boost::mpi::communicator& comm, const Scheduler& s,
                 RunResult& result) {
  const int ranks = comm.size();
  result.committed_events = global.committed;
  result.last_event_time = global.last_time;
  result.lookahead = lookahead;
  result.windows = tally.windows;
  result.mean_window = tally.windows > 0 ? tally.spanned / tally.windows : 0;
  result.epochs = epochs.count();
  result.remote_events = global.remote_events;
  result.busy_seconds_max = static_cast<double>(global.busy_ns_max) * 1e-9;
  result.busy_seconds_mean = static_cast<double>(global.busy_ns) * 1e-9 / ranks;
  result.epoch_seconds = static_cast<double>(tally.epoch_ns) * 1e-9;
  result.critical_path_events = tally.critical_events;
  result.critical_path_seconds = static_cast<double>(tally.critical_ns) * 1e-9;
  gather_scaling(comm, tally.histogram, s.committed(), tally.busy_ns, result);
}

}  // namespace

// Conservative windows: process [T, min(T + lookahead, next epoch, end)),
// exchange, agree on the next T. When T reaches the next epoch, every event
// before it has run on every rank and none after it: the epoch runs there.
void run_windowed(const Model& model, Scheduler& s, Epochs& epochs,
                  const boost::mpi::communicator& comm, const EngineOptions& options,
                  Time lookahead, RunResult& result) {
  const int ranks = comm.size();
  const int rank = comm.rank();
  Exchange exchange(comm, s);
  Progress progress(options.progress_interval_s, options.end_time, model.progress_total(),
                    rank == 0);
  WindowSearch search(model.bounds_remote_events(), lookahead, options.check_bounds);
  WindowTally tally;
  WindowStats global{};
  for (;;) {
    const WindowStats local{
        .next_time = s.next_time(),
        .committed = s.committed(),
        .last_time = s.last_time(),
        .busy_ns = tally.busy_ns,
        .busy_ns_max = tally.busy_ns,
        .error_rank = s.failed() ? static_cast<std::uint64_t>(rank) : kNoRank,
        .remote_events = exchange.remote_sent(),
        .work_done = model.progress_done(),
        .epoch_min = epochs.next(),
        .epoch_max = epochs.next(),
        .counters_min = epochs.counters(),
        .counters_max = epochs.counters(),
        .interrupt = static_cast<std::uint64_t>(base::interrupt_signal()),
        .window_events_max = tally.window_events,
        .window_busy_ns_max = tally.window_busy_ns,
        .remote_bound =
            search.scanning() ? s.remote_bound(search.scan_cap(s.next_time())) : kTimeMax,
    };
    tally.window_events = tally.window_busy_ns = 0;
    global = exchange.run(local);
    tally.critical_events += global.window_events_max;
    tally.critical_ns += global.window_busy_ns_max;
    stop_if_asked(global, s, rank);
    const double mean_busy = static_cast<double>(global.busy_ns) / ranks;
    progress.maybe_report(global.last_time, global.committed,
                          mean_busy > 0 ? static_cast<double>(global.busy_ns_max) / mean_busy : 1.0,
                          global.work_done);
    const Time start = global.next_time;
    if (start >= options.end_time) break;  // also when no events are left (kTimeMax)
    if (start >= epochs.next()) {
      // One exact reduction; then back to the window reduction, which
      // reports a planner's error before any event runs.
      const auto t0 = Clock::now();
      epochs.run(
          [&](const std::vector<std::uint64_t>& mine, std::vector<std::uint64_t>& totals) {
            MPI_Allreduce(mine.data(), totals.data(), static_cast<int>(mine.size()), MPI_UINT64_T,
                          MPI_SUM, MPI_Comm(comm));
          },
          [&](const std::vector<std::uint64_t>& mine,
              std::vector<std::vector<std::uint64_t>>& all) { gather_shares(comm, mine, all); });
      tally.epoch_ns += nanoseconds_since(t0);
      continue;
    }
    // Idle stretches are skipped: the window opens at the next event anywhere.
    const Time bound =
        std::min({search.widest(start, global.remote_bound), epochs.next(), options.end_time});
    s.set_horizon(bound);
    tally.spanned += bound - start;
    const auto t0 = Clock::now();
    tally.window_events = s.process_until(bound, kWholeWindow);
    tally.window_busy_ns = nanoseconds_since(t0);
    tally.busy_ns += tally.window_busy_ns;
    tally.histogram.add(tally.window_events);
    ++tally.windows;
  }
  fill_result(global, tally, lookahead, epochs, comm, s, result);
}

}  // namespace sipsim::pdes::detail
