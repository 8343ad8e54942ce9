// Collective schedules from closed-form per-member rules (contract: schedule.hpp): the parts
// every algorithm shares. The algorithms themselves are rows of one table (registry.cpp), one
// file per family under algorithms/ and RAMP-x under ramp_x/; common.hpp holds what they share.
#include "sipsim/collective/schedule.hpp"

#include <array>
#include <bit>
#include <memory>
#include <span>
#include <sstream>
#include <utility>

#include "algorithms/common.hpp"
#include "sipsim/collective/ramp_x.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"

namespace sipsim::collective {

namespace detail {

// RAMP-x reads the RAMP geometry of fabric/ramp/ (DESIGN.md §1).
namespace ramp = fabric::ramp;
using fabric::ramp::RampShape;

namespace {

// ---------------------------------------------------------------------------------------------
// RAMP-x [RAMP §5-§6; MODELS.md §1]. A job of p = s1*s2*s3*s4 members (RampShape::active, see
// ramp.hpp for the member <-> node map) runs up to four steps; step k is a direct exchange
// inside the step-k subgroups (members differing only in their offset c_k, RAMP §6.1.1
// Tables 5-6 as corrected by MODELS.md). Steps whose size is 1 are skipped (RAMP §6.3).
// Reduce-scatter runs steps 1, 2, 3, 4 (largest radix first, RAMP Table 8: m/s1, m/(s1 s2),
// ...); all-gather runs them in reverse.
//
// What a member holds is always a "box": the chunks of the members whose offsets equal its
// own except in a set of free steps. Two chunk layouts:
//  - member layout (reduce-scatter, all-gather, gather, scatter, barrier, all-to-all blocks):
//    chunk c belongs to member c, as the contract requires. With m = e*Q + c3*s4*s2 + c4*s2 + c2
//    (Q = s2*s3*s4, e = c1+c2+c3+c4 mod s1) a box is a lattice of member indices modulo p:
//    exact (mixed radix) when step 1 is free, else every free c_k moves m by Q + w_k mod p.
//  - digit layout (all-reduce, reduce, broadcast, whose chunks are plain buffer pieces): chunk
//    = portion index ((d1*s2 + d2)*s3 + d3)*s4 + d4 of the generalised digits (ramp.hpp); the
//    boxes of these ops fix a prefix of the steps, so each is one contiguous range, and after
//    the reduce-scatter stage member m holds chunk portion_index(job_digits(m)).
// Lattices become ChunkSets by merging unit-stride axes into runs and the longest remaining
// axis into strided runs; a box that needs several ChunkSets is sent as consecutive Sends to
// the same peer (as Bruck's all-to-all does).

enum class RampLayout { kMember, kDigit };

struct LatticeAxis {
  std::uint64_t stride = 0, count = 1;
};

std::uint64_t mulmod(std::uint64_t a, std::uint64_t b, std::uint64_t m) {
  return static_cast<std::uint64_t>(U128{a} * b % m);
}

// {base + sum_a i_a*stride_a mod M : i_a < count_a} as ChunkSets (an injective lattice).
void emit_lattice(std::uint64_t M, std::uint64_t base, std::vector<LatticeAxis> axes,
                  std::vector<ChunkSet>& out) {
  std::erase_if(axes, [](const LatticeAxis& a) { return a.count <= 1; });
  for (LatticeAxis& a : axes) a.stride %= M;
  auto take = [](std::vector<LatticeAxis>& v, std::uint64_t stride, std::uint64_t M0) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (v[i].stride == stride % M0) {
        const std::uint64_t n = v[i].count;
        v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
        return n;
      }
    }
    return std::uint64_t{0};
  };
  std::uint64_t run = 1;
  for (std::uint64_t n; (n = take(axes, run, M)) != 0;) run *= n;
  std::uint64_t stride = 0, runs = 1;
  if (!axes.empty()) {
    std::size_t best = 0;
    std::uint64_t best_runs = 0;
    for (std::size_t i = 0; i < axes.size(); ++i) {
      std::vector<LatticeAxis> rest = axes;
      rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
      std::uint64_t n = axes[i].count;
      for (std::uint64_t k; (k = take(rest, mulmod(axes[i].stride, n, M), M)) != 0;) n *= k;
      if (n > best_runs) {
        best_runs = n;
        best = i;
      }
    }
    stride = axes[best].stride;
    runs = axes[best].count;
    axes.erase(axes.begin() + static_cast<std::ptrdiff_t>(best));
    for (std::uint64_t k; (k = take(axes, mulmod(stride, runs, M), M)) != 0;) runs *= k;
  }
  std::vector<std::uint64_t> idx(axes.size(), 0);
  while (true) {
    std::uint64_t first = base % M;
    for (std::size_t a = 0; a < axes.size(); ++a)
      first = (first + mulmod(idx[a], axes[a].stride, M)) % M;
    out.push_back(ChunkSet{first, run, runs > 1 ? stride : 0, runs});
    std::size_t a = 0;
    for (; a < axes.size(); ++a) {
      if (++idx[a] < axes[a].count) break;
      idx[a] = 0;
    }
    if (a == axes.size()) break;
  }
}

struct RampGeom {
  RampShape shape;
  std::array<std::uint64_t, 4> s{};  // active sizes s1..s4 at 0..3
  std::uint64_t p = 1;
  std::array<std::uint64_t, 4> w{};   // member index = e*w[0] + c2*w[1] + c3*w[2] + c4*w[3]
  std::array<std::uint64_t, 4> dw{};  // portion index = sum d_k*dw[k]
  std::vector<std::uint32_t> rows;    // active steps (0..3) in reduce-scatter order
};

RampGeom make_ramp_geom(const RampShape& sh) {
  RampGeom G;
  G.shape = sh;
  for (std::size_t k = 0; k < 4; ++k) G.s[k] = sh.active[k];
  G.p = G.s[0] * G.s[1] * G.s[2] * G.s[3];
  G.w = {G.s[1] * G.s[2] * G.s[3], 1, G.s[3] * G.s[1], G.s[1]};
  G.dw = {G.s[1] * G.s[2] * G.s[3], G.s[2] * G.s[3], G.s[3], 1};
  for (std::uint32_t k = 0; k < 4; ++k) {
    if (G.s[k] > 1) G.rows.push_back(k);
  }
  return G;
}

// The member indices of a box as a lattice modulo p (exact: no index wraps).
struct MemberLattice {
  std::uint64_t base = 0;
  std::vector<LatticeAxis> axes;
  bool exact = true;
};

MemberLattice member_lattice(const RampGeom& G, const ramp::Offsets& c, unsigned free) {
  auto is_free = [&](std::size_t k) { return ((free >> k) & 1u) != 0 && G.s[k] > 1; };
  MemberLattice L;
  if (is_free(0) || G.s[0] == 1) {  // e takes every value: plain mixed radix
    L.axes.push_back(LatticeAxis{G.w[0], G.s[0]});
    for (std::size_t k = 1; k < 4; ++k) {
      if (is_free(k)) {
        L.axes.push_back(LatticeAxis{G.w[k], G.s[k]});
      } else {
        L.base += c[k] * G.w[k];
      }
    }
    return L;
  }
  ramp::Offsets z = c;
  for (std::size_t k = 1; k < 4; ++k) {
    if (is_free(k)) {
      z[k] = 0;
      L.axes.push_back(LatticeAxis{(G.w[0] + G.w[k]) % G.p, G.s[k]});
      L.exact = false;
    }
  }
  L.base = ramp::member_of_offsets(z, G.shape);
  return L;
}

struct RampRun {
  Ctx c;
  RampGeom G;
  ramp::Offsets me{}, root{};

  std::uint32_t T() const { return u32(G.rows.size()); }
  // Bit mask of the steps rows[a..b).
  unsigned mask(std::uint32_t a, std::uint32_t b) const {
    unsigned m = 0;
    for (std::uint32_t t = a; t < b; ++t) m |= 1u << G.rows[t];
    return m;
  }
  ramp::Offsets with(std::uint32_t k, std::uint64_t v) const {
    ramp::Offsets o = me;
    o[k] = u32(v);
    return o;
  }
  std::uint32_t member(const ramp::Offsets& o) const { return ramp::member_of_offsets(o, G.shape); }
  std::uint64_t bytes(const std::vector<ChunkSet>& v) const {
    std::uint64_t b = 0;
    for (const ChunkSet& s : v) b += c.map.of(s);
    return b;
  }

  // The chunks of box (o, free) in a layout.
  std::vector<ChunkSet> box(RampLayout lay, const ramp::Offsets& o, unsigned free) const {
    std::vector<ChunkSet> out;
    if (lay == RampLayout::kMember) {
      const MemberLattice L = member_lattice(G, o, free);
      emit_lattice(G.p, L.base, L.axes, out);
      return out;
    }
    // Digit layout: the free steps are a suffix of rows, the box is one contiguous range.
    ramp::Offsets z = o;
    std::uint64_t count = 1;
    for (std::uint32_t k = 0; k < 4; ++k) {
      if (((free >> k) & 1u) != 0) {
        z[k] = 0;
        count *= G.s[k];
      }
    }
    const std::array<std::uint32_t, 4> d = ramp::job_digits(z, G.shape);
    std::uint64_t first = 0;
    for (std::uint32_t k = 0; k < 4; ++k) {
      if (((free >> k) & 1u) == 0) first += d[k] * G.dw[k];
    }
    out.push_back(c.range(sgn(first), count));
    return out;
  }

  // All-to-all blocks src*p + dst for the sources of box (so, sfree) and the destinations of
  // box (dof, dfree), C = p^2.
  std::vector<ChunkSet> blocks(const ramp::Offsets& so, unsigned sfree, const ramp::Offsets& dof,
                               unsigned dfree) const {
    const std::uint64_t p = G.p, M = p * p;
    std::vector<ChunkSet> out;
    const MemberLattice S = member_lattice(G, so, sfree), D = member_lattice(G, dof, dfree);
    std::vector<LatticeAxis> src_axes;
    std::uint64_t src_n = 1;
    for (const LatticeAxis& a : S.axes) {
      src_axes.push_back(LatticeAxis{mulmod(a.stride, p, M), a.count});
      src_n *= a.count;
    }
    const std::uint64_t src_base = mulmod(S.base % p, p, M);
    if (D.exact) {  // destinations never wrap: one lattice modulo p^2
      std::vector<LatticeAxis> axes = src_axes;
      axes.insert(axes.end(), D.axes.begin(), D.axes.end());
      emit_lattice(M, src_base + D.base, axes, out);
      return out;
    }
    std::vector<LatticeAxis> dax = D.axes;
    std::erase_if(dax, [](const LatticeAxis& a) { return a.count <= 1; });
    std::vector<std::uint64_t> idx(dax.size(), 0);
    // Several sources: one lattice of sources per destination. A single source: the longest
    // destination axis becomes strided runs, split where the destination index wraps.
    std::size_t along = dax.size();
    if (src_n == 1) {
      along = 0;
      for (std::size_t a = 1; a < dax.size(); ++a) {
        if (dax[a].count > dax[along].count) along = a;
      }
    }
    while (true) {
      std::uint64_t d = D.base % p;
      for (std::size_t a = 0; a < dax.size(); ++a) {
        if (a != along) d = (d + mulmod(idx[a], dax[a].stride, p)) % p;
      }
      if (along == dax.size()) {
        emit_lattice(M, src_base + d, src_axes, out);
      } else {
        const std::uint64_t st = dax[along].stride;
        for (std::uint64_t done = 0, n = dax[along].count; done < n;) {
          const std::uint64_t fit = std::min(n - done, (p - 1 - d) / st + 1);
          out.push_back(ChunkSet{src_base + d, 1, fit > 1 ? st : 0, fit});
          done += fit;
          d = (d + fit * st) % p;
        }
      }
      std::size_t a = 0;
      for (; a < dax.size(); ++a) {
        if (a == along) continue;
        if (++idx[a] < dax[a].count) break;
        idx[a] = 0;
      }
      if (a == dax.size()) break;
    }
    return out;
  }
};

// Reduce-scatter (RAMP §5, Table 8): at step t (row k) send to each subgroup peer the box it
// will hold (own offsets, c_k = peer's, later steps free), receive the own box from every peer
// and reduce the s_k inputs (x-to-1, RAMP §6.1.4).
void add_ramp_rs(Stages& st, const RampRun& R, RampLayout lay) {
  st.add(R.T(), [R, lay](std::uint32_t t, Step& out) {
    const std::uint32_t k = R.G.rows[t];
    const std::uint64_t s = R.G.s[k];
    const unsigned later = R.mask(t + 1, R.T());
    for (std::uint64_t i = 1; i < s; ++i) {
      const ramp::Offsets peer = R.with(k, (R.me[k] + i) % s);
      for (const ChunkSet& cs : R.box(lay, peer, later)) {
        out.sends.push_back(R.c.send(R.member(peer), cs));
      }
    }
    const std::vector<ChunkSet> mine = R.box(lay, R.me, later);
    for (std::uint64_t i = 1; i < s; ++i) {
      const std::uint32_t peer = R.member(R.with(k, (R.me[k] + s - i) % s));
      for (const ChunkSet& cs : mine) out.recvs.push_back(R.c.recv(peer, cs, Combine::kReduce));
    }
    add_reduce(out, u32(s), R.bytes(mine));
  });
}

// All-gather: the reduce-scatter steps in reverse; send the held box to every peer, copy theirs.
void add_ramp_ag(Stages& st, const RampRun& R, RampLayout lay) {
  st.add(R.T(), [R, lay](std::uint32_t i, Step& out) {
    const std::uint32_t t = R.T() - 1 - i, k = R.G.rows[t];
    const std::uint64_t s = R.G.s[k];
    const unsigned later = R.mask(t + 1, R.T());
    const std::vector<ChunkSet> mine = R.box(lay, R.me, later);
    for (std::uint64_t j = 1; j < s; ++j) {
      const std::uint32_t peer = R.member(R.with(k, (R.me[k] + j) % s));
      for (const ChunkSet& cs : mine) out.sends.push_back(R.c.send(peer, cs));
    }
    for (std::uint64_t j = 1; j < s; ++j) {
      const ramp::Offsets peer = R.with(k, (R.me[k] + s - j) % s);
      for (const ChunkSet& cs : R.box(lay, peer, later)) {
        recv_copy(R.c, out, R.member(peer), cs);
      }
    }
  });
}

// Gather to the root (RAMP §6.1.5, Table 8): the all-gather steps, but in every subgroup only
// the member with the root's offset collects. A member sends its box once, at the first step
// whose offset differs from the root's, and collects at the steps before.
void add_ramp_gather(Stages& st, const RampRun& R, RampLayout lay) {
  std::uint32_t n = 0;
  while (n < R.T() && R.me[R.G.rows[R.T() - 1 - n]] == R.root[R.G.rows[R.T() - 1 - n]]) ++n;
  st.add(std::min(n + 1, R.T()), [R, lay](std::uint32_t i, Step& out) {
    const std::uint32_t t = R.T() - 1 - i, k = R.G.rows[t];
    const unsigned gathered = R.mask(t + 1, R.T());
    if (R.me[k] != R.root[k]) {
      const std::uint32_t collector = R.member(R.with(k, R.root[k]));
      for (const ChunkSet& cs : R.box(lay, R.me, gathered)) {
        out.sends.push_back(R.c.send(collector, cs));
      }
      return;
    }
    const std::uint64_t s = R.G.s[k];
    for (std::uint64_t j = 1; j < s; ++j) {
      const ramp::Offsets peer = R.with(k, (R.me[k] + j) % s);
      for (const ChunkSet& cs : R.box(lay, peer, gathered)) {
        recv_copy(R.c, out, R.member(peer), cs);
      }
    }
  });
}

// Scatter from the root: the reduce-scatter steps; at step t the members holding data (root's
// offsets at steps t.. ) hand every peer the box it will hold. A member receives at the last
// step whose offset differs from the root's and forwards at the following ones.
void add_ramp_scatter(Stages& st, const RampRun& R, RampLayout lay) {
  std::uint32_t first = 0;  // the receiving step (0 for the root, which only sends)
  bool receives = false;
  for (std::uint32_t t = 0; t < R.T(); ++t) {
    if (R.me[R.G.rows[t]] != R.root[R.G.rows[t]]) {
      first = t;
      receives = true;
    }
  }
  // Idle rounds before the data arrives: RAMP-x runs in lock-step (RAMP §6.2.3),
  // so every member's step i is the same round of the operation.
  st.add(first, [](std::uint32_t, Step&) {});
  st.add(R.T() - first, [R, lay, first, receives](std::uint32_t i, Step& out) {
    const std::uint32_t t = first + i, k = R.G.rows[t];
    const unsigned later = R.mask(t + 1, R.T());
    if (receives && i == 0) {
      const std::uint32_t holder = R.member(R.with(k, R.root[k]));
      for (const ChunkSet& cs : R.box(lay, R.me, later)) recv_copy(R.c, out, holder, cs);
      return;
    }
    const std::uint64_t s = R.G.s[k];
    for (std::uint64_t j = 1; j < s; ++j) {
      const ramp::Offsets peer = R.with(k, (R.me[k] + j) % s);
      for (const ChunkSet& cs : R.box(lay, peer, later)) {
        out.sends.push_back(R.c.send(R.member(peer), cs));
      }
    }
  });
}

// All-to-all (RAMP Table 8: m/s_k per peer at step k, m/x, m/x, m/J, m*x/Lambda for a full
// job; m = a member's send buffer): at step t (row k) a member holds the blocks of the sources
// differing from it in the earlier steps whose destinations agree with it in those steps; it
// forwards to each peer the ones whose c_k is the peer's. Received blocks are reshaped
// (RAMP §6.1.4): a copy of the received bytes.
void add_ramp_all_to_all(Stages& st, const RampRun& R) {
  st.add(R.T(), [R](std::uint32_t t, Step& out) {
    const std::uint32_t k = R.G.rows[t];
    const std::uint64_t s = R.G.s[k];
    const unsigned done = R.mask(0, t), later = R.mask(t + 1, R.T());
    for (std::uint64_t i = 1; i < s; ++i) {
      const ramp::Offsets peer = R.with(k, (R.me[k] + i) % s);
      for (const ChunkSet& cs : R.blocks(R.me, done, peer, later)) {
        out.sends.push_back(R.c.send(R.member(peer), cs));
      }
    }
    std::uint64_t received = 0;
    for (std::uint64_t i = 1; i < s; ++i) {
      const ramp::Offsets peer = R.with(k, (R.me[k] + s - i) % s);
      for (const ChunkSet& cs : R.blocks(peer, done, R.me, later)) {
        recv_copy(R.c, out, R.member(peer), cs);
        received += out.recvs.back().bytes;
      }
    }
    add_copy(out, received);
  });
}

// RAMP §6.1's pipelined tree broadcast (eq. 1; ramp::tree_broadcast_fits), k =
// spec.stages chunks: the root multicasts chunk i at step i to level 1 (the x*J
// nodes of its wavelength); the forwarder of wavelength l (ramp::tree_forwarder)
// multicasts chunk i at step i+1 to the x*J nodes of l (level 2). Members are
// fabric nodes (a full job). Wavelengths differ between the root's and every
// forwarder's transmissions, so rule (c) holds; every node receives at most one
// transfer per step.
void add_ramp_tree_broadcast(Stages& st, const Ctx& c) {
  const RampShape& sh = c.spec.ramp;
  const std::uint32_t k = c.spec.stages, x = sh.x, J = sh.J, L = ramp::rack_size(sh);
  const ramp::Coord me = ramp::coord_of_node(c.me, sh);
  const ramp::Coord root = ramp::coord_of_node(c.spec.root, sh);
  const std::uint32_t lr = root.lambda(x), lm = me.lambda(x);
  // The x*J nodes of wavelength l, except `skip`.
  auto level = [x, J, sh](std::uint32_t l, std::uint32_t skip) {
    std::vector<std::uint32_t> nodes;
    for (std::uint32_t g = 0; g < x; ++g) {
      for (std::uint32_t j = 0; j < J; ++j) {
        const std::uint32_t n = ramp::node_id(ramp::Coord{g, j, l / x, l % x}, sh);
        if (n != skip) nodes.push_back(n);
      }
    }
    return nodes;
  };
  if (c.me == c.spec.root) {
    const std::vector<std::uint32_t> l1 = level(lr, c.me);
    st.add(k, [c, l1](std::uint32_t i, Step& out) {
      for (std::uint32_t n : l1) out.sends.push_back(c.send(n, c.one(i)));
      out.multicast = true;
    });
    return;
  }
  if (lm != lr) {  // level 2: chunk i from the forwarder at step i + 1
    const std::uint32_t from = ramp::node_id(ramp::tree_forwarder(root, lm, sh), sh);
    st.add(1, [](std::uint32_t, Step&) {});
    st.add(k, [c, from](std::uint32_t i, Step& out) { recv_copy(c, out, from, c.one(i)); });
    return;
  }
  // Level 1: chunk i from the root at step i; a forwarder passes chunk i on at step i + 1.
  const std::uint32_t r = root.g * J + root.j, q = me.g * J + me.j;
  const std::uint32_t idx = q < r ? q : q - 1;
  const std::uint32_t l2 = idx < lr ? idx : idx + 1;
  const std::uint32_t from = c.spec.root;
  if (l2 >= L) {
    st.add(k, [c, from](std::uint32_t i, Step& out) { recv_copy(c, out, from, c.one(i)); });
    return;
  }
  const std::vector<std::uint32_t> targets = level(l2, c.me);
  st.add(k + 1, [c, from, targets, k](std::uint32_t i, Step& out) {
    if (i < k) recv_copy(c, out, from, c.one(i));
    if (i > 0) {
      for (std::uint32_t n : targets) out.sends.push_back(c.send(n, c.one(i - 1)));
      out.multicast = true;
    }
  });
}

void build_ramp(Stages& st, const Ctx& c) {
  RampRun R;
  R.c = c;
  R.G = make_ramp_geom(c.spec.ramp);
  R.me = ramp::offsets_of_member(c.me, c.spec.ramp);
  R.root = ramp::offsets_of_member(c.spec.root, c.spec.ramp);
  switch (c.spec.op) {
    case Op::kAllReduce:  // Rabenseifner-style (RAMP §6.1.5): reduce-scatter + all-gather
      add_ramp_rs(st, R, RampLayout::kDigit);
      add_ramp_ag(st, R, RampLayout::kDigit);
      break;
    case Op::kReduceScatter:
      add_ramp_rs(st, R, RampLayout::kMember);
      break;
    case Op::kAllGather:
    case Op::kBarrier:  // all-gather of the 0-byte arrival chunks (RAMP Table 8)
      add_ramp_ag(st, R, RampLayout::kMember);
      break;
    case Op::kAllToAll:
      add_ramp_all_to_all(st, R);
      break;
    case Op::kBroadcast:
      if (c.spec.stages > 0) {
        add_ramp_tree_broadcast(st, c);
      } else {  // van de Geijn: scatter + all-gather over the RAMP steps
        add_ramp_scatter(st, R, RampLayout::kDigit);
        add_ramp_ag(st, R, RampLayout::kDigit);
      }
      break;
    case Op::kReduce:  // RAMP §6.1.5: reduce-scatter + gather
      add_ramp_rs(st, R, RampLayout::kDigit);
      add_ramp_gather(st, R, RampLayout::kDigit);
      break;
    case Op::kGather:
      add_ramp_gather(st, R, RampLayout::kMember);
      break;
    case Op::kScatter:
      add_ramp_scatter(st, R, RampLayout::kMember);
      break;
  }
}

std::string why_invalid_ramp(const CollectiveSpec& spec) {
  const RampShape& r = spec.ramp;
  std::ostringstream why;
  if (r.x == 0 || r.J == 0 || r.D == 0) {
    why << "ramp-x needs a RAMP fabric (x, J, D)";
  } else if (r.J > r.x || r.D > r.x) {
    why << "ramp-x needs J <= x and D <= x (Lambda = D*x), got x = " << r.x << ", J = " << r.J
        << ", D = " << r.D;
  } else if (r.active[0] == 0 || r.active[0] > r.x || r.active[1] == 0 || r.active[1] > r.x ||
             r.active[2] == 0 || r.active[2] > r.J || r.active[3] == 0 || r.active[3] > r.D) {
    why << "ramp-x active sizes {" << r.active[0] << ", " << r.active[1] << ", " << r.active[2]
        << ", " << r.active[3] << "} out of range (s1, s2 <= x = " << r.x << ", s3 <= J = " << r.J
        << ", s4 <= D = " << r.D << ")";
  } else if (ramp::job_size(r) != spec.p) {
    why << "ramp-x needs p = product of the active sizes = " << ramp::job_size(r)
        << ", got p = " << spec.p;
  } else if (spec.stages > 0 && spec.op != Op::kBroadcast) {
    why << "pipeline stages are for ramp-x broadcast only";
  } else if (spec.stages > 0 && !ramp::tree_broadcast_fits(r)) {
    why << "ramp-x's pipelined tree broadcast needs a full job with x*J >= Lambda";
  }
  return why.str();
}

void configure_ramp(CollectiveSpec& s, const AlgorithmParams& params) {
  s.ramp = params.ramp;
  // RAMP §6.1 eq. 1: the pipelined tree's stages for this size, on RAMP
  // fabrics whose full jobs it covers.
  if (s.op == Op::kBroadcast && params.tree_broadcast && params.tree_group_rate_bps > 0 &&
      ramp::tree_broadcast_fits(s.ramp)) {
    s.stages = broadcast_stages(fabric::serialization_ps(s.bytes, params.tree_group_rate_bps),
                                params.tree_alpha_ps, std::max<std::uint64_t>(1, s.bytes));
  }
}

// RAMP-x all-to-all (RAMP Table 8): at step t (row k of the active rows, in
// order) a member forwards to each of the s_k - 1 members that differ from it
// only in offset k the blocks whose destination digit k is that member's:
// p/s_k blocks of bytes/p each, i.e. bytes/s_k; it receives as much from each,
// and reshapes (copies) what it received.
bool ramp_all_to_all_fast(const Schedule& sched, std::uint32_t i, WireStep& w) {
  const CollectiveSpec& spec = sched.spec();
  if (spec.op != Op::kAllToAll || spec.p == 0 || spec.bytes % spec.p != 0) {
    return false;
  }
  const RampShape& shape = spec.ramp;
  std::uint32_t row = 4;
  for (std::uint32_t k = 0, t = 0; k < 4; ++k) {
    if (shape.active[k] > 1 && t++ == i) row = k;
  }
  if (row == 4) return false;
  const std::uint32_t s = shape.active[row];
  const std::uint64_t per_peer = spec.bytes / s;
  const ramp::Offsets me = ramp::offsets_of_member(sched.member(), shape);
  for (std::uint32_t j = 1; j < s; ++j) {
    ramp::Offsets to = me, from = me;
    to[row] = (me[row] + j) % s;
    from[row] = (me[row] + s - j) % s;
    w.out.push_back({ramp::member_of_offsets(to, shape), per_peer, 1});
    w.in.push_back({ramp::member_of_offsets(from, shape), per_peer, 1});
  }
  w.local = LocalOp::kCopy;
  w.local_bytes = per_peer * (s - 1);
  return true;
}

}  // namespace

extern constinit const AlgorithmRow kRampXRow = {
    "ramp-x",
    {.lockstep = true, .fabric_placement = true},
    any_op,
    // one chunk per stage of the pipelined tree broadcast
    [](const CollectiveSpec& s) -> std::uint64_t { return s.stages > 0 ? s.stages : s.p; },
    why_invalid_ramp,
    configure_ramp,
    build_ramp,
    ramp_all_to_all_fast,
};

}  // namespace detail

namespace {

constexpr std::array<std::string_view, 9> kOpNames = {"all-reduce", "reduce-scatter", "all-gather",
                                                      "all-to-all", "broadcast",      "reduce",
                                                      "gather",     "scatter",        "barrier"};

std::vector<detail::Stage> build(const detail::Ctx& c) {
  detail::Stages st;
  detail::row(c.spec.algorithm).build(st, c);
  return std::move(st.list);
}

std::uint64_t chunk_count(const CollectiveSpec& s) {
  if (s.op == Op::kAllToAll) return std::uint64_t{s.p} * s.p;
  return detail::row(s.algorithm).chunks(s);
}

detail::U128 total_bytes(const CollectiveSpec& s) {
  if (s.op == Op::kBarrier) return 0;
  if (s.op == Op::kAllToAll) return detail::U128{s.bytes} * s.p;
  return s.bytes;
}

}  // namespace

struct Schedule::Plan {
  detail::Ctx ctx;
  std::vector<detail::Stage> stages;
  bool even_chunks = false;  // every chunk has the same size
};

// ---------------------------------------------------------------------------------------------
// Names.

std::string_view to_string(Op op) {
  const auto i = static_cast<std::size_t>(op);
  return i < kOpNames.size() ? kOpNames[i] : std::string_view("unknown-op");
}
std::optional<Op> parse_op(std::string_view name) {
  for (std::size_t i = 0; i < kOpNames.size(); ++i) {
    if (kOpNames[i] == name) return static_cast<Op>(i);
  }
  return std::nullopt;
}
std::vector<std::string> op_names() {
  return {kOpNames.begin(), kOpNames.end()};
}

double bus_bandwidth_factor(Op op, std::uint32_t p) {
  if (p == 0) return 0.0;
  const double n = p;
  switch (op) {
    case Op::kAllReduce:
      return 2.0 * (n - 1.0) / n;
    case Op::kReduceScatter:
    case Op::kAllGather:
    case Op::kAllToAll:
    case Op::kGather:
    case Op::kScatter:
      return (n - 1.0) / n;
    case Op::kBroadcast:
    case Op::kReduce:
      return 1.0;
    case Op::kBarrier:
      return 0.0;
  }
  return 0.0;
}

std::size_t levels(const Dims& dims) {
  std::size_t n = 0;
  while (n < dims.size() && dims[n] != 0) ++n;
  return n;
}

std::string why_invalid(const CollectiveSpec& spec) {
  std::ostringstream why;
  const detail::AlgorithmRow* row = detail::find_row(spec.algorithm);
  if (row == nullptr) {
    why << "unknown algorithm (row " << spec.algorithm.row() << ")";
  } else if (!row->implements(spec.op)) {
    why << "algorithm " << to_string(spec.algorithm) << " does not implement op "
        << to_string(spec.op);
  } else if (spec.p == 0) {
    why << "a collective needs p >= 1 members";
  } else if (spec.root >= spec.p) {
    why << "root " << spec.root << " is not a member (p = " << spec.p << ")";
  } else {
    return row->why_invalid(spec);
  }
  return why.str();
}

CollectiveSpec make_spec(Op op, Algorithm algorithm, std::uint32_t p, std::uint64_t bytes,
                         std::uint32_t root, const AlgorithmParams& params) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = algorithm;
  s.p = p;
  s.bytes = bytes;
  s.root = root;
  detail::row(algorithm).configure(s, params);
  return s;
}

WireStep wire_step(const Schedule& schedule, std::uint32_t i) {
  WireStep w;
  const auto fast = detail::row(schedule.spec().algorithm).wire_step;
  if (fast != nullptr && fast(schedule, i, w)) return w;
  const Step step = schedule.step(i);
  w.out = outgoing(step);
  w.in = incoming(step);
  w.multicast = step.multicast;
  w.local = step.local;
  w.sources = step.sources;
  w.local_bytes = step.local_bytes;
  return w;
}

// ---------------------------------------------------------------------------------------------
// Schedule.

Schedule::Schedule(const CollectiveSpec& spec, std::uint32_t member)
    : spec_(spec), member_(member) {
  std::string why = why_invalid(spec);
  if (why.empty() && member >= spec.p) {
    std::ostringstream s;
    s << "member " << member << " is not below p = " << spec.p;
    why = s.str();
  }
  if (!why.empty()) throw InvalidCollective(why);
  chunks_ = chunk_count(spec);
  auto plan = std::make_shared<Plan>();
  plan->ctx =
      detail::Ctx{spec, spec.p, member, chunks_, detail::ByteMap(total_bytes(spec), chunks_)};
  plan->stages = build(plan->ctx);
  plan->even_chunks = total_bytes(spec) % chunks_ == 0;
  std::uint64_t steps = 0;
  for (const detail::Stage& s : plan->stages) steps += s.steps;
  steps_ = detail::u32(steps);
  plan_ = std::move(plan);
}

std::uint64_t Schedule::chunk_bytes(std::uint64_t c) const {
  return plan_->ctx.map.chunk(c);
}

Step Schedule::step(std::uint32_t i) const {
  if (i >= steps_) {
    std::ostringstream s;
    s << "step " << i << " of a " << steps_ << "-step schedule";
    throw std::out_of_range(s.str());
  }
  Step out;
  for (const detail::Stage& s : plan_->stages) {
    if (i < s.steps) {
      s.emit(i, out);
      break;
    }
    i -= s.steps;
  }
  return out;
}

std::vector<Schedule::Run> Schedule::runs() const {
  std::vector<Run> out;
  std::uint32_t first = 0;
  for (const detail::Stage& s : plan_->stages) {
    if (s.uniform && plan_->even_chunks) {
      out.push_back({first, s.steps});
    } else {
      for (std::uint32_t i = 0; i < s.steps; ++i) out.push_back({first + i, 1});
    }
    first += s.steps;
  }
  return out;
}

}  // namespace sipsim::collective
