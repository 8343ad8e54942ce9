#pragma once
// Which rank runs which LP (docs/architecture.md). Chosen by the model, which knows the
// locality of its links, through the partitioners in pdes/partitioners/ (the
// default is partitioners::blocks); every partitioner builds it with from_owners.
#include <cstdint>
#include <span>
#include <vector>

#include "sipsim/pdes/event.hpp"

namespace sipsim::pdes {

class Partition {
 public:
  // owner[lp] = rank; every rank in [0, ranks) may own any set of LPs.
  static Partition from_owners(std::vector<std::uint32_t> owner, int ranks);

  int ranks() const { return ranks_; }
  std::uint32_t lp_count() const { return static_cast<std::uint32_t>(owner_.size()); }
  int owner(LpId lp) const { return static_cast<int>(owner_[lp]); }
  // Position of `lp` among its owner's LPs, which are ordered by id.
  std::uint32_t local_index(LpId lp) const { return local_index_[lp]; }
  // The LPs of `rank`, ascending.
  std::span<const LpId> lps_of(int rank) const;

 private:
  Partition(std::vector<std::uint32_t> owner, int ranks);
  int ranks_ = 1;
  std::vector<std::uint32_t> owner_;
  std::vector<std::uint32_t> local_index_;
  std::vector<LpId> by_rank_;            // LP ids grouped by rank, ascending within
  std::vector<std::size_t> rank_start_;  // ranks_ + 1 offsets into by_rank_
};

}  // namespace sipsim::pdes
