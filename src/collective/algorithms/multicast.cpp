// Multicast trees on the digit groups of a hierarchy: multicast-tree.
//
// The hierarchy's levels d_0 (innermost) .. d_{L-1} give member r the digits
// r_k = (r / w_k) mod d_k, w_k = d_0 * ... * d_{k-1}; the level-k digit group of r is the d_k
// members that differ from it only in digit k. On SiPAC (paper 004 §2) that group is the r
// units of one wavelength-selective switch, and a unit reaches the other r - 1 at once on its
// own lightpaths ("simultaneous direct transmissions to and from (l+1)(r-1) different
// endpoints"): so every step here sends to a whole digit group at once, the same data to each
// (a multicast) where the operation allows. Each send is its own message (the fabric's
// lightpaths carry one copy each; a port shared by the group serialises them).
//
//  - broadcast: L pipelined trees, tree q visiting the levels q, q+1, ... (mod L) and q again,
//    each carrying 1/L of the buffer in S segments, so that a member's L ports work at once
//    (as BCube's edge-disjoint spanning trees do for one-to-all, Guo et al., SIGCOMM 2009,
//    §4.3); S + L steps;
//  - all-gather: L trees on 1/L of every block each, in rotated level orders, each member
//    multicasting what it has gathered to its group, level by level; L steps;
//  - reduce-scatter: the same trees backwards, each member sending every group peer the part
//    that peer will own; L steps;
//  - all-reduce: reduce-scatter then all-gather.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/common.hpp"

namespace sipsim::collective::detail {
namespace {

// Broadcast segments: at least kSegmentBytes each (a step's latency stays small against its
// transfer), at most kMaxSegments per tree (the pipeline's fill is (L-1)/S of it).
constexpr std::uint64_t kSegmentBytes = 16 << 10;
constexpr std::uint64_t kMaxSegments = 64;

struct Levels {
  std::vector<std::uint32_t> d;  // level sizes, innermost first
  std::vector<std::uint64_t> w;  // w[k] = d[0] * ... * d[k-1]; w[L] = p
  std::uint32_t digit(std::uint64_t x, std::size_t k) const { return u32(x / w[k] % d[k]); }
  std::size_t size() const { return d.size(); }
};

// The levels of more than one member (a level of 1 has no peers).
Levels levels_of(const Dims& dims) {
  Levels g;
  g.w.push_back(1);
  for (std::size_t i = 0; i < levels(dims); ++i) {
    if (dims[i] < 2) continue;
    g.d.push_back(dims[i]);
    g.w.push_back(g.w.back() * dims[i]);
  }
  return g;
}

std::uint64_t broadcast_segments(const CollectiveSpec& s) {
  const std::uint64_t trees = std::max<std::size_t>(1, levels_of(s.dims).size());
  const std::uint64_t per_tree = s.bytes / trees;
  return std::clamp<std::uint64_t>((per_tree + kSegmentBytes - 1) / kSegmentBytes, 1, kMaxSegments);
}

// ---------------------------------------------------------------------------------------------
// Broadcast. Digits are taken relative to the root's, t_k = (r_k - root_k) mod d_k, so the
// root is all zeros. Tree q (chunks s*L + q, segment s) visits level o(j) = (q + j) mod L at
// position j = 0..L-1, then level q again at position L; segment s is sent at position j in
// step s + j:
//  - position 0: the root multicasts to its level-q group (t_q != 0, every other digit 0);
//  - position j in 1..L-1: every member with t_q != 0 whose digits at positions j..L-1 are
//    zero multicasts to its level-o(j) group;
//  - position L: the members with t_q = 0 (but the root) receive from the member of their
//    level-q group with t_q = 1.
// So the root sends tree q only on its level-q port and the trees load different ports
// (BCube's edge-disjoint one-to-all trees, Guo et al., SIGCOMM 2009, §4.3). Invariant: a
// member with t_q != 0 receives segment s in step s + j from the member whose digit at its
// last non-zero position j is zeroed, and forwards it at positions j+1..L-1; one with t_q = 0
// receives it at position L. S + L steps, every member.

// A member's part in tree q: the position it receives at and from whom (the root: none),
// and the positions it multicasts at.
struct TreeRole {
  bool root = false;
  std::uint32_t receive_at = 0;  // 0..L
  std::uint32_t from = 0;
  std::uint32_t first_send = 0, last_send = 0;  // positions [first, last] (first > last: none)
  bool serves_final = false;                    // t_q = 1 and its group's t_q = 0 is not the root
};

void add_broadcast(Stages& st, const Ctx& c, const Levels& g) {
  const auto L = static_cast<std::uint32_t>(g.size());
  if (L == 0) return;  // one member
  const std::uint64_t S = c.chunks / L;
  const std::uint32_t root = c.spec.root;
  std::vector<std::uint32_t> t(L);  // relative digits
  for (std::uint32_t k = 0; k < L; ++k) {
    t[k] = umod32(sgn(g.digit(c.me, k)) - sgn(g.digit(root, k)), g.d[k]);
  }
  // The member with relative digit v at level k, the others the member's own.
  auto with = [c, g, root](std::uint32_t k, std::uint32_t v) {
    const std::uint64_t digit = (g.digit(root, k) + v) % g.d[k];
    return u32(c.me - std::uint64_t{g.digit(c.me, k)} * g.w[k] + digit * g.w[k]);
  };
  auto zero_but = [&](std::uint32_t q) {
    for (std::uint32_t k = 0; k < L; ++k) {
      if (k != q && t[k] != 0) return false;
    }
    return true;
  };
  std::vector<TreeRole> roles(L);
  for (std::uint32_t q = 0; q < L; ++q) {
    TreeRole& r = roles[q];
    if (zero_but(q) && t[q] == 0) {  // the root
      r.root = true;
      r.receive_at = L + 1;
      r.first_send = r.last_send = 0;
    } else if (t[q] == 0) {
      r.receive_at = L;
      r.from = with(q, 1);
      r.first_send = 1;  // none
    } else {
      for (std::uint32_t j = 0; j < L; ++j) {
        const std::uint32_t k = (q + j) % L;
        if (t[k] != 0) {
          r.receive_at = j;
          r.from = with(k, 0);
        }
      }
      r.first_send = r.receive_at + 1;
      r.last_send = L - 1;
      r.serves_final = t[q] == 1 && !zero_but(q);
    }
  }
  st.add(S + L, [c, g, L, S, roles, with](std::uint32_t step, Step& out) {
    for (std::uint32_t q = 0; q < L; ++q) {
      const TreeRole& r = roles[q];
      for (std::uint32_t j = 0; j <= L; ++j) {
        if (step < j || step - j >= S) continue;
        const ChunkSet chunk = c.one(sgn(step - j) * L + q);
        const std::uint32_t k = (q + j) % L;  // position L: level q again
        if (j == r.receive_at) {
          recv_copy(c, out, r.from, chunk);
        } else if (j == L && r.serves_final) {
          out.sends.push_back(c.send(with(q, 0), chunk));
        } else if (j < L && j >= r.first_send && j <= r.last_send) {
          for (std::uint32_t v = 1; v < g.d[k]; ++v) out.sends.push_back(c.send(with(k, v), chunk));
        }
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------
// All-gather and reduce-scatter: L trees again, tree q on chunks q*p .. q*p + p - 1 (part q of
// every member's block), each visiting the levels in its own rotated order so that in every
// step the L trees use L different levels. Within a tree, the set of members whose chunks a
// member holds, or sends, agrees with it on some levels and is free on a cyclic interval of
// levels, which is one ChunkSet (cyclic_set).

// Chunks q*p + x for every x equal to `y` outside the cyclic interval of `n` levels from level
// `a` (y's digits there are zero): a run of the low free levels, strided by the high ones.
ChunkSet cyclic_set(const Levels& g, std::uint64_t q, std::uint64_t y, std::size_t a,
                    std::size_t n) {
  const std::size_t L = g.size();
  const std::uint64_t p = g.w[L], first = q * p + y;
  if (n == 0) return ChunkSet{first, 1, 0, 1};
  if (a + n <= L) {  // levels a .. a+n-1
    return ChunkSet{first, a == 0 ? g.w[n] : 1, g.w[a], a == 0 ? 1 : g.w[a + n] / g.w[a]};
  }
  const std::size_t low = a + n - L;  // levels 0 .. low-1 and a .. L-1
  return ChunkSet{first, g.w[low], g.w[a], p / g.w[a]};
}

// x with its digits on the cyclic interval of n levels from level a set to zero.
std::uint64_t zeroed(const Levels& g, std::uint64_t x, std::size_t a, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k = (a + i) % g.size();
    x -= std::uint64_t{g.digit(x, k)} * g.w[k];
  }
  return x;
}

// x with digit k set to v.
std::uint64_t with_digit(const Levels& g, std::uint64_t x, std::size_t k, std::uint64_t v) {
  return x - std::uint64_t{g.digit(x, k)} * g.w[k] + v * g.w[k];
}

// All-gather (chunk q*p + j: part q of member j's contribution), L steps. Tree q visits levels
// q, q+1, ... (mod L). Invariant before step i: member r holds tree q's chunks of the members
// that agree with it outside levels q .. q+i-1; in step i it multicasts them to its
// level-(q+i) group and receives each peer's.
void add_all_gather(Stages& st, const Ctx& c, const Levels& g) {
  const std::size_t L = g.size();
  st.add(L, [c, g, L](std::uint32_t i, Step& out) {
    for (std::size_t q = 0; q < L; ++q) {
      const std::size_t k = (q + i) % L;
      const std::uint64_t mine = g.digit(c.me, k);
      const ChunkSet held = cyclic_set(g, q, zeroed(g, c.me, q, i), q, i);
      for (std::uint64_t v = 0; v < g.d[k]; ++v) {
        if (v == mine) continue;
        const std::uint64_t peer = with_digit(g, c.me, k, v);
        out.sends.push_back(c.send(u32(peer), held));
        recv_copy(c, out, u32(peer), cyclic_set(g, q, zeroed(g, peer, q, i), q, i));
      }
    }
  });
}

// Reduce-scatter (member r ends with chunks q*p + r, reduced), L steps. Tree q visits levels
// q-1, q-2, ... (mod L). Invariant before step i: member r holds tree q's chunks x that agree
// with it on the i levels visited, reduced over the members that differ from it only there;
// they are free on the L - i levels from q. In step i, at level k = q - 1 - i, it sends each
// group peer v those whose digit k is v and reduces its own from every peer (d_k inputs).
void add_reduce_scatter(Stages& st, const Ctx& c, const Levels& g) {
  const std::size_t L = g.size();
  st.add(L, [c, g, L](std::uint32_t i, Step& out) {
    for (std::size_t q = 0; q < L; ++q) {
      const std::size_t k = (q + L - 1 - i) % L;
      const std::size_t free = L - 1 - i;  // levels q .. k-1 stay free after the step
      const std::uint64_t mine = g.digit(c.me, k);
      const std::uint64_t kept = zeroed(g, c.me, q, free);
      std::uint64_t bytes = 0;
      for (std::uint64_t v = 0; v < g.d[k]; ++v) {
        if (v == mine) continue;
        const std::uint64_t peer = with_digit(g, c.me, k, v);
        out.sends.push_back(
            c.send(u32(peer), cyclic_set(g, q, with_digit(g, kept, k, v), q, free)));
        const Recv r = c.recv(u32(peer), cyclic_set(g, q, kept, q, free), Combine::kReduce);
        bytes = r.bytes;
        out.recvs.push_back(r);
      }
      add_reduce(out, g.d[k], bytes);
    }
  });
}

void build_multicast_tree(Stages& st, const Ctx& c) {
  const Levels g = levels_of(c.spec.dims);
  switch (c.spec.op) {
    case Op::kBroadcast:
      add_broadcast(st, c, g);
      break;
    case Op::kAllGather:
      add_all_gather(st, c, g);
      break;
    case Op::kReduceScatter:
      add_reduce_scatter(st, c, g);
      break;
    default:  // all-reduce
      add_reduce_scatter(st, c, g);
      add_all_gather(st, c, g);
      break;
  }
}

std::uint64_t multicast_chunks(const CollectiveSpec& s) {
  const std::uint64_t trees = std::max<std::size_t>(1, levels_of(s.dims).size());
  return trees * (s.op == Op::kBroadcast ? broadcast_segments(s) : s.p);
}

}  // namespace

// A step receives from a whole digit group at once, unscheduled (.incast).
extern constinit const AlgorithmRow kMulticastTreeRow = {
    "multicast-tree",
    {.incast = true},
    [](Op op) {
      return ops_of(op, {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather, Op::kBroadcast});
    },
    multicast_chunks,
    [](const CollectiveSpec& s) { return why_invalid_dims(s, 1, false); },
    [](CollectiveSpec& s, const AlgorithmParams& params) { s.dims = params.hierarchy; },
    build_multicast_tree,
};

}  // namespace sipsim::collective::detail
