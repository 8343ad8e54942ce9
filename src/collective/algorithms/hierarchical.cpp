// Rings on the levels of a hierarchy: hierarchical-ring (one ring per tier of the fabric; a
// two-level pipelined tree for broadcast and reduce) and torus2d (rows and columns; a
// pairwise exchange along each for all-to-all).
//
// References:
//  [PY09]  P. Patarasuk, X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
//          workstations", JPDC 69(2), 2009 (ring reduce-scatter + all-gather).
#include <cstdint>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/common.hpp"
#include "algorithms/rings.hpp"

namespace sipsim::collective::detail {
namespace {

// ---------------------------------------------------------------------------------------------
// Rings on the levels of a hierarchy (hierarchical-ring: the fabric's tiers; torus2d: rows and
// columns). With level sizes d_0 (innermost) .. d_{k-1} and P_i = d_0 * ... * d_{i-1}, member r
// has digit l_i = (r / P_i) mod d_i, and level i's ring joins the members that differ only in
// digit i. After reduce-scattering levels 0..i-1 a member holds the chunks whose low digits
// (c mod P_i) equal its own, so level i's segment s is the strided set
// {c : c mod P_{i+1} == (r mod P_i) + s * P_i}. Reduce-scattering every level leaves member r
// with chunk r, as the contract wants; all-gather walks the levels back (Ueno and Yokota 2019,
// RAMP ref. [71]; RAMP §7.5: steps depend on "the number of active nodes in each dimension of the
// hierarchy").
std::vector<Ring> level_rings(const Ctx& c, std::span<const std::uint32_t> dims) {
  std::vector<Ring> rings;
  std::uint64_t below = 1;  // P_i
  for (const std::uint32_t d : dims) {
    const auto digit = static_cast<std::uint32_t>(c.me / below % d);
    Ring g;
    g.n = d;
    g.k = digit;
    g.base = u32(c.me - digit * below);
    g.mstride = u32(below);
    g.seg_first = c.me % below;
    g.seg_step = below;
    g.seg_stride = below * d;
    g.seg_runs = c.p / (below * d);
    rings.push_back(g);
    below *= d;
  }
  return rings;
}
void add_levels(Stages& st, const Ctx& c, std::span<const std::uint32_t> dims) {
  const std::vector<Ring> rings = level_rings(c, dims);
  const bool rs = c.spec.op == Op::kAllReduce || c.spec.op == Op::kReduceScatter;
  const bool ag = c.spec.op == Op::kAllReduce || c.spec.op == Op::kAllGather;
  if (rs) {
    for (const Ring& g : rings) add_ring_rs(st, c, g);
  }
  if (ag) {
    for (auto g = rings.rbegin(); g != rings.rend(); ++g) add_ring_ag(st, c, *g);
  }
}

// ---------------------------------------------------------------------------------------------
// Torus all-to-all: a pairwise exchange along the row moves every block to its destination
// column (to (x+k, y): the blocks for column x+k, Y of them, stride X), then a pairwise
// exchange along the column delivers them (to (x, y+k): the X blocks of row y for (x, y+k)).

void add_torus_all_to_all(Stages& st, const Ctx& c, std::uint32_t nx, std::uint32_t ny) {
  const std::uint32_t p = c.p, x = c.me % nx, y = c.me / nx;
  st.add(nx - 1, [c, p, nx, ny, x, y](std::uint32_t s, Step& out) {
    const std::int64_t k = sgn(s) + 1;
    const std::uint32_t tx = umod32(x + k, nx), fx = umod32(x - k, nx);
    const std::uint64_t from = y * nx + fx;
    out.sends.push_back(c.send(y * nx + tx, ChunkSet{std::uint64_t{c.me} * p + tx, 1, nx, ny}));
    recv_copy(c, out, u32(from), ChunkSet{from * p + x, 1, nx, ny});
  });
  st.add(ny - 1, [c, p, nx, ny, x, y](std::uint32_t s, Step& out) {
    const std::int64_t k = sgn(s) + 1;
    const std::uint64_t ty = umod(y + k, ny), fy = umod(y - k, ny);
    const std::uint64_t to = ty * nx + x;
    out.sends.push_back(c.send(u32(to), ChunkSet{std::uint64_t{y} * nx * p + to, 1, p, nx}));
    recv_copy(c, out, u32(fy * nx + x), ChunkSet{fy * nx * p + c.me, 1, p, nx});
  });
}

// add_torus_all_to_all's steps on the wire without building their chunk lists: the
// estimators evaluate every member-step (41.8M at 65,536 nodes), and building a Step for
// each was most of the 2D torus all-to-all estimate.
bool torus_all_to_all_wire_step(const Schedule& sched, std::uint32_t i, WireStep& w) {
  const CollectiveSpec& spec = sched.spec();
  if (spec.op != Op::kAllToAll) return false;
  const std::uint32_t p = spec.p, me = sched.member(), nx = spec.dims[0], ny = spec.dims[1];
  const std::uint32_t x = me % nx, y = me / nx;
  // Every member's buffer holds p blocks of `bytes` (schedule.cpp's total_bytes) in p*p
  // chunks; when they are equal (bytes % p == 0) a message of n chunks is n * bytes / p.
  // A step moves ny chunks along the row and nx along the column (the ChunkSets' counts).
  const std::uint64_t block = spec.bytes / p;
  const bool even = spec.bytes - block * p == 0;
  auto of = [&](const ChunkSet& set) {  // when uneven
    return ByteMap(U128{spec.bytes} * p, sched.chunks()).of(set);
  };
  // (c + k) and (c - k) mod n for c < n and 0 < k < n, without a division.
  auto plus = [](std::uint32_t c, std::uint32_t k, std::uint32_t n) {
    return c + k >= n ? c + k - n : c + k;
  };
  auto minus = [](std::uint32_t c, std::uint32_t k, std::uint32_t n) {
    return c >= k ? c - k : c + n - k;
  };
  if (i + 1 < nx) {  // along the row: k = i + 1
    const std::uint32_t tx = plus(x, i + 1, nx), fx = minus(x, i + 1, nx);
    const std::uint64_t from = std::uint64_t{y} * nx + fx;
    if (even) {
      w.out.push_back({y * nx + tx, ny * block, 1});
      w.in.push_back({u32(from), ny * block, 1});
      return true;
    }
    w.out.push_back({y * nx + tx, of(ChunkSet{std::uint64_t{me} * p + tx, 1, nx, ny}), 1});
    w.in.push_back({u32(from), of(ChunkSet{from * p + x, 1, nx, ny}), 1});
    return true;
  }
  const std::uint32_t k = i - (nx - 1) + 1;  // along the column
  const std::uint64_t ty = plus(y, k, ny), fy = minus(y, k, ny);
  const std::uint64_t to = ty * nx + x;
  if (even) {
    w.out.push_back({u32(to), nx * block, 1});
    w.in.push_back({u32(fy * nx + x), nx * block, 1});
    return true;
  }
  w.out.push_back({u32(to), of(ChunkSet{std::uint64_t{y} * nx * p + to, 1, p, nx}), 1});
  w.in.push_back({u32(fy * nx + x), of(ChunkSet{fy * nx * p + me, 1, p, nx}), 1});
  return true;
}

// ---------------------------------------------------------------------------------------------
// The algorithms.

void build_hierarchical_ring(Stages& st, const Ctx& c) {
  const CollectiveSpec& s = c.spec;
  if (s.op == Op::kBroadcast || s.op == Op::kReduce) {
    const bool reduce = s.op == Op::kReduce;
    // A two-level pipelined tree: the innermost groups, and across them.
    add_pipeline(st, c, hierarchical_links(c, s.dims[0], s.p / s.dims[0], s.root, reduce), reduce);
  } else {
    add_levels(st, c, std::span(s.dims).first(levels(s.dims)));
  }
}

void build_torus2d(Stages& st, const Ctx& c) {
  const CollectiveSpec& s = c.spec;
  if (s.op == Op::kAllToAll) {
    add_torus_all_to_all(st, c, s.dims[0], s.dims[1]);
  } else {
    add_levels(st, c, std::span(s.dims).first(2));
  }
}

}  // namespace

// Dims (schedule.hpp): `least` to kMaxLevels level sizes, exactly two for the torus, innermost
// first, whose product is p.
std::string why_invalid_dims(const CollectiveSpec& spec, std::size_t least, bool torus) {
  const std::size_t n = levels(spec.dims);
  std::uint64_t product = 1;
  for (std::size_t i = 0; i < n; ++i) {
    if (product <= spec.p) product *= spec.dims[i];  // no overflow: both factors < 2^32
  }
  bool trailing = false;  // a non-zero entry after the first zero
  for (std::size_t i = n; i < kMaxLevels; ++i) trailing = trailing || spec.dims[i] != 0;
  if (product == spec.p && !trailing && n >= least && (!torus || n == 2)) return "";
  std::ostringstream why;
  why << "algorithm " << to_string(spec.algorithm) << " needs "
      << (torus ? "two dims"
                : std::to_string(least) + " to " + std::to_string(kMaxLevels) + " dims")
      << " whose product is p = " << spec.p << ", got ";
  std::size_t last = kMaxLevels;  // one past the last non-zero entry
  while (last > 0 && spec.dims[last - 1] == 0) --last;
  for (std::size_t i = 0; i < last; ++i) why << (i > 0 ? " x " : "") << spec.dims[i];
  if (last == 0) why << "none";
  return why.str();
}

extern constinit const AlgorithmRow kHierarchicalRingRow = {
    "hierarchical-ring",
    {},
    [](Op op) {
      return ops_of(
          op, {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather, Op::kBroadcast, Op::kReduce});
    },
    per_member,
    [](const CollectiveSpec& s) { return why_invalid_dims(s, 2, false); },
    [](CollectiveSpec& s, const AlgorithmParams& params) { s.dims = params.hierarchy; },
    build_hierarchical_ring,
};

extern constinit const AlgorithmRow kTorus2dRow = {
    "torus2d",
    {},
    [](Op op) {
      return ops_of(op, {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather, Op::kAllToAll});
    },
    per_member,
    [](const CollectiveSpec& s) { return why_invalid_dims(s, 2, true); },
    [](CollectiveSpec& s, const AlgorithmParams& params) { s.dims = params.torus; },
    build_torus2d,
    torus_all_to_all_wire_step,
};

}  // namespace sipsim::collective::detail
