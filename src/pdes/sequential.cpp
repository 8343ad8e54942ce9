// The sequential engine: -n 1 and the tests.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "engines.hpp"
#include "progress.hpp"
#include "run_stats.hpp"
#include "sipsim/base/interrupt.hpp"
#include "sipsim/pdes/window_histogram.hpp"
#include "wall_clock.hpp"

namespace sipsim::pdes::detail {

// Sequential: every event in key order, no windows, no communication. Epochs
// are run where the windowed engine runs them; the sum is this rank's own.
void run_sequential(const Model& model, Scheduler& s, Epochs& epochs,
                    const boost::mpi::communicator& comm, const EngineOptions& options,
                    RunResult& result) {
  const auto t0 = Clock::now();
  Progress progress(options.progress_interval_s, options.end_time, model.progress_total(), true);
  // Events between checks of the progress clock and of an interrupt: 2^16
  // are a few milliseconds of work (~70 ns each, docs/performance.md), soon
  // enough for a prompt stop, and the checks cost nothing per event.
  constexpr std::uint64_t kEventsPerCheck = 1u << 16;
  while (!s.failed()) {
    if (const int signal = base::interrupt_signal(); signal != 0) {
      throw Interrupted(signal, s.last_time());
    }
    const Time next = s.next_time();
    if (next >= options.end_time) break;
    if (next >= epochs.next()) {
      epochs.run([](const std::vector<std::uint64_t>& local,
                    std::vector<std::uint64_t>& totals) { totals = local; },
                 [](const std::vector<std::uint64_t>& mine,
                    std::vector<std::vector<std::uint64_t>>& all) { all.assign(1, mine); });
      continue;
    }
    s.process_until(std::min(epochs.next(), options.end_time), kEventsPerCheck);
    progress.maybe_report(s.last_time(), s.committed(), 1.0, model.progress_done());
  }
  if (s.failed()) throw EngineError(s.error(), true);
  result.committed_events = s.committed();
  result.last_event_time = s.last_time();
  result.lookahead = kTimeMax;
  result.windows = 1;
  result.epochs = epochs.count();
  // One window holding every event: the scaling figures of a one-rank run.
  const std::uint64_t busy_ns = nanoseconds_since(t0);
  result.busy_seconds_max = result.busy_seconds_mean = static_cast<double>(busy_ns) * 1e-9;
  result.critical_path_events = s.committed();
  result.critical_path_seconds = result.busy_seconds_max;
  WindowHistogram histogram;
  histogram.add(s.committed());
  gather_scaling(comm, histogram, s.committed(), busy_ns, result);
}

}  // namespace sipsim::pdes::detail
