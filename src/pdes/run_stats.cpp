#include "run_stats.hpp"

#include <mpi.h>

#include <algorithm>
#include <vector>

namespace sipsim::pdes::detail {

void gather_scaling(const boost::mpi::communicator& comm, const WindowHistogram& histogram,
                    std::uint64_t events, std::uint64_t busy_ns, RunResult& result) {
  const auto counts = histogram.counts();
  std::uint64_t used = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] != 0) used = i + 1;
  }
  std::uint64_t k = 0;
  MPI_Allreduce(&used, &k, 1, MPI_UINT64_T, MPI_MAX, MPI_Comm(comm));
  const std::size_t row = 3 + k;
  std::vector<std::uint64_t> mine(row);
  mine[0] = events;
  mine[1] = busy_ns;
  mine[2] = histogram.max();
  std::copy_n(counts.begin(), k, mine.begin() + 3);
  const auto ranks = static_cast<std::size_t>(comm.size());
  std::vector<std::uint64_t> all(row * ranks);
  MPI_Allgather(mine.data(), static_cast<int>(row), MPI_UINT64_T, all.data(), static_cast<int>(row),
                MPI_UINT64_T, MPI_Comm(comm));
  result.window_histogram.assign(k, 0);
  result.rank_window_histogram.resize(k * ranks);
  result.rank_events.resize(ranks);
  result.rank_window_max.resize(ranks);
  result.rank_busy_seconds.resize(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    const std::uint64_t* p = all.data() + r * row;
    result.rank_events[r] = p[0];
    result.rank_busy_seconds[r] = static_cast<double>(p[1]) * 1e-9;
    result.rank_window_max[r] = p[2];
    for (std::size_t i = 0; i < k; ++i) {
      result.rank_window_histogram[r * k + i] = p[3 + i];
      result.window_histogram[i] += p[3 + i];
    }
  }
}

}  // namespace sipsim::pdes::detail
