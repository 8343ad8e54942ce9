#include "sipsim/pdes/partition.hpp"

#include <gtest/gtest.h>

namespace sipsim::pdes {
namespace {

TEST(Partition, BlocksAreContiguousAndBalanced) {
  for (int ranks : {1, 2, 3, 4, 7}) {
    const auto p = Partition::blocks(100, ranks);
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

TEST(Partition, FromOwnersKeepsIdsAscendingPerRank) {
  const auto p = Partition::from_owners({1, 0, 1, 0, 1}, 2);
  ASSERT_EQ(p.lps_of(0).size(), 2u);
  ASSERT_EQ(p.lps_of(1).size(), 3u);
  EXPECT_EQ(p.lps_of(1)[2], 4u);
  EXPECT_EQ(p.local_index(4), 2u);
  EXPECT_EQ(p.local_index(3), 1u);
}

TEST(Partition, RejectsUnknownRanks) {
  EXPECT_THROW(Partition::from_owners({0, 2}, 2), std::invalid_argument);
  EXPECT_THROW(Partition::blocks(4, 0), std::invalid_argument);
}

}  // namespace
}  // namespace sipsim::pdes
