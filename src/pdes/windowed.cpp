// The windowed engine: conservative windows at any rank count.
#include <mpi.h>

#include <algorithm>
#include <chrono>
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
#include "window_stats.hpp"

namespace sipsim::pdes::detail {

// Conservative windows: process [T, min(T + lookahead, next epoch, end)),
// exchange, agree on the next T. When T reaches the next epoch, every event
// before it has run on every rank and none after it: the epoch runs there.
void run_windowed(const Model& model, Scheduler& s, Epochs& epochs,
                  const boost::mpi::communicator& comm, const EngineOptions& options,
                  Time lookahead, RunResult& result) {
  const MPI_Comm c = comm;
  const int ranks = comm.size();
  const int rank = comm.rank();
  const MpiTypes types(ranks);
  Progress progress(options.progress_interval_s, options.end_time, model.progress_total(),
                    rank == 0);

  const std::size_t words = kStatsWords + static_cast<std::size_t>(ranks);
  std::vector<std::uint64_t> local_buf(words), global_buf(words);
  std::vector<Event> inbox;
  std::vector<MPI_Request> requests;
  requests.reserve(static_cast<std::size_t>(ranks));
  std::uint64_t remote_sent = 0;
  std::uint64_t rounds = 0;
  constexpr int kTag = 7001;

  // Once per round: the events go straight to the peers they are for; one
  // reduction carries the statistics and, per rank, how many ranks send to it,
  // so each rank receives exactly that many messages. Cost per rank: one
  // allreduce (O(log P) steps) plus the peers actually sent to.
  auto exchange = [&](WindowStats local) {
    // Alternating tags: a rank can start the next round's sends while a peer
    // still receives this round's (it has left the reduction, the peer not
    // yet), never two rounds ahead (the next reduction waits for the peer).
    const int tag = kTag + static_cast<int>(rounds++ & 1);
    auto& outbox = s.outbox();
    std::fill(local_buf.begin() + kStatsWords, local_buf.end(), 0);
    requests.clear();
    for (std::size_t r = 0; r < outbox.size(); ++r) {
      if (outbox[r].empty()) continue;
      remote_sent += outbox[r].size();
      local_buf[kStatsWords + r] = 1;
      for (const Event& ev : outbox[r]) local.next_time = std::min(local.next_time, ev.time);
      requests.emplace_back();
      MPI_Isend(outbox[r].data(), static_cast<int>(outbox[r].size()), types.event(),
                static_cast<int>(r), tag, c, &requests.back());
    }
    local.remote_events = remote_sent;
    std::memcpy(local_buf.data(), &local, sizeof local);
    MPI_Allreduce(local_buf.data(), global_buf.data(), 1, types.stats(), types.merge(), c);
    WindowStats global{};
    std::memcpy(&global, global_buf.data(), sizeof global);
    const std::uint64_t incoming = global_buf[kStatsWords + static_cast<std::size_t>(rank)];
    bool receive_failed = false;
    for (std::uint64_t m = 0; m < incoming; ++m) {
      MPI_Message message{};
      MPI_Status status{};
      MPI_Mprobe(MPI_ANY_SOURCE, tag, c, &message, &status);
      int count = 0;
      MPI_Get_count(&status, types.event(), &count);
      try {
        inbox.resize(static_cast<std::size_t>(count));
      } catch (const std::bad_alloc&) {
        // The peer's send is under way and cannot be called off: stopping
        // all ranks is the only way not to hang them.
        std::cerr << "sipsim: error: rank " << rank << ": out of memory receiving " << count
                  << " events from rank " << status.MPI_SOURCE << "\n";
        MPI_Abort(c, 1);
      }
      MPI_Mrecv(inbox.data(), count, types.event(), &message, MPI_STATUS_IGNORE);
      // The queue orders by (time, dst, src, seq): arrival order is irrelevant.
      try {
        if (!receive_failed) s.receive(inbox);
      } catch (const std::bad_alloc& e) {
        // Reported by the next round's reduction, like a model error.
        receive_failed = true;
        s.fail("receiving events from other ranks: " + describe(e));
      }
    }
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    for (auto& box : outbox) box.clear();
    return global;
  };

  // Models that bound their remote events get windows up to the earliest
  // such event; the scan for it is capped at this many lookaheads ahead. Where
  // it does not widen them (traffic across the cut all the time), the scan is
  // skipped for a while: each probe of kProbe windows that gains less than 5%
  // of the lookahead on average turns it off for kRest windows. The decision
  // uses reduced values only, so every rank takes it alike.
  const bool sharp = model.bounds_remote_events();
  constexpr Time kMaxWindows = 64;
  constexpr std::uint64_t kProbe = 1024, kRest = 15 * kProbe;
  bool scanning = sharp;
  std::uint64_t phase_windows = 0;
  Time gained = 0;
  std::uint64_t busy_ns = 0;
  std::uint64_t windows = 0;
  Time spanned = 0;  // the windows' widths, summed
  // The window just processed, reported by the next round.
  std::uint64_t window_events = 0, window_busy_ns = 0;
  std::uint64_t critical_events = 0, critical_ns = 0;
  WindowHistogram histogram;
  WindowStats global{};
  for (;;) {
    const WindowStats local{
        .next_time = s.next_time(),
        .committed = s.committed(),
        .last_time = s.last_time(),
        .busy_ns = busy_ns,
        .busy_ns_max = busy_ns,
        .error_rank = s.failed() ? static_cast<std::uint64_t>(rank) : ~std::uint64_t{0},
        .remote_events = remote_sent,
        .work_done = model.progress_done(),
        .epoch_min = epochs.next(),
        .epoch_max = epochs.next(),
        .counters_min = epochs.counters(),
        .counters_max = epochs.counters(),
        .interrupt = static_cast<std::uint64_t>(base::interrupt_signal()),
        .window_events_max = window_events,
        .window_busy_ns_max = window_busy_ns,
        .remote_bound =
            scanning ? s.remote_bound(saturating_add(
                           s.next_time(),
                           lookahead > kTimeMax / kMaxWindows ? kTimeMax : kMaxWindows * lookahead))
                     : kTimeMax,
    };
    window_events = window_busy_ns = 0;
    global = exchange(local);
    critical_events += global.window_events_max;
    critical_ns += global.window_busy_ns_max;
    if (global.error_rank != ~std::uint64_t{0}) {
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
    const double mean_busy = static_cast<double>(global.busy_ns) / ranks;
    progress.maybe_report(global.last_time, global.committed,
                          mean_busy > 0 ? static_cast<double>(global.busy_ns_max) / mean_busy : 1.0,
                          global.work_done);
    const Time start = global.next_time;
    if (start >= options.end_time) break;  // also when no events are left (kTimeMax)
    if (start >= epochs.next()) {
      // One exact reduction; then back to the window reduction, which
      // reports a planner's error before any event runs.
      epochs.run([&](const std::vector<std::uint64_t>& mine, std::vector<std::uint64_t>& totals) {
        MPI_Allreduce(mine.data(), totals.data(), static_cast<int>(mine.size()), MPI_UINT64_T,
                      MPI_SUM, c);
      });
      continue;
    }
    // Idle stretches are skipped: the window opens at the next event anywhere.
    const Time plain = saturating_add(start, lookahead);
    const Time widest = scanning ? std::max<Time>(global.remote_bound, plain) : plain;
    if (sharp) {
      gained += widest - plain;
      if (++phase_windows == (scanning ? kProbe : kRest)) {
        scanning = !scanning || gained >= kProbe * lookahead / 20;
        phase_windows = 0;
        gained = 0;
      }
    }
    const Time bound = std::min({widest, epochs.next(), options.end_time});
    s.set_horizon(bound);
    spanned += bound - start;
    const auto t0 = Clock::now();
    window_events = s.process_until(bound, ~std::uint64_t{0});
    window_busy_ns = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
    busy_ns += window_busy_ns;
    histogram.add(window_events);
    ++windows;
  }
  result.committed_events = global.committed;
  result.last_event_time = global.last_time;
  result.lookahead = lookahead;
  result.windows = windows;
  result.mean_window = windows > 0 ? spanned / windows : 0;
  result.epochs = epochs.count();
  result.remote_events = global.remote_events;
  result.busy_seconds_max = static_cast<double>(global.busy_ns_max) * 1e-9;
  result.busy_seconds_mean = static_cast<double>(global.busy_ns) * 1e-9 / ranks;
  result.critical_path_events = critical_events;
  result.critical_path_seconds = static_cast<double>(critical_ns) * 1e-9;
  gather_scaling(comm, histogram, s.committed(), busy_ns, result);
}

}  // namespace sipsim::pdes::detail
