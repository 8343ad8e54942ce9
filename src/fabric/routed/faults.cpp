// Faults on the routed fabrics (docs/faults.md): targets read and resolved
// to links, and the topology that routes around the failed ones.
#include "sipsim/fabric/routed/faults.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace sipsim::fabric {

namespace {

// An end of a link, or a switch: {node: N} or {tier: T, index: I}.
struct End {
  bool node = false;
  std::uint32_t a = 0, b = 0;  // the node; or the tier and the index
  std::optional<base::Value> at;
};

End read_end(const base::Value& v, bool node_allowed, bool switch_allowed) {
  base::MapReader m = v.as_map();
  End e;
  e.at = v;
  if (node_allowed && (!switch_allowed || m.has("node"))) {
    e.node = true;
    e.a = m.required("node").as_u32();
  } else {
    e.a = m.required("tier").as_u32();
    e.b = m.required("index").as_u32();
  }
  m.finish();
  return e;
}

std::string words(const End& e) {
  return e.node ? fmt::format("node {}", e.a) : fmt::format("switch tier {} index {}", e.a, e.b);
}

// The target's ends: one for a switch or a NIC, two for a link.
std::vector<End> read_ends(FaultKind kind, const base::Value& target) {
  switch (kind) {
    case FaultKind::kSwitch:
      return {read_end(target, false, true)};
    case FaultKind::kNic:
      return {read_end(target, true, false)};
    case FaultKind::kLink: {
      base::MapReader m = target.as_map();
      const base::Value ends = m.required("ends");
      const std::vector<base::Value> items = ends.as_list();
      if (items.size() != 2)
        ends.fail("a link has two ends: [{node: N} or {tier: T, index: I}, ...]");
      std::vector<End> out{read_end(items[0], true, true), read_end(items[1], true, true)};
      m.finish();
      return out;
    }
    default:
      throw std::logic_error("not a routed fabric's fault kind");
  }
}

Vertex vertex_of(const Topology& topo, const End& e) {
  if (e.node) {
    if (e.a >= topo.nodes()) {
      e.at->fail(
          fmt::format("no node {}: the fabric has {} (0-{})", e.a, topo.nodes(), topo.nodes() - 1));
    }
    return e.a;
  }
  if (const std::optional<Vertex> v = topo.switch_at(e.a, e.b)) return *v;
  const std::string tiers = topo.tiers();
  e.at->fail(tiers.empty() ? std::string("this fabric has no switches")
                           : fmt::format("no switch at tier {} index {} ({})", e.a, e.b, tiers));
}

}  // namespace

std::string read_routed_target(FaultKind kind, const base::Value& target) {
  const std::vector<End> ends = read_ends(kind, target);
  switch (kind) {
    case FaultKind::kSwitch:
      return words(ends[0]);
    case FaultKind::kNic:
      return "nic of " + words(ends[0]);
    default:
      return fmt::format("link {} - {}", words(ends[0]), words(ends[1]));
  }
}

std::vector<LinkFault> resolve_faults(const Topology& topo, std::span<const Fault> faults) {
  std::vector<LinkFault> out;
  for (const Fault& f : faults) {
    const std::vector<End> ends = read_ends(f.kind, *f.where);
    LinkFault l{f.at, f.until, {}, f.factor, f.target};
    const Vertex u = vertex_of(topo, ends[0]);
    if (f.kind == FaultKind::kSwitch) {
      l.links = topo.links_at(u);
    } else if (f.kind == FaultKind::kNic) {
      l.links = topo.nic_links(u);
    } else {
      const Vertex v = vertex_of(topo, ends[1]);
      for (const LinkId id : topo.links_at(u)) {
        const Link& k = topo.link(id);
        if ((k.from == u && k.to == v) || (k.from == v && k.to == u)) l.links.push_back(id);
      }
      if (l.links.empty()) {
        f.where->fail(fmt::format("no link joins {} and {}", words(ends[0]), words(ends[1])));
      }
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::uint64_t routed_capacity(const Topology& topo, FaultKind kind, const base::Value& target) {
  Fault f;
  f.kind = kind;
  f.where = target;
  const std::vector<LinkFault> resolved = resolve_faults(topo, std::span(&f, 1));
  std::uint64_t bps = 0;
  for (const LinkId id : resolved[0].links) bps += topo.link(id).rate_bps;
  return bps;
}

FaultedTopology::FaultedTopology(std::unique_ptr<Topology> inner, std::vector<LinkFault> faults)
    : inner_(std::move(inner)), faults_(std::move(faults)) {
  set_vertices(inner_->nodes(), inner_->switches());
  for (const Link& l : inner_->links()) add_link(l.from, l.to, l.rate_bps, l.latency);
  finalize();
  for (const Link& l : links()) healthy_.push_back(l.rate_bps);
  down_.assign(links().size(), 0);
  in_start_.assign(vertices() + 1, 0);
  for (const Link& l : links()) ++in_start_[l.to + 1];
  for (Vertex v = 0; v < vertices(); ++v) in_start_[v + 1] += in_start_[v];
  in_.resize(links().size());
  std::vector<std::uint32_t> fill(in_start_.begin(), in_start_.end() - 1);
  for (LinkId id = 0; id < links().size(); ++id) in_[fill[link(id).to]++] = id;
  changes_ = FaultTimes(std::span<const LinkFault>(faults_));
  apply_changes(0);
}

pdes::Time FaultedTopology::next_change(pdes::Time after) const {
  return changes_.next(after);
}

// The faults on at t: a link is down if one of them took it away, else runs
// at its healthy rate times every degradation's factor.
void FaultedTopology::apply_changes(pdes::Time t) {
  std::vector<double> share(links().size(), 1.0);
  std::fill(down_.begin(), down_.end(), 0);
  cut_by_.clear();
  for (const LinkFault& f : faults_) {
    if (!active_at(f, t)) continue;
    if (f.factor == 0.0) cut_by_ += (cut_by_.empty() ? "" : ", ") + f.target;
    for (const LinkId id : f.links) {
      if (f.factor == 0.0) down_[id] = 1;
      share[id] *= f.factor;
    }
  }
  any_down_ = std::any_of(down_.begin(), down_.end(), [](std::uint8_t d) { return d != 0; });
  for (LinkId id = 0; id < links().size(); ++id) {
    // A down link keeps its rate: what was already on it drains.
    const double rate = down_[id] != 0 ? 1.0 : share[id];
    set_rate(id, std::max<std::uint64_t>(
                     1, static_cast<std::uint64_t>(static_cast<double>(healthy_[id]) * rate)));
  }
  distances_.clear();
}

const std::vector<std::uint32_t>& FaultedTopology::distances(Vertex dst) const {
  auto [it, fresh] = distances_.try_emplace(dst);
  std::vector<std::uint32_t>& d = it->second;
  if (!fresh) return d;
  // Breadth first from dst over the links that are up, backwards.
  d.assign(vertices(), kUnreachable);
  std::vector<Vertex> queue{dst};
  d[dst] = 0;
  for (std::size_t q = 0; q < queue.size(); ++q) {
    const Vertex v = queue[q];
    for (std::uint32_t i = in_start_[v]; i < in_start_[v + 1]; ++i) {
      const Link& l = link(in_[i]);
      if (down_[in_[i]] != 0 || d[l.from] != kUnreachable) continue;
      d[l.from] = d[v] + 1;
      queue.push_back(l.from);
    }
  }
  return d;
}

LinkId FaultedTopology::next_link(Vertex at, Vertex dst, std::uint64_t flow) const {
  if (!any_down_) return inner_->next_link(at, dst, flow);
  if (dst >= nodes() || at >= vertices() || at == dst) return kNoLink;
  const std::vector<std::uint32_t>& d = distances(dst);
  if (d[at] == kUnreachable) {
    // A chunk already inside a failed part drains on the healthy route; a
    // node with no path left cannot send.
    if (is_switch(at)) return inner_->next_link(at, dst, flow);
    throw std::runtime_error(
        fmt::format("node {} cannot reach node {}: the faults ({}) cut every path between them", at,
                    dst, cut_by_));
  }
  // The topology's own next link where it is up and as close as any (so
  // routes the failures do not touch stay the healthy ones); else a link
  // one hop closer, chosen by the ECMP hash.
  const LinkId native = inner_->next_link(at, dst, flow);
  if (native != kNoLink && down_[native] == 0 && d[link(native).to] + 1 == d[at]) return native;
  std::uint32_t count = 0;
  for (const LinkId id : out_links(at)) count += down_[id] == 0 && d[link(id).to] + 1 == d[at];
  std::uint64_t pick = ecmp_hash(at, dst, flow) % count;
  for (const LinkId id : out_links(at)) {
    if (down_[id] == 0 && d[link(id).to] + 1 == d[at] && pick-- == 0) return id;
  }
  return kNoLink;  // not reached: d[at] > 0 has a neighbour one hop closer
}

}  // namespace sipsim::fabric
