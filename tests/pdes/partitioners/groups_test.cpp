#include "sipsim/pdes/partitioners/groups.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace sipsim::pdes::partitioners {
namespace {

std::vector<int> owners(const Partition& p) {
  std::vector<int> out(p.lp_count());
  for (LpId lp = 0; lp < p.lp_count(); ++lp) out[lp] = p.owner(lp);
  return out;
}

TEST(Groups, KeepGroupsWholeInContiguousWeightBalancedBlocks) {
  // Four groups of weight 2; LPs listed out of group order.
  const std::vector<std::uint32_t> group = {0, 0, 1, 1, 2, 2, 3, 3, 3, 0};
  const std::vector<std::uint64_t> weight = {2, 2, 2, 2};
  EXPECT_EQ(owners(groups(group, weight, 1)), (std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(owners(groups(group, weight, 2)), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1, 1, 0}));
  EXPECT_EQ(owners(groups(group, weight, 4)), (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3, 3, 0}));
  // Three ranks: group g starts at weight 2g of 8, so ranks 0, 0, 1, 2.
  EXPECT_EQ(owners(groups(group, weight, 3)), (std::vector<int>{0, 0, 0, 0, 1, 1, 2, 2, 2, 0}));
}

TEST(Groups, WeightsDecideTheBlocks) {
  // A heavy first group takes rank 0 alone; the light ones share rank 1.
  const std::vector<std::uint32_t> group = {0, 1, 2, 3};
  EXPECT_EQ(owners(groups(group, std::vector<std::uint64_t>{6, 2, 2, 2}, 2)),
            (std::vector<int>{0, 1, 1, 1}));
  EXPECT_EQ(owners(groups(group, std::vector<std::uint64_t>{1, 1, 1, 9}, 2)),
            (std::vector<int>{0, 0, 0, 0}));
  // Zero total weight: everything on rank 0 (no division by zero).
  EXPECT_EQ(owners(groups(group, std::vector<std::uint64_t>{0, 0, 0, 0}, 3)),
            (std::vector<int>{0, 0, 0, 0}));
}

TEST(Groups, SpreadLpsGoRoundRobinInIdOrder) {
  const std::vector<std::uint32_t> group = {0, kSpread, 1, kSpread, kSpread, 1, kSpread, 0};
  const std::vector<std::uint64_t> weight = {1, 1};
  EXPECT_EQ(owners(groups(group, weight, 3)), (std::vector<int>{0, 0, 1, 1, 2, 1, 0, 0}));
  EXPECT_EQ(owners(groups(group, weight, 2)), (std::vector<int>{0, 0, 1, 1, 0, 1, 1, 0}));
}

TEST(Groups, RejectsBadInput) {
  const std::vector<std::uint64_t> weight = {1, 1};
  try {
    groups(std::vector<std::uint32_t>{0, 2}, weight, 2);
    FAIL() << "group 2 of 2 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "groups partition: LP 1 is in group 2 of 2");
  }
  EXPECT_THROW(groups(std::vector<std::uint32_t>{0}, weight, 0), std::invalid_argument);
  const std::vector<std::uint64_t> huge = {std::numeric_limits<std::uint64_t>::max() / 2, 1};
  EXPECT_THROW(groups(std::vector<std::uint32_t>{0, 1}, huge, 2), std::invalid_argument);
  EXPECT_NO_THROW(groups(std::vector<std::uint32_t>{0, 1}, huge, 1));
}

}  // namespace
}  // namespace sipsim::pdes::partitioners
