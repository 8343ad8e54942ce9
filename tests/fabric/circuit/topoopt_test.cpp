// TopoOpt: circulant structure, shortest routes, ECMP, validation and a large-scale smoke test.
#include "sipsim/fabric/circuit/topoopt.hpp"

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
// TopoOpt

TopooptSpec MakeTopooptSpec(std::uint32_t degree) {
  TopooptSpec s;
  s.degree = degree;
  s.link_rate_bps = 100'000'000'000;
  s.link_latency = 1300 * kNanosecond;
  return s;
}

// Offsets in [1, n/2] coprime with n, in increasing order (TotientPerms).
std::vector<std::uint32_t> UsableOffsets(std::uint32_t n) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t s = 1; s <= n / 2; ++s) {
    if (std::gcd(s, n) == 1) out.push_back(s);
  }
  return out;
}

TEST(Topoopt, SmallInstancesStructureAndShortestRoutes) {
  int built = 0;
  for (std::uint32_t n = 2; n <= 40; ++n) {
    const auto offsets = UsableOffsets(n);
    for (std::uint32_t degree : {2u, 4u, 6u}) {
      const std::uint32_t m = degree / 2;
      if (offsets.size() < m) {
        ExpectInvalid([n, degree] { make_topoopt(MakeTopooptSpec(degree), n); },
                      "ring offsets coprime with " + std::to_string(n));
        continue;
      }
      SCOPED_TRACE("n=" + std::to_string(n) + " degree=" + std::to_string(degree));
      ++built;
      const auto t = make_topoopt(MakeTopooptSpec(degree), n);
      EXPECT_EQ(t->nodes(), n);
      EXPECT_EQ(t->switches(), 0u);
      EXPECT_EQ(t->links().size(), n == 2 ? 2u : 2ull * n * m);
      ExpectWellFormed(*t);
      for (Vertex v = 0; v < n; ++v) {
        std::set<Vertex> expected;
        for (std::uint32_t k = 0; k < m; ++k) {
          expected.insert((v + offsets[k]) % n);
          expected.insert((v + n - offsets[k]) % n);
        }
        std::set<Vertex> actual;
        for (LinkId l : t->out_links(v)) actual.insert(t->link(l).to);
        EXPECT_EQ(actual, expected) << "node " << v;
      }
      ExpectShortestRoutes(*t, 2);
      ExpectRoutesFromEveryVertex(*t);
      ExpectGroupsInRange(*t);
      for (Vertex v = 0; v < n; ++v) EXPECT_EQ(t->group_of(v), v / 64);
    }
  }
  EXPECT_GT(built, 80);
}

TEST(Topoopt, EcmpUsesEveryShortestFirstHop) {
  for (std::uint32_t n : {8u, 12u, 25u, 40u}) {
    for (std::uint32_t degree : {2u, 4u, 6u}) {
      if (UsableOffsets(n).size() < degree / 2) continue;
      const auto t = make_topoopt(MakeTopooptSpec(degree), n);
      for (Vertex a = 0; a < n; ++a) {
        const auto from_a = Bfs(*t, a);
        for (Vertex b = 0; b < n; ++b) {
          if (a == b) continue;
          const auto to_b = Bfs(*t, b);  // symmetric graph: dist(w, b) = dist(b, w)
          std::set<LinkId> expected;
          for (LinkId l : t->out_links(a)) {
            if (to_b[t->link(l).to] + 1 == from_a[b]) expected.insert(l);
          }
          std::set<LinkId> used;
          for (std::uint64_t f = 0; f < 256; ++f) used.insert(t->next_link(a, b, f));
          EXPECT_EQ(used, expected) << n << "/" << degree << ": " << a << " -> " << b;
        }
      }
    }
  }
}

TEST(Topoopt, DescribeDeterminismAndInvalidSpecs) {
  const auto t = make_topoopt(MakeTopooptSpec(6), 32);
  EXPECT_EQ(t->describe(),
            "topoopt: 32 nodes, degree 6 (offsets 1,3,5), 100Gbps links, latency 1.3us");
  ExpectSameFabric(*t, *make_topoopt(MakeTopooptSpec(6), 32));
  ExpectInvalid([] { make_topoopt(MakeTopooptSpec(2), 1); }, "nodes must be >= 2 (got 1)");
  ExpectInvalid([] { make_topoopt(MakeTopooptSpec(3), 16); },
                "degree: must be even and at least 2 (got 3)");
  ExpectInvalid([] { make_topoopt(MakeTopooptSpec(0), 16); },
                "degree: must be even and at least 2 (got 0)");
  ExpectInvalid([] { make_topoopt(MakeTopooptSpec(6), 8); },
                "degree 6 needs 3 ring offsets coprime with 8 in [1, 4], but only 2 exist (1, 3)");
  TopooptSpec s = MakeTopooptSpec(2);
  s.link_rate_bps = 0;
  ExpectInvalid([s] { make_topoopt(s, 8); }, "link_rate_bps must be > 0");
  EXPECT_EQ(make_topoopt(MakeTopooptSpec(2), 100)->groups(), 2u);
}

TEST(Topoopt, LargeScaleSmoke) {
  const auto start = std::chrono::steady_clock::now();
  const auto t = make_topoopt(MakeTopooptSpec(4), 65536);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(secs, 5.0) << "construction took " << secs << " s";
  EXPECT_EQ(t->links().size(), 4u * 65536u);
  EXPECT_EQ(t->groups(), 1024u);
  const auto dist = Bfs(*t, 0);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100; ++i) {
    const auto b = static_cast<Vertex>(1 + rng() % 65535);
    EXPECT_EQ(Route(*t, 0, b, rng()).size(), dist[b]);
    // Vertex-transitive: the same relative distance from anywhere.
    const auto a = static_cast<Vertex>(rng() % 65536);
    EXPECT_EQ(Route(*t, a, (a + b) % 65536, rng()).size(), dist[b]);
  }
}

}  // namespace
}  // namespace sipsim::fabric
