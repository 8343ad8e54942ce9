// The 2D torus: structure, dimension-order routing, groups and validation.
#include "sipsim/fabric/electrical/torus2d.hpp"

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
// 2D torus

Torus2dSpec TorusSpec(std::uint32_t x, std::uint32_t y) {
  Torus2dSpec s;
  s.dims[0] = x;
  s.dims[1] = y;
  s.link_rate_bps = 400'000'000'000;
  s.hop_latency = 13 * kNanosecond;
  return s;
}

class TorusTest : public ::testing::TestWithParam<std::pair<std::uint32_t, std::uint32_t>> {};

TEST_P(TorusTest, StructureRoutingGroups) {
  const auto [x, y] = GetParam();
  const auto t = make_torus2d(TorusSpec(x, y));
  // Directed links per ring of size s: 2s (s >= 3), 2 (s == 2), 0 (s == 1).
  auto ring = [](std::uint64_t s) -> std::uint64_t { return s >= 3 ? 2 * s : (s == 2 ? 2 : 0); };
  EXPECT_EQ(t->nodes(), x * y);
  EXPECT_EQ(t->switches(), 0u);
  EXPECT_EQ(t->links().size(), y * ring(x) + x * ring(y));
  for (const Link& l : t->links()) {
    EXPECT_EQ(l.latency, 13 * kNanosecond);
    const std::uint32_t fx = l.from % x, fy = l.from / x, tx = l.to % x, ty = l.to / x;
    const bool x_hop = fy == ty && ((fx + 1) % x == tx || (tx + 1) % x == fx);
    const bool y_hop = fx == tx && ((fy + 1) % y == ty || (ty + 1) % y == fy);
    EXPECT_TRUE(x_hop != y_hop) << l.from << " -> " << l.to;
  }
  ExpectWellFormed(*t);
  ExpectShortestRoutes(*t);
  ExpectRoutesFromEveryVertex(*t);
  ExpectGroupsInRange(*t);
  EXPECT_EQ(t->groups(), y);
  for (Vertex v = 0; v < t->nodes(); ++v) EXPECT_EQ(t->group_of(v), v / x);
  // Dimension order: while x differs, hops stay in the row.
  for (Vertex a = 0; a < t->nodes(); ++a) {
    for (Vertex b = 0; b < t->nodes(); ++b) {
      if (a % x == b % x) continue;
      EXPECT_EQ(t->link(t->next_link(a, b, 5)).to / x, a / x);
    }
  }
  ExpectSameFabric(*t, *make_torus2d(TorusSpec(x, y)));
}

INSTANTIATE_TEST_SUITE_P(Small, TorusTest,
                         ::testing::Values(std::make_pair(1u, 1u), std::make_pair(2u, 3u),
                                           std::make_pair(4u, 4u), std::make_pair(5u, 3u),
                                           std::make_pair(1u, 4u), std::make_pair(2u, 2u),
                                           std::make_pair(6u, 1u)));

TEST(Torus2d, HalfwayTieUsesBothDirections) {
  const auto t = make_torus2d(TorusSpec(4, 4));
  std::set<Vertex> first;
  for (std::uint64_t f = 0; f < 64; ++f) first.insert(t->link(t->next_link(0, 2, f)).to);
  EXPECT_EQ(first, (std::set<Vertex>{1, 3}));
  std::set<Vertex> only;
  for (std::uint64_t f = 0; f < 64; ++f) only.insert(t->link(t->next_link(0, 1, f)).to);
  EXPECT_EQ(only, (std::set<Vertex>{1}));
  EXPECT_EQ(t->describe(), "torus2d: 4x4 = 16 nodes, 400Gbps links, hop latency 13ns");
}

TEST(Torus2d, RejectsInvalidSpecs) {
  ExpectInvalid([] { make_torus2d(TorusSpec(0, 3)); }, "dims[0] must be >= 1");
  ExpectInvalid([] { make_torus2d(TorusSpec(3, 0)); }, "dims[1] must be >= 1");
  ExpectInvalid([] { make_torus2d(TorusSpec(65536, 65536)); }, "65536x65536");
  Torus2dSpec s = TorusSpec(3, 3);
  s.link_rate_bps = 0;
  ExpectInvalid([s] { make_torus2d(s); }, "link_rate_bps must be > 0");
}

}  // namespace
}  // namespace sipsim::fabric
