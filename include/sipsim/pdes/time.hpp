#pragma once
// Simulated time is an integer count of picoseconds (docs/architecture.md): no floating
// point in the kernel, which is what makes runs reproducible. 2^64 ps ≈ 213 days.
#include <cstdint>
#include <limits>

namespace sipsim::pdes {

using Time = std::uint64_t;
inline constexpr Time kTimeMax = std::numeric_limits<Time>::max();

inline constexpr Time kPicosecond = 1;
inline constexpr Time kNanosecond = 1'000;
inline constexpr Time kMicrosecond = 1'000'000;
inline constexpr Time kMillisecond = 1'000'000'000;
inline constexpr Time kSecond = 1'000'000'000'000;

// a + b, clamped at kTimeMax instead of wrapping.
constexpr Time saturating_add(Time a, Time b) {
  return b > kTimeMax - a ? kTimeMax : a + b;
}

constexpr double to_seconds(Time t) {
  return static_cast<double>(t) * 1e-12;
}

}  // namespace sipsim::pdes
