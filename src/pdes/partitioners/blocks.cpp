#include "sipsim/pdes/partitioners/blocks.hpp"

#include <algorithm>
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

Partition phased_blocks(std::span<const std::uint32_t> phase, int ranks) {
  if (ranks < 1) throw std::invalid_argument("a partition needs at least one rank");
  const std::uint32_t phases =
      phase.empty() ? 0 : *std::max_element(phase.begin(), phase.end()) + 1;
  std::vector<std::uint64_t> size(phases, 0), seen(phases, 0);
  for (const std::uint32_t c : phase) ++size[c];
  std::vector<std::uint32_t> owner(phase.size());
  const auto r = static_cast<std::uint64_t>(ranks);
  for (std::size_t i = 0; i < phase.size(); ++i) {
    const std::uint32_t c = phase[i];
    owner[i] = static_cast<std::uint32_t>(seen[c]++ * r / size[c]);
  }
  return Partition::from_owners(std::move(owner), ranks);
}

}  // namespace sipsim::pdes::partitioners
