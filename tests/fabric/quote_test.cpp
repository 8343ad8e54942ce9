// Network::quote, the estimators' one query per message, equals the four
// queries it replaces (injection_ps, uncongested_ps, path_rate_bps,
// path_resources) on every fabric, for every pair, where a fabric overrides it.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "routed/without_runs.hpp"
#include "sipsim/fabric/circuit/topoopt.hpp"
#include "sipsim/fabric/electrical/bcube.hpp"
#include "sipsim/fabric/electrical/cluster.hpp"
#include "sipsim/fabric/electrical/torus2d.hpp"
#include "sipsim/fabric/flat/elect_flat.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"
#include "sipsim/fabric/ramp/transport.hpp"
#include "sipsim/fabric/routed/routed_network.hpp"

namespace sipsim::fabric {
namespace {

using pdes::kNanosecond;

bool same(const std::vector<Network::Resource>& a, const std::vector<Network::Resource>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].id != b[i].id || a[i].rate_bps != b[i].rate_bps) return false;
  }
  return true;
}

void expect_quotes_equal_queries(const Network& net) {
  for (std::uint32_t a = 0; a < net.nodes(); ++a) {
    for (std::uint32_t b = 0; b < net.nodes(); ++b) {
      for (std::uint64_t bytes : {0ull, 1ull, 950ull, 4096ull, 100'001ull, 1ull << 30}) {
        std::vector<Network::Resource> want{{7, 9}}, got{{7, 9}};  // appended after these
        if (a != b) net.path_resources(a, b, want);
        const Network::PathQuote q = net.quote(a, b, bytes, a != b ? &got : nullptr);
        EXPECT_EQ(q.injection, net.injection_ps(a, b, bytes)) << a << "->" << b << " " << bytes;
        EXPECT_EQ(q.uncongested, net.uncongested_ps(a, b, bytes)) << a << "->" << b << " " << bytes;
        EXPECT_EQ(q.rate_bps, net.path_rate_bps(a, b)) << a << "->" << b;
        EXPECT_TRUE(same(got, want)) << a << "->" << b;
        const Network::PathQuote bare = net.quote(a, b, bytes, nullptr);
        EXPECT_EQ(bare.injection, q.injection);
        EXPECT_EQ(bare.uncongested, q.uncongested);
        EXPECT_EQ(bare.rate_bps, q.rate_bps);
      }
    }
  }
}

TEST(Quote, RampWithAndWithoutAJob) {
  RampSpec s;
  s.x = 4;
  s.J = 4;
  s.Lambda = 8;
  s.b = 2;
  expect_quotes_equal_queries(*make_ramp(s));
  s.job = ramp::shape_for(4, 4, 2, 8);  // steps with extra transceiver groups (eq. 3-4)
  expect_quotes_equal_queries(*make_ramp(s));
}

TEST(Quote, RoutedFabrics) {
  ClusterSpec c;
  c.server_size = 4;
  c.intra_rate_bps = 2'400'000'000'000;
  c.intra_switch_latency = 100 * kNanosecond;
  c.intra_propagation = 20 * kNanosecond;
  c.nic_rate_bps = 200'000'000'000;
  // Three tiers, the leaves 2:1 oversubscribed: several equal-cost uplinks (ECMP).
  TierSpec leaf{4, 2, 200'000'000'000, 350 * kNanosecond, 10 * kNanosecond};
  TierSpec mid{2, 1, 100'000'000'000, 350 * kNanosecond, 30 * kNanosecond};
  TierSpec top{2, 1, 100'000'000'000, 350 * kNanosecond, 50 * kNanosecond};
  c.tiers = {leaf, mid, top};
  expect_quotes_equal_queries(*make_routed(make_cluster(c, 16), 4096, 100 * kNanosecond));
  // Even ring sizes: pairs half way round pick a direction by ECMP hash.
  expect_quotes_equal_queries(
      *make_routed(make_torus2d({{4, 6}, 600'000'000'000, 2113}), 1 << 20, 100 * kNanosecond));
  expect_quotes_equal_queries(*make_routed(make_torus2d({{5, 1}, 8'000'000'000'000, 0}), 1000));
  expect_quotes_equal_queries(
      *make_routed(make_topoopt({4, 400'000'000'000, 260 * kNanosecond, std::nullopt}, 12), 8192));
  expect_quotes_equal_queries(
      *make_routed(make_bcube({3, 2, 100'000'000'000, 50 * kNanosecond, 5 * kNanosecond}), 1000));
  // Cut-through: the runs' closed form and the walk's agree too.
  constexpr auto kCut = Forwarding::kCutThrough;
  expect_quotes_equal_queries(*make_routed(make_cluster(c, 16), 4096, 100 * kNanosecond, kCut));
  expect_quotes_equal_queries(
      *make_routed(make_torus2d({{4, 6}, 600'000'000'000, 2113}), 1 << 20, 0, kCut));
}

// Topology::route, which the routed fabrics' quote walks, gives next_link's
// links hop by hop, on tori with odd and even rings (ties half way round).
TEST(Quote, TorusRoutesAreNextLinksHops) {
  for (const std::array<std::uint32_t, 2> dims :
       {std::array<std::uint32_t, 2>{4, 6}, {5, 3}, {2, 2}, {2, 7}, {1, 4}, {8, 1}}) {
    const auto torus = make_torus2d({{dims[0], dims[1]}, 600'000'000'000, 2113});
    for (Vertex a = 0; a < torus->nodes(); ++a) {
      for (Vertex b = 0; b < torus->nodes(); ++b) {
        if (a == b) continue;
        for (std::uint64_t flow : {(std::uint64_t{a} << 32) | b, std::uint64_t{12345}}) {
          std::vector<LinkId> want, got{99};
          for (Vertex v = a; v != b; v = torus->link(want.back()).to) {
            want.push_back(torus->next_link(v, b, flow));
            ASSERT_NE(want.back(), kNoLink);
          }
          ASSERT_TRUE(torus->route(a, b, flow, got));
          got.erase(got.begin());
          EXPECT_EQ(got, want) << dims[0] << "x" << dims[1] << " " << a << "->" << b;
        }
      }
    }
    std::vector<LinkId> none;
    EXPECT_FALSE(torus->route(0, torus->nodes(), 1, none));
    EXPECT_TRUE(none.empty());
  }
}

TEST(Quote, ElectFlatUsesTheDefault) {
  expect_quotes_equal_queries(*make_elect_flat(5, 400'000'000'000, 700 * kNanosecond));
}

}  // namespace
}  // namespace sipsim::fabric

namespace sipsim::fabric {
namespace {

// A torus route as runs (Topology::route_runs) covers exactly route()'s links,
// in order, each run's links of one rate and latency, no link twice, for odd
// and even rings, rings of 1 and 2 and both ways half way round.
TEST(Quote, TorusRouteRunsAreTheRoute) {
  for (const std::array<std::uint32_t, 2> dims : {std::array<std::uint32_t, 2>{4, 4},
                                                  {5, 3},
                                                  {2, 8},
                                                  {8, 8},
                                                  {16, 4},
                                                  {1, 7},
                                                  {6, 1},
                                                  {2, 2},
                                                  {7, 2}}) {
    const auto torus = make_torus2d({{dims[0], dims[1]}, 600'000'000'000, 2113});
    EXPECT_EQ(torus->run_positions(), 4 * torus->nodes());
    for (Vertex a = 0; a < torus->nodes(); ++a) {
      for (Vertex b = 0; b < torus->nodes(); ++b) {
        if (a == b) continue;
        for (std::uint64_t flow : {(std::uint64_t{a} << 32) | b, std::uint64_t{12345}}) {
          std::vector<LinkId> want, got;
          std::vector<RouteRun> runs;
          ASSERT_TRUE(torus->route(a, b, flow, want));
          ASSERT_TRUE(torus->route_runs(a, b, flow, runs));
          EXPECT_LE(runs.size(), 2u);
          for (const RouteRun& r : runs) {
            EXPECT_GT(r.length, 0u);
            EXPECT_LT(r.length, std::max(r.size, 2u));
            EXPECT_LT(r.first, r.size);
            for (std::uint32_t k = 0; k < r.length; ++k) {
              got.push_back(torus->run_link(r.base + (r.first + k) % r.size));
            }
          }
          EXPECT_EQ(got, want) << dims[0] << "x" << dims[1] << " " << a << "->" << b;
        }
      }
    }
    std::vector<RouteRun> none;
    EXPECT_FALSE(torus->route_runs(0, torus->nodes(), 1, none));
    EXPECT_FALSE(torus->route_runs(1, 1, 1, none));
    EXPECT_TRUE(none.empty());
  }
}

// The routed network's quote from runs (closed-form pipeline per run) equals
// the walk of the same topology without runs, for every pair and message
// sizes around the chunk size; quote_runs' runs are path_resources' links.
// quote_runs keeps its last quote (the estimators quote a level's messages
// mostly with one displacement): quoted displacement by displacement, every
// source in turn (half way round included, where the ECMP hash picks each
// source's direction), and alternating between two fabrics of the same links
// but other chunks and I/O latency, every quote is still the walk's.
TEST(Quote, TorusQuotesByDisplacementEqualTheWalk) {
  for (const std::array<std::uint32_t, 2> dims :
       {std::array<std::uint32_t, 2>{5, 3}, {4, 4}, {2, 8}, {7, 7}, {8, 6}}) {
    const std::shared_ptr<const Topology> torus =
        make_torus2d({{dims[0], dims[1]}, 600'000'000'000, 2113});
    struct Pair {
      std::unique_ptr<Network> fast, walk;
    };
    std::vector<Pair> fabrics;
    for (const auto& [chunk, io] :
         {std::pair<std::uint64_t, pdes::Time>{4096, 100 * kNanosecond}, {1000, 7 * kNanosecond}}) {
      fabrics.push_back(
          {make_routed(make_torus2d({{dims[0], dims[1]}, 600'000'000'000, 2113}), chunk, io),
           make_routed(std::make_unique<testing::WithoutRuns>(torus), chunk, io)});
    }
    const std::uint32_t nx = dims[0], ny = dims[1];
    for (std::uint32_t dy = 0; dy < ny; ++dy) {
      for (std::uint32_t dx = 0; dx < nx; ++dx) {
        if (dx == 0 && dy == 0) continue;
        for (const std::uint64_t bytes : std::array<std::uint64_t, 3>{1, 4096, 3 * 4096 + 77}) {
          for (std::uint32_t a = 0; a < nx * ny; ++a) {
            const std::uint32_t b = ((a / nx + dy) % ny) * nx + (a % nx + dx) % nx;
            for (const Pair& f : fabrics) {
              const Network::PathQuote w = f.walk->quote(a, b, bytes, nullptr);
              Network::PathQuote r;
              std::vector<Network::PathRun> runs;
              ASSERT_TRUE(f.fast->quote_runs(a, b, bytes, r, runs));
              const Network::PathQuote q = f.fast->quote(a, b, bytes, nullptr);
              for (const Network::PathQuote& got : {r, q}) {
                EXPECT_EQ(got.injection, w.injection) << a << "->" << b << " " << bytes;
                EXPECT_EQ(got.uncongested, w.uncongested) << a << "->" << b << " " << bytes;
                EXPECT_EQ(got.rate_bps, w.rate_bps) << a << "->" << b;
              }
            }
          }
        }
      }
    }
  }
}

TEST(Quote, TorusQuoteFromRunsEqualsTheWalk) {
  for (const std::array<std::uint32_t, 2> dims :
       {std::array<std::uint32_t, 2>{5, 3}, {2, 8}, {8, 8}, {1, 5}, {2, 2}}) {
    const std::shared_ptr<const Topology> torus =
        make_torus2d({{dims[0], dims[1]}, 600'000'000'000, 2113});
    constexpr std::uint64_t kChunk = 4096;
    const auto fast = make_routed(make_torus2d({{dims[0], dims[1]}, 600'000'000'000, 2113}), kChunk,
                                  100 * kNanosecond);
    const auto walk =
        make_routed(std::make_unique<testing::WithoutRuns>(torus), kChunk, 100 * kNanosecond);
    EXPECT_EQ(fast->run_space(), 4 * torus->nodes());
    EXPECT_EQ(walk->run_space(), 0u);
    expect_quotes_equal_queries(*fast);
    for (std::uint32_t a = 0; a < fast->nodes(); ++a) {
      for (std::uint32_t b = 0; b < fast->nodes(); ++b) {
        if (a == b) continue;
        for (const std::uint64_t bytes : std::array<std::uint64_t, 7>{
                 0, 1, kChunk - 1, kChunk, kChunk + 1, 3 * kChunk + 77, 1ull << 30}) {
          std::vector<Network::Resource> want, got;
          const Network::PathQuote w = walk->quote(a, b, bytes, &want);
          const Network::PathQuote f = fast->quote(a, b, bytes, &got);
          Network::PathQuote r;
          std::vector<Network::PathRun> runs;
          ASSERT_TRUE(fast->quote_runs(a, b, bytes, r, runs));
          EXPECT_FALSE(walk->quote_runs(a, b, bytes, r, runs));
          for (const Network::PathQuote& q : {f, r}) {
            EXPECT_EQ(q.injection, w.injection) << a << "->" << b << " " << bytes;
            EXPECT_EQ(q.uncongested, w.uncongested) << a << "->" << b << " " << bytes;
            EXPECT_EQ(q.rate_bps, w.rate_bps) << a << "->" << b;
          }
          EXPECT_EQ(fast->uncongested_ps(a, b, bytes), w.uncongested);
          EXPECT_EQ(fast->path_rate_bps(a, b), w.rate_bps);
          EXPECT_TRUE(same(got, want)) << a << "->" << b;
          std::vector<Network::Resource> from_runs;
          for (const Network::PathRun& run : runs) {
            for (std::uint32_t k = 0; k < run.length; ++k) {
              from_runs.push_back(
                  {torus->run_link(run.base + (run.first + k) % run.size), run.rate_bps});
            }
          }
          EXPECT_TRUE(same(from_runs, want)) << a << "->" << b;
        }
      }
    }
  }
}

}  // namespace
}  // namespace sipsim::fabric
