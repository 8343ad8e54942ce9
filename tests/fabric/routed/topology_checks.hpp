#pragma once
// Checks every routed topology's tests share: structure (reverse links,
// wiring), routing (termination, minimality, from every vertex), locality
// groups, equality of two builds, and spec validation.
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

#include "sipsim/fabric/routed/topology.hpp"

namespace sipsim::fabric::testing {

inline constexpr std::uint32_t kUnreached = ~std::uint32_t{0};

// Hop-by-hop walk from a to b. Fails (and returns an empty path) on kNoLink,
// a link not leaving the current vertex, or more hops than vertices (a loop).
inline std::vector<LinkId> Route(const Topology& t, Vertex a, Vertex b, std::uint64_t flow) {
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
inline std::vector<std::uint32_t> Bfs(const Topology& t, Vertex src) {
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
inline void ExpectWellFormed(const Topology& t) {
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

inline void ExpectGroupsInRange(const Topology& t) {
  ASSERT_GT(t.groups(), 0u);
  for (Vertex v = 0; v < t.vertices(); ++v) EXPECT_LT(t.group_of(v), t.groups()) << v;
}

// Every pair of nodes is routed along a shortest path (BFS), for a few flows.
inline void ExpectShortestRoutes(const Topology& t, std::uint64_t flows = 3) {
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
inline void ExpectRoutesFromEveryVertex(const Topology& t) {
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
inline void ExpectSameFabric(const Topology& x, const Topology& y) {
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

}  // namespace sipsim::fabric::testing
