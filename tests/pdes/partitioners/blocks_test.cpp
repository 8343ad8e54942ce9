#include "sipsim/pdes/partitioners/blocks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace sipsim::pdes::partitioners {
namespace {

TEST(Blocks, AreContiguousAndBalanced) {
  for (int ranks : {1, 2, 3, 4, 7}) {
    const auto p = blocks(100, ranks);
    std::size_t total = 0, smallest = 1000, largest = 0;
    LpId next = 0;
    for (int r = 0; r < ranks; ++r) {
      const auto lps = p.lps_of(r);
      total += lps.size();
      smallest = std::min(smallest, lps.size());
      largest = std::max(largest, lps.size());
      for (std::size_t i = 0; i < lps.size(); ++i) {
        EXPECT_EQ(lps[i], next++);
        EXPECT_EQ(p.owner(lps[i]), r);
        EXPECT_EQ(p.local_index(lps[i]), i);
      }
    }
    EXPECT_EQ(total, 100u);
    EXPECT_LE(largest - smallest, 1u);
  }
}

TEST(Blocks, MoreRanksThanLpsLeavesSomeRanksEmpty) {
  const auto p = blocks(3, 5);
  EXPECT_EQ(p.ranks(), 5);
  std::size_t total = 0;
  for (int r = 0; r < 5; ++r) {
    EXPECT_LE(p.lps_of(r).size(), 1u);
    total += p.lps_of(r).size();
  }
  EXPECT_EQ(total, 3u);
  EXPECT_EQ(blocks(0, 2).lp_count(), 0u);
}

TEST(Blocks, RejectsNoRanks) {
  EXPECT_THROW(blocks(4, 0), std::invalid_argument);
}

TEST(PhasedBlocks, SpreadEveryPhaseOverAllRanksInIdBlocks) {
  // Three stages of 8, 8 and 6 nodes, then 3 idle ones (phase 3), interleaved
  // the way a pipeline's stages are laid out: stage-major.
  std::vector<std::uint32_t> phase;
  for (std::uint32_t s = 0; s < 3; ++s) phase.insert(phase.end(), s < 2 ? 8 : 6, s);
  phase.insert(phase.end(), 3, 3);
  for (int ranks : {1, 2, 3, 4}) {
    const auto p = phased_blocks(phase, ranks);
    for (std::uint32_t s = 0; s < 4; ++s) {
      std::vector<std::size_t> per_rank(ranks, 0);
      int last = 0;
      std::size_t k = 0, n = 0;
      for (std::uint32_t lp = 0; lp < phase.size(); ++lp) n += phase[lp] == s;
      for (std::uint32_t lp = 0; lp < phase.size(); ++lp) {
        if (phase[lp] != s) continue;
        const int r = p.owner(lp);
        EXPECT_EQ(static_cast<std::size_t>(r), k++ * ranks / n) << "lp " << lp;
        EXPECT_GE(r, last);  // a phase's LPs in id order: contiguous per rank
        last = r;
        ++per_rank[r];
      }
      const auto [lo, hi] = std::minmax_element(per_rank.begin(), per_rank.end());
      EXPECT_LE(*hi - *lo, 1u) << "phase " << s << " on " << ranks << " ranks";
    }
  }
}

TEST(PhasedBlocks, OnePhaseIsBlocks) {
  const std::vector<std::uint32_t> one(97, 0);
  for (int ranks : {1, 2, 5}) {
    const auto a = phased_blocks(one, ranks);
    const auto b = blocks(97, ranks);
    for (LpId lp = 0; lp < 97; ++lp) EXPECT_EQ(a.owner(lp), b.owner(lp));
  }
}

}  // namespace
}  // namespace sipsim::pdes::partitioners
