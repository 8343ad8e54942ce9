// The RAMP-x optical-rule checker (optical_rules.hpp).
#include "support/optical_rules.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sipsim/collective/ramp_x.hpp"

namespace sipsim::collective::rampt {

namespace ramp = fabric::ramp;
using fabric::ramp::RampShape;
using oracle::execute;
using oracle::Outcome;
using oracle::Transfer;

std::uint32_t eq3(std::uint32_t x, std::uint32_t d) {
  return d < 2 ? 0 : (x - (x / d) * (d - 1)) / (d - 1);
}

std::string check_optical(const Fabric& f, const std::vector<Tx>& txs) {
  std::unordered_map<std::uint64_t, std::uint32_t> tx_dst, rx_src, wl_src;
  tx_dst.reserve(txs.size());
  rx_src.reserve(txs.size());
  wl_src.reserve(txs.size());
  const std::uint64_t x = f.x;
  for (const Tx& t : txs) {
    std::set<std::uint32_t> own;
    for (std::uint32_t i = 0; i < t.groups; ++i) {
      const std::uint32_t trx = (f.trx(t.row, t.src, t.dst) + i * t.stride) % f.x;
      const std::uint32_t s = f.id(t.src), d = f.id(t.dst);
      const std::uint32_t lam = t.dst.d * f.x + t.dst.p;
      std::ostringstream e;
      e << "node " << s << " -> " << d << " (row " << t.row << ", transceiver " << trx << "): ";
      if (!own.insert(trx).second) return e.str() + "(a) one transfer twice on a transceiver";
      auto [a, a_new] = tx_dst.emplace(std::uint64_t{s} * x + trx, d);
      if (!a_new && a->second != d) return e.str() + "(a) transmitter used for two destinations";
      auto [b, b_new] = rx_src.emplace(std::uint64_t{d} * x + trx, s);
      if (!b_new && b->second != s) return e.str() + "(b) receiver used by two transmitters";
      const std::uint64_t key =
          ((std::uint64_t{t.src.g} * x + t.dst.g) * x + trx) * f.lambda_n() + lam;
      auto [c, c_new] = wl_src.emplace(key, s);
      if (!c_new && c->second != s) return e.str() + "(c) wavelength used twice in a subnet";
    }
  }
  return "";
}

CollectiveSpec spec(Op op, const RampShape& sh, std::uint64_t bytes, std::uint32_t root) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = algorithm("ramp-x");
  s.p = static_cast<std::uint32_t>(ramp::job_size(sh));
  s.bytes = bytes;
  s.root = root;
  ramp_x::set_spec(s, sh);
  return s;
}

bool uniform(Op op) {
  return op == Op::kAllReduce || op == Op::kReduceScatter || op == Op::kAllGather ||
         op == Op::kAllToAll || op == Op::kBarrier;
}
bool two_stage(Op op) {
  return op == Op::kAllReduce || op == Op::kReduce || op == Op::kBroadcast;
}

std::string check_invariants(const CollectiveSpec& s, const std::vector<Transfer>& log) {
  const RampShape& sh = ramp_x::spec_params(s).shape;
  const Fabric f{sh.x, sh.J, sh.D};
  const bool full = ramp::job_size(sh) == f.nodes();
  const std::vector<std::uint32_t> nodes = ramp::job_nodes(sh);
  std::map<std::uint64_t, std::set<std::pair<std::uint32_t, std::uint32_t>>> by_time;
  for (const Transfer& t : log) by_time[t.time].insert({t.from, t.to});
  std::ostringstream e;
  std::uint32_t most = 0;
  for (std::uint32_t m = 0; m < s.p; ++m) most = std::max(most, Schedule(s, m).steps());
  if (most > (two_stage(s.op) ? 8u : 4u)) {
    e << "(5) " << most << " steps";
    return e.str();
  }
  if (by_time.size() > (two_stage(s.op) ? 8u : 4u)) return "(5) too many rounds";
  // The steps run in the table's order (reduce-scatter-like: 1, 2, 3, 4; all-gather-like: the
  // reverse), skipping inactive ones: with (2) below, a step-k subgroup shares the digits that
  // its members hold from the steps before.
  std::vector<int> up, down, want_rows;
  for (int row = 1; row <= 4; ++row) {
    if (sh.active[row - 1] > 1) up.push_back(row);
  }
  down.assign(up.rbegin(), up.rend());
  const bool starts_up = s.op == Op::kAllReduce || s.op == Op::kReduceScatter ||
                         s.op == Op::kAllToAll || s.op == Op::kScatter || s.op == Op::kReduce ||
                         s.op == Op::kBroadcast;
  want_rows = starts_up ? up : down;
  if (two_stage(s.op)) want_rows.insert(want_rows.end(), down.begin(), down.end());
  std::vector<int> got_rows;
  for (const auto& [time, pairs] : by_time) {
    std::vector<Tx> txs;
    int row = -1;
    std::map<std::uint32_t, std::set<std::uint32_t>> peers;
    for (const auto& [from, to] : pairs) {
      const Node a = f.node(nodes[from]), b = f.node(nodes[to]);
      const int r = f.row_of(a, b);
      if (r == 0 || (row != -1 && r != row)) {
        e << "(1) round " << time << ": " << from << " -> " << to << " not in one step's subgroup";
        return e.str();
      }
      row = r;
      peers[from].insert(to);
      // The library's transcoder agrees with the table; its extra groups (RAMP §6.2.2
      // eq. 3-4) are at most eq. 3's count, d apart, and checked with the rest below.
      const ramp::Coord ca{a.g, a.j, a.d, a.p}, cb{b.g, b.j, b.d, b.p};
      const ramp::TransceiverGroups tg = ramp::transceivers_for_pair(ca, cb, sh);
      if (ramp::step_of_pair(ca, cb, sh) != r ||
          ramp::transceiver_for_pair(ca, cb, sh) != f.trx(r, a, b) ||
          ramp::transceiver(r, ca, cb, sh) != f.trx(r, a, b) || tg.first != f.trx(r, a, b)) {
        return "ramp::transceiver_for_pair disagrees with docs/models.md";
      }
      if (tg.count < 1 || tg.count > 1 + eq3(sh.x, sh.active[r - 1]) ||
          (tg.count > 1 && tg.stride != sh.active[r - 1])) {
        return "ramp::transceivers_for_pair: not eq. 3-4's groups";
      }
      txs.push_back(Tx{a, b, r, tg.count, tg.stride});
      if (full) {  // (2)
        const auto da = f.digits(a), db = f.digits(b);
        for (int i = 0; i + 1 < r; ++i) {
          if (da[i] != db[i]) return "(2) subgroup members differ in an earlier digit";
        }
        if (da[r - 1] == db[r - 1]) return "(2) subgroup members share the step's digit";
      }
    }
    if (uniform(s.op)) {  // (1) every member talks to exactly the rest of its job subgroup
      const std::uint32_t radix = sh.active[row - 1];
      for (std::uint32_t m = 0; m < s.p; ++m) {
        std::set<std::uint32_t> group = peers[m];
        group.insert(m);
        std::set<std::uint32_t> want;
        for (const Node& n : f.subgroup(row, f.node(nodes[m]))) want.insert(f.id(n));
        std::set<std::uint32_t> got;
        for (std::uint32_t q : group) got.insert(nodes[q]);
        if (got.size() != radix ||
            !std::includes(want.begin(), want.end(), got.begin(), got.end()) ||
            (full && got != want)) {
          e << "(1) round " << time << ": member " << m << " talks to " << got.size() - 1
            << " peers, not its step-" << row << " subgroup";
          return e.str();
        }
      }
    }
    if (std::string v = check_optical(f, txs); !v.empty()) {
      e << "(4) round " << time << ": " << v;
      return e.str();
    }
    got_rows.push_back(row);
  }
  if (got_rows != want_rows) return "(2) steps out of the table's order";
  return "";
}

std::string track_all_to_all(const CollectiveSpec& s, std::vector<Transfer>* log) {
  const std::uint32_t p = s.p;
  std::vector<Schedule> sched;
  for (std::uint32_t r = 0; r < p; ++r) sched.emplace_back(s, r);
  const std::uint64_t C = sched[0].chunks();
  if (C != std::uint64_t{p} * p) return "chunks() != p^2";
  std::vector<std::uint32_t> loc(C);
  for (std::uint64_t b = 0; b < C; ++b) loc[b] = static_cast<std::uint32_t>(b / p);
  auto list = [&](const ChunkSet& cs, std::uint64_t& bytes) {
    std::vector<std::uint64_t> v;
    bytes = 0;
    cs.for_each(C, [&](std::uint64_t c) {
      v.push_back(c);
      bytes += sched[0].chunk_bytes(c);
    });
    return v;
  };
  const std::uint32_t T = sched[0].steps();
  for (std::uint32_t i = 0; i < T; ++i) {
    std::map<std::uint64_t, std::deque<std::vector<std::uint64_t>>> msgs;
    std::vector<Step> st(p);
    for (std::uint32_t r = 0; r < p; ++r) {
      if (sched[r].steps() != T) return "non-uniform all-to-all";
      st[r] = sched[r].step(i);
      for (const Send& snd : st[r].sends) {
        std::uint64_t bytes = 0;
        std::vector<std::uint64_t> v = list(snd.chunks, bytes);
        if (bytes != snd.bytes) return "send bytes";
        for (std::uint64_t c : v) {
          if (loc[c] != r) return "sends a block it does not hold";
        }
        msgs[std::uint64_t{r} * p + snd.peer].push_back(std::move(v));
        if (log != nullptr) log->push_back(Transfer{r, snd.peer, i});
      }
    }
    for (std::uint32_t r = 0; r < p; ++r) {
      std::uint64_t received = 0;
      for (const Recv& rv : st[r].recvs) {
        std::uint64_t bytes = 0;
        const std::vector<std::uint64_t> v = list(rv.chunks, bytes);
        auto& q = msgs[std::uint64_t{rv.peer} * p + r];
        if (q.empty() || q.front() != v || bytes != rv.bytes) return "recv mismatch";
        q.pop_front();
        for (std::uint64_t c : v) loc[c] = r;
        received += bytes;
      }
      if (st[r].local != LocalOp::kCopy || st[r].local_bytes != received) return "reshape";
    }
    for (const auto& [k, q] : msgs) {
      if (!q.empty()) return "unmatched message";
    }
  }
  for (std::uint64_t b = 0; b < C; ++b) {
    if (loc[b] != b % p) return "final state";
  }
  return "";
}

std::string run_and_check(const CollectiveSpec& s) {
  std::vector<Transfer> log;
  if (s.op == Op::kAllToAll && s.p > 128) {
    if (std::string e = track_all_to_all(s, &log); !e.empty()) return e;
  } else {
    const Outcome out = execute(s, {}, &log);
    if (!out.error.empty()) return out.error;
  }
  return check_invariants(s, log);
}

std::vector<Tx> all_pairs(const RampShape& sh, int row, std::uint32_t groups) {
  const std::uint32_t d = sh.active[row - 1];
  std::vector<Tx> txs;
  auto node = [&](const ramp::Offsets& c) {
    const ramp::Coord k = ramp::coord_of_offsets(c, sh);
    return Node{k.g, k.j, k.delta, k.p};
  };
  for (std::uint32_t m = 0; m < ramp::job_size(sh); ++m) {
    const ramp::Offsets c = ramp::offsets_of_member(m, sh);
    for (std::uint32_t v = 0; v < d; ++v) {
      if (v == c[row - 1]) continue;
      ramp::Offsets c2 = c;
      c2[row - 1] = v;
      txs.push_back(Tx{node(c), node(c2), row, groups, d});
    }
  }
  return txs;
}

std::uint32_t safe_extra(const RampShape& sh, int row) {
  const Fabric f{sh.x, sh.J, sh.D};
  std::uint32_t e = 0;
  while (e < eq3(sh.x, sh.active[row - 1]) && check_optical(f, all_pairs(sh, row, e + 2)).empty()) {
    ++e;
  }
  return e;
}

std::vector<RampShape> job_shapes(std::uint32_t x, std::uint32_t J, std::uint32_t D,
                                  const std::set<std::uint32_t>& only) {
  std::vector<RampShape> out;
  auto ok = [&](std::uint32_t v) { return only.empty() || v == 1 || only.count(v) > 0; };
  for (std::uint32_t s1 = 1; s1 <= x; ++s1) {
    for (std::uint32_t s2 = 1; s2 <= x; ++s2) {
      for (std::uint32_t s3 = 1; s3 <= J; ++s3) {
        for (std::uint32_t s4 = 1; s4 <= D; ++s4) {
          if (ok(s1) && ok(s2) && ok(s3) && ok(s4))
            out.push_back(RampShape{x, J, D, {s1, s2, s3, s4}});
        }
      }
    }
  }
  return out;
}

}  // namespace sipsim::collective::rampt
