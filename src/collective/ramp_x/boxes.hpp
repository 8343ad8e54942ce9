#pragma once
// RAMP-x [RAMP §5-§6; docs/models.md]. A job of p = s1*s2*s3*s4 members
// (RampShape::active, see fabric/ramp/geometry.hpp for the member <-> node map) runs up to four
// steps; step k is a direct exchange inside the step-k subgroups (members differing only in their
// offset c_k, RAMP §6.1.1 Tables 5-6 as corrected by docs/models.md). Steps whose size is 1 are
// skipped (RAMP §6.3). Reduce-scatter runs steps 1, 2, 3, 4 (largest radix first, RAMP Table 8:
// m/s1, m/(s1 s2),
// ...); all-gather runs them in reverse.
//
// What a member holds is always a "box": the chunks of the members whose offsets equal its
// own except in a set of free steps. Two chunk layouts:
//  - member layout (reduce-scatter, all-gather, gather, scatter, barrier, all-to-all blocks):
//    chunk c belongs to member c, as the contract requires. With m = e*Q + c3*s4*s2 + c4*s2 + c2
//    (Q = s2*s3*s4, e = c1+c2+c3+c4 mod s1) a box is a lattice of member indices modulo p:
//    exact (mixed radix) when step 1 is free, else every free c_k moves m by Q + w_k mod p.
//  - digit layout (all-reduce, reduce, broadcast, whose chunks are plain buffer pieces): chunk
//    = portion index ((d1*s2 + d2)*s3 + d3)*s4 + d4 of the generalised digits (geometry.hpp); the
//    boxes of these ops fix a prefix of the steps, so each is one contiguous range, and after
//    the reduce-scatter stage member m holds chunk portion_index(job_digits(m)).
// Lattices become ChunkSets by merging unit-stride axes into runs and the longest remaining
// axis into strided runs; a box that needs several ChunkSets is sent as consecutive Sends to
// the same peer (as Bruck's all-to-all does).
//
// This header: the boxes and their chunk sets, shared by RAMP-x's step builders (ramp_x.cpp).
//
// References:
//  [RAMP]  RAMP paper, §5-§6 (RAMP-x collectives), with the subgroups,
//          digits and transceivers of docs/models.md, "RAMP-x collectives".
#include <array>
#include <cstdint>
#include <vector>

#include "algorithms/common.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"

namespace sipsim::collective::detail {

// RAMP-x reads the RAMP geometry of fabric/ramp/ (docs/architecture.md).
namespace ramp = fabric::ramp;
using fabric::ramp::RampShape;

enum class RampLayout { kMember, kDigit };

struct LatticeAxis {
  std::uint64_t stride = 0, count = 1;
};

inline std::uint64_t mulmod(std::uint64_t a, std::uint64_t b, std::uint64_t m) {
  return static_cast<std::uint64_t>(U128{a} * b % m);
}

// {base + sum_a i_a*stride_a mod M : i_a < count_a} as ChunkSets (an injective lattice).
void emit_lattice(std::uint64_t M, std::uint64_t base, std::vector<LatticeAxis> axes,
                  std::vector<ChunkSet>& out);

struct RampGeom {
  RampShape shape;
  std::array<std::uint64_t, 4> s{};  // active sizes s1..s4 at 0..3
  std::uint64_t p = 1;
  std::array<std::uint64_t, 4> w{};   // member index = e*w[0] + c2*w[1] + c3*w[2] + c4*w[3]
  std::array<std::uint64_t, 4> dw{};  // portion index = sum d_k*dw[k]
  std::vector<std::uint32_t> rows;    // active steps (0..3) in reduce-scatter order
};

RampGeom make_ramp_geom(const RampShape& sh);

// The member indices of a box as a lattice modulo p (exact: no index wraps).
struct MemberLattice {
  std::uint64_t base = 0;
  std::vector<LatticeAxis> axes;
  bool exact = true;
};

MemberLattice member_lattice(const RampGeom& G, const ramp::Offsets& c, unsigned free);

// One member's view of a RAMP-x job: its context, the job's geometry, its own and the root's
// offsets.
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
  std::vector<ChunkSet> box(RampLayout lay, const ramp::Offsets& o, unsigned free) const;

  // All-to-all blocks src*p + dst for the sources of box (so, sfree) and the destinations of
  // box (dof, dfree), C = p^2.
  std::vector<ChunkSet> blocks(const ramp::Offsets& so, unsigned sfree, const ramp::Offsets& dof,
                               unsigned dfree) const;
};

}  // namespace sipsim::collective::detail
