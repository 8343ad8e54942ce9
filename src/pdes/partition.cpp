#include "sipsim/pdes/partition.hpp"

#include <stdexcept>
#include <string>

namespace sipsim::pdes {

Partition Partition::from_owners(std::vector<std::uint32_t> owner, int ranks) {
  if (ranks < 1) throw std::invalid_argument("a partition needs at least one rank");
  for (std::size_t i = 0; i < owner.size(); ++i) {
    if (owner[i] >= static_cast<std::uint32_t>(ranks)) {
      throw std::invalid_argument("partition: LP " + std::to_string(i) + " is given rank " +
                                  std::to_string(owner[i]) + " of " + std::to_string(ranks));
    }
  }
  return Partition(std::move(owner), ranks);
}

Partition::Partition(std::vector<std::uint32_t> owner, int ranks)
    : ranks_(ranks), owner_(std::move(owner)), local_index_(owner_.size()) {
  rank_start_.assign(static_cast<std::size_t>(ranks_) + 1, 0);
  for (std::uint32_t r : owner_) ++rank_start_[r + 1];
  for (int r = 0; r < ranks_; ++r) rank_start_[r + 1] += rank_start_[r];
  by_rank_.resize(owner_.size());
  std::vector<std::size_t> fill(rank_start_.begin(), rank_start_.end() - 1);
  for (std::size_t lp = 0; lp < owner_.size(); ++lp) {
    const std::size_t at = fill[owner_[lp]]++;
    by_rank_[at] = static_cast<LpId>(lp);
    local_index_[lp] = static_cast<std::uint32_t>(at - rank_start_[owner_[lp]]);
  }
}

std::span<const LpId> Partition::lps_of(int rank) const {
  const auto r = static_cast<std::size_t>(rank);
  return std::span<const LpId>(by_rank_).subspan(rank_start_[r],
                                                 rank_start_[r + 1] - rank_start_[r]);
}

}  // namespace sipsim::pdes
