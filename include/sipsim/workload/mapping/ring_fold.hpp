#pragma once
// Laying a ring out on a ring fabric (SiP-Ring, SiP-ML §3.2, §5): a group of
// k members on k consecutive fabric nodes, its own ring's neighbours r and
// r + 1 (mod k) close on the fibre, the wrap-around included. One helper for
// every mapping that folds its groups (the graph's MP groups; the folded
// ring mapper's every axis, mapping/mapper.hpp).
#include <cstdint>

namespace sipsim::workload::mapping {

// Where position r of a group of k sits among the group's k consecutive
// nodes when folded: 0, k-1, 1, k-2, 2, ... in node order, so that positions
// r and r + 1 (mod k) are at most 2 nodes apart (the straight order puts
// k - 1 and 0 k - 1 apart). A permutation of 0 .. k-1.
constexpr std::uint32_t folded_slot(std::uint32_t r, std::uint32_t k) {
  return 2 * r < k ? 2 * r : 2 * (k - 1 - r) + 1;
}

}  // namespace sipsim::workload::mapping
