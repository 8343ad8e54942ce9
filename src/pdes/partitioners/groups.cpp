#include "sipsim/pdes/partitioners/groups.hpp"

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace sipsim::pdes::partitioners {

Partition groups(std::span<const std::uint32_t> group_of, std::span<const std::uint64_t> weight,
                 int ranks) {
  if (ranks < 1) throw std::invalid_argument("a partition needs at least one rank");
  const auto r = static_cast<std::uint64_t>(ranks);
  // before[g]: weight of the groups ahead of g.
  std::vector<std::uint64_t> before(weight.size() + 1, 0);
  for (std::size_t g = 0; g < weight.size(); ++g) {
    if (weight[g] > std::numeric_limits<std::uint64_t>::max() / r - before[g]) {
      throw std::invalid_argument("groups partition: the total weight times " +
                                  std::to_string(ranks) + " ranks overflows 64 bits");
    }
    before[g + 1] = before[g] + weight[g];
  }
  const std::uint64_t total = before.back() > 0 ? before.back() : 1;
  std::vector<std::uint32_t> owner(group_of.size());
  std::uint32_t spread = 0;
  for (std::size_t lp = 0; lp < group_of.size(); ++lp) {
    const std::uint32_t g = group_of[lp];
    if (g == kSpread) {
      owner[lp] = static_cast<std::uint32_t>(spread++ % r);
      continue;
    }
    if (g >= weight.size()) {
      throw std::invalid_argument("groups partition: LP " + std::to_string(lp) + " is in group " +
                                  std::to_string(g) + " of " + std::to_string(weight.size()));
    }
    owner[lp] = static_cast<std::uint32_t>(before[g] * r / total);
  }
  return Partition::from_owners(std::move(owner), ranks);
}

}  // namespace sipsim::pdes::partitioners
