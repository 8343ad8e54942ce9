#pragma once
// Locality groups in contiguous, weight-balanced blocks of ranks (docs/architecture.md):
// the partition of fabrics whose LPs fall into groups (a server and its leaf
// switch, a torus row) that must not straddle two ranks.
#include <cstdint>
#include <span>

#include "sipsim/pdes/partition.hpp"

namespace sipsim::pdes::partitioners {

// An LP that belongs to no group (a spine switch joining many).
inline constexpr std::uint32_t kSpread = 0xFFFFFFFF;

// group_of[lp] is the LP's group in [0, weight.size()), or kSpread; weight[g]
// is group g's share of the load (e.g. its node count). Group g goes to rank
// floor(W(g) * ranks / W), where W(g) is the weight of the groups before it
// and W the total (at least 1), so groups stay whole and in order, and ranks
// get equal weight up to one group. Spread LPs go round robin over the ranks
// in LP id order, so that no rank carries all of them.
// Throws std::invalid_argument for a group id out of range, ranks < 1, or a
// total weight so large that W * ranks overflows 64 bits.
Partition groups(std::span<const std::uint32_t> group_of, std::span<const std::uint64_t> weight,
                 int ranks);

}  // namespace sipsim::pdes::partitioners
