// Direct / pairwise exchange: direct (p-1 rounds of pairwise exchange; the rooted ops talk to
// the root directly).
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

void add_direct_rounds(Stages& st, const Ctx& c, Op op) {
  const std::uint32_t p = c.p;
  st.add(p - 1, [c, p, op](std::uint32_t s, Step& out) {
    const std::int64_t k = sgn(s) + 1, me = c.me;
    const std::uint32_t to = c.abs(k, c.me), from = c.abs(-k, c.me);
    switch (op) {
      case Op::kAllToAll:
        out.sends.push_back(c.send(to, c.one(me * p + to)));
        recv_copy(c, out, from, c.one(sgn(from) * p + me));
        break;
      case Op::kReduceScatter:
        out.sends.push_back(c.send(to, c.one(to)));
        recv_reduce(c, out, from, c.one(me));
        break;
      default:  // all-gather
        out.sends.push_back(c.send(to, c.one(me)));
        recv_copy(c, out, from, c.one(from));
        break;
    }
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
// The algorithm.

void build_direct(Stages& st, const Ctx& c) {
  switch (c.spec.op) {
    case Op::kAllReduce:
      add_direct_rounds(st, c, Op::kReduceScatter);
      add_direct_rounds(st, c, Op::kAllGather);
      break;
    case Op::kReduceScatter:
    case Op::kAllGather:
    case Op::kAllToAll:
      add_direct_rounds(st, c, c.spec.op);
      break;
    case Op::kBarrier:
      add_direct_rounds(st, c, Op::kAllGather);
      break;
    case Op::kGather:
      add_direct_rooted(st, c, false, false, true);
      break;
    case Op::kScatter:
      add_direct_rooted(st, c, true, false, true);
      break;
    case Op::kReduce:
      add_direct_rooted(st, c, false, true, false);
      break;
    case Op::kBroadcast:
      add_direct_rooted(st, c, true, false, false);
      break;
  }
}

}  // namespace

extern constinit const AlgorithmRow kDirectRow = {
    "direct",
    {},
    any_op,
    // the whole buffer in one piece for the rooted whole-buffer ops
    [](const CollectiveSpec& s) -> std::uint64_t {
      return s.op == Op::kBroadcast || s.op == Op::kReduce ? 1 : s.p;
    },
    valid,
    no_params,
    build_direct,
};

}  // namespace sipsim::collective::detail
