// RoutedNetwork::partition: the nodes' locality groups in contiguous,
// node-balanced blocks of ranks (the fabric's algorithm before the
// partitioners moved to pdes/, kept below as the reference), then every
// switch and switch port by its home (PortLps::owners, restated below from
// its definition), on the topologies of the cluster, torus, BCube and TopoOpt
// tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sipsim/fabric/circuit/topoopt.hpp"
#include "sipsim/fabric/electrical/bcube.hpp"
#include "sipsim/fabric/electrical/cluster.hpp"
#include "sipsim/fabric/electrical/torus2d.hpp"
#include "sipsim/fabric/routed/routed_network.hpp"

namespace sipsim::fabric {
namespace {

using pdes::kNanosecond;
using Nic = ClusterSpec::Nic;

// The reference. Nodes: RoutedNetwork::partition's as of db6f4cf. A vertex's
// level: its least hop count from a node, relaxed to a fixed point. Its home:
// a node's rank; a switch's, the most frequent home among its neighbours one
// level lower (the lowest rank on a tie). LPs: the vertices (a switch's by
// its home), then a port per switch output link in (switch, link) order, by
// the home of the vertex it leads to if that is lower, else its switch's.
std::vector<std::uint32_t> reference_owners(const Topology& topo, int ranks) {
  const std::uint32_t groups = topo.groups();
  std::vector<std::uint64_t> nodes_in(groups + 1, 0);
  for (Vertex v = 0; v < topo.nodes(); ++v) ++nodes_in[topo.group_of(v) + 1];
  for (std::uint32_t g = 0; g < groups; ++g) nodes_in[g + 1] += nodes_in[g];
  const std::uint64_t total = std::max<std::uint64_t>(1, nodes_in[groups]);
  std::vector<std::uint32_t> home(topo.vertices(), 0);
  for (Vertex v = 0; v < topo.nodes(); ++v) {
    home[v] = static_cast<std::uint32_t>(nodes_in[topo.group_of(v)] *
                                         static_cast<std::uint64_t>(ranks) / total);
  }
  constexpr std::uint32_t kFar = ~0u;
  std::vector<std::uint32_t> level(topo.vertices(), kFar);
  for (Vertex v = 0; v < topo.nodes(); ++v) level[v] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (const Link& l : topo.links()) {
      if (level[l.from] != kFar && level[l.from] + 1 < level[l.to]) {
        level[l.to] = level[l.from] + 1;
        changed = true;
      }
    }
  }
  std::uint32_t top = 0;
  for (const std::uint32_t x : level) top = x == kFar ? top : std::max(top, x);
  for (std::uint32_t at = 1; at <= top; ++at) {
    for (Vertex v = topo.nodes(); v < topo.vertices(); ++v) {
      if (level[v] != at) continue;
      std::vector<std::uint32_t> seen(static_cast<std::size_t>(ranks), 0);
      for (LinkId l : topo.out_links(v)) {
        if (level[topo.link(l).to] + 1 == at) ++seen[home[topo.link(l).to]];
      }
      std::uint32_t best = 0;
      for (std::uint32_t r = 1; r < seen.size(); ++r) best = seen[r] > seen[best] ? r : best;
      home[v] = best;
    }
  }
  std::vector<std::uint32_t> lps(home);
  for (Vertex v = topo.nodes(); v < topo.vertices(); ++v) {
    for (LinkId l : topo.out_links(v)) {
      const Vertex to = topo.link(l).to;
      lps.push_back(level[to] < level[v] ? home[to] : home[v]);
    }
  }
  return lps;
}

using Factory = std::function<std::unique_ptr<Topology>()>;

void expect_same_partitions(const std::string& name, const Factory& make) {
  const auto topo = make();
  const auto net = make_routed(make(), 4096);
  for (int ranks : {1, 2, 3, 4, 5, 7, 8, 13, 64}) {
    const auto expected = reference_owners(*topo, ranks);
    const pdes::Partition p = net->partition(ranks);
    ASSERT_EQ(p.lp_count(), expected.size()) << name;
    std::size_t differ = 0;
    for (pdes::LpId lp = 0; lp < p.lp_count(); ++lp) {
      if (static_cast<std::uint32_t>(p.owner(lp)) != expected[lp]) ++differ;
    }
    EXPECT_EQ(differ, 0u) << name << " on " << ranks << " ranks";
  }
}

ClusterSpec cluster_spec(std::uint32_t server_size, Nic nic, std::vector<std::uint32_t> down,
                         std::vector<std::uint32_t> oversub) {
  ClusterSpec s;
  s.server_size = server_size;
  s.intra_rate_bps = 2'400'000'000'000;
  s.intra_switch_latency = 100 * kNanosecond;
  s.intra_propagation = 20 * kNanosecond;
  s.nic = nic;
  s.nic_rate_bps = 200'000'000'000;
  for (std::size_t i = 0; i < down.size(); ++i) {
    s.tiers.push_back(
        {down[i], oversub[i], 1'000'000'000'000, 350 * kNanosecond, (10 + 100 * i) * kNanosecond});
  }
  return s;
}

TEST(RoutedPartition, ClustersMatchTheFabricsOwnAlgorithm) {
  struct Case {
    std::uint32_t nodes, server;
    Nic nic;
    std::vector<std::uint32_t> down, oversub;
  };
  const std::vector<Case> cases = {
      {16, 4, Nic::kPerNode, {4, 4}, {1, 1}},
      {16, 4, Nic::kPerNode, {4, 4}, {2, 1}},
      {16, 4, Nic::kPerServer, {2, 2}, {1, 1}},
      {16, 4, Nic::kPerServer, {2, 2}, {2, 1}},
      {16, 1, Nic::kPerServer, {4, 4}, {1, 1}},
      {16, 4, Nic::kPerNode, {2, 8}, {1, 1}},
      {8, 4, Nic::kPerNode, {8}, {1}},
      {64, 2, Nic::kPerNode, {4, 4, 4}, {2, 1, 1}},
      {64, 4, Nic::kPerServer, {2, 4, 2}, {1, 2, 1}},
      {48, 2, Nic::kPerNode, {3, 4, 4}, {1, 2, 1}},
      {1024, 8, Nic::kPerNode, {16, 64}, {1, 1}},
  };
  for (const Case& c : cases) {
    const ClusterSpec s = cluster_spec(c.server, c.nic, c.down, c.oversub);
    expect_same_partitions("cluster of " + std::to_string(c.nodes),
                           [&] { return make_cluster(s, c.nodes); });
  }
}

// 64 nodes in servers of 4, three tiers of 4 switches' children: a pod (the
// leaves under one mid-tier group) holds 16 nodes. On 2 ranks every pod
// and its mid-tier switches are on one rank: only the top tier is cut, and
// the remote bounds see it; a top switch's ports down to a pod are the pod's
// rank's, so traffic between two pods of one rank stays on it.
TEST(RoutedPartition, PodsStayWholeAndBoundTheirRemoteEvents) {
  const ClusterSpec s = cluster_spec(4, Nic::kPerNode, {4, 4, 4}, {1, 1, 1});
  const auto topo = make_cluster(s, 64);
  auto net = make_routed(make_cluster(s, 64), 4096);
  const pdes::Partition p = net->partition(2);
  net->setup(p, 0);
  ASSERT_TRUE(net->bounds_remote_events());
  std::uint32_t cut = 0;
  for (const Link& l : topo->links()) {
    if (p.owner(l.from) == p.owner(l.to)) continue;
    ++cut;
    EXPECT_EQ(l.latency, (350 + 210) * kNanosecond) << "only top-tier links are cut";
  }
  EXPECT_GT(cut, 0u);
  const pdes::Time lookahead = net->lookahead(p);
  // A node reaches the cut through its leaf, its pod's switch and a top one.
  const pdes::Time leaf = 360 * kNanosecond, mid = 460 * kNanosecond, top = 560 * kNanosecond;
  for (std::uint32_t n = 0; n < 64; ++n) EXPECT_EQ(net->cut_distance(n), leaf + mid + top);
  EXPECT_EQ(lookahead, top);
  // A chunk from node 0 to node 40 (rank 1's half) crosses the cut into or
  // out of the top tier: its bound is that link's arrival.
  pdes::Event e{};
  e.time = 1000;
  e.dst = 0;
  e.data[3] = std::uint64_t{0} << 32 | 40;
  const pdes::Time across = net->remote_bound(e);
  EXPECT_TRUE(across == 1000 + leaf + mid + top || across == 1000 + leaf + mid + top + mid)
      << across;
  EXPECT_FALSE(net->stays_local(0, 40));
  // A chunk inside a server reaches its destination on this rank: what that
  // node does next is its host's to bound.
  e.data[3] = std::uint64_t{0} << 32 | 1;
  EXPECT_EQ(net->remote_bound(e), pdes::kTimeMax);
  EXPECT_TRUE(net->stays_local(0, 1));
  EXPECT_TRUE(net->stays_local(1, 0));
  // Node 20 is in rank 0's other pod: the chunk crosses a top-tier switch,
  // whose port down to that pod is rank 0's, so it never leaves the rank.
  e.data[3] = std::uint64_t{0} << 32 | 20;
  EXPECT_EQ(net->remote_bound(e), pdes::kTimeMax);
  EXPECT_TRUE(net->stays_local(0, 20));
  EXPECT_TRUE(net->stays_local(20, 0));
  EXPECT_FALSE(net->stays_local(40, 20));
}

TEST(RoutedPartition, ToriMatchTheFabricsOwnAlgorithm) {
  for (auto [x, y] :
       {std::pair{1u, 1u}, {2u, 3u}, {4u, 4u}, {5u, 3u}, {1u, 4u}, {6u, 1u}, {16u, 16u}}) {
    Torus2dSpec s;
    s.dims[0] = x;
    s.dims[1] = y;
    s.link_rate_bps = 400'000'000'000;
    s.hop_latency = 13 * kNanosecond;
    expect_same_partitions("torus " + std::to_string(x) + "x" + std::to_string(y),
                           [&] { return make_torus2d(s); });
  }
}

TEST(RoutedPartition, BcubesMatchTheFabricsOwnAlgorithm) {
  for (auto [n, levels] :
       {std::pair{2u, 1u}, {2u, 3u}, {3u, 2u}, {4u, 1u}, {4u, 2u}, {4u, 3u}, {8u, 3u}}) {
    BcubeSpec s;
    s.ports = n;
    s.levels = levels;
    s.link_rate_bps = 100'000'000'000;
    s.switch_latency = 300 * kNanosecond;
    s.propagation = 5 * kNanosecond;
    expect_same_partitions("bcube " + std::to_string(n) + "," + std::to_string(levels),
                           [&] { return make_bcube(s); });
  }
}

TEST(RoutedPartition, TopooptsMatchTheFabricsOwnAlgorithm) {
  for (auto [n, degree] : {std::pair{2u, 2u}, {12u, 4u}, {32u, 6u}, {100u, 2u}, {257u, 4u}}) {
    TopooptSpec s;
    s.degree = degree;
    s.link_rate_bps = 100'000'000'000;
    s.link_latency = 1300 * kNanosecond;
    expect_same_partitions("topoopt " + std::to_string(n) + " degree " + std::to_string(degree),
                           [&] { return make_topoopt(s, n); });
  }
}

}  // namespace
}  // namespace sipsim::fabric
