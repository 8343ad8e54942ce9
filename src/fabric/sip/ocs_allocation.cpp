// SiP-OCS circuit allocation (App. A.2). Both methods first choose circuit
// counts x_ij, then split them into Q permutations. The split is always
// possible: x with row and column sums <= Q is a bipartite multigraph of
// maximum degree Q, which König's theorem edge-colours with Q colours (pad it
// to Q-regular, then peel off Q perfect matchings). So A.2's ILP over
// P in {0,1}^{N x N x Q} has the same optimum as the ILP over integer x_ij with
// degree constraints, which is what GLPK solves (no switch symmetry to branch
// over).
#include "sipsim/fabric/sip/ocs_allocation.hpp"

#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

namespace sipsim::fabric {
namespace {

constexpr int kUnmatched = -1;

std::size_t at(int n, int i, int j) {
  return static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j);
}

void check_input(int n, int q, std::span<const double> tm) {
  if (n < 1) throw std::invalid_argument("ocs allocation: gpus must be >= 1");
  if (q < 1) throw std::invalid_argument("ocs allocation: switches must be >= 1");
  if (tm.size() != at(n, n, 0))
    throw std::invalid_argument("ocs allocation: traffic matrix has " + std::to_string(tm.size()) +
                                " entries, expected gpus^2 = " + std::to_string(at(n, n, 0)));
  for (const double v : tm)
    if (!std::isfinite(v) || v < 0)
      throw std::invalid_argument("ocs allocation: traffic must be finite and >= 0");
}

// Max-min water-filling: always give the next circuit to the pair with the
// lowest circuits/TM (ties: more traffic first, then lower i, j); a pair whose
// sender or receiver has no free port left is dropped for good (ports only
// fill up). This is exact for A.2's objective: when the current minimum pair
// is dropped, any better allocation would need every pair at least at its
// present count plus one more circuit for that pair, which its full port
// cannot take. Later pops only spend spare ports. O(P log P + N Q log(N Q))
// for P pairs with traffic.
std::vector<int> water_fill(int n, std::span<const int> ports, std::span<const double> tm) {
  struct Entry {
    double value;  // circuits / TM
    double tm;
    int i, j;
  };
  // std heap is a max-heap: "less" means served later.
  const auto later = [](const Entry& a, const Entry& b) {
    if (a.value != b.value) return a.value > b.value;
    if (a.tm != b.tm) return a.tm < b.tm;
    if (a.i != b.i) return a.i > b.i;
    return a.j > b.j;
  };
  std::vector<Entry> first;  // every pair starts at 0 circuits
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j && tm[at(n, i, j)] > 0) first.push_back({0.0, tm[at(n, i, j)], i, j});
  std::vector<int> x(at(n, n, 0), 0);
  std::vector<int> out(static_cast<std::size_t>(n), 0);
  std::vector<int> in(static_cast<std::size_t>(n), 0);
  const auto take = [&](Entry& e) {
    auto& o = out[static_cast<std::size_t>(e.i)];
    auto& r = in[static_cast<std::size_t>(e.j)];
    if (o >= ports[static_cast<std::size_t>(e.i)] || r >= ports[static_cast<std::size_t>(e.j)])
      return false;
    ++o;
    ++r;
    e.value = ++x[at(n, e.i, e.j)] / e.tm;
    return true;
  };
  // All pairs at value 0 come first, in heap order: one sort instead of P heap
  // pops (the dense N = 1,024 case has a million pairs and N Q circuits).
  std::sort(first.begin(), first.end(),
            [&](const Entry& a, const Entry& b) { return later(b, a); });
  std::vector<Entry> heap;
  for (Entry& e : first)
    if (take(e)) heap.push_back(e);
  std::make_heap(heap.begin(), heap.end(), later);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    Entry e = heap.back();
    heap.pop_back();
    if (!take(e)) continue;
    heap.push_back(e);
    std::push_heap(heap.begin(), heap.end(), later);
  }
  return x;
}

// Bipartite multigraph sender -> receiver with edge multiplicities.
struct Multigraph {
  std::vector<std::vector<std::pair<int, int>>> adj;  // [sender] -> (receiver, count)
};

// Hopcroft-Karp perfect matching on the edges with count > 0.
class Matcher {
 public:
  explicit Matcher(const Multigraph& g)
      : g_(g),
        n_(static_cast<int>(g.adj.size())),
        match_l_(g.adj.size()),
        match_r_(g.adj.size()),
        dist_(g.adj.size()),
        next_(g.adj.size()) {}

  // Returns match_l (sender -> receiver); throws if not perfect (cannot happen
  // on a regular bipartite multigraph).
  std::vector<int> perfect() {
    if (match() != n_) throw std::logic_error("ocs allocation: no perfect matching");
    return match_l_;
  }
  // A maximum matching: match_l, kUnmatched where a sender has none.
  std::vector<int> maximum() {
    match();
    return match_l_;
  }

 private:
  static std::size_t idx(int v) { return static_cast<std::size_t>(v); }
  static constexpr int kInf = std::numeric_limits<int>::max();

  int match() {
    std::fill(match_l_.begin(), match_l_.end(), kUnmatched);
    std::fill(match_r_.begin(), match_r_.end(), kUnmatched);
    int matched = 0;
    while (bfs()) {
      std::fill(next_.begin(), next_.end(), 0);
      for (int u = 0; u < n_; ++u)
        if (match_l_[idx(u)] == kUnmatched && dfs(u)) ++matched;
    }
    return matched;
  }

  bool bfs() {
    std::vector<int> queue;
    queue.reserve(idx(n_));
    for (int u = 0; u < n_; ++u) {
      dist_[idx(u)] = match_l_[idx(u)] == kUnmatched ? 0 : kInf;
      if (dist_[idx(u)] == 0) queue.push_back(u);
    }
    bool found = false;
    for (std::size_t h = 0; h < queue.size(); ++h) {
      const int u = queue[h];
      for (const auto& [v, count] : g_.adj[idx(u)]) {
        if (count == 0) continue;
        const int w = match_r_[idx(v)];
        if (w == kUnmatched) {
          found = true;
        } else if (dist_[idx(w)] == kInf) {
          dist_[idx(w)] = dist_[idx(u)] + 1;
          queue.push_back(w);
        }
      }
    }
    return found;
  }

  bool dfs(int u) {
    auto& edges = g_.adj[idx(u)];
    for (auto& k = next_[idx(u)]; k < static_cast<int>(edges.size()); ++k) {
      const auto [v, count] = edges[idx(k)];
      if (count == 0) continue;
      const int w = match_r_[idx(v)];
      if (w == kUnmatched || (dist_[idx(w)] == dist_[idx(u)] + 1 && dfs(w))) {
        match_l_[idx(u)] = v;
        match_r_[idx(v)] = u;
        ++k;
        return true;
      }
    }
    dist_[idx(u)] = kInf;
    return false;
  }

  const Multigraph& g_;
  int n_;
  std::vector<int> match_l_, match_r_, dist_, next_;
};

// Splits counts x (row/column sums <= q) into q permutations. Unused ports are
// first looped back on their own GPU (idle), then paired up in index order.
std::vector<std::vector<int>> decompose(int n, int q, const std::vector<int>& x) {
  Multigraph g;
  g.adj.resize(static_cast<std::size_t>(n));
  std::vector<int> dout(static_cast<std::size_t>(n), q);
  std::vector<int> din(static_cast<std::size_t>(n), q);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (const int c = x[at(n, i, j)]; c > 0) {
        g.adj[static_cast<std::size_t>(i)].emplace_back(j, c);
        dout[static_cast<std::size_t>(i)] -= c;
        din[static_cast<std::size_t>(j)] -= c;
      }
  for (int i = 0; i < n; ++i) {
    auto& o = dout[static_cast<std::size_t>(i)];
    auto& r = din[static_cast<std::size_t>(i)];
    if (o < 0 || r < 0) throw std::logic_error("ocs allocation: port degree above Q");
    if (const int s = std::min(o, r); s > 0) {
      g.adj[static_cast<std::size_t>(i)].emplace_back(i, s);
      o -= s;
      r -= s;
    }
  }
  for (int i = 0, j = 0; i < n; ++i)
    while (dout[static_cast<std::size_t>(i)] > 0) {
      while (din[static_cast<std::size_t>(j)] == 0) ++j;
      const int s = std::min(dout[static_cast<std::size_t>(i)], din[static_cast<std::size_t>(j)]);
      g.adj[static_cast<std::size_t>(i)].emplace_back(j, s);
      dout[static_cast<std::size_t>(i)] -= s;
      din[static_cast<std::size_t>(j)] -= s;
    }
  std::vector<std::vector<int>> perms;
  Matcher matcher(g);
  for (int k = 0; k < q; ++k) {
    std::vector<int> m = matcher.perfect();
    for (int i = 0; i < n; ++i)
      for (auto& [v, count] : g.adj[static_cast<std::size_t>(i)])
        if (v == m[static_cast<std::size_t>(i)] && count > 0) {
          --count;
          break;
        }
    perms.push_back(std::move(m));
  }
  return perms;
}

// With failed ports (failed[k * n + g]: GPU g's port on switch k), switch
// by switch: a maximum matching of the circuits still to place among the
// GPUs whose port on that switch works; the spare working ports then pair
// up. A circuit that finds no switch is dropped (counted in `dropped`): with ports failed, König's
// split may not exist (GPU a's one working switch may be GPU b's failed one), and this greedy split
// may leave some that another order would place.
std::vector<std::vector<int>> decompose_around(int n, int q, std::vector<int> x,
                                               const std::vector<char>& failed, int& dropped) {
  std::vector<std::vector<int>> perms;
  const auto works = [&](int k, int g) { return failed[at(n, k, g)] == 0; };
  for (int k = 0; k < q; ++k) {
    Multigraph g;
    g.adj.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      if (!works(k, i)) continue;
      for (int j = 0; j < n; ++j)
        if (const int c = x[at(n, i, j)]; c > 0 && j != i && works(k, j))
          g.adj[static_cast<std::size_t>(i)].emplace_back(j, c);
    }
    Matcher matcher(g);
    std::vector<int> m = matcher.maximum();
    // The switch stays a permutation: a failed port loops back; the working
    // ports left over loop back where both sides of a GPU are free, and the
    // rest pair up in index order, as decompose's spare ports do.
    std::vector<char> receives(static_cast<std::size_t>(n), 0);
    for (int i = 0; i < n; ++i) {
      if (const int j = m[static_cast<std::size_t>(i)]; j != kUnmatched) {
        --x[at(n, i, j)];
        receives[static_cast<std::size_t>(j)] = 1;
      }
    }
    std::vector<int> senders, receivers;
    for (int i = 0; i < n; ++i) {
      int& j = m[static_cast<std::size_t>(i)];
      const bool free_in = receives[static_cast<std::size_t>(i)] == 0;
      if (j == kUnmatched && (!works(k, i) || free_in)) {
        j = i;
      } else if (j == kUnmatched) {
        senders.push_back(i);
      } else if (free_in && works(k, i)) {
        receivers.push_back(i);
      }
    }
    for (std::size_t r = 0; r < senders.size(); ++r)
      m[static_cast<std::size_t>(senders[r])] = receivers[r];
    perms.push_back(std::move(m));
  }
  dropped = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) dropped += x[at(n, i, j)];
  return perms;
}

struct GlpkDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};

// A.2's ILP in circuit counts: maximise t s.t. x_ij >= t TM_ij for TM_ij > 0,
// sum_j x_ij <= Q, sum_i x_ij <= Q, x_ij in {0..Q}. TM is scaled by its
// maximum so t stays in [0, Q * max/min].
std::vector<int> solve_ilp(int n, int q, std::span<const int> ports, std::span<const double> tm,
                           double time_limit_s, bool& proven_optimal) {
  if (n > kOcsIlpMaxGpus)
    throw std::invalid_argument("ocs allocation: method ilp supports at most " +
                                std::to_string(kOcsIlpMaxGpus) + " GPUs (got " + std::to_string(n) +
                                "); use heuristic");
  std::vector<std::pair<int, int>> pairs;
  double tm_max = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j && tm[at(n, i, j)] > 0) {
        pairs.emplace_back(i, j);
        tm_max = std::max(tm_max, tm[at(n, i, j)]);
      }
  std::vector<int> x(at(n, n, 0), 0);
  proven_optimal = true;
  if (pairs.empty()) return x;

  glp_term_out(GLP_OFF);
  const std::unique_ptr<glp_prob, GlpkDeleter> lp(glp_create_prob());
  glp_prob* p = lp.get();
  glp_set_obj_dir(p, GLP_MAX);
  const int np = static_cast<int>(pairs.size());
  glp_add_cols(p, 1 + np);  // column 1: t; column 1 + k: x of pair k
  glp_set_col_kind(p, 1, GLP_CV);
  glp_set_col_bnds(p, 1, GLP_LO, 0, 0);
  glp_set_obj_coef(p, 1, 1);
  for (int k = 0; k < np; ++k) {
    glp_set_col_kind(p, 2 + k, GLP_IV);
    glp_set_col_bnds(p, 2 + k, GLP_DB, 0, q);
  }
  // Rows: np demand rows, then n sender rows, then n receiver rows.
  glp_add_rows(p, np + 2 * n);
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0};
  const auto put = [&](int row, int col, double v) {
    ia.push_back(row);
    ja.push_back(col);
    ar.push_back(v);
  };
  for (int k = 0; k < np; ++k) {
    const auto [i, j] = pairs[static_cast<std::size_t>(k)];
    glp_set_row_bnds(p, 1 + k, GLP_LO, 0, 0);
    put(1 + k, 2 + k, 1);
    put(1 + k, 1, -tm[at(n, i, j)] / tm_max);
    put(1 + np + i, 2 + k, 1);
    put(1 + np + n + j, 2 + k, 1);
  }
  for (int r = 0; r < 2 * n; ++r)
    glp_set_row_bnds(p, 1 + np + r, GLP_UP, 0, ports[static_cast<std::size_t>(r % n)]);
  glp_load_matrix(p, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());

  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.presolve = GLP_ON;
  parm.msg_lev = GLP_MSG_OFF;
  parm.tm_lim = static_cast<int>(std::min(time_limit_s * 1000.0, 2.0e9));
  const int rc = glp_intopt(p, &parm);
  const int status = glp_mip_status(p);
  if ((rc != 0 && rc != GLP_ETMLIM) || (status != GLP_OPT && status != GLP_FEAS))
    throw std::runtime_error("ocs allocation: GLPK glp_intopt failed (code " + std::to_string(rc) +
                             ", status " + std::to_string(status) + ")");
  proven_optimal = status == GLP_OPT;
  for (int k = 0; k < np; ++k) {
    const auto [i, j] = pairs[static_cast<std::size_t>(k)];
    x[at(n, i, j)] = static_cast<int>(std::lround(glp_mip_col_val(p, 2 + k)));
  }
  return x;
}

}  // namespace

double ocs_circuits_per_byte(int n, std::span<const int> circuits,
                             std::span<const double> traffic) {
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (const double t = traffic[at(n, i, j)]; i != j && t > 0)
        best = std::min(best, circuits[at(n, i, j)] / t);
  return best;
}

double OcsAllocation::bottleneck_seconds(double gpu_bytes_per_s) const {
  if (circuits_per_byte == 0) return std::numeric_limits<double>::infinity();
  if (std::isinf(circuits_per_byte)) return 0;
  return switches / (gpu_bytes_per_s * circuits_per_byte);
}

OcsAllocation allocate_ocs_circuits(int gpus, int switches, std::span<const double> traffic,
                                    const OcsAllocationOptions& options) {
  check_input(gpus, switches, traffic);
  OcsAllocation a;
  a.gpus = gpus;
  a.switches = switches;
  // A GPU's working ports: Q less its failed ones (docs/faults.md).
  std::vector<int> ports(static_cast<std::size_t>(gpus), switches);
  std::vector<char> failed;
  if (!options.failed_ports.empty()) failed.assign(at(switches, gpus, 0), 0);
  for (const auto& [g, k] : options.failed_ports) {
    if (g < 0 || g >= gpus || k < 0 || k >= switches)
      throw std::invalid_argument("ocs allocation: failed port out of range");
    if (failed[at(gpus, k, g)] == 0) --ports[static_cast<std::size_t>(g)];
    failed[at(gpus, k, g)] = 1;
  }
  const std::vector<int> x =
      options.method == OcsMethod::ilp
          ? solve_ilp(gpus, switches, ports, traffic, options.ilp_time_limit_s, a.proven_optimal)
          : water_fill(gpus, ports, traffic);
  a.permutation = failed.empty() ? decompose(gpus, switches, x)
                                 : decompose_around(gpus, switches, x, failed, a.dropped);
  // Report what the switches carry: spare ports paired up may add circuits.
  a.circuits.assign(at(gpus, gpus, 0), 0);
  for (const auto& perm : a.permutation)
    for (int i = 0; i < gpus; ++i)
      if (const int j = perm[static_cast<std::size_t>(i)]; j != i) ++a.circuits[at(gpus, i, j)];
  a.circuits_per_byte = ocs_circuits_per_byte(gpus, a.circuits, traffic);
  return a;
}

}  // namespace sipsim::fabric
