#pragma once
// A GPU's slowdowns (the scenario's `gpu-slowdown` faults, docs/faults.md):
// windows in which it computes at a fraction of its speed. A compute op of
// duration d that starts at t ends when the work done, at speed 1 outside
// the windows and `factor` inside, reaches d: the op takes 1/factor longer
// for the part that runs inside a window.
#include <cstdint>
#include <span>

#include "sipsim/pdes/time.hpp"

namespace sipsim::workload {

struct Slowdown {
  std::uint32_t node = 0;  // the fabric node whose GPU slows down
  pdes::Time at = 0;
  pdes::Time until = pdes::kTimeMax;
  double factor = 1.0;  // in (0, 1)
};

// The end of `work` ps of full-speed compute started at `start` under
// `windows` (sorted by `at`, disjoint). The time inside a window is rounded
// up to the picosecond; with no window it is start + work exactly.
pdes::Time slowed_end(pdes::Time start, pdes::Time work, std::span<const Slowdown> windows);

}  // namespace sipsim::workload
