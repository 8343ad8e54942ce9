#pragma once
// What the collective algorithm families share (private to src/collective/algorithms/ and
// ramp_x/): integer helpers, step helpers, tree links and row helpers, on top of the table's
// interface (../registry.hpp: the member's context, stages and the row).
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "registry.hpp"

namespace sipsim::collective::detail {

// ---------------------------------------------------------------------------------------------
// Integer helpers.

inline std::int64_t sgn(std::uint64_t x) {
  return static_cast<std::int64_t>(x);
}
inline std::uint32_t ceil_log2(std::uint64_t x) {  // x >= 1
  return x <= 1 ? 0u : static_cast<std::uint32_t>(std::bit_width(x - 1));
}
inline std::uint32_t ctz(std::uint64_t x) {
  return static_cast<std::uint32_t>(std::countr_zero(x));
}
inline std::uint32_t bit_len(std::uint64_t x) {
  return static_cast<std::uint32_t>(std::bit_width(x));
}
inline std::uint64_t pow2(std::uint32_t k) {
  return std::uint64_t{1} << k;
}

// ---------------------------------------------------------------------------------------------
// Step helpers.

inline void add_reduce(Step& s, std::uint32_t sources, std::uint64_t bytes) {
  s.local = LocalOp::kReduce;
  s.sources = std::max(s.sources, sources);
  s.local_bytes += bytes;
}
inline void add_copy(Step& s, std::uint64_t bytes) {
  s.local = LocalOp::kCopy;
  s.local_bytes += bytes;
}
// Appends a receive combined by reduction with the member's own copy (2 inputs).
inline void recv_reduce(const Ctx& c, Step& out, std::uint32_t peer, const ChunkSet& s) {
  Recv r = c.recv(peer, s, Combine::kReduce);
  add_reduce(out, 2, r.bytes);
  out.recvs.push_back(r);
}
inline void recv_copy(const Ctx& c, Step& out, std::uint32_t peer, const ChunkSet& s) {
  out.recvs.push_back(c.recv(peer, s, Combine::kCopy));
}

// A member's links in a tree of out-degree <= 2 (the pipelined ring trees, rings.hpp; the
// double binary trees, trees.cpp).
struct TreeLinks {
  bool has_parent = false;
  std::uint32_t parent = 0;
  std::uint32_t nchild = 0;
  std::array<std::uint32_t, 2> child{};
  void add_child(std::uint32_t x) { child[nchild++] = x; }
};

// ---------------------------------------------------------------------------------------------
// Row helpers.

inline bool any_op(Op) {
  return true;
}
inline bool ops_of(Op op, std::initializer_list<Op> ops) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}
inline std::uint64_t per_member(const CollectiveSpec& s) {
  return s.p;
}
inline std::string valid(const CollectiveSpec&) {
  return "";
}
inline void no_params(CollectiveSpec&, const AlgorithmParams&) {}
// Dims (schedule.hpp): `least` to kMaxLevels level sizes (exactly two for `torus`), innermost
// first, whose product is p: "" or why not (hierarchical.cpp).
std::string why_invalid_dims(const CollectiveSpec& spec, std::size_t least, bool torus);

}  // namespace sipsim::collective::detail
