// Direct / pairwise exchange: direct (p-1 rounds of pairwise exchange; the rooted ops talk to
// the root directly) and direct-concurrent (every member posts all its sends at once, as
// NCCL's all-to-all and SiPAC's Netbench flows do, SiPAC §4).
//
// References:
//  [TRG05] R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication
//          operations in MPICH", IJHPCA 19(1), 2005 (recursive halving/doubling, Rabenseifner's
//          all-reduce and reduce, van de Geijn's broadcast, binomial trees, pairwise exchange,
//          the non-power-of-two fold).
#include <cstdint>

#include "algorithms/common.hpp"

namespace sipsim::collective::detail {
namespace {

// ---------------------------------------------------------------------------------------------
// Direct / pairwise exchange [TRG05]: round k (1..p-1) talks to r+k and r-k.

// A member's send to `to` and receive from `from` in an exchange: all-to-all (its chunk
// me*p + to out, chunk from*p + me in), reduce-scatter (chunk `to` out, its own chunk in,
// reduced: with `pairwise` a 2-input reduction per receive, else the caller reduces them
// all at once), all-gather (its own chunk out, `from`'s in).
void exchange(const Ctx& c, Step& out, Op op, std::uint32_t to, std::uint32_t from, bool pairwise) {
  const std::int64_t me = c.me, p = c.p;
  switch (op) {
    case Op::kAllToAll:
      out.sends.push_back(c.send(to, c.one(me * p + to)));
      recv_copy(c, out, from, c.one(sgn(from) * p + me));
      break;
    case Op::kReduceScatter:
      out.sends.push_back(c.send(to, c.one(to)));
      if (pairwise) {
        recv_reduce(c, out, from, c.one(me));
      } else {
        out.recvs.push_back(c.recv(from, c.one(me), Combine::kReduce));
      }
      break;
    default:  // all-gather
      out.sends.push_back(c.send(to, c.one(me)));
      recv_copy(c, out, from, c.one(from));
      break;
  }
}

void add_direct_rounds(Stages& st, const Ctx& c, Op op) {
  st.add(c.p - 1, [c, op](std::uint32_t s, Step& out) {
    const std::int64_t k = sgn(s) + 1;
    exchange(c, out, op, c.abs(k, c.me), c.abs(-k, c.me), true);
  });
}

// Rooted direct: the root handles one peer per round (root+1, root+2, ...), the others have
// a single step. `down`: data flows from the root (broadcast, scatter).
void add_direct_rooted(Stages& st, const Ctx& c, bool down, bool reduce, bool per_member) {
  const std::uint32_t p = c.p, root = c.spec.root;
  auto data = [c, per_member](std::uint32_t member) {
    return per_member ? c.one(member) : c.all();
  };
  if (c.me == root) {
    st.add(p - 1, [c, root, down, reduce, data](std::uint32_t s, Step& out) {
      const std::uint32_t peer = c.abs(sgn(s) + 1, root);
      if (down) {
        out.sends.push_back(c.send(peer, data(peer)));
      } else if (reduce) {
        recv_reduce(c, out, peer, data(peer));
      } else {
        recv_copy(c, out, peer, data(peer));
      }
    });
  } else {
    st.add(1, [c, root, down, data](std::uint32_t, Step& out) {
      if (down) {
        recv_copy(c, out, root, data(c.me));
      } else {
        out.sends.push_back(c.send(root, data(c.me)));
      }
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Concurrent direct exchange: one step in which every member sends to every other and
// receives from every other (a fabric with parallel ports, a SiPAC unit's (l+1)(r-1)
// lightpaths, carries them at once; a single port serialises them). Invariant of the step:
// afterwards member r holds the sum of every member's chunk r (reduce-scatter, one p-input
// reduction), every member's own chunk (all-gather), or chunk j*p + r of every member j
// (all-to-all).

void add_concurrent_step(Stages& st, const Ctx& c, Op op) {
  const std::uint32_t p = c.p;
  st.add(1, [c, p, op](std::uint32_t, Step& out) {
    for (std::uint32_t k = 1; k < p; ++k) {
      const std::uint32_t peer = c.abs(k, c.me);
      exchange(c, out, op, peer, peer, false);
    }
    // Reduce-scatter: the p - 1 received copies and the member's own, one p-input reduction.
    if (op == Op::kReduceScatter && p > 1) add_reduce(out, p, out.recvs.front().bytes);
  });
}

// Rooted, concurrent: the root sends to (or receives from) every other member in one step.
void add_concurrent_rooted(Stages& st, const Ctx& c, bool down, bool reduce, bool per_member) {
  const std::uint32_t p = c.p, root = c.spec.root;
  auto data = [c, per_member](std::uint32_t member) {
    return per_member ? c.one(member) : c.all();
  };
  st.add(1, [c, p, root, down, reduce, data](std::uint32_t, Step& out) {
    if (c.me != root) {
      if (down) {
        recv_copy(c, out, root, data(c.me));
      } else {
        out.sends.push_back(c.send(root, data(c.me)));
      }
      return;
    }
    for (std::uint32_t k = 1; k < p; ++k) {
      const std::uint32_t peer = c.abs(k, root);
      if (down) {
        out.sends.push_back(c.send(peer, data(peer)));
      } else {
        out.recvs.push_back(c.recv(peer, data(peer), reduce ? Combine::kReduce : Combine::kCopy));
      }
    }
    if (reduce && p > 1) add_reduce(out, p, out.recvs.front().bytes);
  });
}

// ---------------------------------------------------------------------------------------------
// The algorithms: the same operations from their exchange (all-to-all, reduce-scatter,
// all-gather) and their rooted step builders.

using Exchange = void (*)(Stages&, const Ctx&, Op);
using Rooted = void (*)(Stages&, const Ctx&, bool down, bool reduce, bool per_member);

void build_by_op(Stages& st, const Ctx& c, Exchange exchange, Rooted rooted) {
  switch (c.spec.op) {
    case Op::kAllReduce:
      exchange(st, c, Op::kReduceScatter);
      exchange(st, c, Op::kAllGather);
      break;
    case Op::kReduceScatter:
    case Op::kAllGather:
    case Op::kAllToAll:
      exchange(st, c, c.spec.op);
      break;
    case Op::kBarrier:
      exchange(st, c, Op::kAllGather);
      break;
    case Op::kGather:
      rooted(st, c, false, false, true);
      break;
    case Op::kScatter:
      rooted(st, c, true, false, true);
      break;
    case Op::kReduce:
      rooted(st, c, false, true, false);
      break;
    case Op::kBroadcast:
      rooted(st, c, true, false, false);
      break;
  }
}

void build_direct(Stages& st, const Ctx& c) {
  build_by_op(st, c, add_direct_rounds, add_direct_rooted);
}

void build_direct_concurrent(Stages& st, const Ctx& c) {
  build_by_op(st, c, add_concurrent_step, add_concurrent_rooted);
}

// One chunk per member; the whole buffer in one piece for the rooted whole-buffer ops.
std::uint64_t direct_chunks(const CollectiveSpec& s) {
  return s.op == Op::kBroadcast || s.op == Op::kReduce ? 1 : s.p;
}

}  // namespace

extern constinit const AlgorithmRow kDirectRow = {
    "direct", {}, any_op, direct_chunks, valid, no_params, build_direct,
};

extern constinit const AlgorithmRow kDirectConcurrentRow = {
    "direct-concurrent", {.incast = true},        any_op, direct_chunks, valid,
    no_params,           build_direct_concurrent,
};

}  // namespace sipsim::collective::detail
