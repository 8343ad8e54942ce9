#pragma once
// RAMP-x's algorithm formulas that code outside the algorithm needs (RAMP §6.1;
// ../shared/docs/MODELS.md §1). The RAMP geometry they read (coordinates,
// transceivers, job placement, the multicast tree's shape) is a fabric fact and
// lives in fabric/ramp/geometry.hpp.
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace sipsim::collective {

// RAMP §6.1's pipelined tree broadcast (fabric::ramp::tree_broadcast_fits).
// Eq. 1: the number of stages k of the pipeline that minimises (k + s - 2)(alpha +
// m*beta/k): k = sqrt((s - 2) * m * beta / alpha), with m*beta the time the whole
// message takes on one transceiver group (`message_ps`; a multicast sends all of it
// on every transceiver, so beta is the inverse of a transceiver group's rate, not of
// the node's total capacity as the paper's text reads) and alpha the stage's set-up
// latency (I/O + propagation). At least 1, at most one stage per slot of data.
inline std::uint32_t broadcast_stages(std::uint64_t message_ps, std::uint64_t alpha_ps,
                                      std::uint64_t max_stages) {
  constexpr double s = 3;  // the tree's diameter
  const double k =
      alpha_ps == 0
          ? 1.0
          : std::sqrt((s - 2) * static_cast<double>(message_ps) / static_cast<double>(alpha_ps));
  const auto rounded = static_cast<std::uint64_t>(std::llround(std::max(1.0, k)));
  return static_cast<std::uint32_t>(
      std::clamp<std::uint64_t>(rounded, 1, std::max<std::uint64_t>(1, max_stages)));
}

}  // namespace sipsim::collective
