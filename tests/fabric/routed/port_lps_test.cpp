// PortLps: the routed fabric's LPs, a switch's output links each one. Its
// numbering keeps the tie order of a switch's events; its cut distances and
// lookahead match a plain fixed point over the LP graph, for any owners.
#include "sipsim/fabric/routed/port_lps.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "sipsim/fabric/electrical/bcube.hpp"
#include "sipsim/fabric/electrical/cluster.hpp"
#include "sipsim/fabric/electrical/torus2d.hpp"

namespace sipsim::fabric {
namespace {

using pdes::kNanosecond;
using pdes::LpId;
using pdes::Time;

std::unique_ptr<Topology> three_tier_cluster() {
  ClusterSpec s;
  s.server_size = 4;
  s.intra_rate_bps = 2'400'000'000'000;
  s.intra_switch_latency = 100 * kNanosecond;
  s.intra_propagation = 20 * kNanosecond;
  s.nic = ClusterSpec::Nic::kPerNode;
  s.nic_rate_bps = 200'000'000'000;
  for (std::uint32_t i = 0; i < 3; ++i) {
    s.tiers.push_back({4, 1, 1'000'000'000'000, 350 * kNanosecond, (10 + 100 * i) * kNanosecond});
  }
  return make_cluster(s, 64);
}

std::unique_ptr<Topology> torus() {
  Torus2dSpec s;
  s.dims[0] = 4;
  s.dims[1] = 3;
  s.link_rate_bps = 400'000'000'000;
  s.hop_latency = 13 * kNanosecond;
  return make_torus2d(s);
}

std::unique_ptr<Topology> bcube() {
  BcubeSpec s;
  s.ports = 3;
  s.levels = 2;
  s.link_rate_bps = 100'000'000'000;
  s.switch_latency = 300 * kNanosecond;
  s.propagation = 5 * kNanosecond;
  return make_bcube(s);
}

// The LPs a chunk that took link l may be handed to next.
std::vector<LpId> successors(const Topology& topo, const PortLps& lps, LinkId l) {
  const Vertex to = topo.link(l).to;
  if (!topo.is_switch(to)) return {to};
  std::vector<LpId> out;
  for (const LinkId m : topo.out_links(to)) out.push_back(lps.holder(m));
  return out;
}

TEST(PortLps, PortsFollowTheVerticesInSwitchThenLinkOrder) {
  const auto topo = three_tier_cluster();
  const PortLps lps(*topo);
  LpId expected = topo->vertices();
  for (Vertex v = 0; v < topo->vertices(); ++v) {
    for (const LinkId l : topo->out_links(v)) {
      if (!topo->is_switch(v)) {
        EXPECT_EQ(lps.holder(l), v) << "a node holds its own links";
        continue;
      }
      ASSERT_EQ(lps.holder(l), expected);
      EXPECT_TRUE(lps.is_port(expected));
      EXPECT_EQ(lps.link_of(expected), l);
      ++expected;
    }
  }
  EXPECT_EQ(lps.count(), expected);
  // Into any one port, a switch's links come in the order of their switches,
  // which is what ties between events sort by.
  for (Vertex v = topo->nodes(); v < topo->vertices(); ++v) {
    std::vector<std::pair<Vertex, LpId>> in;
    for (LinkId l = 0; l < topo->links().size(); ++l) {
      if (topo->link(l).to == v) in.push_back({topo->link(l).from, lps.holder(l)});
    }
    std::sort(in.begin(), in.end());
    for (std::size_t k = 1; k < in.size(); ++k) EXPECT_LT(in[k - 1].second, in[k].second);
  }
  // A chunk entering a switch goes to its port towards the destination.
  const std::uint32_t dst = 40;
  const LinkId up = topo->next_link(0, dst, 7);
  const Vertex leaf = topo->link(up).to;
  EXPECT_EQ(lps.next(leaf, dst, 7), lps.holder(topo->next_link(leaf, dst, 7)));
  EXPECT_EQ(lps.next(dst, dst, 7), dst);
}

void expect_matches_fixed_point(const std::string& name, const Topology& topo) {
  const PortLps lps(topo);
  std::mt19937 rng(5);
  for (int ranks : {1, 2, 3, 5}) {
    std::vector<std::uint32_t> owner(lps.count());
    for (auto& o : owner) o = static_cast<std::uint32_t>(rng() % static_cast<unsigned>(ranks));
    const pdes::Partition p = pdes::Partition::from_owners(owner, ranks);
    std::vector<int> rank(owner.begin(), owner.end());
    // D(x) = min over x's links l and their successors y of latency(l), plus
    // D(y) when y is on x's rank; iterated to its fixed point.
    std::vector<Time> d(lps.count(), pdes::kTimeMax);
    Time lookahead = pdes::kTimeMax;
    for (bool changed = true; changed;) {
      changed = false;
      for (LinkId l = 0; l < topo.links().size(); ++l) {
        const LpId x = lps.holder(l);
        for (const LpId y : successors(topo, lps, l)) {
          const Time lat = topo.link(l).latency;
          if (rank[y] != rank[x]) lookahead = std::min(lookahead, lat);
          const Time via = rank[y] != rank[x] ? lat : pdes::saturating_add(lat, d[y]);
          if (via < d[x]) {
            d[x] = via;
            changed = true;
          }
        }
      }
    }
    EXPECT_EQ(lps.cut_distances(rank), d) << name << " on " << ranks << " ranks";
    EXPECT_EQ(lps.lookahead(p), lookahead) << name << " on " << ranks << " ranks";
  }
}

TEST(PortLps, CutDistancesAndLookaheadMatchAFixedPointForAnyOwners) {
  expect_matches_fixed_point("cluster", *three_tier_cluster());
  expect_matches_fixed_point("torus", *torus());
  expect_matches_fixed_point("bcube", *bcube());
}

}  // namespace
}  // namespace sipsim::fabric
