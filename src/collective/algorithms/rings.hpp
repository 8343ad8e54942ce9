#pragma once
// Ring primitives shared by the ring family files: rings.cpp (ring, bidirectional-ring) and
// hierarchical.cpp (hierarchical-ring, torus2d).
//
// References:
//  [PY09]  P. Patarasuk, X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
//          workstations", JPDC 69(2), 2009 (ring reduce-scatter + all-gather).
#include <cstdint>

#include "algorithms/common.hpp"

namespace sipsim::collective::detail {

// Rings [PY09]. A ring of n members member(i) = base + i*mstride walked in direction dir;
// segment(i) is what member(i) owns after a reduce-scatter (and before an all-gather):
// {seg_first + i*seg_step + j*seg_stride : j < seg_runs}. Reduce-scatter step s: send
// segment(k - dir(s+1)) forward, receive segment(k - dir(s+2)) from behind and reduce it, so
// after n-1 steps member k holds segment(k) with all n contributions. All-gather step s: send
// segment(k - dir*s), receive segment(k - dir(s+1)).

struct Ring {
  std::uint32_t n = 1;
  std::uint32_t k = 0;
  std::int64_t dir = 1;
  std::uint32_t base = 0;
  std::uint32_t mstride = 1;
  std::uint64_t seg_first = 0;
  std::uint64_t seg_step = 1;
  std::uint64_t seg_stride = 0;
  std::uint64_t seg_runs = 1;

  std::uint32_t member(std::int64_t i) const { return base + umod32(i, n) * mstride; }
  ChunkSet segment(std::int64_t i) const {
    return ChunkSet{seg_first + umod(i, n) * seg_step, 1, seg_stride, seg_runs};
  }
};

void ring_rs_step(const Ctx& c, const Ring& g, std::uint32_t s, Step& out);
void ring_ag_step(const Ctx& c, const Ring& g, std::uint32_t s, Step& out);
// A ring step's peers do not depend on the step and its segments are equal-sized
// when the chunks are, so ring phases are uniform.
void add_ring_rs(Stages& st, const Ctx& c, const Ring& g);
void add_ring_ag(Stages& st, const Ctx& c, const Ring& g);

// The whole group as one ring; segment i = chunk seg_first + i.
Ring flat_ring(const Ctx& c, std::int64_t dir, std::uint64_t seg_first);

// Pipelined trees (ring and hierarchical-ring broadcast / reduce). The buffer is C chunks
// streamed down (broadcast) or up (reduce) a tree of out-degree <= 2: chunk j leaves the root
// (resp. the leaves) at step j and moves one hop per step; an inner member receives chunk j at
// its step j and forwards it at step j+1, so inner members have C+1 steps, the others C.
//
// Hierarchical ring tree rooted at root = (g0, l0): a chain across groups among the members
// with local index l0 (the group leaders), and in every group a chain from its leader. The
// leader forwards each chunk both to the next group and into its own group, so the inter- and
// intra-group stages overlap chunk by chunk (for reduce: intra, then inter). L == 1 or G == 1
// is the plain pipelined ring chain.
TreeLinks hierarchical_links(const Ctx& c, std::uint32_t lsize, std::uint32_t groups,
                             std::uint32_t root, bool reduce);
void add_pipeline(Stages& st, const Ctx& c, const TreeLinks& t, bool reduce);

}  // namespace sipsim::collective::detail
