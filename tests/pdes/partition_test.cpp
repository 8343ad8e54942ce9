#include "sipsim/pdes/partition.hpp"

#include <gtest/gtest.h>

namespace sipsim::pdes {
namespace {

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
  EXPECT_THROW(Partition::from_owners({0, 0}, 0), std::invalid_argument);
}

}  // namespace
}  // namespace sipsim::pdes
