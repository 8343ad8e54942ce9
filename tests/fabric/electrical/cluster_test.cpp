// The cluster fat-tree (RAMP §7.5 SuperPod, SiP-ML Elect-Cluster): counts, wiring, routing,
// ECMP, groups, validation and a SuperPod-scale smoke test.
#include "sipsim/fabric/electrical/cluster.hpp"

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
// Cluster

struct ClusterCase {
  std::uint32_t nodes;
  std::uint32_t server_size;
  ClusterSpec::Nic nic;
  std::vector<std::uint32_t> down;
  std::vector<std::uint32_t> oversub;
};

void PrintTo(const ClusterCase& c, std::ostream* os) {
  *os << c.nodes << " nodes, servers of " << c.server_size << ", NIC per "
      << (c.nic == ClusterSpec::Nic::kPerNode ? "node" : "server") << ", down";
  for (auto d : c.down) *os << " " << d;
  *os << ", oversubscription";
  for (auto o : c.oversub) *os << " " << o;
}

ClusterSpec MakeClusterSpec(const ClusterCase& c) {
  ClusterSpec s;
  s.server_size = c.server_size;
  s.intra_rate_bps = 2'400'000'000'000;
  s.intra_switch_latency = 100 * kNanosecond;
  s.intra_propagation = 20 * kNanosecond;
  s.nic = c.nic;
  s.nic_rate_bps = 200'000'000'000;
  for (std::size_t i = 0; i < c.down.size(); ++i) {
    TierSpec t;
    t.down = c.down[i];
    t.oversubscription = c.oversub[i];
    t.up_rate_bps = (i + 1) * 1'000'000'000'000;  // distinct per tier to check indexing
    t.switch_latency = (350 + i) * kNanosecond;
    t.propagation = (10 + 100 * i) * kNanosecond;
    s.tiers.push_back(t);
  }
  return s;
}

// Independent model of the expected fabric, straight from the contract.
struct ClusterModel {
  explicit ClusterModel(const ClusterCase& c) : cc(c) {
    per_server = c.nic == ClusterSpec::Nic::kPerServer && c.server_size > 1;
    intra = c.server_size > 1 ? c.nodes / c.server_size : 0;
    endpoints = per_server ? c.nodes / c.server_size : c.nodes;
    std::uint64_t span = 1;
    std::uint64_t per_pod = 1;
    Vertex base = c.nodes + intra;
    for (std::size_t t = 0; t < c.down.size(); ++t) {
      span *= c.down[t];
      spans.push_back(span);
      const std::uint64_t u = t + 1 < c.down.size() ? c.down[t] / c.oversub[t] : 0;
      ups.push_back(u);
      const std::uint64_t count = endpoints / span * per_pod;
      bases.push_back(base);
      counts.push_back(count);
      base += static_cast<Vertex>(count);
      tree_links += 2 * count * u;
      per_pod *= u;
    }
  }
  std::uint64_t switches() const {
    return intra + std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
  }
  std::uint64_t links() const {
    return (cc.server_size > 1 ? 2ull * cc.nodes : 0) + 2ull * endpoints + tree_links;
  }
  std::uint32_t endpoint(Vertex v) const { return per_server ? v / cc.server_size : v; }
  // Tier (0-based) of a tree switch, -1 for nodes, -2 for intra switches.
  int tier(Vertex v) const {
    if (v < cc.nodes) return -1;
    if (v < bases[0]) return -2;
    int t = 0;
    while (t + 1 < static_cast<int>(bases.size()) && v >= bases[t + 1]) ++t;
    return t;
  }
  // 0-based index of the lowest tier whose pod holds both endpoints.
  std::size_t common_tier(Vertex a, Vertex b) const {
    std::size_t t = 0;
    while (endpoint(a) / spans[t] != endpoint(b) / spans[t]) ++t;
    return t;
  }
  std::size_t hops(Vertex a, Vertex b) const {
    if (cc.server_size > 1 && a / cc.server_size == b / cc.server_size) return 2;
    return 2 * (common_tier(a, b) + 1) + (per_server ? 2 : 0);
  }
  pdes::Time latency(const ClusterSpec& s, Vertex a, Vertex b) const {
    const pdes::Time intra_in = s.intra_propagation + s.intra_switch_latency;
    if (cc.server_size > 1 && a / cc.server_size == b / cc.server_size) {
      return intra_in + s.intra_propagation;
    }
    const std::size_t top = common_tier(a, b);
    pdes::Time lat = 0;
    for (std::size_t t = 0; t <= top; ++t)
      lat += s.tiers[t].propagation + s.tiers[t].switch_latency;
    for (std::size_t t = 1; t <= top; ++t)
      lat += s.tiers[t].propagation + s.tiers[t - 1].switch_latency;
    lat += s.tiers[0].propagation;  // leaf -> endpoint
    if (per_server) lat += intra_in + s.intra_switch_latency + s.intra_propagation;
    return lat;
  }

  ClusterCase cc;
  bool per_server = false;
  std::uint32_t intra = 0;
  std::uint32_t endpoints = 0;
  std::vector<std::uint64_t> spans, ups, counts;
  std::vector<Vertex> bases;
  std::uint64_t tree_links = 0;
};

class ClusterTest : public ::testing::TestWithParam<ClusterCase> {};

TEST_P(ClusterTest, CountsMatchFormulas) {
  const ClusterModel m(GetParam());
  const auto t = make_cluster(MakeClusterSpec(GetParam()), GetParam().nodes);
  EXPECT_EQ(t->nodes(), GetParam().nodes);
  EXPECT_EQ(t->switches(), m.switches());
  EXPECT_EQ(t->links().size(), m.links());
  ExpectWellFormed(*t);
  ExpectRoutesFromEveryVertex(*t);
}

TEST_P(ClusterTest, WiringRatesAndLatencies) {
  const ClusterCase& c = GetParam();
  const ClusterModel m(c);
  const ClusterSpec s = MakeClusterSpec(c);
  const auto t = make_cluster(s, c.nodes);
  for (Vertex v = 0; v < t->vertices(); ++v) {
    const int tier = m.tier(v);
    std::uint64_t ups = 0;
    std::uint64_t downs = 0;
    for (LinkId id : t->out_links(v)) {
      const Link& l = t->link(id);
      const int to = m.tier(l.to);
      if (tier == -1) {  // node: to its intra switch, or (per node) to its leaf
        if (to == -2) {
          EXPECT_EQ(l.to, c.nodes + v / c.server_size);
          EXPECT_EQ(l.rate_bps, s.intra_rate_bps);
          EXPECT_EQ(l.latency, s.intra_propagation + s.intra_switch_latency);
        } else {
          ASSERT_EQ(to, 0);
          EXPECT_FALSE(m.per_server);
          EXPECT_EQ(l.to, m.bases[0] + v / c.down[0]);
          EXPECT_EQ(l.rate_bps, s.nic_rate_bps);
          EXPECT_EQ(l.latency, s.tiers[0].propagation + s.tiers[0].switch_latency);
        }
      } else if (tier == -2) {  // intra switch: its nodes, and its leaf per server
        if (to == -1) {
          EXPECT_EQ(l.to / c.server_size, v - c.nodes);
          EXPECT_EQ(l.latency, s.intra_propagation);
        } else {
          ASSERT_EQ(to, 0);
          EXPECT_TRUE(m.per_server);
          EXPECT_EQ(l.to, m.bases[0] + (v - c.nodes) / c.down[0]);
          EXPECT_EQ(l.rate_bps, s.nic_rate_bps);
        }
      } else if (to == tier + 1) {
        ++ups;
        EXPECT_EQ(l.rate_bps, s.tiers[tier].up_rate_bps);
        EXPECT_EQ(l.latency, s.tiers[tier + 1].propagation + s.tiers[tier + 1].switch_latency);
      } else {
        ++downs;
        if (tier == 0) {
          EXPECT_LT(to, 0);
          EXPECT_EQ(l.rate_bps, s.nic_rate_bps);
          EXPECT_EQ(l.latency, s.tiers[0].propagation + (to == -2 ? s.intra_switch_latency : 0));
        } else {
          ASSERT_EQ(to, tier - 1);
          EXPECT_EQ(l.rate_bps, s.tiers[tier - 1].up_rate_bps);
          EXPECT_EQ(l.latency, s.tiers[tier].propagation + s.tiers[tier - 1].switch_latency);
          // k-ary n-tree wiring: switch j of child pod p -> switch j*u + k of parent.
          const std::uint64_t child = l.to - m.bases[tier - 1];
          const std::uint64_t parent = v - m.bases[tier];
          const std::uint64_t child_per_pod = m.counts[tier - 1] * m.spans[tier - 1] / m.endpoints;
          const std::uint64_t per_pod = m.counts[tier] * m.spans[tier] / m.endpoints;
          EXPECT_EQ((child / child_per_pod) / c.down[tier], parent / per_pod);
          EXPECT_EQ((child % child_per_pod), (parent % per_pod) / m.ups[tier - 1]);
        }
      }
    }
    if (tier >= 0) {
      EXPECT_EQ(ups, m.ups[tier]) << "tier " << tier + 1 << " switch " << v;
      EXPECT_EQ(downs, c.down[tier]) << "tier " << tier + 1 << " switch " << v;
    }
  }
}

TEST_P(ClusterTest, RoutesAllPairsAlongTheTree) {
  const ClusterCase& c = GetParam();
  const ClusterModel m(c);
  const ClusterSpec s = MakeClusterSpec(c);
  const auto t = make_cluster(s, c.nodes);
  for (Vertex a = 0; a < c.nodes; ++a) {
    const auto dist = Bfs(*t, a);
    for (Vertex b = 0; b < c.nodes; ++b) {
      if (a == b) continue;
      for (std::uint64_t f : {0ull, 1ull, 977ull, 123456789ull}) {
        const auto path = Route(*t, a, b, f);
        ASSERT_EQ(path.size(), m.hops(a, b)) << a << " -> " << b;
        EXPECT_EQ(path.size(), dist[b]);
        pdes::Time lat = 0;
        int highest = -1;
        for (LinkId l : path) {
          lat += t->link(l).latency;
          highest = std::max(highest, m.tier(t->link(l).to));
        }
        EXPECT_EQ(lat, m.latency(s, a, b)) << a << " -> " << b;
        const bool same_server = c.server_size > 1 && a / c.server_size == b / c.server_size;
        EXPECT_EQ(highest, same_server ? -1 : static_cast<int>(m.common_tier(a, b)));
      }
    }
  }
}

TEST_P(ClusterTest, EcmpCoversEveryUplink) {
  const ClusterCase& c = GetParam();
  const ClusterModel m(c);
  const auto t = make_cluster(MakeClusterSpec(c), c.nodes);
  if (m.ups[0] == 0) GTEST_SKIP() << "single tier: no uplinks";
  // From every leaf towards a node outside its pod, flows use all uplinks.
  for (Vertex leaf = m.bases[0]; leaf < m.bases[0] + m.counts[0]; ++leaf) {
    const std::uint32_t leaf_idx = leaf - m.bases[0];
    Vertex dst = 0;
    while (m.endpoint(dst) / c.down[0] == leaf_idx) ++dst;
    std::set<LinkId> used;
    for (std::uint64_t f = 0; f < 200; ++f) {
      const LinkId l = t->next_link(leaf, dst, f);
      ASSERT_NE(l, kNoLink);
      EXPECT_EQ(m.tier(t->link(l).to), 1);
      used.insert(l);
    }
    EXPECT_EQ(used.size(), m.ups[0]) << "leaf " << leaf;
  }
}

TEST_P(ClusterTest, GroupsFollowLeaves) {
  const ClusterCase& c = GetParam();
  const ClusterModel m(c);
  const auto t = make_cluster(MakeClusterSpec(c), c.nodes);
  ExpectGroupsInRange(*t);
  EXPECT_EQ(t->groups(), m.counts[0]);
  for (Vertex v = 0; v < c.nodes; ++v) EXPECT_EQ(t->group_of(v), m.endpoint(v) / c.down[0]);
  for (Vertex v = c.nodes; v < m.bases[0]; ++v) {  // intra switch: group of its first node
    EXPECT_EQ(t->group_of(v), t->group_of((v - c.nodes) * c.server_size));
  }
  for (Vertex v = 0; v + 1 < c.nodes; ++v) EXPECT_LE(t->group_of(v), t->group_of(v + 1));
  for (std::uint32_t i = 0; i < m.counts[0]; ++i) EXPECT_EQ(t->group_of(m.bases[0] + i), i);
  // Higher tiers: the group of the pod's first leaf, found by descending the
  // lowest-numbered down link.
  for (Vertex v = m.bases[0]; v < t->vertices(); ++v) {
    Vertex leaf = v;
    while (m.tier(leaf) > 0) {
      Vertex lowest = t->vertices();
      for (LinkId l : t->out_links(leaf)) {
        if (m.tier(t->link(l).to) < m.tier(leaf)) lowest = std::min(lowest, t->link(l).to);
      }
      leaf = lowest;
    }
    EXPECT_EQ(t->group_of(v), leaf - m.bases[0]) << "switch " << v;
  }
}

TEST_P(ClusterTest, Deterministic) {
  const ClusterSpec s = MakeClusterSpec(GetParam());
  ExpectSameFabric(*make_cluster(s, GetParam().nodes), *make_cluster(s, GetParam().nodes));
}

using Nic = ClusterSpec::Nic;
INSTANTIATE_TEST_SUITE_P(
    Small, ClusterTest,
    ::testing::Values(ClusterCase{16, 4, Nic::kPerNode, {4, 4}, {1, 1}},
                      ClusterCase{16, 4, Nic::kPerNode, {4, 4}, {2, 1}},
                      ClusterCase{16, 4, Nic::kPerServer, {2, 2}, {1, 1}},
                      ClusterCase{16, 4, Nic::kPerServer, {2, 2}, {2, 1}},
                      ClusterCase{16, 1, Nic::kPerServer, {4, 4}, {1, 1}},
                      ClusterCase{16, 4, Nic::kPerNode, {2, 8}, {1, 1}},  // leaf splits a server
                      ClusterCase{8, 4, Nic::kPerNode, {8}, {1}},
                      ClusterCase{64, 2, Nic::kPerNode, {4, 4, 4}, {2, 1, 1}},
                      ClusterCase{64, 4, Nic::kPerServer, {2, 4, 2}, {1, 2, 1}},
                      ClusterCase{48, 2, Nic::kPerNode, {3, 4, 4}, {1, 2, 1}}));

TEST(Cluster, DescribeNamesTheShape) {
  const auto t = make_cluster(MakeClusterSpec({16, 4, Nic::kPerNode, {4, 4}, {2, 1}}), 16);
  EXPECT_EQ(t->describe(),
            "cluster: 16 nodes, 4 servers of 4, NIC per node 200Gbps, 2 tiers (down 4/4, "
            "oversubscription 2/1), 10 switches (4 intra-server + 6 tree)");
}

TEST(Cluster, RejectsInvalidSpecs) {
  const ClusterCase ok{16, 4, Nic::kPerNode, {4, 4}, {1, 1}};
  auto build = [](ClusterSpec s, std::uint32_t n) { return [s, n] { make_cluster(s, n); }; };
  ExpectInvalid(build(MakeClusterSpec(ok), 0), "nodes must be >= 1");
  ExpectInvalid(build(MakeClusterSpec(ok), 10), "nodes (10) is not a multiple of server_size (4)");
  ClusterSpec s = MakeClusterSpec(ok);
  s.server_size = 0;
  ExpectInvalid(build(s, 16), "server_size must be >= 1");
  s = MakeClusterSpec(ok);
  s.intra_rate_bps = 0;
  ExpectInvalid(build(s, 16), "intra_rate_bps");
  s.server_size = 1;  // no intra switch: the intra rate is not needed
  EXPECT_NO_THROW(make_cluster(s, 16));
  s = MakeClusterSpec(ok);
  s.nic_rate_bps = 0;
  ExpectInvalid(build(s, 16), "nic_rate_bps");
  s = MakeClusterSpec(ok);
  s.tiers.clear();
  ExpectInvalid(build(s, 16), "tiers must not be empty");
  ExpectInvalid(build(MakeClusterSpec({16, 4, Nic::kPerNode, {4, 2}, {1, 1}}), 16),
                "product of tiers[].down (4*2) must equal the number of endpoints (16 nodes");
  ExpectInvalid(build(MakeClusterSpec({16, 4, Nic::kPerServer, {4, 4}, {1, 1}}), 16),
                "(4 servers, NIC per server)");
  ExpectInvalid(
      build(MakeClusterSpec({16, 4, Nic::kPerNode, {4, 4}, {3, 1}}), 16),
      "tiers[0] (tier 1).down (4) is not a multiple of tiers[0] (tier 1).oversubscription (3)");
  ExpectInvalid(build(MakeClusterSpec({16, 4, Nic::kPerNode, {4, 4}, {1, 2}}), 16),
                "tiers[1] (tier 2) is the top tier: it has no uplinks, so its oversubscription "
                "must be 1 (got 2)");
  s = MakeClusterSpec(ok);
  s.tiers[0].up_rate_bps = 0;
  ExpectInvalid(build(s, 16), "tiers[0] (tier 1).up_rate_bps must be > 0");
  s.tiers[0].up_rate_bps = 1;
  s.tiers[1].up_rate_bps = 0;  // the top tier's uplink rate is unused
  EXPECT_NO_THROW(make_cluster(s, 16));
  s = MakeClusterSpec(ok);
  s.tiers[1].down = 0;
  ExpectInvalid(build(s, 16), "tiers[1] (tier 2).down must be >= 1");
  s = MakeClusterSpec(ok);
  s.tiers[0].oversubscription = 0;
  ExpectInvalid(build(s, 16), "tiers[0] (tier 1).oversubscription must be >= 1");
}

// RAMP §7.5 scale: 65,536 GPUs in DGX servers of 8, 4-tier fat-tree of
// radix-32 switches (16 down, 16 up), 1:1.
TEST(Cluster, SuperPodScaleSmoke) {
  const ClusterCase c{65536, 8, Nic::kPerNode, {16, 16, 16, 16}, {1, 1, 1, 1}};
  const ClusterModel m(c);
  const ClusterSpec s = MakeClusterSpec(c);
  const auto t = make_cluster(s, c.nodes);
  EXPECT_EQ(t->switches(), 8192u + 4 * 4096u);
  EXPECT_EQ(t->links().size(), m.links());
  EXPECT_EQ(t->groups(), 4096u);
  EXPECT_EQ(t->describe(),
            "cluster: 65536 nodes, 8192 servers of 8, NIC per node 200Gbps, 4 tiers (down "
            "16/16/16/16, oversubscription 1/1/1/1), 24576 switches (8192 intra-server + 16384 "
            "tree)");
  std::mt19937_64 rng(7);
  std::vector<std::size_t> by_hops(9, 0);
  for (int i = 0; i < 1000; ++i) {
    const auto a = static_cast<Vertex>(rng() % c.nodes);
    auto b = static_cast<Vertex>(rng() % c.nodes);
    if (i % 4 == 0) b = (a & ~0xffu) | static_cast<Vertex>(rng() % 256);  // same tier-2 pod
    if (i % 4 == 1) b = (a & ~0xfu) | static_cast<Vertex>(rng() % 16);    // same leaf
    if (a == b) continue;
    const auto path = Route(*t, a, b, rng());
    ASSERT_EQ(path.size(), m.hops(a, b)) << a << " -> " << b;
    EXPECT_EQ(t->link(path.back()).to, b);
    pdes::Time lat = 0;
    for (LinkId l : path) lat += t->link(l).latency;
    EXPECT_EQ(lat, m.latency(s, a, b)) << a << " -> " << b;
    ++by_hops[path.size()];
  }
  // Every distance class is exercised: intra-server, leaf, tier 2, 3, 4.
  for (std::size_t h : {2u, 4u, 6u, 8u}) EXPECT_GT(by_hops[h], 0u) << h << " hops";
}

}  // namespace
}  // namespace sipsim::fabric
