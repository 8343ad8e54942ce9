#pragma once
// The windowed engine's one reduction per window (src/pdes/windowed.cpp): what
// each rank contributes, and the MPI datatypes and operation that combine it.
#include <mpi.h>

#include <cstdint>

namespace sipsim::pdes::detail {

// What every rank contributes to the one reduction per window. The reduced
// buffer is this header followed by one word per rank: how many ranks send
// to that rank in this window (sum), so no all-to-all of counts is needed.
struct WindowStats {
  // min: the next window starts here (this rank's queue and the events it
  // is sending, so that events in flight count)
  std::uint64_t next_time;
  std::uint64_t committed;      // sum
  std::uint64_t last_time;      // max
  std::uint64_t busy_ns;        // sum: time spent processing events
  std::uint64_t busy_ns_max;    // max
  std::uint64_t error_rank;     // min: lowest rank with an error, or max
  std::uint64_t remote_events;  // sum
  std::uint64_t work_done;      // sum: Model::progress_done
  // min and max: ranks that disagree on the epochs would deadlock in the
  // epoch reduction, so the engine stops them first.
  std::uint64_t epoch_min, epoch_max;
  std::uint64_t counters_min, counters_max;
  std::uint64_t interrupt;  // max: a signal any rank received, or 0
  // The window just processed (0 after an epoch or the start): max over
  // ranks of its events and of its busy time, for the critical path.
  std::uint64_t window_events_max;
  std::uint64_t window_busy_ns_max;
  // min: the earliest event on another rank any rank's events can lead to
  // (Model::remote_bound), for models that bound it; else kTimeMax.
  std::uint64_t remote_bound;
};
inline constexpr int kStatsWords = sizeof(WindowStats) / sizeof(std::uint64_t);

// MPI handles freed on scope exit: events as bytes, the stats buffer (the
// header and one word per rank) and its merge operation.
class MpiTypes {
 public:
  explicit MpiTypes(int ranks);
  ~MpiTypes();
  MpiTypes(const MpiTypes&) = delete;
  MpiTypes& operator=(const MpiTypes&) = delete;
  MPI_Datatype event() const { return event_; }
  MPI_Datatype stats() const { return stats_; }
  MPI_Op merge() const { return merge_; }

 private:
  MPI_Datatype event_{}, stats_{};
  MPI_Op merge_{};
};

}  // namespace sipsim::pdes::detail
