// SiP-ML's degree-aware placement (§3.2, Algorithm 1; docs/models.md, "Op
// graphs and SiP-ML placement"): a pure function from the graph, its ops'
// durations, the quantum tau, k and Delta to the sub-ops' devices.
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "sipsim/workload/graph/graph.hpp"

namespace sipsim::workload::graph {

namespace {

// The distance from a producer on device `from` to a consumer on `to`:
// (to - from) mod k (SiP-ML: devices i and j communicate only if
// (i - j) mod k <= Delta).
std::uint32_t distance(std::uint32_t from, std::uint32_t to, std::uint32_t k) {
  return (to + k - from) % k;
}

// Algorithm 1 on the unrolled device axis: each sub-op has a level (an
// integer; its device is level mod k) and an edge is kept within
// 0 <= level(consumer) - level(producer) <= Delta, which implies the paper's
// (i - j) mod k <= Delta. Alg. 1's range [near_id, far_id + Delta] is the
// interval [max parent level, min parent level + Delta] on this axis.
class Placer {
 public:
  Placer(PlacementResult& out, std::uint32_t k, std::uint32_t delta)
      : out_(out), k_(k), delta_(delta), free_(delta + 1 >= k) {}

  std::vector<std::vector<std::uint32_t>> parents, children;  // by sub-op
  std::vector<pdes::Time> duration;                           // by sub-op
  std::vector<std::int64_t> level;                            // by sub-op
  std::vector<pdes::Time> avail;                              // by device

  // Algorithm 1, lines 4-13, for sub-op s (its parents placed).
  void place(std::uint32_t s) {
    std::int64_t lo = 0, hi = static_cast<std::int64_t>(k_) - 1;  // a root: any device
    if (!parents[s].empty() && !free_) {
      lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
      for (const std::uint32_t p : parents[s]) {
        lo = std::max(lo, level[p]);
        hi = std::min(hi, level[p] + static_cast<std::int64_t>(delta_));
      }
      hi = std::min(hi, lo + static_cast<std::int64_t>(k_) - 1);
    }
    if (lo > hi) {
      // No device within Delta of every parent: x goes to the level of its
      // farthest-ahead parent (the most range constraints met), the parents
      // left behind move up to within Delta of it, and so on (relocate()).
      level[s] = lo;
      out_.subops[s].device = device_of(lo);
      relocate(s);
      return;
    }
    // The earliest available device among the candidates, ties to the
    // smallest index.
    std::int64_t best = lo;
    for (std::int64_t l = lo + 1; l <= hi; ++l) {
      const std::uint32_t d = device_of(l), b = device_of(best);
      if (avail[d] < avail[b] || (avail[d] == avail[b] && d < b)) best = l;
    }
    level[s] = best;
    out_.subops[s].device = device_of(best);
    schedule(s);
  }

 private:
  std::uint32_t device_of(std::int64_t l) const {
    const std::int64_t k = k_;
    return static_cast<std::uint32_t>(((l % k) + k) % k);
  }

  // Line 10-13: start when the parents have ended and the device is free.
  void schedule(std::uint32_t s) {
    SubOp& x = out_.subops[s];
    pdes::Time ready = 0;
    for (const std::uint32_t p : parents[s]) ready = std::max(ready, out_.subops[p].end);
    x.start = std::max(ready, avail[x.device]);
    x.end = x.start + duration[s];
    avail[x.device] = x.end;
  }

  // §3.2's relocation: parents that violate the constraint move to the
  // nearest level within Delta of their child, their own parents after them
  // (backward), and children of moved sub-ops that their producer has
  // passed move up to it (forward), until no edge among the placed sub-ops
  // violates. Levels only grow, towards the least solution of the
  // difference constraints above the current levels (one exists: every
  // cycle of the constraint graph has weight <= 0), so this ends. The
  // estimate is then recomputed in placement order.
  void relocate(std::uint32_t x) {
    const std::int64_t delta = delta_;
    std::vector<std::uint32_t> work{x};
    while (!work.empty()) {
      const std::uint32_t u = work.back();
      work.pop_back();
      for (const std::uint32_t p : parents[u]) {
        if (level[p] >= level[u] - delta) continue;
        raise(p, level[u] - delta, work);
      }
      for (const std::uint32_t c : children[u]) {
        if (c > x || level[c] >= level[u]) continue;  // c > x: not placed yet
        raise(c, level[u], work);
      }
    }
    std::fill(avail.begin(), avail.end(), pdes::Time{0});
    for (std::uint32_t s = 0; s <= x; ++s) schedule(s);
  }

  void raise(std::uint32_t s, std::int64_t to, std::vector<std::uint32_t>& work) {
    level[s] = to;
    out_.subops[s].device = device_of(to);
    ++out_.relocations;
    work.push_back(s);
  }

  PlacementResult& out_;
  std::uint32_t k_, delta_;
  bool free_;  // Delta >= k - 1: every device is within Delta of every other
};

}  // namespace

PlacementResult place(const Graph& graph, const std::vector<pdes::Time>& durations,
                      pdes::Time quantum, std::uint32_t k, std::uint32_t delta) {
  if (k == 0 || quantum == 0 || durations.size() != graph.ops.size()) {
    throw std::invalid_argument("place: k and the quantum must be positive, one duration per op");
  }
  PlacementResult out;
  const std::size_t n = graph.ops.size();
  out.parts.resize(n);
  out.first.resize(n);
  // (i) The balanced graph: about tau per sub-op, at most k parts.
  for (std::size_t i = 0; i < n; ++i) {
    const pdes::Time parts = (durations[i] + quantum / 2) / quantum;
    out.parts[i] = static_cast<std::uint32_t>(std::clamp<pdes::Time>(parts, 1, k));
  }
  Placer placer(out, k, delta);
  placer.avail.assign(k, 0);
  for (const std::uint32_t i : graph.order) {
    out.first[i] = static_cast<std::uint32_t>(out.subops.size());
    for (std::uint32_t j = 0; j < out.parts[i]; ++j) {
      out.subops.push_back({i, j, 0, 0, 0});
      placer.duration.push_back(durations[i] / out.parts[i]);
    }
  }
  placer.level.resize(out.subops.size());
  placer.parents.resize(out.subops.size());
  placer.children.resize(out.subops.size());
  // Sub-op j of b parts covers [j/b, (j+1)/b) of the op's output; it needs
  // the producer's parts (of a) that overlap it, overlap / (a b) of the
  // producer's output each.
  for (const std::uint32_t c : graph.order) {
    const std::uint64_t b = out.parts[c];
    for (const std::uint32_t p : graph.ops[c].deps) {
      const std::uint64_t a = out.parts[p];
      const std::uint64_t bytes = graph.ops[p].output_bytes;
      for (std::uint64_t j = 0; j < b; ++j) {
        for (std::uint64_t i = 0; i < a; ++i) {
          const std::uint64_t lo = std::max(i * b, j * a), hi = std::min((i + 1) * b, (j + 1) * a);
          if (hi <= lo) continue;
          const auto from = static_cast<std::uint32_t>(out.first[p] + i);
          const auto to = static_cast<std::uint32_t>(out.first[c] + j);
          __extension__ typedef unsigned __int128 U128;
          out.edges.push_back(
              {from, to, static_cast<std::uint64_t>(U128{bytes} * (hi - lo) / (a * b))});
          placer.parents[to].push_back(from);
          placer.children[from].push_back(to);
        }
      }
    }
  }
  std::sort(out.edges.begin(), out.edges.end(), [](const SubEdge& x, const SubEdge& y) {
    return x.from != y.from ? x.from < y.from : x.to < y.to;
  });
  // (ii) Placement in topological order.
  for (std::uint32_t s = 0; s < out.subops.size(); ++s) placer.place(s);
  for (const SubOp& s : out.subops) out.makespan = std::max(out.makespan, s.end);
  return out;
}

std::string check_placement(const PlacementResult& p, std::uint32_t k, std::uint32_t delta) {
  const std::uint32_t d = std::min(delta, k - 1);
  for (std::size_t s = 0; s < p.subops.size(); ++s) {
    if (p.subops[s].device >= k) return fmt::format("sub-op {} is not placed", s);
  }
  std::vector<std::vector<std::uint32_t>> to(k), from(k);
  for (const SubEdge& e : p.edges) {
    const SubOp &a = p.subops[e.from], &b = p.subops[e.to];
    if (e.from >= e.to) return fmt::format("edge {} -> {} is not in placement order", e.from, e.to);
    if (distance(a.device, b.device, k) > d) {
      return fmt::format("edge {} -> {}: device {} to {} is farther than {}", e.from, e.to,
                         a.device, b.device, d);
    }
    if (a.end > b.start) {
      return fmt::format("edge {} -> {}: the consumer starts before its producer ends", e.from,
                         e.to);
    }
    if (a.device != b.device) {
      to[a.device].push_back(b.device);
      from[b.device].push_back(a.device);
    }
  }
  for (std::uint32_t g = 0; g < k; ++g) {
    for (auto* peers : {&to[g], &from[g]}) {
      std::sort(peers->begin(), peers->end());
      peers->erase(std::unique(peers->begin(), peers->end()), peers->end());
      if (peers->size() > d) {
        return fmt::format("device {} {} {} devices, more than {}", g,
                           peers == &to[g] ? "sends to" : "receives from", peers->size(), d);
      }
    }
  }
  return "";
}

std::vector<std::uint64_t> traffic_matrix(const PlacementResult& p, std::uint32_t k) {
  std::vector<std::uint64_t> m(std::size_t{k} * k, 0);
  for (const SubEdge& e : p.edges) {
    const std::uint32_t a = p.subops[e.from].device, b = p.subops[e.to].device;
    if (a == b) continue;
    m[std::size_t{a} * k + b] += e.bytes;  // the activation forward
    m[std::size_t{b} * k + a] += e.bytes;  // its gradient backward
  }
  return m;
}

}  // namespace sipsim::workload::graph
