// SiP-Ring's wavelength planner, SiP-ML App. A.1 (docs/models.md, "SiP-Ring
// wavelength planner (App. A.1)").
//
// Each direction's fibre is planned on its own, in coordinates where light runs
// from GPU x to x + 1. A unit of flow from the source to the sink around the
// ring is one wavelength: a chain of lightpaths that tiles every segment once,
// so a chain can never break the ring rule (segments do not overlap) nor the
// node rule (a GPU sends to and receives from one peer on it). A fibre splits
// at bridge segments (crossed by no remaining demand longer than one hop) into
// stretches planned independently, at the start and whenever a completed
// demand leaves a new bridge (BlockPlanner::split); the rest below is per
// block: a stretch, or a fibre while it has no bridge.
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
// block), so the expected wavelengths of an edge are W times its mean flow
// and the plan is feasible by construction. A block that split rounds its own
// chains' share of its drain time and leaves the rest of its wavelengths to
// its stretches (round_chains; docs/models.md, step 4).
#include "sipsim/fabric/sip/ring_planner.hpp"

#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>
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
  std::int64_t weight = 0;  // -1/TM as an integer (BlockPlanner::reweigh)
};

// The chains of one block (a fibre, or a stretch of it between bridges),
// stored flat: chain c is the sorted demand ids ids[end[c - 1] .. end[c])
// with a lightpath each, and weight[c] bytes were served while it was chosen.
// A chain is never chosen twice: the step that serves it completes one of its
// demands. Once bridges appear, the rest is served in `children`, one per
// stretch between them.
struct Block {
  std::vector<std::uint32_t> ids;
  std::vector<std::uint32_t> end;
  std::vector<double> weight;
  double time = 0;   // sum of the weights: bytes per wavelength-set served here
  double total = 0;  // time + the slowest child's total: to drain the block
  std::vector<Block> children;
  std::size_t steps = 0;  // with the children's
  std::size_t solves = 0;
  std::size_t chains() const { return weight.size(); }
  std::span<const std::uint32_t> chain(std::size_t c) const {
    const std::size_t lo = c == 0 ? 0 : end[c - 1];
    return std::span<const std::uint32_t>(ids).subspan(lo, end[c] - lo);
  }
};

bool crosses(const Demand& d, std::uint32_t segment, std::uint32_t n) {
  return (segment + n - d.u) % n < d.hops;
}

// Adds `sign` x d to the difference array of n + 1 entries whose prefix sums
// count the demands crossing each segment (d.u .. d.u + hops - 1, wrapping).
void count_crossings(const Demand& d, std::uint32_t n, std::vector<std::int64_t>& diff,
                     std::int64_t sign = 1) {
  const std::uint32_t end = d.u + d.hops;
  diff[d.u] += sign;
  if (end <= n) {
    diff[end] -= sign;
  } else {
    diff[n] -= sign;
    diff[0] += sign;
    diff[end - n] -= sign;
  }
}

// An arc of one step's graph for network simplex, in positions: from
// `from` to `to` (> from), its cost, its demand (-1: a dummy edge).
struct Arc {
  std::uint32_t from = 0, to = 0;
  std::int64_t cost = 0;
  std::int64_t id = -1;
};

// One unit from position s to t over `arcs` by LEMON's network simplex; the
// demand ids with flow are appended to `ids`. Returns the cost.
std::int64_t simplex_chain(std::span<const Arc> arcs, std::uint32_t positions, std::uint32_t s,
                           std::uint32_t t, std::vector<std::uint32_t>& ids) {
  using Graph = lemon::SmartDigraph;
  Graph g;
  g.reserveNode(static_cast<int>(positions));
  for (std::uint32_t x = 0; x < positions; ++x) g.addNode();
  Graph::ArcMap<std::int64_t> cost(g);
  for (const Arc& a : arcs) {
    cost[g.addArc(g.nodeFromId(static_cast<int>(a.from)), g.nodeFromId(static_cast<int>(a.to)))] =
        a.cost;
  }
  lemon::NetworkSimplex<Graph, int, std::int64_t> simplex(g);
  simplex.costMap(cost).stSupply(g.nodeFromId(static_cast<int>(s)),
                                 g.nodeFromId(static_cast<int>(t)), 1);
  if (simplex.run() != lemon::NetworkSimplex<Graph, int, std::int64_t>::OPTIMAL) {
    return std::numeric_limits<std::int64_t>::max();  // t unreachable from s
  }
  for (Graph::ArcIt a(g); a != lemon::INVALID; ++a) {
    const Arc& arc = arcs[static_cast<std::size_t>(g.id(a))];
    if (arc.id >= 0 && simplex.flow(a) > 0) ids.push_back(static_cast<std::uint32_t>(arc.id));
  }
  return simplex.totalCost();
}

// A.1 steps 1-3 on one block: a stretch of `positions` GPUs from GPU `base`
// between two bridge segments, where every chain runs from the first GPU to
// the last, or a whole fibre (`ring`, base 0, positions n), cut anew at each
// step. Positions number the GPUs from where a step's chains start: a ring
// step cut at segment c starts at GPU c + 1, so no arc crosses the cut and
// every arc runs forward (a DAG).
//
// The demands are indexed once (CSR by GPU); a step only re-reads the active
// ones, so it costs O(positions + demands) per solve, with no graph built.
class BlockPlanner {
 public:
  BlockPlanner(std::uint32_t n, std::uint32_t base, std::uint32_t positions, bool ring,
               std::vector<Demand>& demands, std::span<const std::uint32_t> members,
               RingSolver solver)
      : n_(n),
        base_(base),
        positions_(positions),
        ring_(ring),
        solver_(solver),
        demands_(demands),
        first_(positions + 1, 0),
        one_hop_(positions, -1),
        dist_(positions),
        via_(positions) {
    // Members in increasing id order, so each GPU's arcs are too.
    for (const std::uint32_t id : members) ++first_[slot_of(demands_[id].u) + 1];
    for (std::uint32_t x = 0; x < positions_; ++x) first_[x + 1] += first_[x];
    arcs_.resize(members.size());
    std::vector<std::uint32_t> fill(first_.begin(), first_.end() - 1);
    for (const std::uint32_t id : members) {
      const std::uint32_t x = slot_of(demands_[id].u);
      arcs_[fill[x]++] = id;
      if (demands_[id].hops == 1) one_hop_[x] = id;
      max_hops_ = std::max(max_hops_, demands_[id].hops);
    }
    active_ = members.size();
    members_.assign(members.begin(), members.end());
    // Segment x joins slots x and x + 1 (a stretch has positions - 1).
    long_count_.assign(positions_, 0);
    for (const std::uint32_t id : members) {
      const Demand& d = demands_[id];
      if (d.hops < 2) continue;
      for (std::uint32_t k = 0; k < d.hops; ++k) ++long_count_[(slot_of(d.u) + k) % positions_];
    }
    for (std::uint32_t x = 0; x < segments(); ++x) bridged_ = bridged_ || long_count_[x] == 0;
    if (ring_) {
      crossings_.assign(n_ + 1, 0);
      for (const std::uint32_t id : members) count_crossings(demands_[id], n_, crossings_);
    }
    // |weight| <= 2^62 / positions: no chain's cost overflows.
    limit_ = static_cast<double>(std::int64_t{1} << 62) / positions_;
    reweigh(members);
  }

  Block run() {
    std::vector<std::uint32_t> best, ids;
    std::vector<std::int64_t> candidates;
    while (active_ > 0) {
      if (bridged_ && active_ >= 2) {
        split();
        break;
      }
      if (!ring_) {
        ++out_.solves;
        best.clear();
        if (chain(base_, 0, positions_ - 1, best) == kUnreached) {
          throw std::logic_error("ring planner: no chain along the stretch");
        }
        serve(best);
        continue;
      }
      const std::uint32_t cut = cheapest_cut();
      const std::uint32_t start = (cut + 1) % n_;
      auto pos = [&](std::uint32_t x) { return (x + n_ - start) % n_; };
      // The candidates to carry the unit across the cut: each demand crossing
      // it, in id order, and the cut's dummy edge when no 1-hop demand is on it.
      candidates.clear();
      for (std::uint32_t back = 0; back < std::min(max_hops_, n_); ++back) {
        const std::uint32_t x = slot_of((cut + n_ - back) % n_);
        for (std::uint32_t k = first_[x]; k < first_[x + 1]; ++k) {
          const Demand& d = demands_[arcs_[k]];
          if (d.left > 0 && crosses(d, cut, n_)) candidates.push_back(arcs_[k]);
        }
      }
      std::sort(candidates.begin(), candidates.end());
      if (!active_one_hop(slot_of(cut))) candidates.push_back(-1);
      std::int64_t best_cost = kUnreached;
      for (const std::int64_t id : candidates) {
        const auto* d = id < 0 ? nullptr : &demands_[static_cast<std::size_t>(id)];
        const std::uint32_t u = d ? d->u : cut;
        ids.clear();
        const std::int64_t c = chain(start, pos((u + (d ? d->hops : 1)) % n_), pos(u), ids);
        ++out_.solves;
        if (c == kUnreached) throw std::logic_error("ring planner: no chain round the ring");
        const std::int64_t total = c + (d ? d->weight : 0);
        if (!(total < best_cost)) continue;
        best_cost = total;
        best = ids;
        if (id >= 0) best.push_back(static_cast<std::uint32_t>(id));
      }
      serve(best);
    }
    double slowest = 0;
    for (const Block& c : out_.children) {
      slowest = std::max(slowest, c.total);
      out_.steps += c.steps;
      out_.solves += c.solves;
    }
    out_.total = out_.time + slowest;
    return std::move(out_);
  }

 private:
  static constexpr std::int64_t kUnreached = std::numeric_limits<std::int64_t>::max();

  std::uint32_t slot_of(std::uint32_t gpu) const { return (gpu + n_ - base_) % n_; }
  std::uint32_t gpu_of(std::uint32_t slot) const { return (slot + base_) % n_; }
  std::uint32_t segments() const { return ring_ ? positions_ : positions_ - 1; }

  // A bridge is a segment no active demand longer than one hop crosses: every
  // chain takes its neighbour arc, so the min-cost flow splits exactly into
  // independent stretches between bridges (A 1-hop demand on a bridge is a
  // stretch of its own). Each is planned on its own: far smaller graphs, and
  // a stretch re-solves only when its own demands complete. Bridges appear as
  // demands complete, so a fibre splits early and its stretches split again.
  void split() {
    std::vector<std::uint32_t> bridges;
    for (std::uint32_t x = 0; x < segments(); ++x) {
      if (long_count_[x] == 0) bridges.push_back(x);
    }
    // Stretch k: slots first[k] .. first[k] + length[k] - 1 (cyclic on a ring).
    std::vector<std::uint32_t> first, length, stretch_of(positions_);
    if (ring_) {
      for (std::size_t k = 0; k < bridges.size(); ++k) {
        first.push_back((bridges[k] + 1) % positions_);
        const std::uint32_t last = bridges[(k + 1) % bridges.size()];
        length.push_back((last + positions_ - first.back()) % positions_ + 1);
      }
    } else {
      std::uint32_t from = 0;
      for (const std::uint32_t b : bridges) {
        first.push_back(from);
        length.push_back(b + 1 - from);
        from = b + 1;
      }
      first.push_back(from);
      length.push_back(positions_ - from);
    }
    for (std::uint32_t k = 0; k < first.size(); ++k) {
      for (std::uint32_t i = 0; i < length[k]; ++i) stretch_of[(first[k] + i) % positions_] = k;
    }
    std::vector<std::vector<std::uint32_t>> members(first.size());
    std::vector<std::uint32_t> lone;  // 1-hop demands on a bridge
    for (const std::uint32_t id : members_) {
      const Demand& d = demands_[id];
      if (d.left == 0) continue;
      const std::uint32_t x = slot_of(d.u);
      if (d.hops == 1 && long_count_[x] == 0) {
        lone.push_back(id);
      } else {
        members[stretch_of[x]].push_back(id);
      }
    }
    for (std::uint32_t k = 0; k < first.size(); ++k) {
      if (members[k].empty()) continue;
      out_.children.push_back(
          BlockPlanner(n_, gpu_of(first[k]), length[k], false, demands_, members[k], solver_)
              .run());
    }
    for (const std::uint32_t id : lone) {  // its own chain, all the way: no flow to solve
      Block b;
      b.ids = {id};
      b.end = {1};
      b.weight = {demands_[id].left};
      b.time = b.total = demands_[id].left;
      demands_[id].left = 0;
      out_.children.push_back(std::move(b));
    }
  }

  bool active_one_hop(std::uint32_t slot) const {
    return one_hop_[slot] >= 0 && demands_[static_cast<std::size_t>(one_hop_[slot])].left > 0;
  }

  // The segment crossed by the fewest active demands (lowest index on ties).
  std::uint32_t cheapest_cut() const {
    std::uint32_t cut = 0;
    std::int64_t best = std::numeric_limits<std::int64_t>::max(), running = 0;
    for (std::uint32_t s = 0; s < n_; ++s) {
      running += crossings_[s];
      if (running < best) best = running, cut = s;
    }
    return cut;
  }

  // A.1's weight -1/TM, as an integer (network simplex can cycle on
  // floating-point costs): -2^40 x ref / left, at least 1 in magnitude, where
  // ref is the smallest active demand when the weights were last scaled. They
  // are rescaled (every active one) only when a served demand's would pass
  // limit_; otherwise a step re-weighs just the demands it served.
  std::int64_t weight_of(double left) const {
    return -std::max<std::int64_t>(1, std::llround(0x1.0p40 * (ref_ / left)));
  }
  template <class Ids>
  void reweigh(const Ids& ids) {
    ref_ = std::numeric_limits<double>::infinity();
    for (const std::uint32_t id : ids) {
      if (demands_[id].left > 0) ref_ = std::min(ref_, demands_[id].left);
    }
    for (const std::uint32_t id : ids) {
      if (demands_[id].left > 0) demands_[id].weight = weight_of(demands_[id].left);
    }
  }

  // The cheapest chain from position s to t (s < t) on this step's arcs:
  // the active demands that do not cross the cut, in id order per GPU, then
  // the GPU's dummy edge to the next one unless a 1-hop demand leaves it.
  // Appends its demand ids to `ids`; returns its cost (kUnreached if none).
  std::int64_t chain(std::uint32_t start, std::uint32_t s, std::uint32_t t,
                     std::vector<std::uint32_t>& ids) {
    const std::uint32_t offset = slot_of(start);
    auto slot = [&](std::uint32_t p) {
      const std::uint32_t x = offset + p;
      return x >= positions_ ? x - positions_ : x;
    };
    if (solver_ == RingSolver::kNetworkSimplex) {
      step_arcs_.clear();
      for (std::uint32_t p = 0; p < positions_; ++p) {
        const std::uint32_t x = slot(p);
        for (std::uint32_t k = first_[x]; k < first_[x + 1]; ++k) {
          const Demand& d = demands_[arcs_[k]];
          if (d.left > 0 && p + d.hops < positions_) {
            step_arcs_.push_back({p, p + d.hops, d.weight, arcs_[k]});
          }
        }
        if (p + 1 < positions_ && !active_one_hop(x)) step_arcs_.push_back({p, p + 1, 0, -1});
      }
      return simplex_chain(step_arcs_, positions_, s, t, ids);
    }
    // One unit on arcs that all run forward is a shortest path in a DAG:
    // dynamic programming in position order (ties keep the earlier arc).
    for (std::uint32_t p = s; p <= t; ++p) dist_[p] = kUnreached;
    dist_[s] = 0;
    for (std::uint32_t p = s; p < t; ++p) {
      const std::int64_t here = dist_[p];
      if (here == kUnreached) continue;
      const std::uint32_t x = slot(p);
      for (std::uint32_t k = first_[x]; k < first_[x + 1]; ++k) {
        const Demand& d = demands_[arcs_[k]];
        const std::uint32_t to = p + d.hops;
        if (d.left > 0 && to <= t && here + d.weight < dist_[to]) {
          dist_[to] = here + d.weight;
          via_[to] = {p, static_cast<std::int64_t>(arcs_[k])};
        }
      }
      if (!active_one_hop(x) && here < dist_[p + 1]) {
        dist_[p + 1] = here;
        via_[p + 1] = {p, -1};
      }
    }
    if (dist_[t] == kUnreached) return kUnreached;
    for (std::uint32_t p = t; p != s; p = via_[p].from) {
      if (via_[p].id >= 0) ids.push_back(static_cast<std::uint32_t>(via_[p].id));
    }
    return dist_[t];
  }

  // Serves `best` until its smallest demand completes and records the chain.
  void serve(std::vector<std::uint32_t>& best) {
    std::sort(best.begin(), best.end());
    if (best.empty()) throw std::logic_error("ring planner: a step served no demand");
    double served = std::numeric_limits<double>::infinity();
    for (const std::uint32_t id : best) served = std::min(served, demands_[id].left);
    bool rescale = false;
    for (const std::uint32_t id : best) {
      Demand& d = demands_[id];
      d.left = d.left - served <= 1e-12 * d.total ? 0.0 : d.left - served;
      if (d.left == 0.0) {
        --active_;
        if (ring_) count_crossings(d, n_, crossings_, -1);
        if (d.hops >= 2) {
          for (std::uint32_t k = 0; k < d.hops; ++k) {
            bridged_ = --long_count_[(slot_of(d.u) + k) % positions_] == 0 || bridged_;
          }
        }
      } else if (0x1.0p40 * (ref_ / d.left) > limit_) {
        rescale = true;
      } else {
        d.weight = weight_of(d.left);
      }
    }
    if (rescale) reweigh(arcs_);
    out_.ids.insert(out_.ids.end(), best.begin(), best.end());
    out_.end.push_back(static_cast<std::uint32_t>(out_.ids.size()));
    out_.weight.push_back(served);
    out_.time += served;
    ++out_.steps;
  }

  struct Via {
    std::uint32_t from = 0;
    std::int64_t id = -1;
  };

  std::uint32_t n_, base_, positions_;
  bool ring_;
  RingSolver solver_;
  std::vector<Demand>& demands_;
  std::vector<std::uint32_t> first_;       // CSR over slots (GPU - base): arcs_[first_[x] ..]
  std::vector<std::uint32_t> arcs_;        // demand ids by the slot they leave
  std::vector<std::int64_t> one_hop_;      // the 1-hop demand leaving a slot, or -1
  std::vector<std::int64_t> crossings_;    // ring: difference array of active crossings
  std::vector<std::uint32_t> members_;     // in id order
  std::vector<std::uint32_t> long_count_;  // active demands of >= 2 hops over each segment
  bool bridged_ = false;                   // some segment's long_count_ is 0
  std::uint32_t max_hops_ = 0;
  std::size_t active_ = 0;
  double ref_ = 0, limit_ = 0;
  std::vector<std::int64_t> dist_;
  std::vector<Via> via_;
  std::vector<Arc> step_arcs_;
  Block out_;
};

// A.1 steps 1-3 on one fibre: a block over all of it, which splits at its
// bridges (BlockPlanner::split).
Block plan_direction(std::uint32_t n, std::vector<Demand>& demands, RingSolver solver) {
  std::vector<std::uint32_t> all(demands.size());
  for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  if (all.empty()) return {};
  return BlockPlanner(n, 0, n, true, demands, all, solver).run();
}

// A block as words (plan_ring_fibres): its chains, weights, times, counts,
// then its children the same way. Doubles travel as their bits.
void put_block(const Block& b, std::vector<std::uint64_t>& out) {
  out.push_back(b.ids.size());
  out.insert(out.end(), b.ids.begin(), b.ids.end());
  out.push_back(b.end.size());
  out.insert(out.end(), b.end.begin(), b.end.end());
  out.push_back(b.weight.size());
  for (const double w : b.weight) out.push_back(std::bit_cast<std::uint64_t>(w));
  out.insert(out.end(),
             {std::bit_cast<std::uint64_t>(b.time), std::bit_cast<std::uint64_t>(b.total), b.steps,
              b.solves, b.children.size()});
  for (const Block& c : b.children) put_block(c, out);
}

// Reads put_block's words at `at`, moving it past them.
Block get_block(std::span<const std::uint64_t> in, std::size_t& at) {
  const auto next = [&] {
    if (at >= in.size()) throw std::logic_error("ring planner: a shared fibre's plan is cut short");
    return in[at++];
  };
  Block b;
  b.ids.resize(next());
  for (auto& id : b.ids) id = static_cast<std::uint32_t>(next());
  b.end.resize(next());
  for (auto& e : b.end) e = static_cast<std::uint32_t>(next());
  b.weight.resize(next());
  for (double& w : b.weight) w = std::bit_cast<double>(next());
  b.time = std::bit_cast<double>(next());
  b.total = std::bit_cast<double>(next());
  b.steps = next();
  b.solves = next();
  b.children.resize(next());
  for (Block& c : b.children) c = get_block(in, at);
  return b;
}

// The demands of each fibre, in its own coordinates; those beyond the reach
// both ways go to `unreachable`. Validates the input.
struct Fibres {
  std::vector<Demand> cw, ccw;
  std::vector<RingDemand> unreachable;
};
Fibres fibres_of(const RingPlanInput& in) {
  const std::uint32_t n = in.gpus;
  if (in.demands.empty() && in.traffic.size() != std::size_t{n} * n) {
    throw std::invalid_argument("ring planner: traffic matrix must be N x N");
  }
  if (n > 1 && (in.wavelengths == 0 || in.reach == 0)) {
    throw std::invalid_argument("ring planner: wavelengths and reach must be positive");
  }
  Fibres f;
  auto add = [&](std::uint32_t i, std::uint32_t j, double bytes) {
    if (!std::isfinite(bytes) || bytes < 0) {
      throw std::invalid_argument("ring planner: traffic must be finite and non-negative");
    }
    if (i == j || bytes == 0) return;
    // The shorter direction (clockwise on ties), if within the reach.
    const std::uint32_t h_cw = ring_hops(n, i, j, RingDirection::kClockwise);
    const std::uint32_t h_ccw = n - h_cw;
    if (std::min(h_cw, h_ccw) > in.reach) {
      f.unreachable.push_back({i, j, bytes});
    } else if (h_cw <= h_ccw) {
      f.cw.push_back({i, h_cw, i, j, bytes, bytes});
    } else {
      f.ccw.push_back({(n - i) % n, h_ccw, i, j, bytes, bytes});  // mirrored
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
  return f;
}

// The fibres other ranks planned (RingPlanInput::planned), each read once,
// by fibre (0 clockwise, 1 counter-clockwise).
std::array<std::optional<Block>, 2> planned_fibres(
    std::span<const std::vector<std::uint64_t>> shares) {
  std::array<std::optional<Block>, 2> out;
  for (const std::vector<std::uint64_t>& words : shares) {
    for (std::size_t at = 0; at < words.size();) {
      const std::uint64_t fibre = words[at++];
      if (fibre >= out.size()) throw std::logic_error("ring planner: a shared fibre is not 0 or 1");
      out[fibre] = get_block(words, at);
    }
  }
  return out;
}

// A.1 step 4 for one block with w wavelengths: its chains' share of the
// block's drain time, times w, by randomized rounding (systematic sampling).
// A block without children keeps the sum w; one with children keeps for them
// what its own chains leave.
std::vector<std::uint32_t> round_chains(const Block& plan, std::uint32_t w, double u) {
  std::vector<std::uint32_t> counts(plan.chains(), 0);
  if (w == 0 || plan.chains() == 0) return counts;
  const bool leaf = plan.children.empty();
  std::vector<double> frac(plan.chains());
  std::uint32_t assigned = 0;
  for (std::size_t s = 0; s < plan.chains(); ++s) {
    const double x = w * (plan.weight[s] / (leaf ? plan.time : plan.total));
    const double whole = std::floor(x);
    counts[s] = static_cast<std::uint32_t>(whole);
    frac[s] = x - whole;
    assigned += counts[s];
  }
  const double remaining = assigned < w ? w - assigned : 0;
  double cum = 0;
  std::vector<bool> bumped(plan.chains(), false);
  for (std::size_t s = 0; s < plan.chains() && assigned < w; ++s) {
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
  while (leaf && assigned < w) {
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

std::vector<std::uint64_t> plan_ring_fibres(const RingPlanInput& in, int rank, int ranks) {
  std::vector<std::uint64_t> words;
  if (ranks < 2) return words;
  Fibres f = fibres_of(in);
  for (std::uint64_t fibre = 0; fibre < 2; ++fibre) {
    if (static_cast<int>(fibre % static_cast<std::uint64_t>(ranks)) != rank) continue;
    words.push_back(fibre);
    put_block(plan_direction(in.gpus, fibre == 0 ? f.cw : f.ccw, in.solver), words);
  }
  return words;
}

RingPlan plan_ring_wavelengths(const RingPlanInput& in) {
  const std::uint32_t n = in.gpus;
  RingPlan plan;
  plan.clockwise_wavelengths = in.wavelengths;
  Fibres f = fibres_of(in);
  plan.unreachable = std::move(f.unreachable);
  const std::vector<Demand>& cw = f.cw;
  const std::vector<Demand>& ccw = f.ccw;
  std::array<std::optional<Block>, 2> planned = planned_fibres(in.planned);
  const Block p_cw = planned[0] ? std::move(*planned[0]) : plan_direction(n, f.cw, in.solver);
  const Block p_ccw = planned[1] ? std::move(*planned[1]) : plan_direction(n, f.ccw, in.solver);
  plan.steps = p_cw.steps + p_ccw.steps;
  plan.solves = p_cw.solves + p_ccw.solves;

  // Split W between the fibres in proportion to the time each needs to drain.
  const std::uint32_t w = in.wavelengths;
  std::uint32_t w_cw = w;
  if (p_cw.total > 0 && p_ccw.total > 0) {
    if (w == 1) {
      w_cw = p_cw.total >= p_ccw.total ? 1 : 0;
    } else {
      const double share = std::round(w * (p_cw.total / (p_cw.total + p_ccw.total)));
      w_cw = static_cast<std::uint32_t>(std::clamp(share, 1.0, static_cast<double>(w - 1)));
    }
  } else if (p_ccw.total > 0) {
    w_cw = 0;
  }
  plan.clockwise_wavelengths = w_cw;

  // One uniform draw per block with chains, depth first, clockwise first. A
  // block's chains take the first wavelengths of its range, its children
  // (disjoint stretches) share the rest.
  pdes::RandomStream rng(in.seed, kRingPlannerStream, static_cast<std::uint32_t>(in.epoch));
  auto emit_block = [&](auto& self, const Block& b, const std::vector<Demand>& demands,
                        std::uint32_t count, std::uint32_t base, RingDirection dir) -> void {
    if (count == 0) return;
    std::uint32_t used = 0;
    if (b.chains() > 0) {
      const std::vector<std::uint32_t> counts = round_chains(b, count, rng.uniform());
      for (std::size_t s = 0; s < b.chains(); ++s) {
        if (counts[s] == 0) continue;
        for (const std::uint32_t id : b.chain(s)) {
          plan.grants.push_back({demands[id].src, demands[id].dst, dir, base + used, counts[s]});
        }
        used += counts[s];
      }
    }
    for (const Block& c : b.children) self(self, c, demands, count - used, base + used, dir);
  };
  auto emit = [&](const Block& b, const std::vector<Demand>& demands, std::uint32_t count,
                  std::uint32_t base,
                  RingDirection dir) { emit_block(emit_block, b, demands, count, base, dir); };
  emit(p_cw, cw, w_cw, 0, RingDirection::kClockwise);
  emit(p_ccw, ccw, w - w_cw, w_cw, RingDirection::kCounterClockwise);
  // Canonical: sorted, a pair's touching ranges merged.
  std::sort(plan.grants.begin(), plan.grants.end(),
            [](const WavelengthGrant& a, const WavelengthGrant& b) {
              return std::tie(a.src, a.dst, a.direction, a.first) <
                     std::tie(b.src, b.dst, b.direction, b.first);
            });
  std::size_t kept = 0;
  for (const WavelengthGrant& g : plan.grants) {
    WavelengthGrant* last = kept > 0 ? &plan.grants[kept - 1] : nullptr;
    if (last != nullptr && last->src == g.src && last->dst == g.dst &&
        last->direction == g.direction && last->first + last->count == g.first) {
      last->count += g.count;
    } else {
      plan.grants[kept++] = g;
    }
  }
  plan.grants.resize(kept);
  return plan;
}

std::vector<Lightpath> lightpaths_of(const RingPlan& plan) {
  std::vector<Lightpath> out;
  for (const WavelengthGrant& g : plan.grants) {
    for (std::uint32_t k = 0; k < g.count; ++k) {
      out.push_back({g.src, g.dst, g.direction, g.first + k});
    }
  }
  std::sort(out.begin(), out.end(), [](const Lightpath& a, const Lightpath& b) {
    return std::tie(a.direction, a.wavelength, a.src, a.dst) <
           std::tie(b.direction, b.wavelength, b.src, b.dst);
  });
  return out;
}

std::optional<std::string> check_ring_plan(const RingPlan& plan, std::uint32_t gpus,
                                           std::uint32_t wavelengths, std::uint32_t reach) {
  return check_ring_plan(lightpaths_of(plan), gpus, wavelengths, reach);
}

std::optional<std::string> check_ring_plan(std::span<const Lightpath> lightpaths,
                                           std::uint32_t gpus, std::uint32_t wavelengths,
                                           std::uint32_t reach) {
  const std::size_t n = gpus, w = wavelengths;
  std::vector<bool> segment(2 * n * w, false);
  std::vector<std::int64_t> tx(n * w, -1), rx(n * w, -1);
  for (const Lightpath& l : lightpaths) {
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
