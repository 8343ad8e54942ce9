// Rings: ring and bidirectional-ring (reduce-scatter + all-gather [PY09]; pipelined chains for
// broadcast and reduce; relays for gather, scatter and all-to-all) and the ring primitives
// of rings.hpp.
//
// References:
//  [PY09]  P. Patarasuk, X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
//          workstations", JPDC 69(2), 2009 (ring reduce-scatter + all-gather).
#include "algorithms/rings.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "algorithms/common.hpp"

namespace sipsim::collective::detail {

// ---------------------------------------------------------------------------------------------
// Rings [PY09] (rings.hpp).

void ring_rs_step(const Ctx& c, const Ring& g, std::uint32_t s, Step& out) {
  const std::int64_t k = g.k, d = g.dir, si = s;
  out.sends.push_back(c.send(g.member(k + d), g.segment(k - d * (si + 1))));
  recv_reduce(c, out, g.member(k - d), g.segment(k - d * (si + 2)));
}
void ring_ag_step(const Ctx& c, const Ring& g, std::uint32_t s, Step& out) {
  const std::int64_t k = g.k, d = g.dir, si = s;
  out.sends.push_back(c.send(g.member(k + d), g.segment(k - d * si)));
  recv_copy(c, out, g.member(k - d), g.segment(k - d * (si + 1)));
}
void add_ring_rs(Stages& st, const Ctx& c, const Ring& g) {
  st.add(
      g.n - 1, [c, g](std::uint32_t s, Step& out) { ring_rs_step(c, g, s, out); }, true);
}
void add_ring_ag(Stages& st, const Ctx& c, const Ring& g) {
  st.add(
      g.n - 1, [c, g](std::uint32_t s, Step& out) { ring_ag_step(c, g, s, out); }, true);
}

Ring flat_ring(const Ctx& c, std::int64_t dir, std::uint64_t seg_first) {
  Ring g;
  g.n = c.p;
  g.k = c.me;
  g.dir = dir;
  g.seg_first = seg_first;
  return g;
}

// ---------------------------------------------------------------------------------------------
// Pipelined trees (ring and hierarchical-ring broadcast / reduce). The buffer is C chunks
// streamed down (broadcast) or up (reduce) a tree of out-degree <= 2: chunk j leaves the root
// (resp. the leaves) at step j and moves one hop per step; an inner member receives chunk j at
// its step j and forwards it at step j+1, so inner members have C+1 steps, the others C.

namespace {

std::uint64_t pipeline_steps(const TreeLinks& t, std::uint64_t chunks) {
  if (!t.has_parent && t.nchild == 0) return 0;
  return chunks + ((t.has_parent && t.nchild > 0) ? 1 : 0);
}
void pipeline_broadcast_step(const Ctx& c, const TreeLinks& t, std::uint32_t i, Step& out) {
  const bool inner = t.has_parent && t.nchild > 0;
  const std::int64_t fwd = !t.has_parent ? sgn(i) : (inner ? sgn(i) - 1 : -1);
  if (fwd >= 0) {
    for (std::uint32_t k = 0; k < t.nchild; ++k)
      out.sends.push_back(c.send(t.child[k], c.one(fwd)));
  }
  if (t.has_parent && i < c.chunks) recv_copy(c, out, t.parent, c.one(i));
}
void pipeline_reduce_step(const Ctx& c, const TreeLinks& t, std::uint32_t i, Step& out) {
  const bool inner = t.has_parent && t.nchild > 0;
  const std::int64_t up = t.nchild == 0 ? sgn(i) : (inner ? sgn(i) - 1 : -1);
  if (t.has_parent && up >= 0) out.sends.push_back(c.send(t.parent, c.one(up)));
  if (t.nchild > 0 && i < c.chunks) {
    for (std::uint32_t k = 0; k < t.nchild; ++k) {
      out.recvs.push_back(c.recv(t.child[k], c.one(i), Combine::kReduce));
    }
    add_reduce(out, 1 + t.nchild, c.map.chunk(i));
  }
}

// A chain of n positions rooted at 0. Broadcast: 0 -> 1 -> ... -> n-1. Reduce: 1 -> 2 -> ...
// -> n-1 -> 0, so that reduction data also moves in the ring's forward direction.
struct ChainHop {
  bool has_parent = false;
  std::uint32_t parent = 0;
  bool has_child = false;
  std::uint32_t child = 0;
};
ChainHop chain_hop(std::uint32_t d, std::uint32_t n, bool reduce) {
  ChainHop h;
  if (!reduce) {
    if (d > 0) h = ChainHop{true, d - 1, false, 0};
    if (d + 1 < n) {
      h.has_child = true;
      h.child = d + 1;
    }
  } else {
    if (d > 0) h = ChainHop{true, (d + 1) % n, false, 0};
    if (n > 1 && d != 1) {
      h.has_child = true;
      h.child = (d + n - 1) % n;
    }
  }
  return h;
}

}  // namespace

TreeLinks hierarchical_links(const Ctx& c, std::uint32_t lsize, std::uint32_t groups,
                             std::uint32_t root, bool reduce) {
  const std::uint32_t g = c.me / lsize, l = c.me % lsize, g0 = root / lsize, l0 = root % lsize;
  const std::uint32_t dg = umod32(sgn(g) - g0, groups), dl = umod32(sgn(l) - l0, lsize);
  auto intra_member = [&](std::uint32_t x) { return g * lsize + (l0 + x) % lsize; };
  auto inter_member = [&](std::uint32_t x) { return ((g0 + x) % groups) * lsize + l; };
  TreeLinks t;
  if (dl != 0) {
    const ChainHop h = chain_hop(dl, lsize, reduce);
    t.has_parent = h.has_parent;
    t.parent = intra_member(h.parent);
    if (h.has_child) t.add_child(intra_member(h.child));
    return t;
  }
  const ChainHop inter = chain_hop(dg, groups, reduce), intra = chain_hop(0, lsize, reduce);
  t.has_parent = inter.has_parent;
  t.parent = inter_member(inter.parent);
  if (inter.has_child) t.add_child(inter_member(inter.child));
  if (intra.has_child) t.add_child(intra_member(intra.child));
  return t;
}

void add_pipeline(Stages& st, const Ctx& c, const TreeLinks& t, bool reduce) {
  st.add(pipeline_steps(t, c.chunks), [c, t, reduce](std::uint32_t i, Step& out) {
    if (reduce) {
      pipeline_reduce_step(c, t, i, out);
    } else {
      pipeline_broadcast_step(c, t, i, out);
    }
  });
}

namespace {

// ---------------------------------------------------------------------------------------------
// Ring relays: gather, scatter and all-to-all along the ring's forward direction.

// Gather: chain position h = (r - root - 1) mod p (the root is last, h = p-1). Member h sends
// its own chunk at step 0 and at step s the chunk it received at step s-1, so the root
// receives one chunk per step, the nearest first.
void add_ring_gather(Stages& st, const Ctx& c) {
  const std::uint32_t p = c.p, root = c.spec.root, h = umod32(sgn(c.me) - root - 1, p);
  auto origin = [c, root](std::int64_t j) { return c.one(j + root + 1); };
  const std::uint32_t next = (c.me + 1) % p, prev = umod32(sgn(c.me) - 1, p);
  if (h == p - 1) {
    st.add(p - 1, [c, origin, prev, p](std::uint32_t s, Step& out) {
      recv_copy(c, out, prev, origin(sgn(p) - 2 - s));
    });
  } else {
    st.add(h + 1, [c, origin, next, prev, h](std::uint32_t s, Step& out) {
      out.sends.push_back(c.send(next, origin(sgn(h) - s)));
      if (s < h) recv_copy(c, out, prev, origin(sgn(h) - 1 - s));
    });
  }
}

// Scatter: chain position h = (r - root) mod p; the root sends the farthest member's chunk
// first, and member h forwards at step s the chunk it received at step s-1 until its own
// arrives (destinations p-1, p-2, ..., h).
void add_ring_scatter(Stages& st, const Ctx& c) {
  const std::uint32_t p = c.p, root = c.spec.root, h = umod32(sgn(c.me) - root, p);
  auto dest = [c, root](std::int64_t d) { return c.one(d + root); };
  const std::uint32_t next = (c.me + 1) % p, prev = umod32(sgn(c.me) - 1, p);
  if (h == 0) {
    st.add(p - 1, [c, dest, next, p](std::uint32_t s, Step& out) {
      out.sends.push_back(c.send(next, dest(sgn(p) - 1 - s)));
    });
  } else {
    st.add(p - h, [c, dest, next, prev, p](std::uint32_t s, Step& out) {
      if (s >= 1) out.sends.push_back(c.send(next, dest(sgn(p) - s)));
      recv_copy(c, out, prev, dest(sgn(p) - 1 - s));
    });
  }
}

// Blocks src*p + ((d0 + t) mod p), t < n: one or two contiguous ChunkSets (the destinations
// wrap within the source's row, which is not contiguous modulo p*p).
std::vector<ChunkSet> row_blocks(std::uint32_t p, std::uint64_t src, std::uint64_t d0,
                                 std::uint64_t n) {
  std::vector<ChunkSet> out;
  const std::uint64_t first_run = std::min<std::uint64_t>(n, p - d0);
  if (first_run > 0) out.push_back(ChunkSet{src * p + d0, first_run, 0, 1});
  if (n > first_run) out.push_back(ChunkSet{src * p, n - first_run, 0, 1});
  return out;
}

// All-to-all relay: at step s member r forwards to r+1 the blocks of source r-s that are not
// yet at their destination (destinations r+1 .. r+p-1-s); it keeps the one addressed to it.
void add_ring_all_to_all(Stages& st, const Ctx& c) {
  const std::uint32_t p = c.p;
  st.add(p - 1, [c, p](std::uint32_t s, Step& out) {
    const std::uint32_t next = (c.me + 1) % p, prev = umod32(sgn(c.me) - 1, p);
    const std::uint64_t n = p - 1 - s;
    for (const ChunkSet& b : row_blocks(p, umod(sgn(c.me) - s, p), next, n)) {
      out.sends.push_back(c.send(next, b));
    }
    for (const ChunkSet& b : row_blocks(p, umod(sgn(c.me) - 1 - s, p), c.me, n)) {
      recv_copy(c, out, prev, b);
    }
  });
}

// All-to-all relay one block per step (ASTRA-sim's ring all-to-all: p(p-1)/2 neighbour messages of
// S/p, one in flight). Step t is block j of phase s, where phase s holds the p-1-s blocks of
// source r-s still travelling (destinations r+1+j); the receiver's step t is the same (s, j),
// block j of source r-1-s (destination r+j, j = 0 its own). Invariant: a block forwarded in
// phase s arrived in phase s-1, so each block crosses its d hops in d consecutive phases.
void add_ring_relay_all_to_all(Stages& st, const Ctx& c) {
  const std::uint32_t p = c.p;
  st.add(p * (p - 1) / 2, [c, p](std::uint32_t t, Step& out) {
    std::uint32_t s = 0;
    while (t >= p - 1 - s) t -= p - 1 - s++;
    const std::uint32_t next = (c.me + 1) % p, prev = umod32(sgn(c.me) - 1, p);
    for (const ChunkSet& b : row_blocks(p, umod(sgn(c.me) - s, p), (next + t) % p, 1)) {
      out.sends.push_back(c.send(next, b));
    }
    for (const ChunkSet& b : row_blocks(p, umod(sgn(c.me) - 1 - s, p), (c.me + t) % p, 1)) {
      recv_copy(c, out, prev, b);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// The algorithms.

void build_ring(Stages& st, const Ctx& c) {
  const Ring g = flat_ring(c, 1, 0);
  switch (c.spec.op) {
    case Op::kAllReduce:
      add_ring_rs(st, c, g);
      add_ring_ag(st, c, g);
      break;
    case Op::kReduceScatter:
      add_ring_rs(st, c, g);
      break;
    case Op::kAllGather:
    case Op::kBarrier:  // all-gather of p zero-byte arrival chunks
      add_ring_ag(st, c, g);
      break;
    case Op::kBroadcast:
      add_pipeline(st, c, hierarchical_links(c, 1, c.p, c.spec.root, false), false);
      break;
    case Op::kReduce:
      add_pipeline(st, c, hierarchical_links(c, 1, c.p, c.spec.root, true), true);
      break;
    case Op::kGather:
      add_ring_gather(st, c);
      break;
    case Op::kScatter:
      add_ring_scatter(st, c);
      break;
    case Op::kAllToAll:
      add_ring_all_to_all(st, c);
      break;
  }
}

// Both directions at once: chunks 0..p-1 clockwise, p..2p-1 counter-clockwise (member r's
// counter-clockwise segment is p + r).
void build_bidirectional_ring(Stages& st, const Ctx& c) {
  const Ring cw = flat_ring(c, 1, 0), ccw = flat_ring(c, -1, c.p);
  auto rs = [c, cw, ccw](std::uint32_t s, Step& out) {
    ring_rs_step(c, cw, s, out);
    ring_rs_step(c, ccw, s, out);
  };
  auto ag = [c, cw, ccw](std::uint32_t s, Step& out) {
    ring_ag_step(c, cw, s, out);
    ring_ag_step(c, ccw, s, out);
  };
  if (c.spec.op != Op::kAllGather) st.add(c.p - 1, rs, true);
  if (c.spec.op != Op::kReduceScatter) st.add(c.p - 1, ag, true);
}

}  // namespace

extern constinit const AlgorithmRow kRingRow = {
    "ring", {}, any_op, per_member, valid, no_params, build_ring,
};

extern constinit const AlgorithmRow kRingRelayRow = {
    "ring-relay",
    {.named_only = true},
    [](Op op) { return op == Op::kAllToAll; },
    per_member,
    // p(p-1)/2 steps: beyond 65,536 members they pass 2^31.
    [](const CollectiveSpec& s) -> std::string {
      return s.p > 65'536 ? "ring-relay takes p(p-1)/2 steps: at most 65536 members" : "";
    },
    no_params,
    [](Stages& st, const Ctx& c) { add_ring_relay_all_to_all(st, c); },
};

extern constinit const AlgorithmRow kBidirectionalRingRow = {
    "bidirectional-ring",
    {},
    [](Op op) {
      return ops_of(op, {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather});
    },
    [](const CollectiveSpec& s) { return 2 * std::uint64_t{s.p}; },
    valid,
    no_params,
    build_bidirectional_ring,
};

}  // namespace sipsim::collective::detail
