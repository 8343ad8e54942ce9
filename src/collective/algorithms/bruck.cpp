// Bruck: bruck (Bruck's concatenation = all-gather and index = all-to-all, and the
// dissemination barrier).
//
// References:
//  [B97]   J. Bruck, C.-T. Ho, S. Kipnis, E. Upfal, D. Weathersby, "Efficient algorithms for
//          all-to-all communications in multiport message-passing systems", IEEE TPDS 8(11),
//          1997 (concatenation = all-gather, index = all-to-all).
//  [HFM88] D. Hensgen, R. Finkel, U. Manber, "Two algorithms for barrier synchronization",
//          IJPP 17(1), 1988 (dissemination barrier).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "algorithms/common.hpp"

namespace sipsim::collective::detail {
namespace {

// ---------------------------------------------------------------------------------------------
// Bruck [B97], dissemination barrier [HFM88]; ceil(log2 p) steps, step k at distance 2^k.

// All-gather: before step k member r holds the blocks of r .. r+2^k-1; it sends the first
// min(2^k, p-2^k) of them to r-2^k. The blocks sit rotated by r, hence the final copy.
void add_bruck_all_gather(Stages& st, const Ctx& c) {
  const std::uint32_t p = c.p, steps = ceil_log2(p);
  st.add(steps, [c, p, steps](std::uint32_t k, Step& out) {
    const std::uint64_t dist = pow2(k), n = std::min<std::uint64_t>(dist, p - dist);
    out.sends.push_back(c.send(c.abs(-sgn(dist), c.me), c.range(c.me, n)));
    recv_copy(c, out, c.abs(sgn(dist), c.me), c.range(sgn(c.me + dist), n));
    if (k + 1 == steps) add_copy(out, c.map.of(c.all()));
  });
}

// Dissemination barrier: before step k member r knows the arrival of r-2^k+1 .. r and tells
// r+2^k about the newest min(2^k, p-2^k) of them (0-byte chunks).
void add_dissemination(Stages& st, const Ctx& c) {
  const std::uint32_t p = c.p;
  st.add(ceil_log2(p), [c, p](std::uint32_t k, Step& out) {
    const std::int64_t dist = sgn(pow2(k)), n = std::min<std::int64_t>(dist, p - dist);
    const std::int64_t me = c.me;
    const auto count = static_cast<std::uint64_t>(n);
    out.sends.push_back(c.send(c.abs(dist, c.me), c.range(me - n + 1, count)));
    recv_copy(c, out, c.abs(-dist, c.me), c.range(me - dist - n + 1, count));
  });
}

// Bruck all-to-all. After the initial rotation, position t of member m holds the block for
// m+t; step k sends the positions with bit k set to m+2^k. Before step k, position t of m
// holds the block of source m - (t mod 2^k), destination m - (t mod 2^k) + t. Writing
// t = q*2^(k+1) + 2^k + u (u < 2^k), the blocks sent are (m-u, m+2^k+q*2^(k+1)): for fixed q a
// run of sources (stride p), for fixed u a run of destinations (stride 2^(k+1), split where the
// destination wraps). Whichever grouping yields fewer ChunkSets is used (it depends on p and k
// only, so sender and receiver agree); the sets are sent as consecutive Sends to the same peer.
std::vector<ChunkSet> bruck_all_to_all_sets(std::uint32_t p, std::uint32_t sender,
                                            std::uint32_t k) {
  std::vector<ChunkSet> sets;
  const std::uint64_t pk = pow2(k), span = 2 * pk;
  const std::uint64_t qs = (p - pk + span - 1) / span;  // q values with t0 = q*span + pk < p
  if (qs <= pk) {
    for (std::uint64_t q = 0; q < qs; ++q) {
      const std::uint64_t t0 = q * span + pk, cnt = std::min(pk, p - t0);
      const std::uint64_t dest = (sender + t0) % p;
      const std::uint64_t src0 = umod(sgn(sender) - sgn(cnt) + 1, p);
      sets.push_back(ChunkSet{src0 * p + dest, 1, p, cnt});
    }
  } else {
    const std::uint64_t base = (sender + pk) % p;
    const std::uint64_t qwrap = (p - base + span - 1) / span;  // first q whose destination wraps
    for (std::uint64_t u = 0; u < std::min(pk, p - pk); ++u) {
      const std::uint64_t src = umod(sgn(sender) - sgn(u), p);
      const std::uint64_t qn = (p - pk - u + span - 1) / span, q1 = std::min(qn, qwrap);
      if (q1 > 0) sets.push_back(ChunkSet{src * p + base, 1, span, q1});
      if (qn > q1) sets.push_back(ChunkSet{src * p + base + q1 * span - p, 1, span, qn - q1});
    }
  }
  for (ChunkSet& s : sets) {
    if (s.runs == 1) s.stride = 0;
  }
  return sets;
}

void add_bruck_all_to_all(Stages& st, const Ctx& c) {
  const std::uint32_t p = c.p, steps = ceil_log2(p);
  st.add(steps, [c, p, steps](std::uint32_t k, Step& out) {
    const std::uint32_t to = c.abs(sgn(pow2(k)), c.me), from = c.abs(-sgn(pow2(k)), c.me);
    for (const ChunkSet& s : bruck_all_to_all_sets(p, c.me, k)) {
      out.sends.push_back(c.send(to, s));
    }
    std::uint64_t received = 0;
    for (const ChunkSet& s : bruck_all_to_all_sets(p, from, k)) {
      recv_copy(c, out, from, s);
      received += out.recvs.back().bytes;
    }
    // Received blocks are scattered into their positions; the last step's copy is the inverse
    // rotation of the whole receive buffer (`bytes`). The initial rotation precedes step 0 and
    // has no step to be priced in.
    add_copy(out, k + 1 == steps ? c.spec.bytes : received);
  });
}

// Bruck all-to-all on the wire in closed form (equal blocks of bytes/p): step k sends to
// m + 2^k the positions t < p with bit k set, as many for every member, and receives as many
// from m - 2^k; the parts are bruck_all_to_all_sets' ChunkSets, counted without building them.
std::uint32_t bruck_all_to_all_parts(std::uint32_t p, std::uint32_t sender, std::uint32_t k) {
  const std::uint64_t pk = pow2(k), span = 2 * pk;
  const std::uint64_t qs = (p - pk + span - 1) / span;
  if (qs <= pk) return u32(qs);
  const std::uint64_t base = (sender + pk) % p;
  const std::uint64_t qwrap = (p - base + span - 1) / span;
  const std::uint64_t us = std::min<std::uint64_t>(pk, p - pk);
  // Every u gives one set, and a second one while its destinations wrap (qn(u) > qwrap).
  const std::uint64_t wrapped = qwrap * span + pk < p ? p - pk - qwrap * span : 0;
  return u32(us + std::min(us, wrapped));
}

bool bruck_wire_step(const Schedule& sched, std::uint32_t k, WireStep& w) {
  const CollectiveSpec& spec = sched.spec();
  const std::uint32_t p = spec.p;
  if (spec.op != Op::kAllToAll || p < 2 || spec.bytes % p != 0) return false;
  const std::uint64_t pk = pow2(k);
  // Positions t < p with bit k set.
  const std::uint64_t blocks = (p >> (k + 1)) * pk + (p % (2 * pk) > pk ? p % (2 * pk) - pk : 0);
  const std::uint64_t bytes = blocks * (spec.bytes / p);
  const std::uint32_t me = sched.member();
  const auto to = u32((me + pk) % p), from = u32((me + p - pk % p) % p);
  w.out.push_back({to, bytes, bruck_all_to_all_parts(p, me, k)});
  w.in.push_back({from, bytes, bruck_all_to_all_parts(p, from, k)});
  w.local = LocalOp::kCopy;
  w.local_bytes = k + 1 == sched.steps() ? spec.bytes : bytes;
  return true;
}

// ---------------------------------------------------------------------------------------------
// The algorithm.

void build_bruck(Stages& st, const Ctx& c) {
  switch (c.spec.op) {
    case Op::kAllGather:
      add_bruck_all_gather(st, c);
      break;
    case Op::kAllToAll:
      add_bruck_all_to_all(st, c);
      break;
    default:
      add_dissemination(st, c);
      break;
  }
}

}  // namespace

extern constinit const AlgorithmRow kBruckRow = {
    "bruck",
    {},
    // concatenation, index and the dissemination barrier
    [](Op op) {
      return ops_of(op, {Op::kAllGather, Op::kAllToAll, Op::kBarrier});
    },
    per_member,
    valid,
    no_params,
    build_bruck,
    bruck_wire_step,
};

}  // namespace sipsim::collective::detail
