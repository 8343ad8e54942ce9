// SiP-ML's degree-aware placement (§3.2, Algorithm 1; docs/models.md, "Op
// graphs and SiP-ML placement"): a pure function from a DAG of ops, their
// durations, the quantum tau, k and Delta to the sub-ops' devices.
#include "sipsim/workload/mapping/degree_aware.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace sipsim::workload::mapping {

namespace {

// The ring distance between devices a and b of an MP group of k.
std::uint32_t ring(std::uint32_t a, std::uint32_t b, std::uint32_t k) {
  const std::uint32_t d = (a + k - b) % k;
  return std::min(d, k - d);
}

// The reach: devices within w = floor(Delta / 2) of each other on the ring
// may exchange data. A GPU then has at most 2w <= Delta MP peers counted
// both ways (activations forward, gradients back over the same pairs), and
// the paper's (i - j) mod k <= Delta holds one way or the other.
std::uint32_t reach(std::uint32_t k, std::uint32_t delta) {
  return delta + 1 >= k ? k : delta / 2;
}

// Whether `order` lists every op once, after its producers.
bool topological(std::span<const DagOp> ops, std::span<const std::uint32_t> order) {
  if (order.size() != ops.size()) return false;
  std::vector<bool> seen(ops.size(), false);
  for (const std::uint32_t i : order) {
    if (i >= ops.size() || seen[i]) return false;
    for (const std::uint32_t p : ops[i].deps) {
      if (p >= ops.size() || !seen[p]) return false;
    }
    seen[i] = true;
  }
  return true;
}

class Placer {
 public:
  Placer(PlacementResult& out, std::uint32_t k, std::uint32_t delta)
      : out_(out), k_(k), w_(reach(k, delta)) {}

  std::vector<std::vector<std::uint32_t>> parents, children;  // by sub-op
  std::vector<pdes::Time> duration;                           // by sub-op
  std::vector<pdes::Time> avail;                              // by device

  bool near(std::uint32_t a, std::uint32_t b) const { return w_ >= k_ || ring(a, b, k_) <= w_; }
  std::uint32_t device(std::uint32_t s) const { return out_.subops[s].device; }

  // Algorithm 1, lines 4-13, for sub-op s (its parents placed).
  void place(std::uint32_t s) {
    pdes::Time ready = 0;
    for (const std::uint32_t p : parents[s]) ready = std::max(ready, out_.subops[p].end);
    // The candidates (every parent within reach), the earliest available,
    // where a device is available to s when it is free and s's parents have
    // ended (line 11's start): devices free by then tie, and the tie goes to
    // the one nearest the parents, then the smallest index ("to minimize the
    // distance between communicating GPUs", §3.2). With no candidate, the
    // device within reach of the most parents (then the same order), and the
    // relocation.
    std::uint32_t best = k_, best_met = 0, best_gap = 0;
    pdes::Time best_start = 0;
    for (std::uint32_t d = 0; d < k_; ++d) {
      std::uint32_t met = 0, gap = 0;
      for (const std::uint32_t p : parents[s]) {
        met += near(device(p), d) ? 1 : 0;
        gap += ring(device(p), d, k_);
      }
      const pdes::Time start = std::max(ready, avail[d]);
      const bool better =
          best == k_ || met > best_met ||
          (met == best_met && (start < best_start || (start == best_start && gap < best_gap)));
      if (better) best = d, best_met = met, best_gap = gap, best_start = start;
    }
    out_.subops[s].device = best;
    if (best_met == parents[s].size()) {
      schedule(s);
    } else {
      relocate(s);
    }
  }

  std::uint32_t fallbacks = 0;

 private:
  // Line 10-13: start when the parents have ended and the device is free.
  void schedule(std::uint32_t s) {
    SubOp& x = out_.subops[s];
    pdes::Time ready = 0;
    for (const std::uint32_t p : parents[s]) ready = std::max(ready, out_.subops[p].end);
    x.start = std::max(ready, avail[x.device]);
    x.end = x.start + duration[s];
    avail[x.device] = x.end;
  }

  // The device within half the reach of `anchor` nearest `from` (the
  // relocation's target, below).
  std::uint32_t toward(std::uint32_t from, std::uint32_t anchor) const {
    std::uint32_t best = anchor;
    for (std::uint32_t d = 0; d < k_; ++d) {
      if (ring(d, anchor, k_) <= w_ / 2 && ring(d, from, k_) < ring(best, from, k_)) best = d;
    }
    return best;
  }

  // §3.2's relocation, for x placed where some parents are out of reach:
  // x's parents farther than half the reach move to the device within half
  // the reach of x nearest their own (half, so that x's siblings, which
  // need the same parents, keep w + 1 candidates: left anywhere within the
  // reach, the parents span 2w + 1 devices and every sibling must share x's
  // device), then (backward) their parents out of reach move the same way
  // towards them, and so on; a forward pass then moves each placed sub-op
  // whose parents it no longer reaches to the candidate nearest its device
  // (or moves its parents, as for x). Repeated until no edge among the
  // placed sub-ops is out of reach. The paper leaves its convergence open:
  // after kMaxRounds rounds the placed sub-ops fold into the w + 1 devices
  // around x's (valid, and counted in `fallbacks`). The estimate is then
  // recomputed in placement order.
  void relocate(std::uint32_t x) {
    const std::uint32_t n = x + 1;
    std::vector<std::uint32_t> work;
    auto pull_parents = [&](std::uint32_t s, std::uint32_t limit) {
      for (const std::uint32_t p : parents[s]) {
        if (ring(device(p), device(s), k_) <= limit) continue;
        out_.subops[p].device = toward(device(p), device(s));
        ++out_.relocations;
        work.push_back(p);
      }
    };
    bool converged = false;
    for (std::uint32_t round = 0; round < kMaxRounds && !converged; ++round) {
      // Backward from x (first round) or from the sub-ops the forward pass flagged.
      if (round == 0) pull_parents(x, w_ / 2);
      for (std::uint32_t i = 0; i < work.size() && i < kMaxMoves; ++i) pull_parents(work[i], w_);
      work.clear();
      converged = true;
      for (std::uint32_t s = 0; s < n; ++s) {
        bool reached = true;
        for (const std::uint32_t p : parents[s]) reached = reached && near(device(p), device(s));
        if (reached) continue;
        converged = false;
        std::uint32_t best = k_;
        for (std::uint32_t d = 0; d < k_; ++d) {
          bool all = true;
          for (const std::uint32_t p : parents[s]) all = all && near(device(p), d);
          if (all && (best == k_ || ring(d, device(s), k_) < ring(best, device(s), k_))) best = d;
        }
        if (best != k_) {
          out_.subops[s].device = best;
          ++out_.relocations;
        } else {
          // As for x: the device within reach of the most parents (nearest
          // its own), then the rest of its parents move.
          std::uint32_t most = 0;
          for (std::uint32_t d = 0; d < k_; ++d) {
            std::uint32_t met = 0;
            for (const std::uint32_t p : parents[s]) met += near(device(p), d) ? 1 : 0;
            if (best == k_ || met > most ||
                (met == most && ring(d, device(s), k_) < ring(best, device(s), k_))) {
              best = d, most = met;
            }
          }
          out_.subops[s].device = best;
          pull_parents(s, w_);
        }
      }
    }
    if (!converged) {
      // Fold the placement into the w + 1 devices around x's device: a
      // device at ring offset o from it goes to offset ((o + h) mod (w + 1))
      // - h, h = floor(w / 2). Any two devices of that window are within
      // reach, so every edge is; devices already in the window keep their
      // sub-ops, and the others spread over it instead of piling up, so
      // repeated fallbacks do not collapse a graph onto one device.
      ++fallbacks;
      const std::int64_t center = device(x), k = k_, span = std::int64_t{w_} + 1, h = w_ / 2;
      for (std::uint32_t s = 0; s < n; ++s) {
        const std::int64_t up = (device(s) + k - center) % k;  // clockwise offset
        const std::int64_t offset = up <= k / 2 ? up : up - k;
        const std::int64_t folded = ((offset + h) % span + span) % span - h;
        out_.subops[s].device = static_cast<std::uint32_t>((center + folded + k) % k);
      }
    }
    std::fill(avail.begin(), avail.end(), pdes::Time{0});
    for (std::uint32_t s = 0; s < n; ++s) schedule(s);
  }

  static constexpr std::uint32_t kMaxRounds = 64;
  static constexpr std::uint32_t kMaxMoves = 1u << 20;

  PlacementResult& out_;
  std::uint32_t k_, w_;
};

}  // namespace

PlacementResult place(std::span<const DagOp> ops, std::span<const std::uint32_t> order,
                      const std::vector<pdes::Time>& durations, pdes::Time quantum, std::uint32_t k,
                      std::uint32_t delta) {
  if (k == 0 || quantum == 0 || durations.size() != ops.size()) {
    throw std::invalid_argument("place: k and the quantum must be positive, one duration per op");
  }
  if (!topological(ops, order)) {
    throw std::invalid_argument("place: the order is not a topological order of the ops");
  }
  PlacementResult out;
  const std::size_t n = ops.size();
  out.parts.resize(n);
  out.first.resize(n);
  // (i) The balanced graph: about tau per sub-op, at most k parts.
  for (std::size_t i = 0; i < n; ++i) {
    const pdes::Time parts = (durations[i] + quantum / 2) / quantum;
    out.parts[i] = static_cast<std::uint32_t>(std::clamp<pdes::Time>(parts, 1, k));
  }
  Placer placer(out, k, delta);
  placer.avail.assign(k, 0);
  for (const std::uint32_t i : order) {
    out.first[i] = static_cast<std::uint32_t>(out.subops.size());
    for (std::uint32_t j = 0; j < out.parts[i]; ++j) {
      out.subops.push_back({i, j, 0, 0, 0, ops[i].output_bytes / out.parts[i]});
      placer.duration.push_back(durations[i] / out.parts[i]);
    }
  }
  placer.parents.resize(out.subops.size());
  placer.children.resize(out.subops.size());
  // A gathering op's parts each compute a slice of its output features from
  // its producers' whole outputs (a matrix multiply split by output columns:
  // its weights sharded): part j needs every producer part, each part's
  // output. Any other op's part j covers [j/b, (j+1)/b) of the layout its
  // producers split (element-wise ops, attention heads): it needs the
  // producer's parts (of a) that overlap it, overlap / (a b) of the
  // producer's output each.
  __extension__ typedef unsigned __int128 U128;
  for (const std::uint32_t c : order) {
    const std::uint64_t b = out.parts[c];
    const bool gathers = ops[c].gathers;
    for (const std::uint32_t p : ops[c].deps) {
      const std::uint64_t a = out.parts[p];
      const std::uint64_t bytes = ops[p].output_bytes;
      for (std::uint64_t j = 0; j < b; ++j) {
        for (std::uint64_t i = 0; i < a; ++i) {
          std::uint64_t share = 0;
          if (gathers) {
            share = bytes / a;
          } else {
            const std::uint64_t lo = std::max(i * b, j * a),
                                hi = std::min((i + 1) * b, (j + 1) * a);
            if (hi <= lo) continue;
            share = static_cast<std::uint64_t>(U128{bytes} * (hi - lo) / (a * b));
          }
          const auto from = static_cast<std::uint32_t>(out.first[p] + i);
          const auto to = static_cast<std::uint32_t>(out.first[c] + j);
          out.edges.push_back({from, to, share});
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
  out.fallbacks = placer.fallbacks;
  for (const SubOp& s : out.subops) out.makespan = std::max(out.makespan, s.end);
  return out;
}

std::string check_placement(const PlacementResult& p, std::uint32_t k, std::uint32_t delta) {
  const std::uint32_t w = reach(k, delta);
  for (std::size_t s = 0; s < p.subops.size(); ++s) {
    if (p.subops[s].device >= k) return fmt::format("sub-op {} is not placed", s);
  }
  // Peers counted both ways: a pair's activations and gradients share its circuits.
  std::vector<std::vector<std::uint32_t>> peers(k);
  for (const SubEdge& e : p.edges) {
    const SubOp &a = p.subops[e.from], &b = p.subops[e.to];
    if (e.from >= e.to) return fmt::format("edge {} -> {} is not in placement order", e.from, e.to);
    if (w < k && ring(a.device, b.device, k) > w) {
      return fmt::format("edge {} -> {}: device {} to {} is farther than {} on the ring", e.from,
                         e.to, a.device, b.device, w);
    }
    if (a.end > b.start) {
      return fmt::format("edge {} -> {}: the consumer starts before its producer ends", e.from,
                         e.to);
    }
    if (a.device != b.device) {
      peers[a.device].push_back(b.device);
      peers[b.device].push_back(a.device);
    }
  }
  const std::uint32_t most = std::min(delta, k - 1);
  for (std::uint32_t g = 0; g < k; ++g) {
    std::sort(peers[g].begin(), peers[g].end());
    peers[g].erase(std::unique(peers[g].begin(), peers[g].end()), peers[g].end());
    if (peers[g].size() > most) {
      return fmt::format("device {} exchanges data with {} devices, more than {}", g,
                         peers[g].size(), most);
    }
  }
  return "";
}

std::vector<Message> messages(const PlacementResult& p) {
  std::vector<Message> out;
  for (const SubEdge& e : p.edges) {  // sorted by (from, to)
    const std::uint32_t to = p.subops[e.to].device;
    if (to == p.subops[e.from].device) continue;
    auto it = std::find_if(out.rbegin(), out.rend(),
                           [&](const Message& m) { return m.from != e.from || m.to_device == to; });
    if (it == out.rend() || it->from != e.from) {
      out.push_back({e.from, to, 0, {}});
      it = out.rbegin();
    }
    it->bytes = std::min(it->bytes + e.bytes, p.subops[e.from].output);
    it->consumers.push_back(e.to);
  }
  std::sort(out.begin(), out.end(), [](const Message& a, const Message& b) {
    return a.from != b.from ? a.from < b.from : a.to_device < b.to_device;
  });
  return out;
}

std::vector<std::uint64_t> traffic_matrix(const PlacementResult& p, std::uint32_t k) {
  std::vector<std::uint64_t> m(std::size_t{k} * k, 0);
  for (const Message& x : messages(p)) {
    const std::uint32_t a = p.subops[x.from].device, b = x.to_device;
    m[std::size_t{a} * k + b] += x.bytes;  // the activation forward
    m[std::size_t{b} * k + a] += x.bytes;  // its gradient backward
  }
  return m;
}

}  // namespace sipsim::workload::mapping
