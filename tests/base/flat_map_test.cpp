#include "sipsim/base/flat_map.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>

#include "sipsim/base/fifo.hpp"

namespace sipsim::base {
namespace {

TEST(FlatMap, EmptyMapFindsNothing) {
  FlatMap<std::uint64_t, int> m;
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.find(7), nullptr);
  EXPECT_FALSE(m.erase(7));
}

TEST(FlatMap, InsertFindErase) {
  FlatMap<std::uint64_t, int> m;
  m[3] = 30;
  m[5] = 50;
  EXPECT_EQ(m.size(), 2u);
  ASSERT_NE(m.find(3), nullptr);
  EXPECT_EQ(*m.find(3), 30);
  EXPECT_EQ(m[3], 30);  // present: not reset
  EXPECT_TRUE(m.erase(3));
  EXPECT_EQ(m.find(3), nullptr);
  EXPECT_EQ(*m.find(5), 50);
  EXPECT_EQ(m.size(), 1u);
}

// Random inserts and erases against std::map: backward-shift erase keeps every
// probe chain intact, through growth and wrap-around.
TEST(FlatMap, MatchesStdMapUnderChurn) {
  FlatMap<std::uint64_t, std::uint64_t> m;
  std::map<std::uint64_t, std::uint64_t> ref;
  std::mt19937_64 rng(42);
  for (int i = 0; i < 200000; ++i) {
    const std::uint64_t k = rng() % 512;  // few keys: long chains, many collisions
    if (rng() % 3 == 0) {
      EXPECT_EQ(m.erase(k), ref.erase(k) == 1);
    } else {
      m[k] += i;
      ref[k] += i;
    }
    if (i % 997 == 0) {
      ASSERT_EQ(m.size(), ref.size());
      for (const auto& [key, v] : ref) {
        ASSERT_NE(m.find(key), nullptr);
        ASSERT_EQ(*m.find(key), v);
      }
      std::size_t seen = 0;
      m.for_each([&](std::uint64_t key, std::uint64_t v) {
        ++seen;
        EXPECT_EQ(ref.at(key), v);
      });
      EXPECT_EQ(seen, ref.size());
    }
  }
}

TEST(FlatMap, MovableValuesSurviveGrowthAndErase) {
  FlatMap<std::uint64_t, Fifo<std::uint32_t>> m;
  for (std::uint32_t k = 0; k < 100; ++k) {
    m[k].push_back(k);
    m[k].push_back(k + 1000);
  }
  for (std::uint32_t k = 0; k < 100; k += 2) EXPECT_TRUE(m.erase(k));
  for (std::uint32_t k = 1; k < 100; k += 2) {
    Fifo<std::uint32_t>* f = m.find(k);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->front(), k);
    f->pop_front();
    EXPECT_EQ(f->front(), k + 1000);
  }
  m.clear();
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.find(1), nullptr);
}

}  // namespace
}  // namespace sipsim::base
