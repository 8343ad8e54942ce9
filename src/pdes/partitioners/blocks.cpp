#include "sipsim/pdes/partitioners/blocks.hpp"

#include <stdexcept>
#include <vector>

namespace sipsim::pdes::partitioners {

Partition blocks(std::uint32_t lps, int ranks) {
  if (ranks < 1) throw std::invalid_argument("a partition needs at least one rank");
  std::vector<std::uint32_t> owner(lps);
  const auto r = static_cast<std::uint64_t>(ranks);
  for (std::uint32_t i = 0; i < lps; ++i) {
    owner[i] = static_cast<std::uint32_t>(std::uint64_t{i} * r / lps);
  }
  return Partition::from_owners(std::move(owner), ranks);
}

}  // namespace sipsim::pdes::partitioners
