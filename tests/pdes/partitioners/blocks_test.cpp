#include "sipsim/pdes/partitioners/blocks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

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

}  // namespace
}  // namespace sipsim::pdes::partitioners
