#include "sipsim/fabric/routed/port_lps.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

namespace sipsim::fabric {

namespace {

constexpr std::int64_t kMixed = -1;

// The rank of every LP a chunk entering vertex w may be handed to
// (PortLps::next): w itself for a node, the holders of its output links for
// a switch; kMixed where they differ.
template <class Owner>  // int(pdes::LpId)
std::vector<std::int64_t> successor_ranks(const Topology& topo, const PortLps& lps,
                                          const Owner& owner) {
  std::vector<std::int64_t> rank(topo.vertices(), kMixed);
  for (Vertex w = 0; w < topo.vertices(); ++w) {
    if (!topo.is_switch(w)) {
      rank[w] = owner(w);
      continue;
    }
    const auto out = topo.out_links(w);
    if (out.empty()) continue;
    const int first = owner(lps.holder(out.front()));
    const bool one = std::all_of(out.begin(), out.end(),
                                 [&](LinkId m) { return owner(lps.holder(m)) == first; });
    rank[w] = one ? first : kMixed;
  }
  return rank;
}

}  // namespace

PortLps::PortLps(const Topology& topo)
    : topo_(&topo), vertices_(topo.vertices()), holder_(topo.links().size()) {
  for (LinkId l = 0; l < topo.links().size(); ++l) holder_[l] = topo.link(l).from;
  for (Vertex v = topo.nodes(); v < vertices_; ++v) {
    for (const LinkId l : topo.out_links(v)) {  // increasing link id
      holder_[l] = static_cast<pdes::LpId>(vertices_ + link_of_.size());
      link_of_.push_back(l);
    }
  }
}

std::vector<std::uint32_t> PortLps::owners(const pdes::Partition& nodes) const {
  std::vector<std::uint32_t> owner(count());
  for (Vertex v = 0; v < vertices_; ++v) owner[v] = static_cast<std::uint32_t>(nodes.owner(v));
  // Levels: hops from the nearest node, breadth first from all of them.
  constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::vector<std::uint32_t> level(vertices_, kNone);
  std::vector<Vertex> order;
  order.reserve(vertices_);
  for (Vertex n = 0; n < topo_->nodes(); ++n) {
    level[n] = 0;
    order.push_back(n);
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    for (const LinkId l : topo_->out_links(order[i])) {
      const Vertex w = topo_->link(l).to;
      if (level[w] != kNone) continue;
      level[w] = level[order[i]] + 1;
      order.push_back(w);
    }
  }
  // Homes, level by level: a node's rank; a switch's, the home most of its
  // neighbours one level closer to the nodes have (the lowest on a tie).
  std::vector<std::uint32_t> home(owner.begin(), owner.begin() + vertices_);
  std::vector<std::uint32_t> seen(static_cast<std::size_t>(nodes.ranks()), 0);
  for (const Vertex v : order) {
    if (level[v] == 0) continue;
    std::fill(seen.begin(), seen.end(), 0);
    for (const LinkId l : topo_->out_links(v)) {
      const Vertex w = topo_->link(l).to;
      if (level[w] + 1 == level[v]) ++seen[home[w]];
    }
    home[v] = static_cast<std::uint32_t>(std::max_element(seen.begin(), seen.end()) - seen.begin());
    owner[v] = home[v];  // its own LP stays idle
  }
  // A port down towards the nodes carries what goes to the home of the
  // vertex it leads to; any other port, what comes from its switch's.
  for (std::size_t k = 0; k < link_of_.size(); ++k) {
    const Link& l = topo_->link(link_of_[k]);
    owner[vertices_ + k] = level[l.to] < level[l.from] ? home[l.to] : home[l.from];
  }
  return owner;
}

pdes::Time PortLps::lookahead(const pdes::Partition& p) const {
  const auto owner = [&](pdes::LpId lp) { return p.owner(lp); };
  const std::vector<std::int64_t> next = successor_ranks(*topo_, *this, owner);
  pdes::Time best = pdes::kTimeMax;
  for (LinkId id = 0; id < topo_->links().size(); ++id) {
    const Link& l = topo_->link(id);
    if (next[l.to] != p.owner(holder_[id])) best = std::min(best, l.latency);
  }
  return best;
}

// Dijkstra backwards from the links whose next holder is on another rank.
// A chunk entering a switch whose ports are all on one rank goes on at the
// nearest of them, so each vertex is settled once, by its first port to
// settle, and relaxes its incoming links: O(links log LPs).
std::vector<pdes::Time> PortLps::cut_distances(std::span<const int> owner) const {
  const auto rank_of = [&](pdes::LpId lp) { return owner[lp]; };
  const std::vector<std::int64_t> next = successor_ranks(*topo_, *this, rank_of);
  std::vector<std::vector<LinkId>> in(vertices_);
  std::vector<pdes::Time> d(count(), pdes::kTimeMax);
  for (LinkId id = 0; id < topo_->links().size(); ++id) {
    const Link& l = topo_->link(id);
    if (next[l.to] != owner[holder_[id]]) {
      d[holder_[id]] = std::min(d[holder_[id]], l.latency);
    } else {
      in[l.to].push_back(id);
    }
  }
  using Item = std::pair<pdes::Time, pdes::LpId>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> q;
  for (pdes::LpId lp = 0; lp < count(); ++lp) {
    if (d[lp] != pdes::kTimeMax) q.push({d[lp], lp});
  }
  std::vector<std::uint8_t> settled(vertices_, 0);
  while (!q.empty()) {
    const auto [dy, y] = q.top();
    q.pop();
    if (dy != d[y]) continue;
    const Vertex w = is_port(y) ? topo_->link(link_of(y)).from : y;
    if (settled[w] != 0 || (topo_->is_switch(w) && !is_port(y))) continue;
    settled[w] = 1;
    for (const LinkId id : in[w]) {
      const pdes::LpId x = holder_[id];
      const pdes::Time via = pdes::saturating_add(dy, topo_->link(id).latency);
      if (via < d[x]) {
        d[x] = via;
        q.push({via, x});
      }
    }
  }
  return d;
}

}  // namespace sipsim::fabric
