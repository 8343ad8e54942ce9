#pragma once
// Wall time as the engines measure it: busy time, progress, the run's length.
#include <chrono>
#include <cstdint>

namespace sipsim::pdes::detail {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

inline std::uint64_t nanoseconds_since(Clock::time_point t0) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
}

}  // namespace sipsim::pdes::detail
