// SiP-Ring's wavelength planner, SiP-ML App. A.1 (docs/models.md, "SiP-Ring
// wavelength planner (App. A.1)").
//
// Each direction's fibre is planned on its own, in coordinates where light runs
// from GPU x to x + 1. A unit of flow from the source to the sink around the
// ring is one wavelength: a chain of lightpaths that tiles every segment once,
// so a chain can never break the ring rule (segments do not overlap) nor the
// node rule (a GPU sends to and receives from one peer on it). A fibre splits
// at bridge segments (crossed by no demand longer than one hop) into stretches
// planned independently (see plan_direction); the rest below is per stretch,
// or per fibre when it has no bridge.
//
// Cuts with more than one edge: A.1 adds side constraints X = X', Y = Y',
// X + Y = 1 that plain network simplex cannot express. We instead (1) cut each
// step at the segment crossed by the fewest remaining demands (lowest index on
// ties), usually only the neighbour edge, and (2) solve one min-cost flow per
// edge crossing that segment, each with that edge alone carrying the unit
// across the cut (source -> its head, its tail -> sink), and keep the cheapest.
// That is the integral X, Y in {0, 1} restriction of A.1's program; fractional
// cut splits come back through the averaging over steps.
//
// "Served in steps, then averaged": with one unit of supply and no other
// capacities the optimum is a single chain. Each step serves every demand on
// that chain by the smallest remaining demand on it (the time at which the
// first one completes, as if all wavelengths carried the chain), removes
// completed demands and re-solves with the new weights -1/TM. The mean flow is
// the time-weighted mean of the chains (weight = bytes served in the step).
// So A.1's fixed step Delta is replaced by "until the next completion".
//
// Rounding: the mean is W times a convex combination of chains; each chain gets
// floor(W x) wavelengths and the remaining ones go to chains with probability
// equal to their fractional parts (systematic sampling, one uniform draw per
// stretch), so the expected wavelengths of an edge are W times its mean flow
// and the plan is feasible by construction.
#include "sipsim/fabric/sip/ring_planner.hpp"

#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <span>
#include <stdexcept>
#include <tuple>

#include "sipsim/pdes/random.hpp"

namespace sipsim::fabric {
namespace {

struct Demand {
  std::uint32_t u = 0;  // local (light runs u -> u + 1) coordinates
  std::uint32_t hops = 0;
  std::uint32_t src = 0;  // global ids, for the plan
  std::uint32_t dst = 0;
  double total = 0;
  double left = 0;
};

struct Chain {
  std::vector<std::uint32_t> demands;  // sorted demand ids with a lightpath
  double weight = 0;                   // bytes served while it was chosen
};

// The chains of one independent stretch of a fibre.
struct Block {
  std::vector<Chain> chains;
  double time = 0;  // sum of the weights: bytes per wavelength-set to drain it
  std::size_t steps = 0;
  std::size_t solves = 0;
};

struct DirectionPlan {
  std::vector<Block> blocks;
  std::vector<std::uint32_t> bridges;  // 1-hop demands on every chain: all wavelengths
  double time = 0;                     // the slowest block or bridge
  std::size_t steps = 0;
  std::size_t solves = 0;
};

// Serves `best` until its smallest demand completes and records the chain.
void serve(std::vector<Demand>& demands, std::vector<std::uint32_t>& active,
           std::vector<std::uint32_t> best, Block& out,
           std::map<std::vector<std::uint32_t>, std::size_t>& chain_index) {
  std::sort(best.begin(), best.end());
  if (best.empty()) throw std::logic_error("ring planner: a step served no demand");
  double served = std::numeric_limits<double>::infinity();
  for (const std::uint32_t id : best) served = std::min(served, demands[id].left);
  for (const std::uint32_t id : best) {
    Demand& d = demands[id];
    d.left = d.left - served <= 1e-12 * d.total ? 0.0 : d.left - served;
  }
  std::erase_if(active, [&](std::uint32_t id) { return demands[id].left == 0.0; });
  const auto [it, fresh] = chain_index.try_emplace(best, out.chains.size());
  if (fresh) out.chains.push_back({best, 0.0});
  out.chains[it->second].weight += served;
  out.time += served;
  ++out.steps;
}

// Weight -1/TM, scaled by the smallest demand to [-2^40, -1] and made
// integral: network simplex can cycle on floating-point costs.
std::int64_t scaled_weight(double min_left, double left) {
  return -std::max<std::int64_t>(1, std::llround(0x1.0p40 * (min_left / left)));
}

bool crosses(const Demand& d, std::uint32_t segment, std::uint32_t n) {
  return (segment + n - d.u) % n < d.hops;
}

// Adds d to the difference array of n + 1 entries whose prefix sums count the
// demands crossing each segment (segments d.u .. d.u + hops - 1, wrapping).
void count_crossings(const Demand& d, std::uint32_t n, std::vector<std::int64_t>& diff) {
  const std::uint32_t end = d.u + d.hops;
  ++diff[d.u];
  if (end <= n) {
    --diff[end];
  } else {
    --diff[n];
    ++diff[0];
    --diff[end - n];
  }
}

// An arc of one step's graph in ring order: from position `from` to `to`
// (> from), its cost, and its demand (-1: a dummy edge).
struct Arc {
  std::uint32_t from = 0, to = 0;
  std::int64_t cost = 0;
  std::int64_t id = -1;
};

// The min-cost flow of one unit from position s to position t on arcs that all
// run forward in ring order (a DAG: no arc crosses the cut) is a shortest
// path; found by dynamic programming over the positions s..t in O(V + E)
// instead of network simplex's pivots. `arcs` sorted by `from`; ties keep the
// path through the earlier arc. Appends the demand ids on the path to `ids`;
// returns its cost (the max of int64 when t cannot be reached).
std::int64_t shortest_chain(std::span<const Arc> arcs, std::span<const std::uint32_t> first_arc,
                            std::uint32_t s, std::uint32_t t, std::vector<std::int64_t>& dist,
                            std::vector<std::uint32_t>& via, std::vector<std::uint32_t>& ids) {
  constexpr std::int64_t kUnreached = std::numeric_limits<std::int64_t>::max();
  for (std::uint32_t x = s; x <= t; ++x) dist[x] = kUnreached;
  dist[s] = 0;
  for (std::uint32_t x = s; x < t; ++x) {
    if (dist[x] == kUnreached) continue;
    for (std::uint32_t k = first_arc[x]; k < first_arc[x + 1]; ++k) {
      const Arc& a = arcs[k];
      if (a.to > t) continue;
      const std::int64_t d = dist[x] + a.cost;
      if (d < dist[a.to]) {
        dist[a.to] = d;
        via[a.to] = k;
      }
    }
  }
  if (dist[t] == kUnreached) return kUnreached;
  for (std::uint32_t x = t; x != s; x = arcs[via[x]].from) {
    if (arcs[via[x]].id >= 0) ids.push_back(static_cast<std::uint32_t>(arcs[via[x]].id));
  }
  return dist[t];
}

// Orders `arcs` by `from` (arcs of one position keep their order: a
// counting sort, O(V + E)) and fills the CSR offsets over `positions`.
void index_arcs(std::vector<Arc>& arcs, std::uint32_t positions,
                std::vector<std::uint32_t>& first_arc, std::vector<Arc>& sorted) {
  first_arc.assign(positions + 1, 0);
  for (const Arc& a : arcs) ++first_arc[a.from + 1];
  for (std::uint32_t x = 0; x < positions; ++x) first_arc[x + 1] += first_arc[x];
  sorted.resize(arcs.size());
  std::vector<std::uint32_t>& fill = first_arc;  // advanced below, restored after
  for (const Arc& a : arcs) sorted[fill[a.from]++] = a;
  for (std::uint32_t x = positions; x > 0; --x) first_arc[x] = first_arc[x - 1];
  first_arc[0] = 0;
  arcs.swap(sorted);
}

// A.1 steps 1-3 on a whole fibre (no bridge segment); the `active` demands
// are consumed (left goes to 0).
Block plan_ring(std::uint32_t n, std::vector<Demand>& demands, std::vector<std::uint32_t> active,
                RingSolver solver) {
  using Graph = lemon::SmartDigraph;
  Block out;
  std::map<std::vector<std::uint32_t>, std::size_t> chain_index;
  std::vector<std::int64_t> neighbour(n, -1);  // active 1-hop demand leaving x
  std::vector<std::int64_t> diff(n + 1);
  std::vector<Arc> arcs, sorted;  // the shortest-path solver's graph and work space
  std::vector<std::uint32_t> first_arc, via(n);
  std::vector<std::int64_t> dist(n);

  while (!active.empty()) {
    // The cut: the segment crossed by the fewest active demands.
    std::fill(diff.begin(), diff.end(), 0);
    std::fill(neighbour.begin(), neighbour.end(), -1);
    double min_left = std::numeric_limits<double>::infinity();
    for (const std::uint32_t id : active) {
      const Demand& d = demands[id];
      min_left = std::min(min_left, d.left);
      if (d.hops == 1) neighbour[d.u] = id;
      count_crossings(d, n, diff);
    }
    std::uint32_t cut = 0;
    std::int64_t best_count = std::numeric_limits<std::int64_t>::max(), running = 0;
    for (std::uint32_t s = 0; s < n; ++s) {
      running += diff[s];
      if (running < best_count) best_count = running, cut = s;
    }
    // Weight -1/TM, scaled by the smallest demand to [-2^40, -1] and made
    // integral: network simplex can cycle on floating-point costs.
    auto weight = [&](std::int64_t id) -> std::int64_t {
      return id < 0 ? 0 : scaled_weight(min_left, demands[static_cast<std::size_t>(id)].left);
    };

    if (solver == RingSolver::kShortestPath) {
      // Positions in ring order from the GPU after the cut: every arc not
      // crossing the cut runs forward; a candidate's chain runs from its head
      // round to its tail.
      const std::uint32_t start = (cut + 1) % n;
      auto pos = [&](std::uint32_t x) { return (x + n - start) % n; };
      arcs.clear();
      std::vector<std::int64_t> candidates;
      for (const std::uint32_t id : active) {
        const Demand& d = demands[id];
        if (crosses(d, cut, n)) {
          candidates.push_back(id);
        } else {
          arcs.push_back({pos(d.u), pos(d.u) + d.hops, weight(id), id});
        }
      }
      for (std::uint32_t x = 0; x < n; ++x) {
        if (neighbour[x] < 0 && x != cut) arcs.push_back({pos(x), pos(x) + 1, 0, -1});
      }
      if (neighbour[cut] < 0) candidates.push_back(-1);
      index_arcs(arcs, n, first_arc, sorted);
      std::int64_t best_cost = std::numeric_limits<std::int64_t>::max();
      std::vector<std::uint32_t> best, ids;
      for (const std::int64_t id : candidates) {
        const std::uint32_t u = id < 0 ? cut : demands[static_cast<std::size_t>(id)].u;
        const std::uint32_t hops = id < 0 ? 1 : demands[static_cast<std::size_t>(id)].hops;
        ids.clear();
        const std::int64_t c =
            shortest_chain(arcs, first_arc, pos((u + hops) % n), pos(u), dist, via, ids);
        ++out.solves;
        if (c == std::numeric_limits<std::int64_t>::max()) {
          throw std::logic_error("ring planner: no chain round the ring");
        }
        const std::int64_t total = c + weight(id);
        if (!(total < best_cost)) continue;
        best_cost = total;
        best = ids;
        if (id >= 0) best.push_back(static_cast<std::uint32_t>(id));
      }
      serve(demands, active, std::move(best), out, chain_index);
      continue;
    }

    Graph g;
    g.reserveNode(n + 2);
    for (std::uint32_t x = 0; x < n + 2; ++x) g.addNode();
    const Graph::Node source = g.nodeFromId(static_cast<int>(n));
    const Graph::Node sink = g.nodeFromId(static_cast<int>(n + 1));
    Graph::ArcMap<std::int64_t> cost(g);
    Graph::ArcMap<int> upper(g);
    std::vector<std::int64_t> arc_demand;  // by arc id; -1 for dummy/terminal arcs
    auto add_arc = [&](std::uint32_t a, std::uint32_t b, std::int64_t c, std::int64_t id) {
      const Graph::Arc arc =
          g.addArc(g.nodeFromId(static_cast<int>(a)), g.nodeFromId(static_cast<int>(b)));
      cost[arc] = c;
      upper[arc] = 1;
      arc_demand.push_back(id);
      return arc;
    };
    std::vector<std::int64_t> candidates;
    for (const std::uint32_t id : active) {
      const Demand& d = demands[id];
      if (crosses(d, cut, n)) {
        candidates.push_back(id);
      } else {
        add_arc(d.u, (d.u + d.hops) % n, weight(id), id);
      }
    }
    // Dummy edges keep every neighbour pair connected (A.1 step 1).
    for (std::uint32_t x = 0; x < n; ++x) {
      if (neighbour[x] < 0 && x != cut) add_arc(x, (x + 1) % n, 0, -1);
    }
    if (neighbour[cut] < 0) candidates.push_back(-1);  // the dummy edge at the cut
    std::vector<std::pair<Graph::Arc, Graph::Arc>> terminals;
    for (const std::int64_t id : candidates) {
      const std::uint32_t u = id < 0 ? cut : demands[static_cast<std::size_t>(id)].u;
      const std::uint32_t hops = id < 0 ? 1 : demands[static_cast<std::size_t>(id)].hops;
      const Graph::Arc head = add_arc(n, (u + hops) % n, 0, -1);
      const Graph::Arc tail = add_arc(u, n + 1, 0, -1);
      upper[head] = upper[tail] = 0;
      terminals.emplace_back(head, tail);
    }

    lemon::NetworkSimplex<Graph, int, std::int64_t> simplex(g);
    simplex.costMap(cost).stSupply(source, sink, 1);
    std::int64_t best_cost = std::numeric_limits<std::int64_t>::max();
    std::vector<std::uint32_t> best;
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      upper[terminals[c].first] = upper[terminals[c].second] = 1;
      simplex.upperMap(upper);
      const auto status = simplex.run();
      upper[terminals[c].first] = upper[terminals[c].second] = 0;
      ++out.solves;
      if (status != lemon::NetworkSimplex<Graph, int, std::int64_t>::OPTIMAL) {
        throw std::logic_error("ring planner: min-cost flow not optimal");
      }
      const std::int64_t total = simplex.totalCost() + weight(candidates[c]);
      if (!(total < best_cost)) continue;
      best_cost = total;
      best.clear();
      if (candidates[c] >= 0) best.push_back(static_cast<std::uint32_t>(candidates[c]));
      for (Graph::ArcIt a(g); a != lemon::INVALID; ++a) {
        const std::int64_t id = arc_demand[static_cast<std::size_t>(g.id(a))];
        if (id >= 0 && simplex.flow(a) > 0) best.push_back(static_cast<std::uint32_t>(id));
      }
    }
    serve(demands, active, std::move(best), out, chain_index);
  }
  return out;
}

// The same on a stretch of `length` GPUs from `first` between two bridge
// segments: every chain runs from `first` to its last GPU, so no cut is needed.
Block plan_path(std::uint32_t n, std::uint32_t first, std::uint32_t length,
                std::vector<Demand>& demands, std::vector<std::uint32_t> active,
                RingSolver solver) {
  using Graph = lemon::SmartDigraph;
  Block out;
  std::map<std::vector<std::uint32_t>, std::size_t> chain_index;
  std::vector<bool> neighbour(length);
  std::vector<Arc> arcs, sorted;
  std::vector<std::uint32_t> first_arc, via(length);
  std::vector<std::int64_t> dist(length);
  while (!active.empty()) {
    double min_left = std::numeric_limits<double>::infinity();
    std::fill(neighbour.begin(), neighbour.end(), false);
    for (const std::uint32_t id : active) {
      min_left = std::min(min_left, demands[id].left);
      if (demands[id].hops == 1) neighbour[(demands[id].u + n - first) % n] = true;
    }
    if (solver == RingSolver::kShortestPath) {
      arcs.clear();
      for (const std::uint32_t id : active) {
        const std::uint32_t a = (demands[id].u + n - first) % n;
        arcs.push_back({a, a + demands[id].hops, scaled_weight(min_left, demands[id].left), id});
      }
      for (std::uint32_t x = 0; x + 1 < length; ++x) {
        if (!neighbour[x]) arcs.push_back({x, x + 1, 0, -1});
      }
      index_arcs(arcs, length, first_arc, sorted);
      std::vector<std::uint32_t> best;
      ++out.solves;
      if (shortest_chain(arcs, first_arc, 0, length - 1, dist, via, best) ==
          std::numeric_limits<std::int64_t>::max()) {
        throw std::logic_error("ring planner: no chain along the stretch");
      }
      serve(demands, active, std::move(best), out, chain_index);
      continue;
    }
    Graph g;
    g.reserveNode(static_cast<int>(length));
    for (std::uint32_t x = 0; x < length; ++x) g.addNode();
    Graph::ArcMap<std::int64_t> cost(g);
    std::vector<std::int64_t> arc_demand;
    auto add_arc = [&](std::uint32_t a, std::uint32_t b, std::int64_t c, std::int64_t id) {
      const Graph::Arc arc =
          g.addArc(g.nodeFromId(static_cast<int>(a)), g.nodeFromId(static_cast<int>(b)));
      cost[arc] = c;
      arc_demand.push_back(id);
    };
    for (const std::uint32_t id : active) {
      const std::uint32_t a = (demands[id].u + n - first) % n;
      add_arc(a, a + demands[id].hops, scaled_weight(min_left, demands[id].left), id);
    }
    for (std::uint32_t x = 0; x + 1 < length; ++x) {
      if (!neighbour[x]) add_arc(x, x + 1, 0, -1);
    }
    lemon::NetworkSimplex<Graph, int, std::int64_t> simplex(g);
    simplex.costMap(cost).stSupply(g.nodeFromId(0), g.nodeFromId(static_cast<int>(length - 1)), 1);
    ++out.solves;
    if (simplex.run() != lemon::NetworkSimplex<Graph, int, std::int64_t>::OPTIMAL) {
      throw std::logic_error("ring planner: min-cost flow not optimal");
    }
    std::vector<std::uint32_t> best;
    for (Graph::ArcIt a(g); a != lemon::INVALID; ++a) {
      const std::int64_t id = arc_demand[static_cast<std::size_t>(g.id(a))];
      if (id >= 0 && simplex.flow(a) > 0) best.push_back(static_cast<std::uint32_t>(id));
    }
    serve(demands, active, std::move(best), out, chain_index);
  }
  return out;
}

// A.1 steps 1-3 on one fibre. A bridge is a segment no demand longer than one
// hop crosses: every chain takes its neighbour arc, so the min-cost flow splits
// exactly into independent stretches between bridges, each planned on its own
// (far smaller graphs, and a stretch re-solves only when its own demands
// complete). Without a bridge the whole ring is one problem with a cut.
DirectionPlan plan_direction(std::uint32_t n, std::vector<Demand>& demands, RingSolver solver) {
  DirectionPlan out;
  std::vector<std::int64_t> diff(n + 1, 0);
  for (const Demand& d : demands) {
    if (d.hops < 2) continue;
    count_crossings(d, n, diff);
  }
  std::vector<std::uint32_t> bridges;
  std::int64_t running = 0;
  for (std::uint32_t s = 0; s < n; ++s) {
    running += diff[s];
    if (running == 0) bridges.push_back(s);
  }
  if (bridges.empty()) {
    std::vector<std::uint32_t> all(demands.size());
    for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
    out.blocks.push_back(plan_ring(n, demands, std::move(all), solver));
  } else {
    // Stretch k runs from GPU bridges[k] + 1 to GPU bridges[k + 1] (cyclically).
    std::vector<std::uint32_t> stretch_of(n);
    std::vector<std::vector<std::uint32_t>> members(bridges.size());
    for (std::size_t k = 0; k < bridges.size(); ++k) {
      const std::uint32_t first = (bridges[k] + 1) % n;
      const std::uint32_t last = bridges[(k + 1) % bridges.size()];
      for (std::uint32_t x = first;; x = (x + 1) % n) {
        stretch_of[x] = static_cast<std::uint32_t>(k);
        if (x == last) break;
      }
    }
    std::vector<bool> is_bridge(n, false);
    for (const std::uint32_t s : bridges) is_bridge[s] = true;
    for (std::uint32_t id = 0; id < demands.size(); ++id) {
      const Demand& d = demands[id];
      if (d.hops == 1 && is_bridge[d.u]) {
        out.bridges.push_back(id);
        out.time = std::max(out.time, d.total);
      } else {
        members[stretch_of[d.u]].push_back(id);
      }
    }
    for (std::size_t k = 0; k < bridges.size(); ++k) {
      if (members[k].empty()) continue;
      const std::uint32_t first = (bridges[k] + 1) % n;
      const std::uint32_t length = (bridges[(k + 1) % bridges.size()] + n - first) % n + 1;
      out.blocks.push_back(plan_path(n, first, length, demands, std::move(members[k]), solver));
    }
  }
  for (const Block& b : out.blocks) {
    out.time = std::max(out.time, b.time);
    out.steps += b.steps;
    out.solves += b.solves;
  }
  return out;
}

// A.1 step 4: W times the chain weights, randomized rounding keeping the sum W.
std::vector<std::uint32_t> round_chains(const Block& plan, std::uint32_t w, double u) {
  std::vector<std::uint32_t> counts(plan.chains.size(), 0);
  if (w == 0 || plan.chains.empty()) return counts;
  std::vector<double> frac(plan.chains.size());
  std::uint32_t assigned = 0;
  for (std::size_t s = 0; s < plan.chains.size(); ++s) {
    const double x = w * (plan.chains[s].weight / plan.time);
    const double whole = std::floor(x);
    counts[s] = static_cast<std::uint32_t>(whole);
    frac[s] = x - whole;
    assigned += counts[s];
  }
  const double remaining = assigned < w ? w - assigned : 0;
  double cum = 0;
  std::vector<bool> bumped(plan.chains.size(), false);
  for (std::size_t s = 0; s < plan.chains.size() && assigned < w; ++s) {
    const double lo = cum;
    cum += frac[s];
    // Integers m in [0, remaining) with lo <= u + m < cum.
    const double m_lo = std::max(0.0, std::ceil(lo - u));
    const double m_hi = std::min(remaining, std::ceil(cum - u));
    if (m_hi > m_lo) {
      ++counts[s];
      ++assigned;
      bumped[s] = true;
    }
  }
  // Rounding error in the fractional sum: hand leftovers to the largest parts.
  while (assigned < w) {
    std::size_t pick = 0;
    double best = -1;
    for (std::size_t s = 0; s < frac.size(); ++s) {
      if (!bumped[s] && frac[s] > best) best = frac[s], pick = s;
    }
    if (best < 0) pick = 0;
    bumped[pick] = true;
    ++counts[pick];
    ++assigned;
  }
  return counts;
}

}  // namespace

std::uint32_t ring_hops(std::uint32_t gpus, std::uint32_t src, std::uint32_t dst,
                        RingDirection direction) {
  return direction == RingDirection::kClockwise ? (dst + gpus - src) % gpus
                                                : (src + gpus - dst) % gpus;
}

RingPlan plan_ring_wavelengths(const RingPlanInput& in) {
  const std::uint32_t n = in.gpus;
  if (in.demands.empty() && in.traffic.size() != std::size_t{n} * n) {
    throw std::invalid_argument("ring planner: traffic matrix must be N x N");
  }
  if (n > 1 && (in.wavelengths == 0 || in.reach == 0)) {
    throw std::invalid_argument("ring planner: wavelengths and reach must be positive");
  }
  RingPlan plan;
  plan.clockwise_wavelengths = in.wavelengths;
  std::vector<Demand> cw, ccw;
  auto add = [&](std::uint32_t i, std::uint32_t j, double bytes) {
    if (!std::isfinite(bytes) || bytes < 0) {
      throw std::invalid_argument("ring planner: traffic must be finite and non-negative");
    }
    if (i == j || bytes == 0) return;
    // The shorter direction (clockwise on ties), if within the reach.
    const std::uint32_t h_cw = ring_hops(n, i, j, RingDirection::kClockwise);
    const std::uint32_t h_ccw = n - h_cw;
    if (std::min(h_cw, h_ccw) > in.reach) {
      plan.unreachable.push_back({i, j, bytes});
    } else if (h_cw <= h_ccw) {
      cw.push_back({i, h_cw, i, j, bytes, bytes});
    } else {
      ccw.push_back({(n - i) % n, h_ccw, i, j, bytes, bytes});  // mirrored
    }
  };
  if (!in.demands.empty()) {
    for (std::size_t k = 0; k < in.demands.size(); ++k) {
      const RingDemand& d = in.demands[k];
      if (d.src >= n || d.dst >= n ||
          (k > 0 &&
           std::tie(in.demands[k - 1].src, in.demands[k - 1].dst) >= std::tie(d.src, d.dst))) {
        throw std::invalid_argument(
            "ring planner: demands must name GPUs below N, sorted by (src, dst), each pair once");
      }
      add(d.src, d.dst, d.bytes);
    }
  } else {
    for (std::uint32_t i = 0; i < n; ++i) {
      for (std::uint32_t j = 0; j < n; ++j) add(i, j, in.traffic[std::size_t{i} * n + j]);
    }
  }
  const DirectionPlan p_cw = plan_direction(n, cw, in.solver);
  const DirectionPlan p_ccw = plan_direction(n, ccw, in.solver);
  plan.steps = p_cw.steps + p_ccw.steps;
  plan.solves = p_cw.solves + p_ccw.solves;

  // Split W between the fibres in proportion to the time each needs to drain.
  const std::uint32_t w = in.wavelengths;
  std::uint32_t w_cw = w;
  if (p_cw.time > 0 && p_ccw.time > 0) {
    if (w == 1) {
      w_cw = p_cw.time >= p_ccw.time ? 1 : 0;
    } else {
      const double share = std::round(w * (p_cw.time / (p_cw.time + p_ccw.time)));
      w_cw = static_cast<std::uint32_t>(std::clamp(share, 1.0, static_cast<double>(w - 1)));
    }
  } else if (p_ccw.time > 0) {
    w_cw = 0;
  }
  plan.clockwise_wavelengths = w_cw;

  // One uniform draw per stretch, clockwise stretches first.
  pdes::RandomStream rng(in.seed, kRingPlannerStream, static_cast<std::uint32_t>(in.epoch));
  auto emit = [&](const DirectionPlan& p, const std::vector<Demand>& demands, std::uint32_t count,
                  std::uint32_t base, RingDirection dir) {
    for (const std::uint32_t id : p.bridges) {
      for (std::uint32_t k = 0; k < count; ++k) {
        plan.lightpaths.push_back({demands[id].src, demands[id].dst, dir, base + k});
      }
    }
    for (const Block& b : p.blocks) {
      const std::vector<std::uint32_t> counts = round_chains(b, count, rng.uniform());
      std::uint32_t next = base;
      for (std::size_t s = 0; s < b.chains.size(); ++s) {
        for (std::uint32_t k = 0; k < counts[s]; ++k, ++next) {
          for (const std::uint32_t id : b.chains[s].demands) {
            plan.lightpaths.push_back({demands[id].src, demands[id].dst, dir, next});
          }
        }
      }
    }
  };
  emit(p_cw, cw, w_cw, 0, RingDirection::kClockwise);
  emit(p_ccw, ccw, w - w_cw, w_cw, RingDirection::kCounterClockwise);
  std::sort(plan.lightpaths.begin(), plan.lightpaths.end(),
            [](const Lightpath& a, const Lightpath& b) {
              return std::tie(a.direction, a.wavelength, a.src, a.dst) <
                     std::tie(b.direction, b.wavelength, b.src, b.dst);
            });
  return plan;
}

std::optional<std::string> check_ring_plan(const RingPlan& plan, std::uint32_t gpus,
                                           std::uint32_t wavelengths, std::uint32_t reach) {
  const std::size_t n = gpus, w = wavelengths;
  std::vector<bool> segment(2 * n * w, false);
  std::vector<std::int64_t> tx(n * w, -1), rx(n * w, -1);
  for (const Lightpath& l : plan.lightpaths) {
    const std::string who = "lightpath " + std::to_string(l.src) + "->" + std::to_string(l.dst) +
                            " on wavelength " + std::to_string(l.wavelength);
    if (l.src >= n || l.dst >= n || l.src == l.dst || l.wavelength >= w) {
      return who + ": out of range";
    }
    const std::uint32_t hops = ring_hops(gpus, l.src, l.dst, l.direction);
    if (hops > reach) return who + ": " + std::to_string(hops) + " hops exceed the reach";
    const bool cw = l.direction == RingDirection::kClockwise;
    for (std::uint32_t k = 0; k < hops; ++k) {
      const std::size_t s = cw ? (l.src + k) % n : (l.src + 2 * n - 1 - k) % n;
      const std::size_t slot = ((cw ? 0 : n) + s) * w + l.wavelength;
      if (segment[slot]) return who + ": segment " + std::to_string(s) + " already lit";
      segment[slot] = true;
    }
    std::int64_t& sent = tx[l.src * w + l.wavelength];
    std::int64_t& got = rx[l.dst * w + l.wavelength];
    if (sent >= 0 && sent != l.dst) return who + ": source already sends to another peer";
    if (got >= 0 && got != l.src) return who + ": destination already hears another peer";
    sent = l.dst;
    got = l.src;
  }
  return std::nullopt;
}

}  // namespace sipsim::fabric
