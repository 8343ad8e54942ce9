// Trees: binomial-tree and double-binary-tree.
//
// References:
//  [TRG05] R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication
//          operations in MPICH", IJHPCA 19(1), 2005 (recursive halving/doubling, Rabenseifner's
//          all-reduce and reduce, van de Geijn's broadcast, binomial trees, pairwise exchange,
//          the non-power-of-two fold).
//  [NCCL]  NCCL 2.4 double binary trees (src/graph/trees.cc), after P. Sanders, J. Speck,
//          J. L. Träff, "Two-tree algorithms for full bandwidth broadcast, reduction and scan",
//          Parallel Computing 35(12), 2009.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "algorithms/common.hpp"

namespace sipsim::collective::detail {
namespace {

// ---------------------------------------------------------------------------------------------
// Binomial trees [TRG05] on relative ranks v = (r - root) mod p: v's parent is v - 2^j (2^j
// the lowest set bit of v), its children v + 2^i for i < j while < p; the root (j = ceil(log2
// p)) has children 2^i. Downward, a member first receives its subtree's data then serves its
// children farthest first; upward, it collects from its children nearest first then sends.

struct Binomial {
  std::uint32_t p = 1, m = 0, root = 0, v = 0, j = 0, nchild = 0;
};
Binomial make_binomial(const Ctx& c, std::uint32_t root) {
  Binomial b;
  b.p = c.p;
  b.m = ceil_log2(c.p);
  b.root = root;
  b.v = umod32(sgn(c.me) - root, c.p);
  b.j = b.v == 0 ? b.m : ctz(b.v);
  b.nchild = std::min(b.j, bit_len(c.p - b.v - 1));
  return b;
}

// What the subtree rooted at relative rank x (lowest bit 2^i) carries.
enum class TreeData { kWhole, kSubtreeChunks };
ChunkSet subtree_data(const Ctx& c, const Binomial& b, TreeData what, std::uint64_t x,
                      std::uint32_t i) {
  if (what == TreeData::kWhole) return c.all();
  return c.range(c.abs(sgn(x), b.root), std::min<std::uint64_t>(pow2(i), b.p - x));
}

void add_binomial_down(Stages& st, const Ctx& c, const Binomial& b, TreeData what) {
  const std::uint32_t has_parent = b.v != 0 ? 1 : 0;
  st.add(has_parent + b.nchild, [c, b, what, has_parent](std::uint32_t s, Step& out) {
    if (has_parent && s == 0) {
      recv_copy(c, out, c.abs(sgn(b.v) - sgn(pow2(b.j)), b.root),
                subtree_data(c, b, what, b.v, b.j));
      return;
    }
    const std::uint32_t i = b.nchild - 1 - (s - has_parent);
    const std::uint64_t x = b.v + pow2(i);
    out.sends.push_back(c.send(c.abs(sgn(x), b.root), subtree_data(c, b, what, x, i)));
  });
}

void add_binomial_up(Stages& st, const Ctx& c, const Binomial& b, TreeData what, Combine how) {
  const std::uint32_t has_parent = b.v != 0 ? 1 : 0;
  st.add(b.nchild + has_parent, [c, b, what, how](std::uint32_t s, Step& out) {
    if (s < b.nchild) {
      const std::uint64_t x = b.v + pow2(s);
      const std::uint32_t peer = c.abs(sgn(x), b.root);
      if (how == Combine::kReduce) {
        recv_reduce(c, out, peer, subtree_data(c, b, what, x, s));
      } else {
        recv_copy(c, out, peer, subtree_data(c, b, what, x, s));
      }
      return;
    }
    out.sends.push_back(
        c.send(c.abs(sgn(b.v) - sgn(pow2(b.j)), b.root), subtree_data(c, b, what, b.v, b.j)));
  });
}

void build_binomial(Stages& st, const Ctx& c) {
  switch (c.spec.op) {
    case Op::kBroadcast:
      add_binomial_down(st, c, make_binomial(c, c.spec.root), TreeData::kWhole);
      break;
    case Op::kScatter:
      add_binomial_down(st, c, make_binomial(c, c.spec.root), TreeData::kSubtreeChunks);
      break;
    case Op::kReduce:
      add_binomial_up(st, c, make_binomial(c, c.spec.root), TreeData::kWhole, Combine::kReduce);
      break;
    case Op::kGather:
      add_binomial_up(st, c, make_binomial(c, c.spec.root), TreeData::kSubtreeChunks,
                      Combine::kCopy);
      break;
    case Op::kAllReduce: {  // reduce to member 0, then broadcast from it
      const Binomial b = make_binomial(c, 0);
      add_binomial_up(st, c, b, TreeData::kWhole, Combine::kReduce);
      add_binomial_down(st, c, b, TreeData::kWhole);
      break;
    }
    case Op::kBarrier: {  // the 0-byte "reduce" gathers the arrival chunks, then broadcast
      const Binomial b = make_binomial(c, 0);
      add_binomial_up(st, c, b, TreeData::kSubtreeChunks, Combine::kCopy);
      add_binomial_down(st, c, b, TreeData::kWhole);
      break;
    }
    default:
      break;
  }
}

// ---------------------------------------------------------------------------------------------
// Double binary trees [NCCL]. Tree 0 is NCCL's in-order binary tree on ranks 0..n-1 (odd ranks
// are leaves, rank 2^i*(2k+1) has children at +-2^(i-1); rank 0 is the root with the single
// child 2^floor(log2(n-1))). Tree 1 is NCCL's complement: shifted by one rank (r -> r+1) when n
// is even, so that the leaves of one tree are the inner nodes of the other, and mirrored
// (r -> n-1-r) when n is odd (an exact complement does not exist then). Chunk t (half of the
// buffer) travels on tree t.
//  - all-reduce: the trees on the members themselves (n = p; tree 1's root is member 1 for even
//    p, p-1 for odd p), reduce up then broadcast down;
//  - broadcast / reduce: both trees must be rooted at `root`: the pair of trees is built on the
//    p-1 other members (relative ranks v = 1..p-1 as tree ranks v-1) and the root becomes the
//    parent of both tree roots.
// The two trees run concurrently: every message gets a time (broadcast: a member at depth d
// receives at d-1 and sends at d; reduce: a member at depth d sends at -d and receives from its
// children at -d-1; all-reduce runs reduce then broadcast) and a member's steps are its
// distinct event times in order. Each message has one time at both ends and steps are ordered
// by time, so by induction on time the merged schedule cannot deadlock.

struct BtLinks {
  std::int64_t up = -1;
  std::array<std::int64_t, 2> down = {-1, -1};
};

// ncclGetBtree.
BtLinks nccl_btree(std::int64_t n, std::int64_t rank) {
  BtLinks t;
  std::int64_t bit = 1;
  for (; bit < n; bit <<= 1) {
    if (bit & rank) break;
  }
  if (rank == 0) {
    if (n > 1) t.down[1] = bit >> 1;
    return t;
  }
  std::int64_t up = (rank ^ bit) | (bit << 1);
  if (up >= n) up = rank ^ bit;
  t.up = up;
  const std::int64_t lowbit = bit >> 1;
  t.down[0] = lowbit == 0 ? -1 : rank - lowbit;
  std::int64_t lb = lowbit;
  while (lb > 0 && rank + lb >= n) lb >>= 1;
  t.down[1] = lb == 0 ? -1 : rank + lb;
  return t;
}

// ncclGetDtree: tree index of `rank` in tree t and back.
std::int64_t dtree_index(std::int64_t n, std::int64_t rank, int t) {
  if (t == 0) return rank;
  return n % 2 == 0 ? (rank - 1 + n) % n : n - 1 - rank;
}
std::int64_t dtree_rank(std::int64_t n, std::int64_t index, int t) {
  if (index < 0 || t == 0) return index;
  return n % 2 == 0 ? (index + 1) % n : n - 1 - index;
}
std::uint32_t btree_depth(std::int64_t n, std::int64_t index) {
  std::uint32_t d = 0;
  for (std::int64_t up = nccl_btree(n, index).up; up >= 0; up = nccl_btree(n, up).up) ++d;
  return d;
}

struct DbtNode {
  TreeLinks links;
  std::uint32_t depth = 0;
};

DbtNode dbt_node(const Ctx& c, int t, bool rooted) {
  DbtNode node;
  auto link = [&](std::int64_t n, std::int64_t rank, auto to_member) {
    const std::int64_t x = dtree_index(n, rank, t);
    const BtLinks b = nccl_btree(n, x);
    if (b.up >= 0) {
      node.links.has_parent = true;
      node.links.parent = to_member(dtree_rank(n, b.up, t));
    }
    for (std::int64_t d : b.down) {
      if (d >= 0) node.links.add_child(to_member(dtree_rank(n, d, t)));
    }
    node.depth = btree_depth(n, x);
  };
  if (!rooted) {
    link(c.p, c.me, [](std::int64_t r) { return static_cast<std::uint32_t>(r); });
    return node;
  }
  const std::uint32_t root = c.spec.root, v = umod32(sgn(c.me) - root, c.p);
  const std::int64_t n = sgn(c.p) - 1;
  auto to_member = [&](std::int64_t u) { return c.abs(u + 1, root); };
  if (v == 0) {
    if (n >= 1) node.links.add_child(to_member(dtree_rank(n, 0, t)));
    return node;
  }
  link(n, v - 1, to_member);
  if (!node.links.has_parent) {
    node.links.has_parent = true;
    node.links.parent = root;
  }
  node.depth += 1;
  return node;
}

struct DbtEvent {
  std::int64_t time;
  int tree;
  bool send;
  std::uint32_t peer;
  Combine how;
};

std::vector<DbtEvent> dbt_events(const Ctx& c, bool rooted, bool up, bool down) {
  std::vector<DbtEvent> ev;
  for (int t = 0; t < 2; ++t) {
    const DbtNode node = dbt_node(c, t, rooted);
    const std::int64_t d = node.depth;
    const TreeLinks& l = node.links;
    if (up) {
      for (std::uint32_t k = 0; k < l.nchild; ++k) {
        ev.push_back(DbtEvent{-d - 1, t, false, l.child[k], Combine::kReduce});
      }
      if (l.has_parent) ev.push_back(DbtEvent{-d, t, true, l.parent, Combine::kReduce});
    }
    if (down) {
      if (l.has_parent) ev.push_back(DbtEvent{d - 1, t, false, l.parent, Combine::kCopy});
      for (std::uint32_t k = 0; k < l.nchild; ++k) {
        ev.push_back(DbtEvent{d, t, true, l.child[k], Combine::kCopy});
      }
    }
  }
  // Same order at both ends of every pair: by time, then tree (one message per pair, tree and
  // time).
  std::stable_sort(ev.begin(), ev.end(), [](const DbtEvent& a, const DbtEvent& b) {
    return a.time != b.time ? a.time < b.time : a.tree < b.tree;
  });
  return ev;
}

std::uint64_t distinct_times(const std::vector<DbtEvent>& ev) {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < ev.size(); ++i) {
    if (i == 0 || ev[i].time != ev[i - 1].time) ++n;
  }
  return n;
}

void build_double_binary_tree(Stages& st, const Ctx& c) {
  const bool rooted = c.spec.op != Op::kAllReduce;
  const bool up = c.spec.op != Op::kBroadcast, down = c.spec.op != Op::kReduce;
  st.add(distinct_times(dbt_events(c, rooted, up, down)),
         [c, rooted, up, down](std::uint32_t i, Step& out) {
           const std::vector<DbtEvent> ev = dbt_events(c, rooted, up, down);
           std::size_t a = 0;
           for (std::uint32_t group = 0; group < i; ++group) {
             const std::int64_t t = ev[a].time;
             while (a < ev.size() && ev[a].time == t) ++a;
           }
           std::array<std::uint32_t, 2> reduced = {0, 0};
           for (std::size_t b = a; b < ev.size() && ev[b].time == ev[a].time; ++b) {
             const ChunkSet chunk = c.one(ev[b].tree);
             if (ev[b].send) {
               out.sends.push_back(c.send(ev[b].peer, chunk));
             } else {
               out.recvs.push_back(c.recv(ev[b].peer, chunk, ev[b].how));
               if (ev[b].how == Combine::kReduce) ++reduced[static_cast<std::size_t>(ev[b].tree)];
             }
           }
           for (std::size_t t = 0; t < 2; ++t) {
             if (reduced[t] > 0) add_reduce(out, 1 + reduced[t], c.map.chunk(t));
           }
         });
}

}  // namespace

extern constinit const AlgorithmRow kBinomialTreeRow = {
    "binomial-tree",
    {},
    [](Op op) {
      return ops_of(op, {Op::kBroadcast, Op::kReduce, Op::kGather, Op::kScatter, Op::kAllReduce,
                         Op::kBarrier});
    },
    [](const CollectiveSpec& s) -> std::uint64_t {
      return s.op == Op::kBroadcast || s.op == Op::kReduce || s.op == Op::kAllReduce ? 1 : s.p;
    },
    valid,
    no_params,
    build_binomial,
};

extern constinit const AlgorithmRow kDoubleBinaryTreeRow = {
    "double-binary-tree",
    {},
    [](Op op) {
      return ops_of(op, {Op::kAllReduce, Op::kBroadcast, Op::kReduce});
    },
    [](const CollectiveSpec&) -> std::uint64_t { return 2; },
    valid,
    no_params,
    build_double_binary_tree,
};

}  // namespace sipsim::collective::detail
