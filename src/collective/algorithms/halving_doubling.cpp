// Recursive halving / doubling: halving-doubling (Rabenseifner's all-reduce and reduce,
// recursive halving reduce-scatter, recursive doubling all-gather, van de Geijn's broadcast;
// non-power-of-two groups fold into a power of two).
//
// References:
//  [TRG05] R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication
//          operations in MPICH", IJHPCA 19(1), 2005 (recursive halving/doubling, Rabenseifner's
//          all-reduce and reduce, van de Geijn's broadcast, binomial trees, pairwise exchange,
//          the non-power-of-two fold).
#include <bit>
#include <cstdint>

#include "algorithms/common.hpp"
#include "sipsim/collective/schedule.hpp"

namespace sipsim::collective::detail {
namespace {

// ---------------------------------------------------------------------------------------------
// Recursive halving / doubling [TRG05]. Non-power-of-two p: with p' the largest power of two
// <= p and e = p - p', among the first 2e (relative) ranks the odd ones fold into their even
// neighbour before and get the result back after; the p' remaining members use new ranks
// n = v/2 (v < 2e) or v - e. Chunks are either one per new rank (C = p', all-reduce, broadcast,
// reduce) or one per original member (C = p, reduce-scatter and all-gather, whose results are
// per member): new rank n then owns chunks [old(n), old(n+1)), two for a folded pair.

struct Hd {
  std::uint32_t p = 1, pp = 1, m = 0, e = 0, root = 0, v = 0;
  std::int64_t nr = 0;  // new rank, -1 when folded away
  bool per_member = false;

  std::uint32_t old(std::uint32_t n) const { return n < e ? 2 * n : n + e; }
  std::uint32_t member_of(const Ctx& c, std::uint32_t n) const { return c.abs(old(n), root); }
  std::uint32_t n() const { return static_cast<std::uint32_t>(nr); }
  // The chunks of new ranks [a, b).
  ChunkSet ranks(const Ctx& c, std::uint64_t a, std::uint64_t b) const {
    if (per_member) return c.range(old(u32(a)), old(u32(b)) - old(u32(a)));
    return c.range(sgn(a), b - a);
  }
};

Hd make_hd(const Ctx& c, std::uint32_t root, bool per_member) {
  Hd h;
  h.p = c.p;
  h.pp = std::bit_floor(c.p);
  h.m = ctz(h.pp);
  h.e = h.p - h.pp;
  h.root = root;
  h.v = umod32(sgn(c.me) - root, c.p);
  h.nr = h.v < 2 * h.e ? (h.v % 2 == 0 ? sgn(h.v / 2) : -1) : sgn(h.v) - h.e;
  h.per_member = per_member;
  return h;
}

enum class FoldData { kAll, kOwnChunk, kPartnerChunk, kAllButPartner };

// Fold-in: odd v < 2e sends to v-1, which combines it with `how`.
void add_fold_in(Stages& st, const Ctx& c, const Hd& h, FoldData what, Combine how) {
  if (h.v >= 2 * h.e) return;
  st.add(1, [c, h, what, how](std::uint32_t, Step& out) {
    const std::uint32_t odd = h.v | 1u;
    const ChunkSet data = what == FoldData::kAll ? c.all() : c.one(odd);
    if (h.v % 2 == 1) {
      out.sends.push_back(c.send(c.abs(sgn(h.v) - 1, h.root), data));
    } else if (how == Combine::kReduce) {
      recv_reduce(c, out, c.abs(h.v + 1, h.root), data);
    } else {
      recv_copy(c, out, c.abs(h.v + 1, h.root), data);
    }
  });
}

// Fold-out: even v < 2e sends the result to v+1.
void add_fold_out(Stages& st, const Ctx& c, const Hd& h, FoldData what) {
  if (h.v >= 2 * h.e) return;
  st.add(1, [c, h, what](std::uint32_t, Step& out) {
    const std::uint32_t odd = h.v | 1u;
    ChunkSet data = c.all();
    if (what == FoldData::kPartnerChunk) data = c.one(odd);
    if (what == FoldData::kAllButPartner) data = c.range(odd + 1, c.chunks - 1);
    if (h.v % 2 == 0) {
      out.sends.push_back(c.send(c.abs(h.v + 1, h.root), data));
    } else {
      recv_copy(c, out, c.abs(sgn(h.v) - 1, h.root), data);
    }
  });
}

// Recursive halving reduce-scatter, distance p'/2 first: new rank n ends with its own range.
void add_halving(Stages& st, const Ctx& c, const Hd& h) {
  if (h.nr < 0) return;
  st.add(h.m, [c, h](std::uint32_t k, Step& out) {
    const std::uint32_t n = h.n(), d = h.pp >> (k + 1), lo = n & ~(2 * d - 1);
    const bool upper = (n & d) != 0;
    const std::uint32_t keep = upper ? lo + d : lo, give = upper ? lo : lo + d;
    const std::uint32_t peer = h.member_of(c, n ^ d);
    out.sends.push_back(c.send(peer, h.ranks(c, give, give + d)));
    recv_reduce(c, out, peer, h.ranks(c, keep, keep + d));
  });
}

// Recursive doubling all-gather, distance 1 first: the held window doubles every step.
void add_doubling(Stages& st, const Ctx& c, const Hd& h) {
  if (h.nr < 0) return;
  st.add(h.m, [c, h](std::uint32_t k, Step& out) {
    const std::uint32_t n = h.n(), d = u32(pow2(k)), lo = n & ~(d - 1), other = lo ^ d;
    const std::uint32_t peer = h.member_of(c, n ^ d);
    out.sends.push_back(c.send(peer, h.ranks(c, lo, lo + d)));
    recv_copy(c, out, peer, h.ranks(c, other, other + d));
  });
}

// Binomial scatter from new rank 0 (first half of van de Geijn's broadcast): new rank n with
// lowest set bit 2^j receives its range [n, n+2^j) and hands the upper halves on.
void add_binomial_scatter_pow2(Stages& st, const Ctx& c, const Hd& h) {
  if (h.nr < 0) return;
  const std::uint32_t n = h.n();
  st.add(n == 0 ? h.m : 1 + ctz(n), [c, h, n](std::uint32_t i, Step& out) {
    if (n == 0) {
      const std::uint32_t d = h.pp >> (i + 1);
      out.sends.push_back(c.send(h.member_of(c, d), h.ranks(c, d, 2 * d)));
      return;
    }
    const std::uint32_t j = ctz(n);
    if (i == 0) {
      recv_copy(c, out, h.member_of(c, n - u32(pow2(j))), h.ranks(c, n, n + pow2(j)));
    } else {
      const std::uint32_t d = u32(pow2(j - i));
      out.sends.push_back(c.send(h.member_of(c, n + d), h.ranks(c, n + d, n + 2 * d)));
    }
  });
}

// Binomial gather to new rank 0 (second half of Rabenseifner's reduce).
void add_binomial_gather_pow2(Stages& st, const Ctx& c, const Hd& h) {
  if (h.nr < 0) return;
  const std::uint32_t n = h.n(), j = n == 0 ? h.m : ctz(n);
  st.add(n == 0 ? j : j + 1, [c, h, n, j](std::uint32_t i, Step& out) {
    if (i < j) {
      const std::uint32_t child = n + u32(pow2(i));
      recv_copy(c, out, h.member_of(c, child), h.ranks(c, child, child + pow2(i)));
    } else {
      out.sends.push_back(c.send(h.member_of(c, n - u32(pow2(j))), h.ranks(c, n, n + pow2(j))));
    }
  });
}

void build_halving_doubling(Stages& st, const Ctx& c) {
  switch (c.spec.op) {
    case Op::kAllReduce: {  // Rabenseifner: RS by recursive halving + AG by recursive doubling
      const Hd h = make_hd(c, 0, false);
      add_fold_in(st, c, h, FoldData::kAll, Combine::kReduce);
      add_halving(st, c, h);
      add_doubling(st, c, h);
      add_fold_out(st, c, h, FoldData::kAll);
      break;
    }
    case Op::kReduceScatter: {
      const Hd h = make_hd(c, 0, true);
      add_fold_in(st, c, h, FoldData::kAll, Combine::kReduce);
      add_halving(st, c, h);
      add_fold_out(st, c, h, FoldData::kPartnerChunk);
      break;
    }
    case Op::kAllGather: {
      const Hd h = make_hd(c, 0, true);
      add_fold_in(st, c, h, FoldData::kOwnChunk, Combine::kCopy);
      add_doubling(st, c, h);
      add_fold_out(st, c, h, FoldData::kAllButPartner);
      break;
    }
    case Op::kBroadcast: {  // van de Geijn: binomial scatter + recursive-doubling all-gather;
      // ranks are relative to the root, which is therefore never folded away.
      const Hd h = make_hd(c, c.spec.root, false);
      add_binomial_scatter_pow2(st, c, h);
      add_doubling(st, c, h);
      add_fold_out(st, c, h, FoldData::kAll);
      break;
    }
    case Op::kReduce: {  // Rabenseifner: recursive-halving RS + binomial gather to the root
      const Hd h = make_hd(c, c.spec.root, false);
      add_fold_in(st, c, h, FoldData::kAll, Combine::kReduce);
      add_halving(st, c, h);
      add_binomial_gather_pow2(st, c, h);
      break;
    }
    default:
      break;
  }
}

// The all-reduce, reduce-scatter and all-gather on the wire without building chunk
// lists: the stages of build_halving_doubling (fold-in, halving, doubling, fold-out), each
// step's one peer and the bytes of its chunk ranges. The estimators evaluate every member's
// steps, and the generic path allocated a Step per member-step.
bool hd_wire_step(const Schedule& sched, std::uint32_t i, WireStep& w) {
  const CollectiveSpec& spec = sched.spec();
  const Op op = spec.op;
  if (op != Op::kAllReduce && op != Op::kReduceScatter && op != Op::kAllGather) return false;
  const Ctx c{spec, spec.p, sched.member(), sched.chunks(), ByteMap(spec.bytes, sched.chunks())};
  const Hd h = make_hd(c, 0, op != Op::kAllReduce);
  const bool halving = op != Op::kAllGather, doubling = op != Op::kReduceScatter;
  const bool folded = h.v < 2 * h.e;
  auto send = [&](std::uint32_t peer, const ChunkSet& s) {
    w.out.push_back({peer, c.map.of(s), 1});
  };
  auto recv = [&](std::uint32_t peer, const ChunkSet& s, bool reduce) {
    const std::uint64_t bytes = c.map.of(s);
    w.in.push_back({peer, bytes, 1});
    if (reduce) {
      w.local = LocalOp::kReduce;
      w.sources = 2;
      w.local_bytes = bytes;
    }
  };
  const std::uint32_t odd = h.v | 1u;
  if (folded) {
    if (i == 0) {  // fold-in (add_fold_in)
      const ChunkSet data = op == Op::kAllGather ? c.one(odd) : c.all();
      if (h.v % 2 == 1) {
        send(c.abs(sgn(h.v) - 1, h.root), data);
      } else {
        recv(c.abs(h.v + 1, h.root), data, op != Op::kAllGather);
      }
      return true;
    }
    --i;
  }
  const std::uint32_t rounds = h.nr < 0 ? 0 : (halving ? h.m : 0) + (doubling ? h.m : 0);
  if (i < rounds) {
    const std::uint32_t n = h.n();
    if (halving && i < h.m) {  // add_halving
      const std::uint32_t d = h.pp >> (i + 1), lo = n & ~(2 * d - 1);
      const bool upper = (n & d) != 0;
      const std::uint32_t keep = upper ? lo + d : lo, give = upper ? lo : lo + d;
      const std::uint32_t peer = h.member_of(c, n ^ d);
      send(peer, h.ranks(c, give, give + d));
      recv(peer, h.ranks(c, keep, keep + d), true);
    } else {  // add_doubling
      const std::uint32_t k = halving ? i - h.m : i;
      const std::uint32_t d = u32(pow2(k)), lo = n & ~(d - 1), other = lo ^ d;
      const std::uint32_t peer = h.member_of(c, n ^ d);
      send(peer, h.ranks(c, lo, lo + d));
      recv(peer, h.ranks(c, other, other + d), false);
    }
    return true;
  }
  if (folded && i == rounds) {  // fold-out (add_fold_out)
    ChunkSet data = c.all();
    if (op == Op::kReduceScatter) data = c.one(odd);
    if (op == Op::kAllGather) data = c.range(odd + 1, c.chunks - 1);
    if (h.v % 2 == 0) {
      send(c.abs(h.v + 1, h.root), data);
    } else {
      recv(c.abs(sgn(h.v) - 1, h.root), data, false);
    }
  }
  return true;
}

}  // namespace

extern constinit const AlgorithmRow kHalvingDoublingRow = {
    "halving-doubling",
    {},
    [](Op op) {
      return ops_of(
          op, {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather, Op::kBroadcast, Op::kReduce});
    },
    // per new rank, except the per-member results
    [](const CollectiveSpec& s) -> std::uint64_t {
      return s.op == Op::kReduceScatter || s.op == Op::kAllGather ? s.p : std::bit_floor(s.p);
    },
    valid,
    no_params,
    build_halving_doubling,
    hd_wire_step,
};

}  // namespace sipsim::collective::detail
