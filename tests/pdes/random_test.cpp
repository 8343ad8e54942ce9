#include "sipsim/pdes/random.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace sipsim::pdes {
namespace {

// Known-answer vectors of the Random123 distribution (tests/kat_vectors).
TEST(Philox, KnownAnswers) {
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (PhiloxBlock{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(
      philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
      (PhiloxBlock{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(
      philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
      (PhiloxBlock{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(RandomStream, SameKeySameNumbersWhateverTheInterleaving) {
  RandomStream a(7, 3), b(7, 3), other(7, 4);
  std::vector<std::uint64_t> first;
  for (int i = 0; i < 100; ++i) {
    first.push_back(a.next_u64());
    other.next_u64();  // draws of another LP must not disturb this one
  }
  for (int i = 0; i < 100; ++i) EXPECT_EQ(b.next_u64(), first[static_cast<std::size_t>(i)]);
}

TEST(RandomStream, StreamsDifferBySeedLpAndStream) {
  std::set<std::uint64_t> seen;
  for (std::uint64_t seed : {1u, 2u}) {
    for (std::uint32_t lp : {0u, 1u}) {
      for (std::uint32_t stream : {0u, 1u}) {
        RandomStream r(seed, lp, stream);
        EXPECT_TRUE(seen.insert(r.next_u64()).second);
      }
    }
  }
}

TEST(RandomStream, UniformAndExponentialMoments) {
  RandomStream r(123, 9);
  constexpr int kN = 200'000;
  double sum = 0, esum = 0;
  for (int i = 0; i < kN; ++i) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    esum += r.exponential(2.5);
  }
  EXPECT_NEAR(sum / kN, 0.5, 0.005);
  EXPECT_NEAR(esum / kN, 2.5, 0.05);
}

TEST(RandomStream, BelowStaysInRangeAndCoversIt) {
  RandomStream r(5, 5);
  std::vector<int> hits(7, 0);
  for (int i = 0; i < 70'000; ++i) {
    const auto v = r.below(7);
    ASSERT_LT(v, 7u);
    ++hits[v];
  }
  for (int h : hits) EXPECT_NEAR(h, 10'000, 500);
}

}  // namespace
}  // namespace sipsim::pdes
