// BCube: structure, digit-correcting routing, groups and validation.
#include "sipsim/fabric/electrical/bcube.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <ostream>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../routed/topology_checks.hpp"

namespace sipsim::fabric {
namespace {

using namespace testing;
using pdes::kNanosecond;

// ---------------------------------------------------------------------------
// BCube

BcubeSpec MakeBcubeSpec(std::uint32_t n, std::uint32_t levels) {
  BcubeSpec s;
  s.ports = n;
  s.levels = levels;
  s.link_rate_bps = 100'000'000'000;
  s.switch_latency = 300 * kNanosecond;
  s.propagation = 5 * kNanosecond;
  return s;
}

class BcubeTest : public ::testing::TestWithParam<std::pair<std::uint32_t, std::uint32_t>> {};

TEST_P(BcubeTest, StructureRoutingGroups) {
  const auto [n, levels] = GetParam();
  const auto t = make_bcube(MakeBcubeSpec(n, levels));
  std::uint32_t nodes = 1;
  for (std::uint32_t l = 0; l < levels; ++l) nodes *= n;
  const std::uint32_t per_level = nodes / n;
  EXPECT_EQ(t->nodes(), nodes);
  EXPECT_EQ(t->switches(), levels * per_level);
  EXPECT_EQ(t->links().size(), 2ull * levels * nodes);
  ExpectWellFormed(*t);
  // Node v's level-l switch: nodes + l*n^(levels-1) + (v without digit l).
  for (Vertex v = 0; v < nodes; ++v) {
    std::set<Vertex> expected;
    std::uint32_t pow = 1;
    for (std::uint32_t l = 0; l < levels; ++l, pow *= n) {
      expected.insert(nodes + l * per_level + v / (pow * n) * pow + v % pow);
    }
    std::set<Vertex> actual;
    for (LinkId l : t->out_links(v)) {
      actual.insert(t->link(l).to);
      EXPECT_EQ(t->link(l).latency, 305 * kNanosecond);
    }
    EXPECT_EQ(actual, expected) << "node " << v;
  }
  for (Vertex s = nodes; s < t->vertices(); ++s) {
    EXPECT_EQ(t->out_links(s).size(), n);
    for (LinkId l : t->out_links(s)) EXPECT_EQ(t->link(l).latency, 5 * kNanosecond);
  }
  ExpectShortestRoutes(*t, 1);
  ExpectRoutesFromEveryVertex(*t);
  // BCubeRouting order: a node first takes the switch of its highest
  // differing digit (the switch's level is (id - nodes) / n^(levels-1)).
  for (Vertex a = 0; a < nodes; ++a) {
    for (Vertex b = 0; b < nodes; ++b) {
      if (a == b) continue;
      std::uint32_t top = 0;
      for (std::uint32_t x = a, y = b, l = 0; l < levels; ++l, x /= n, y /= n) {
        if (x % n != y % n) top = l;
      }
      EXPECT_EQ((t->link(t->next_link(a, b, 9)).to - nodes) / per_level, top) << a << " -> " << b;
    }
  }
  // Path length is twice the Hamming distance of the digit strings.
  for (Vertex a = 0; a < nodes; ++a) {
    for (Vertex b = 0; b < nodes; ++b) {
      if (a == b) continue;
      std::size_t hamming = 0;
      for (std::uint32_t x = a, y = b, l = 0; l < levels; ++l, x /= n, y /= n)
        hamming += x % n != y % n;
      EXPECT_EQ(Route(*t, a, b, 0).size(), 2 * hamming);
    }
  }
  ExpectGroupsInRange(*t);
  EXPECT_EQ(t->groups(), n);
  for (Vertex v = 0; v < nodes; ++v) EXPECT_EQ(t->group_of(v), v / per_level);
  for (Vertex s = nodes; s < t->vertices(); ++s) {
    Vertex lowest = nodes;
    for (LinkId l : t->out_links(s)) lowest = std::min(lowest, t->link(l).to);
    EXPECT_EQ(t->group_of(s), t->group_of(lowest));
  }
  ExpectSameFabric(*t, *make_bcube(MakeBcubeSpec(n, levels)));
}

INSTANTIATE_TEST_SUITE_P(Small, BcubeTest,
                         ::testing::Values(std::make_pair(2u, 1u), std::make_pair(2u, 2u),
                                           std::make_pair(2u, 3u), std::make_pair(3u, 1u),
                                           std::make_pair(3u, 2u), std::make_pair(3u, 3u),
                                           std::make_pair(4u, 1u), std::make_pair(4u, 2u),
                                           std::make_pair(4u, 3u)));

TEST(Bcube, DescribeAndInvalidSpecs) {
  EXPECT_EQ(make_bcube(MakeBcubeSpec(4, 2))->describe(),
            "bcube: BCube(4,1), 16 nodes, 8 switches of 4 ports in 2 levels, 100Gbps links");
  ExpectInvalid([] { make_bcube(MakeBcubeSpec(1, 2)); }, "ports (n) must be >= 2 (got 1)");
  ExpectInvalid([] { make_bcube(MakeBcubeSpec(4, 0)); }, "levels (k + 1) must be >= 1");
  ExpectInvalid([] { make_bcube(MakeBcubeSpec(1024, 4)); }, "ports 1024 and levels 4");
  BcubeSpec s = MakeBcubeSpec(4, 2);
  s.link_rate_bps = 0;
  ExpectInvalid([s] { make_bcube(s); }, "link_rate_bps must be > 0");
}

}  // namespace
}  // namespace sipsim::fabric
