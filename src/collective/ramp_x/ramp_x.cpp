// RAMP-x [RAMP §5-§6; docs/models.md]: ramp-x, the four-step collectives of a
// RAMP job (the steps and the boxes they move: boxes.hpp), RAMP §6.1's pipelined tree broadcast
// with optical multicast, the closed-form all-to-all wire step (RAMP Table 8), its validity checks,
// and its parameters: the payloads it fills, reads and compares (JobParams on a communicator,
// SpecParams in a spec, with eq. 1's stages: collective/ramp_x.hpp).
//
// References:
//  [RAMP]  RAMP paper, §5-§6 (RAMP-x collectives), with the subgroups,
//          digits and transceivers of docs/models.md, "RAMP-x collectives".
#include "sipsim/collective/ramp_x.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/common.hpp"
#include "ramp_x/boxes.hpp"
#include "sipsim/fabric/cost_model.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"

namespace sipsim::collective::detail {
namespace {

// ---------------------------------------------------------------------------------------------
// The four steps (boxes.hpp).

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

// ---------------------------------------------------------------------------------------------
// RAMP §6.1's pipelined tree broadcast (eq. 1; ramp::tree_broadcast_fits), k =
// SpecParams::stages chunks: the root multicasts chunk i at step i to level 1 (the x*J
// nodes of its wavelength); the forwarder of wavelength l (ramp::tree_forwarder)
// multicasts chunk i at step i+1 to the x*J nodes of l (level 2). Members are
// fabric nodes (a full job). Wavelengths differ between the root's and every
// forwarder's transmissions, so rule (c) holds; every node receives at most one
// transfer per step.
void add_ramp_tree_broadcast(Stages& st, const Ctx& c) {
  const ramp_x::SpecParams& rx = ramp_x::spec_params(c.spec);
  const RampShape& sh = rx.shape;
  const std::uint32_t k = rx.stages, x = sh.x, J = sh.J, L = ramp::rack_size(sh);
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

// ---------------------------------------------------------------------------------------------
// The algorithm.

void build_ramp(Stages& st, const Ctx& c) {
  const ramp_x::SpecParams& rx = ramp_x::spec_params(c.spec);
  RampRun R;
  R.c = c;
  R.G = make_ramp_geom(rx.shape);
  R.me = ramp::offsets_of_member(c.me, rx.shape);
  R.root = ramp::offsets_of_member(c.spec.root, rx.shape);
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
      if (rx.stages > 0) {
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

// Checked once per member and collective started: strings only when invalid.
std::string why_invalid_ramp(const CollectiveSpec& spec) {
  const ramp_x::SpecParams& rx = ramp_x::spec_params(spec);
  const RampShape& r = rx.shape;
  using std::to_string;
  if (r.x == 0 || r.J == 0 || r.D == 0) return "ramp-x needs a RAMP fabric (x, J, D)";
  if (r.J > r.x || r.D > r.x) {
    return "ramp-x needs J <= x and D <= x (Lambda = D*x), got x = " + to_string(r.x) +
           ", J = " + to_string(r.J) + ", D = " + to_string(r.D);
  }
  if (r.active[0] == 0 || r.active[0] > r.x || r.active[1] == 0 || r.active[1] > r.x ||
      r.active[2] == 0 || r.active[2] > r.J || r.active[3] == 0 || r.active[3] > r.D) {
    return "ramp-x active sizes {" + to_string(r.active[0]) + ", " + to_string(r.active[1]) + ", " +
           to_string(r.active[2]) + ", " + to_string(r.active[3]) +
           "} out of range (s1, s2 <= x = " + to_string(r.x) + ", s3 <= J = " + to_string(r.J) +
           ", s4 <= D = " + to_string(r.D) + ")";
  }
  if (ramp::job_size(r) != spec.p) {
    return "ramp-x needs p = product of the active sizes = " + to_string(ramp::job_size(r)) +
           ", got p = " + to_string(spec.p);
  }
  if (rx.stages > 0 && spec.op != Op::kBroadcast) {
    return "pipeline stages are for ramp-x broadcast only";
  }
  if (rx.stages > 0 && !ramp::tree_broadcast_fits(r)) {
    return "ramp-x's pipelined tree broadcast needs a full job with x*J >= Lambda";
  }
  return "";
}

// The communicator's JobParams become the spec's SpecParams.
void configure_ramp(CollectiveSpec& s, const AlgorithmParams& params) {
  const ramp_x::JobParams& job = ramp_x::job_params(params);
  std::uint32_t stages = 0;
  // RAMP §6.1 eq. 1: the pipelined tree's stages for this size, on RAMP
  // fabrics whose full jobs it covers.
  if (s.op == Op::kBroadcast && job.tree_broadcast && job.tree_group_rate_bps > 0 &&
      ramp::tree_broadcast_fits(job.shape)) {
    stages = ramp_x::broadcast_stages(fabric::serialization_ps(s.bytes, job.tree_group_rate_bps),
                                      job.tree_alpha_ps, std::max<std::uint64_t>(1, s.bytes));
  }
  ramp_x::set_spec(s, job.shape, stages);
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
  const RampShape& shape = ramp_x::spec_params(spec).shape;
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

// RAMP-x's reduce-scatter and all-gather steps in closed form (all-reduce, reduce-scatter,
// all-gather, barrier, and reduce's reduce-scatter stage): at step t (row k) a member exchanges
// one box with each of the s_k - 1 other members of its subgroup (add_ramp_rs, add_ramp_ag).
// Only the boxes' byte counts are needed, not their chunk sets: a box's chunk sets are the same
// lattice for every member but its base (boxes.hpp), so every box of the step has as many parts
// as the member's own, and with equal chunks as many bytes (the member layout needs them equal).
bool ramp_exchange_fast(const Schedule& sched, std::uint32_t i, WireStep& w) {
  const CollectiveSpec& spec = sched.spec();
  const ramp_x::SpecParams& rx = ramp_x::spec_params(spec);
  if (rx.stages > 0) return false;
  const RampGeom G = make_ramp_geom(rx.shape);
  const auto T = u32(G.rows.size());
  RampLayout lay = RampLayout::kMember;
  bool rs = true;  // a reduce-scatter step, else an all-gather step
  std::uint32_t t = i;
  switch (spec.op) {
    case Op::kAllReduce:
      lay = RampLayout::kDigit;
      rs = i < T;
      t = rs ? i : 2 * T - 1 - i;
      break;
    case Op::kReduce:
      if (i >= T) return false;  // the gather stage
      lay = RampLayout::kDigit;
      break;
    case Op::kReduceScatter:
      break;
    case Op::kAllGather:
    case Op::kBarrier:
      rs = false;
      t = T - 1 - i;
      break;
    default:
      return false;
  }
  if (t >= T) return false;
  const U128 total = spec.op == Op::kBarrier ? 0 : U128{spec.bytes};
  if (lay == RampLayout::kMember && total % sched.chunks() != 0) return false;
  RampRun R;
  R.c = Ctx{spec, spec.p, sched.member(), sched.chunks(), ByteMap(total, sched.chunks())};
  R.G = G;
  R.me = ramp::offsets_of_member(sched.member(), rx.shape);
  const std::uint32_t k = G.rows[t];
  const std::uint64_t s = G.s[k];
  const unsigned later = R.mask(t + 1, T);
  const std::vector<ChunkSet> mine_sets = R.box(lay, R.me, later);
  const std::uint64_t mine = R.bytes(mine_sets);
  const auto parts = u32(mine_sets.size());
  // With equal chunks every box of the step (as many chunks) has the member's own box's bytes.
  const bool equal = total % sched.chunks() == 0;
  auto box_bytes = [&](const ramp::Offsets& o) {
    return equal ? mine : R.bytes(R.box(lay, o, later));
  };
  // The subgroup's members by their offset along k, found once: each is both
  // a destination and a source (this runs for every member and step).
  std::array<std::uint32_t, 256> sub;  // s <= x <= 256
  if (s > sub.size()) throw std::logic_error("ramp-x: a subgroup larger than 256");
  for (std::uint32_t v = 0; v < s; ++v) sub[v] = R.member(R.with(k, v));
  w.out.reserve(s - 1);
  w.in.reserve(s - 1);
  // Step j sends to offset me + j and receives from me - j (mod s).
  std::uint32_t to = R.me[k], from = R.me[k];
  for (std::uint64_t j = 1; j < s; ++j) {
    to = to + 1 == s ? 0 : to + 1;
    from = from == 0 ? u32(s) - 1 : from - 1;
    w.out.push_back({sub[to], rs ? box_bytes(R.with(k, to)) : mine, parts});
    w.in.push_back({sub[from], rs ? mine : box_bytes(R.with(k, from)), parts});
  }
  if (rs) {
    w.local = LocalOp::kReduce;
    w.sources = u32(s);
    w.local_bytes = mine;
  }
  return true;
}

// RAMP §6.1's pipelined tree broadcast (eq. 1; add_ramp_tree_broadcast) without
// building chunk sets: its roles and peers, one chunk per message.
bool ramp_tree_broadcast_fast(const Schedule& sched, std::uint32_t i, WireStep& w) {
  const CollectiveSpec& spec = sched.spec();
  const ramp_x::SpecParams& rx = ramp_x::spec_params(spec);
  const RampShape& sh = rx.shape;
  const std::uint32_t k = rx.stages, x = sh.x, J = sh.J, L = ramp::rack_size(sh);
  const std::uint32_t self = sched.member();
  const ramp::Coord me = ramp::coord_of_node(self, sh);
  const ramp::Coord root = ramp::coord_of_node(spec.root, sh);
  const std::uint32_t lr = root.lambda(x), lm = me.lambda(x);
  // One chunk to each of the x*J nodes of wavelength l but this one, by multicast.
  auto multicast = [&](std::uint32_t l, std::uint64_t chunk) {
    const std::uint64_t bytes = sched.chunk_bytes(chunk);
    for (std::uint32_t g = 0; g < x; ++g) {
      for (std::uint32_t j = 0; j < J; ++j) {
        const std::uint32_t n = ramp::node_id(ramp::Coord{g, j, l / x, l % x}, sh);
        if (n != self) w.out.push_back({n, bytes, 1});
      }
    }
    w.multicast = true;
  };
  auto receive = [&](std::uint32_t from, std::uint64_t chunk) {
    w.in.push_back({from, sched.chunk_bytes(chunk), 1});
  };
  if (self == spec.root) {
    multicast(lr, i);  // level 1, chunk i at step i
  } else if (lm != lr) {
    // Level 2: chunk i - 1 from the forwarder at step i (step 0 is empty).
    if (i > 0) receive(ramp::node_id(ramp::tree_forwarder(root, lm, sh), sh), i - 1);
  } else {
    // Level 1: chunk i from the root at step i; a forwarder passes chunk i - 1 on.
    const std::uint32_t r = root.g * J + root.j, q = me.g * J + me.j;
    const std::uint32_t idx = q < r ? q : q - 1;
    const std::uint32_t l2 = idx < lr ? idx : idx + 1;
    if (i < k) receive(spec.root, i);
    if (l2 < L && i > 0) multicast(l2, i - 1);
  }
  return true;
}

bool ramp_wire_step(const Schedule& sched, std::uint32_t i, WireStep& w) {
  const CollectiveSpec& spec = sched.spec();
  if (spec.op == Op::kBroadcast && ramp_x::spec_params(spec).stages > 0) {
    return ramp_tree_broadcast_fast(sched, i, w);
  }
  return spec.op == Op::kAllToAll ? ramp_all_to_all_fast(sched, i, w)
                                  : ramp_exchange_fast(sched, i, w);
}
}  // namespace

namespace {

// RAMP §6.2.3's lock-step rounds: a member's part in a RAMP-x round depends only on which of
// its four step offsets equal the root's, so 16 representatives bound every round exactly.
std::vector<std::uint32_t> round_members(const CollectiveSpec& spec) {
  const fabric::ramp::RampShape& shape = ramp_x::spec_params(spec).shape;
  const fabric::ramp::Offsets root = fabric::ramp::offsets_of_member(spec.root, shape);
  std::vector<std::uint32_t> out;
  for (unsigned mask = 0; mask < 16; ++mask) {
    fabric::ramp::Offsets rep = root;
    for (unsigned k = 0; k < 4; ++k) {
      if ((mask >> k & 1u) && shape.active[k] > 1) rep[k] = (root[k] + 1) % shape.active[k];
    }
    out.push_back(fabric::ramp::member_of_offsets(rep, shape));
  }
  return out;
}

}  // namespace

extern constinit const AlgorithmRow kRampXRow = {
    "ramp-x",
    {.lockstep = true, .fabric_placement = true},
    any_op,
    // one chunk per stage of the pipelined tree broadcast
    [](const CollectiveSpec& s) -> std::uint64_t {
      const std::uint32_t stages = ramp_x::spec_params(s).stages;
      return stages > 0 ? stages : s.p;
    },
    why_invalid_ramp,
    configure_ramp,
    build_ramp,
    ramp_wire_step,
    round_members,
};

}  // namespace sipsim::collective::detail

namespace sipsim::collective::ramp_x {

const JobParams& job_params(const AlgorithmParams& params) {
  static constexpr JobParams kNone{};
  const JobParams* p = params.payload.get<JobParams>();
  return p != nullptr ? *p : kNone;
}

void set_job(AlgorithmParams& params, const fabric::ramp::RampShape& shape,
             std::uint64_t tree_alpha_ps, std::uint64_t tree_group_rate_bps) {
  JobParams job = job_params(params);
  job.shape = shape;
  job.tree_alpha_ps = tree_alpha_ps;
  job.tree_group_rate_bps = tree_group_rate_bps;
  params.payload = AlgorithmPayload::of(job);
}

void set_tree_broadcast(AlgorithmParams& params, bool tree) {
  JobParams job = job_params(params);
  job.tree_broadcast = tree;
  params.payload = AlgorithmPayload::of(job);
}

void set_spec(CollectiveSpec& spec, const fabric::ramp::RampShape& shape, std::uint32_t stages) {
  spec.payload = AlgorithmPayload::of(SpecParams{shape, stages});
}

}  // namespace sipsim::collective::ramp_x
