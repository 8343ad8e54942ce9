// Tests of the routed-fabric topologies: structure (counts, reverse links,
// wiring), routing (termination, minimality, ECMP spread, determinism),
// locality groups, spec validation, and SuperPod / TopoOpt scale smoke tests.
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

#include "sipsim/fabric/circuit/topoopt.hpp"
#include "sipsim/fabric/electrical/bcube.hpp"
#include "sipsim/fabric/electrical/cluster.hpp"
#include "sipsim/fabric/electrical/torus2d.hpp"

namespace sipsim::fabric {
namespace {

using pdes::kNanosecond;
constexpr std::uint32_t kUnreached = ~std::uint32_t{0};

// Hop-by-hop walk from a to b. Fails (and returns an empty path) on kNoLink,
// a link not leaving the current vertex, or more hops than vertices (a loop).
std::vector<LinkId> Route(const Topology& t, Vertex a, Vertex b, std::uint64_t flow) {
  std::vector<LinkId> path;
  Vertex at = a;
  while (at != b) {
    const LinkId l = t.next_link(at, b, flow);
    if (l == kNoLink || l >= t.links().size() || t.link(l).from != at ||
        path.size() > t.vertices()) {
      ADD_FAILURE() << "routing " << a << " -> " << b << " (flow " << flow << ") broke at " << at
                    << " after " << path.size() << " hops";
      return {};
    }
    path.push_back(l);
    at = t.link(l).to;
  }
  return path;
}

// Hop distances from src over the directed link graph, via out_links().
std::vector<std::uint32_t> Bfs(const Topology& t, Vertex src) {
  std::vector<std::uint32_t> dist(t.vertices(), kUnreached);
  std::vector<Vertex> queue{src};
  dist[src] = 0;
  for (std::size_t h = 0; h < queue.size(); ++h) {
    for (LinkId l : t.out_links(queue[h])) {
      const Vertex w = t.link(l).to;
      if (dist[w] == kUnreached) {
        dist[w] = dist[queue[h]] + 1;
        queue.push_back(w);
      }
    }
  }
  return dist;
}

// out_links() lists each link exactly once under its source; no self loops or
// parallel links; every directed link has a reverse with the same rate.
void ExpectWellFormed(const Topology& t) {
  std::size_t listed = 0;
  for (Vertex v = 0; v < t.vertices(); ++v) {
    for (LinkId l : t.out_links(v)) {
      ASSERT_LT(l, t.links().size());
      EXPECT_EQ(t.link(l).from, v);
      ++listed;
    }
  }
  EXPECT_EQ(listed, t.links().size());
  std::map<std::pair<Vertex, Vertex>, std::uint64_t> rate;
  for (const Link& l : t.links()) {
    EXPECT_NE(l.from, l.to);
    EXPECT_LT(l.to, t.vertices());
    EXPECT_GT(l.rate_bps, 0u);
    EXPECT_TRUE(rate.emplace(std::make_pair(l.from, l.to), l.rate_bps).second)
        << "parallel link " << l.from << " -> " << l.to;
  }
  for (const auto& [ends, r] : rate) {
    const auto it = rate.find({ends.second, ends.first});
    ASSERT_NE(it, rate.end()) << "no reverse of " << ends.first << " -> " << ends.second;
    EXPECT_EQ(it->second, r);
  }
}

void ExpectGroupsInRange(const Topology& t) {
  ASSERT_GT(t.groups(), 0u);
  for (Vertex v = 0; v < t.vertices(); ++v) EXPECT_LT(t.group_of(v), t.groups()) << v;
}

// Every pair of nodes is routed along a shortest path (BFS), for a few flows.
void ExpectShortestRoutes(const Topology& t, std::uint64_t flows = 3) {
  for (Vertex a = 0; a < t.nodes(); ++a) {
    const auto dist = Bfs(t, a);
    for (Vertex b = 0; b < t.nodes(); ++b) {
      if (a == b) continue;
      ASSERT_NE(dist[b], kUnreached);
      for (std::uint64_t f = 0; f < flows; ++f) {
        const auto path = Route(t, a, b, f * 7919);
        ASSERT_EQ(path.size(), dist[b]) << a << " -> " << b << " flow " << f;
      }
    }
  }
}

// Routing is total: from any vertex (switches included) every node is
// reached without loops; degenerate queries answer kNoLink.
void ExpectRoutesFromEveryVertex(const Topology& t) {
  for (Vertex v = 0; v < t.vertices(); ++v) {
    for (Vertex b = 0; b < t.nodes(); ++b) {
      if (v != b) Route(t, v, b, v * 31 + b);
    }
  }
  if (t.nodes() > 1) {
    EXPECT_EQ(t.next_link(0, 0, 1), kNoLink);
    EXPECT_EQ(t.next_link(1, t.nodes(), 1), kNoLink);  // not a node
    EXPECT_EQ(t.next_link(t.vertices(), 0, 1), kNoLink);
  }
}

// Same inputs, same answers: two builds agree link by link and hop by hop.
void ExpectSameFabric(const Topology& x, const Topology& y) {
  ASSERT_EQ(x.vertices(), y.vertices());
  ASSERT_EQ(x.links().size(), y.links().size());
  for (std::size_t i = 0; i < x.links().size(); ++i) {
    EXPECT_EQ(x.links()[i].from, y.links()[i].from);
    EXPECT_EQ(x.links()[i].to, y.links()[i].to);
    EXPECT_EQ(x.links()[i].latency, y.links()[i].latency);
  }
  std::mt19937_64 rng(42);
  for (int i = 0; i < 2000; ++i) {
    const auto at = static_cast<Vertex>(rng() % x.vertices());
    const auto dst = static_cast<Vertex>(rng() % x.nodes());
    const std::uint64_t flow = rng();
    EXPECT_EQ(x.next_link(at, dst, flow), y.next_link(at, dst, flow));
    EXPECT_EQ(x.next_link(at, dst, flow), x.next_link(at, dst, flow));
  }
  EXPECT_EQ(x.describe(), y.describe());
}

template <typename F>
void ExpectInvalid(F&& build, const std::string& substring) {
  try {
    build();
    ADD_FAILURE() << "no exception; expected one mentioning \"" << substring << "\"";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(substring), std::string::npos)
        << "message \"" << e.what() << "\" lacks \"" << substring << "\"";
  }
}

TEST(EcmpHash, DeterministicAndOrderSensitive) {
  EXPECT_EQ(ecmp_hash(1, 2, 3), ecmp_hash(1, 2, 3));
  EXPECT_NE(ecmp_hash(1, 2, 3), ecmp_hash(2, 1, 3));
  EXPECT_NE(ecmp_hash(1, 2, 3), ecmp_hash(1, 2, 4));
  // Consecutive flows spread evenly over a small modulus.
  std::vector<int> bins(4, 0);
  for (std::uint64_t f = 0; f < 4000; ++f) ++bins[ecmp_hash(7, 9, f) % 4];
  for (int b : bins) EXPECT_NEAR(b, 1000, 150);
}

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
                "degree must be even and >= 2 (got 3)");
  ExpectInvalid([] { make_topoopt(MakeTopooptSpec(0), 16); },
                "degree must be even and >= 2 (got 0)");
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
