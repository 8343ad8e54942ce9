// The window reduction's merge: min, max and sums field by field, then the
// per-rank sender counts.
#include "window_stats.hpp"

#include <algorithm>
#include <cstddef>

#include "sipsim/pdes/event.hpp"

namespace sipsim::pdes::detail {

namespace {

void merge_header(const WindowStats& a, WindowStats& b) {
  b.next_time = std::min(b.next_time, a.next_time);
  b.committed += a.committed;
  b.last_time = std::max(b.last_time, a.last_time);
  b.busy_ns += a.busy_ns;
  b.busy_ns_max = std::max(b.busy_ns_max, a.busy_ns_max);
  b.error_rank = std::min(b.error_rank, a.error_rank);
  b.remote_events += a.remote_events;
  b.work_done += a.work_done;
  b.epoch_min = std::min(b.epoch_min, a.epoch_min);
  b.epoch_max = std::max(b.epoch_max, a.epoch_max);
  b.counters_min = std::min(b.counters_min, a.counters_min);
  b.counters_max = std::max(b.counters_max, a.counters_max);
  b.interrupt = std::max(b.interrupt, a.interrupt);
  b.window_events_max = std::max(b.window_events_max, a.window_events_max);
  b.window_busy_ns_max = std::max(b.window_busy_ns_max, a.window_busy_ns_max);
  b.remote_bound = std::min(b.remote_bound, a.remote_bound);
}

// The operation of the window reduction: the header word by word, then the
// sender counts summed. The datatype's size says how many ranks there are.
void merge_stats(void* in, void* inout, int* len, MPI_Datatype* type) {
  int bytes = 0;
  MPI_Type_size(*type, &bytes);
  const auto words = static_cast<std::size_t>(bytes) / sizeof(std::uint64_t);
  for (int i = 0; i < *len; ++i) {
    const auto* a = reinterpret_cast<const WindowStats*>(static_cast<const std::uint64_t*>(in) +
                                                         static_cast<std::size_t>(i) * words);
    auto* b = reinterpret_cast<WindowStats*>(static_cast<std::uint64_t*>(inout) +
                                             static_cast<std::size_t>(i) * words);
    merge_header(*a, *b);
    const auto* ta = reinterpret_cast<const std::uint64_t*>(a + 1);
    auto* tb = reinterpret_cast<std::uint64_t*>(b + 1);
    for (std::size_t w = kStatsWords; w < words; ++w) tb[w - kStatsWords] += ta[w - kStatsWords];
  }
}

}  // namespace

MpiTypes::MpiTypes(int ranks) {
  MPI_Type_contiguous(static_cast<int>(sizeof(Event)), MPI_BYTE, &event_);
  MPI_Type_commit(&event_);
  MPI_Type_contiguous(kStatsWords + ranks, MPI_UINT64_T, &stats_);
  MPI_Type_commit(&stats_);
  MPI_Op_create(&merge_stats, 1, &merge_);
}

MpiTypes::~MpiTypes() {
  MPI_Op_free(&merge_);
  MPI_Type_free(&stats_);
  MPI_Type_free(&event_);
}

}  // namespace sipsim::pdes::detail
