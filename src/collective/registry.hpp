#pragma once
// The algorithm table's interface inside src/collective/ (contract: schedule.hpp,
// algorithm.hpp): what the generic core (Schedule, wire_step, lockstep_rounds) and the
// algorithm rows share. A row (algorithms/registry.cpp lists them, one file per family
// defines them) builds a member's stages from its context; the core runs them.
//
// A member's schedule is a short list of stages run back to back (ring all-reduce =
// reduce-scatter stage + all-gather stage, Rabenseifner = fold + halving + doubling + fold);
// a stage produces its i-th step on demand from the member index, so nothing is materialised
// for the other members. Messages between a pair are matched in order, so stages compose:
// every stage is consistent and deadlock-free on its own and all members run the same stage
// sequence.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sipsim/collective/algorithm.hpp"
#include "sipsim/collective/schedule.hpp"

namespace sipsim::collective::detail {

__extension__ typedef unsigned __int128 U128;

// ---------------------------------------------------------------------------------------------
// Integer helpers and exact chunk byte counts.

// x mod n in [0, n) for a signed x.
inline std::uint64_t umod(std::int64_t x, std::uint64_t n) {
  const auto sn = static_cast<std::int64_t>(n);
  const std::int64_t r = x % sn;
  return static_cast<std::uint64_t>(r < 0 ? r + sn : r);
}
inline std::uint32_t umod32(std::int64_t x, std::uint32_t n) {
  return static_cast<std::uint32_t>(umod(x, n));
}
inline std::uint32_t u32(std::uint64_t x) {
  return static_cast<std::uint32_t>(x);
}

// sum_{i<n} floor((a*i + b)/m), the AtCoder Library recursion. Sums accumulate modulo 2^128
// (only the final difference of two such sums is used, and it is small); the quantities that
// are divided or compared stay exact as long as m < 2^64 and n < 2^64.
inline U128 floor_sum(U128 n, U128 m, U128 a, U128 b) {
  U128 ans = 0;
  while (true) {
    if (a >= m) {
      ans += n * (n - 1) / 2 * (a / m);
      a %= m;
    }
    if (b >= m) {
      ans += n * (b / m);
      b %= m;
    }
    const U128 y_max = a * n + b;
    if (y_max < m) break;
    n = y_max / m;
    b = y_max % m;
    std::swap(m, a);
  }
  return ans;
}

// Exact byte counts. Chunk c spans bytes [G(c), G(c+1)) of the T-byte buffer with
// G(x) = floor(T*x/C); since G(x + C) = G(x) + T, a ChunkSet that wraps modulo C can be summed
// with unreduced indices: bytes = sum_k G(first + k*stride + run) - G(first + k*stride), two
// floor sums over arithmetic progressions, O(log C) whatever the number of runs.
class ByteMap {
 public:
  ByteMap(U128 total, std::uint64_t chunks)
      : chunks_(chunks), q_(total / chunks), r_(total % chunks) {}
  std::uint64_t chunk(std::uint64_t c) const {
    return static_cast<std::uint64_t>(sum_g(U128{c} + 1, 0, 1) - sum_g(c, 0, 1));
  }
  std::uint64_t of(const ChunkSet& s) const {
    if (s.run == 0 || s.runs == 0) return 0;
    return static_cast<std::uint64_t>(sum_g(U128{s.first} + s.run, s.stride, s.runs) -
                                      sum_g(s.first, s.stride, s.runs));
  }

 private:
  // sum_{k<n} G(b + k*s) modulo 2^128, n >= 1. With T = qC + r, G(x) = q*x + floor(r*x/C);
  // b and s are split as b1*C + b0, s1*C + s0 so that floor_sum only sees values below C^2.
  U128 sum_g(U128 b, U128 s, U128 n) const {
    const U128 c = chunks_;
    const U128 b1 = b / c, b0 = b % c, s1 = s / c, s0 = s % c;
    const U128 tri = n * (n - 1) / 2;
    return q_ * (n * b + tri * s) + r_ * (n * b1 + tri * s1) + floor_sum(n, c, r_ * s0, r_ * b0);
  }
  std::uint64_t chunks_;
  U128 q_, r_;
};

// ---------------------------------------------------------------------------------------------
// What every stage generator needs: the spec, the member, chunk/byte accounting.

struct Ctx {
  CollectiveSpec spec;
  std::uint32_t p = 1;
  std::uint32_t me = 0;
  std::uint64_t chunks = 1;
  ByteMap map{0, 1};

  Send send(std::uint32_t peer, const ChunkSet& s) const { return Send{peer, s, map.of(s)}; }
  Recv recv(std::uint32_t peer, const ChunkSet& s, Combine how) const {
    return Recv{peer, s, map.of(s), how};
  }
  ChunkSet range(std::int64_t first, std::uint64_t n) const {
    return ChunkSet{umod(first, chunks), n, 0, 1};
  }
  ChunkSet one(std::int64_t c) const { return range(c, 1); }
  ChunkSet all() const { return range(0, chunks); }
  std::uint32_t abs(std::int64_t relative, std::uint32_t root) const {
    return umod32(relative + root, p);
  }
};

using Emit = std::function<void(std::uint32_t, Step&)>;
// `uniform`: every step of the stage is the same on the wire for every member
// when all chunks have equal size (Schedule::runs).
struct Stage {
  std::uint32_t steps = 0;
  Emit emit;
  bool uniform = false;
};
struct Stages {
  void add(std::uint64_t n, Emit e, bool uniform = false) {
    if (n > 0) list.push_back(Stage{u32(n), std::move(e), uniform});
  }
  std::vector<Stage> list;
};

// ---------------------------------------------------------------------------------------------
// The algorithm table (algorithm.hpp, registry.cpp). A row: name, traits, the operations it
// implements, its chunk count (all-to-all always has p*p chunks), its own validity checks, the
// parameters it reads (make_spec: the communicator's dims, and its family's payload, which it
// copies or derives into the spec's), its stage builder and an optional closed-form wire step
// (wire_step). Each algorithm family defines its rows in its own file.

struct AlgorithmRow {
  std::string_view name;
  AlgorithmTraits traits;
  bool (*implements)(Op);
  std::uint64_t (*chunks)(const CollectiveSpec&);
  std::string (*why_invalid)(const CollectiveSpec&);
  void (*configure)(CollectiveSpec&, const AlgorithmParams&);
  void (*build)(Stages&, const Ctx&);
  // A closed form of wire_step(schedule, i), or nullptr; returns false where it does not apply.
  bool (*wire_step)(const Schedule&, std::uint32_t, WireStep&) = nullptr;
  // Lock-step algorithms (traits.lockstep): members whose steps include the slowest of every
  // round (collective::lockstep_rounds); nullptr: every member.
  std::vector<std::uint32_t> (*round_members)(const CollectiveSpec&) = nullptr;
};

// The row of `a` (registry.cpp), or nullptr for an unknown row.
const AlgorithmRow* find_row(Algorithm a);
// The row of `a`; throws InvalidCollective for an unknown row.
const AlgorithmRow& row(Algorithm a);

}  // namespace sipsim::collective::detail
