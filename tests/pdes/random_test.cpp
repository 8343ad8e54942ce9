#include "sipsim/pdes/random.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

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

TEST(ExpZiggurat, LayersHaveEqualArea) {
  const auto& t = ExpZiggurat::tables();
  constexpr double kV = 3.949659822581572e-3;
  EXPECT_DOUBLE_EQ(t.x[1], 7.69711747013104972);
  for (int i = 1; i < ExpZiggurat::kLayers; ++i) {
    ASSERT_GT(t.x[i], t.x[i + 1]);
    // The top layer closes the curve at f(0) = 1 only if r and V agree.
    EXPECT_NEAR(t.x[i] * (t.f[i + 1] - t.f[i]), kV, 1e-12) << "layer " << i;
  }
  EXPECT_NEAR(t.x[0] * t.f[1], kV, 1e-15);  // base layer: rectangle + tail
}

TEST(ExpZiggurat, MeanVarianceAndTail) {
  RandomStream rng(11, 5);
  constexpr int kN = 2'000'000;
  double sum = 0, sum2 = 0;
  int beyond_r = 0;
  for (int i = 0; i < kN; ++i) {
    const double x = ExpZiggurat::sample(rng);
    ASSERT_GE(x, 0.0);
    sum += x;
    sum2 += x * x;
    if (x > 7.69711747013104972) ++beyond_r;
  }
  const double mean = sum / kN, var = sum2 / kN - mean * mean;
  EXPECT_NEAR(mean, 1.0, 5 * 1.0 / std::sqrt(kN));  // sd of the mean: 1/sqrt(n)
  EXPECT_NEAR(var, 1.0, 5 * std::sqrt(8.0 / kN));   // sd of the variance: sqrt(8/n)
  // The tail beyond r, sampled separately: exp(-r) of the samples (~908).
  const double expected = kN * std::exp(-7.69711747013104972);
  EXPECT_NEAR(beyond_r, expected, 5 * std::sqrt(expected));
}

TEST(ExpZiggurat, KolmogorovSmirnovAgainstTheExactCdf) {
  RandomStream rng(12, 6);
  std::vector<double> xs(200'000);
  for (double& x : xs) x = ExpZiggurat::sample(rng);
  std::sort(xs.begin(), xs.end());
  double d = 0;
  const auto n = static_cast<double>(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double cdf = -std::expm1(-xs[i]);
    d = std::max({d, cdf - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - cdf});
  }
  // 1.95 / sqrt(n) is the 0.1% critical value.
  EXPECT_LT(d * std::sqrt(n), 1.95) << "D = " << d;
}

TEST(ExpZiggurat, DeterministicFromTheStreamAlone) {
  // The same stream gives the same samples and consumes the same draws,
  // however the calls interleave with other LPs' streams.
  RandomStream a(9, 1), b(9, 1), other(9, 2);
  std::vector<double> first;
  for (int i = 0; i < 10'000; ++i) {
    first.push_back(ExpZiggurat::sample(a));
    ExpZiggurat::sample(other);
  }
  for (int i = 0; i < 10'000; ++i) {
    ASSERT_EQ(ExpZiggurat::sample(b), first[static_cast<std::size_t>(i)]);
  }
  EXPECT_EQ(a.counter(), b.counter());
  EXPECT_GT(a.counter(), 10'000u);  // some samples needed a second draw
  EXPECT_LT(a.counter(), 10'500u);  // but only a few %
}

}  // namespace
}  // namespace sipsim::pdes
