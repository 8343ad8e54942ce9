#pragma once
// RAMP coordinates, job placement and the network transcoder's transceiver choice
// (RAMP §3.1, §6.1.1, §6.2.2, §6.3; docs/models.md, "RAMP-x collectives", "A construction that
// satisfies invariants 1-5").
//
// Fabric nodes. A RAMP fabric (x, J, D) has x communication groups of J racks of
// Lambda = D*x nodes; node (g, j, lambda) has the fabric id n = (g*J + j)*Lambda + lambda and
// lambda = delta*x + p (delta < D is the device group, p < x the position in it).
//
// Steps. The four RAMP-x steps ("rows" of docs/models.md's RAMP-x table) move a node along one
// direction:
//   step 1: (g + c, j, delta, p)                     radix x
//   step 2: (g + c, j, delta, p + c)                 radix x
//   step 3: (g + c, j + c, delta, p)                 radix J   (= (g - j + j', j', delta, p))
//   step 4: (g + c, j, delta + c, p)                 radix D   (= (g - delta + delta', ...))
// with g and p taken mod x; the step-k subgroup of a node is its orbit under step k's move.
// The portion digit a node holds after step k (reduce-scatter) is d1 = g - p - j - delta,
// d2 = g - j - delta (mod x), d3 = j, d4 = delta; (d1, d2, d3, d4) is a bijection onto nodes.
//
// Jobs (RAMP §6.3). A job with active sizes (s1, s2, s3, s4) (RampShape::active; a full job
// has (x, x, J, D)) occupies the sub-box of offsets c_k < s_k around node 0: the job member
// with offsets (c1, c2, c3, c4) is the node reached from node 0 by c_k moves of each step,
//   g = (c1 + c2 + c3 + c4) mod x, j = c3, delta = c4, p = c2,
// and its member index is m = ((e*s3 + c3)*s4 + c4)*s2 + c2 with e = (c1+c2+c3+c4) mod s1.
// For a full job e = g and m is the fabric node id. A job's step-k subgroups are subsets of the
// full fabric's step-k subgroups, so the transceivers below stay contention-free for any job.
// Generalised digits of a job member: d1 = c1, d2 = (c1 + c2) mod s2, d3 = c3, d4 = c4 (for a
// full job these are the digits above); the portion index is ((d1*s2 + d2)*s3 + d3)*s4 + d4.
#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace sipsim::fabric::ramp {

// RAMP geometry for RAMP-x jobs (docs/models.md, "RAMP-x collectives"): x communication groups, J
// racks per group, Lambda = D*x nodes per rack (D <= x). Member m of a full job is the node (g, j,
// lambda) with m = (g*J + j)*Lambda + lambda and lambda = delta*x + p. `active` gives the subgroup
// size actually used by each of the four steps (s1 <= x, s2 <= x, s3 <= J, s4 <= D; their product =
// the group size p); a full job has {x, x, J, D}. Steps whose size is 1 are skipped (RAMP §6.3).
struct RampShape {
  std::uint32_t x = 0, J = 0, D = 0;
  std::uint32_t active[4] = {0, 0, 0, 0};
  friend bool operator==(const RampShape&, const RampShape&) = default;
};

struct Coord {
  std::uint32_t g = 0, j = 0, delta = 0, p = 0;
  std::uint32_t lambda(std::uint32_t x) const { return delta * x + p; }
  friend bool operator==(const Coord&, const Coord&) = default;
};

// Offsets (c1, c2, c3, c4) of a job member along the four steps (index 0..3 = step 1..4).
using Offsets = std::array<std::uint32_t, 4>;

inline std::uint32_t rack_size(const RampShape& s) {  // Lambda
  return s.D * s.x;
}
inline std::uint64_t fabric_nodes(const RampShape& s) {
  return std::uint64_t{s.x} * s.J * rack_size(s);
}
inline std::uint64_t job_size(const RampShape& s) {
  return std::uint64_t{s.active[0]} * s.active[1] * s.active[2] * s.active[3];
}
// The full job of a fabric: active = {x, x, J, D}.
inline RampShape full_job(std::uint32_t x, std::uint32_t J, std::uint32_t D) {
  return RampShape{x, J, D, {x, x, J, D}};
}

// Fabric node id n = (g*J + j)*Lambda + lambda and back.
inline std::uint32_t node_id(const Coord& c, const RampShape& s) {
  return (c.g * s.J + c.j) * rack_size(s) + c.lambda(s.x);
}
inline Coord coord_of_node(std::uint32_t n, const RampShape& s) {
  const std::uint32_t lambda = n % rack_size(s), rack = n / rack_size(s);
  return Coord{rack / s.J, rack % s.J, lambda / s.x, lambda % s.x};
}

// Job member index <-> offsets <-> coordinate (see the header comment).
inline Offsets offsets_of_member(std::uint32_t m, const RampShape& s) {
  const std::uint32_t* a = s.active;
  Offsets c{};
  c[1] = m % a[1];
  m /= a[1];
  c[3] = m % a[3];
  m /= a[3];
  c[2] = m % a[2];
  const std::uint32_t e = m / a[2];
  const std::uint32_t rest = (c[1] + c[2] + c[3]) % a[0];
  c[0] = (e % a[0] + a[0] - rest) % a[0];
  return c;
}
inline std::uint32_t member_of_offsets(const Offsets& c, const RampShape& s) {
  const std::uint32_t* a = s.active;
  const std::uint32_t e = (c[0] + c[1] + c[2] + c[3]) % a[0];
  return ((e * a[2] + c[2]) * a[3] + c[3]) * a[1] + c[1];
}
inline Coord coord_of_offsets(const Offsets& c, const RampShape& s) {
  return Coord{(c[0] + c[1] + c[2] + c[3]) % s.x, c[2], c[3], c[1]};
}
inline Coord coord_of_member(std::uint32_t m, const RampShape& s) {
  return coord_of_offsets(offsets_of_member(m, s), s);
}
inline std::uint32_t node_of_member(std::uint32_t m, const RampShape& s) {
  return node_id(coord_of_member(m, s), s);
}
// The fabric node of every job member, by member index (RAMP §6.3).
inline std::vector<std::uint32_t> job_nodes(const RampShape& s) {
  std::vector<std::uint32_t> out(job_size(s));
  for (std::uint32_t m = 0; m < out.size(); ++m) out[m] = node_of_member(m, s);
  return out;
}

// docs/models.md, "RAMP-x collectives" digits of a node of a full fabric (d1..d4 at index 0..3).
inline std::array<std::uint32_t, 4> digits(const Coord& c, const RampShape& s) {
  const std::uint32_t x = s.x, gjd = (c.g + 2 * x - c.j % x - c.delta % x) % x;
  return {(gjd + x - c.p) % x, gjd, c.j, c.delta};
}
// Generalised digits of a job member (header comment) and its portion index.
inline std::array<std::uint32_t, 4> job_digits(const Offsets& c, const RampShape& s) {
  return {c[0], (c[0] + c[1]) % s.active[1], c[2], c[3]};
}
inline std::uint32_t portion_index(const std::array<std::uint32_t, 4>& d, const RampShape& s) {
  const std::uint32_t* a = s.active;
  return ((d[0] * a[1] + d[1]) * a[2] + d[2]) * a[3] + d[3];
}

// Sum and difference mod x of a, b < x, without a division (these run for
// every message the transport sends).
inline std::uint32_t add_mod(std::uint32_t a, std::uint32_t b, std::uint32_t x) {
  return a + b >= x ? a + b - x : a + b;
}
inline std::uint32_t sub_mod(std::uint32_t a, std::uint32_t b, std::uint32_t x) {
  return a >= b ? a - b : a + x - b;
}

// Coordinates are reduced below: g, p < x, j < J <= x, delta < D <= x.
// Transceiver group used by src -> dst in step 1..4 (docs/models.md, "RAMP-x collectives" table):
//   steps 1, 2: (g_src + g_dst + j_src) mod x      (RAMP eq. 2)
//   step 3:     (g_src + j_dst) mod x
//   step 4:     (j_src + delta_dst - delta_src) mod x
// Throws std::invalid_argument for another step.
inline std::uint32_t transceiver(int step, const Coord& src, const Coord& dst, const RampShape& s) {
  const std::uint32_t x = s.x;
  switch (step) {
    case 1:
    case 2:
      return add_mod(add_mod(src.g, dst.g, x), src.j, x);
    case 3:
      return add_mod(src.g, dst.j, x);
    case 4:
      return add_mod(src.j, sub_mod(dst.delta, src.delta, x), x);
    default:
      throw std::invalid_argument("ramp::transceiver: step must be 1..4, got " +
                                  std::to_string(step));
  }
}

// Every transmission goes through subnet (g_src, g_dst, t) on the destination's wavelength.
struct Subnet {
  std::uint32_t src_group = 0, dst_group = 0, transceiver = 0;
  friend bool operator==(const Subnet&, const Subnet&) = default;
};
inline Subnet subnet(int step, const Coord& src, const Coord& dst, const RampShape& s) {
  return Subnet{src.g, dst.g, transceiver(step, src, dst, s)};
}
inline std::uint32_t wavelength(const Coord& dst, const RampShape& s) {
  return dst.lambda(s.x);
}

// Which step's move takes src to dst (1..4), 0 when none does (or src == dst). O(1).
//   step 1: only g differs;
//   step 2: g and p differ by the same amount mod x, j and delta equal;
//   step 3: j differs, delta and p equal, g_dst = g_src - j_src + j_dst (mod x);
//   step 4: delta differs, j and p equal, g_dst = g_src - delta_src + delta_dst (mod x).
inline int step_of_pair(const Coord& src, const Coord& dst, const RampShape& s) {
  const std::uint32_t x = s.x;
  auto diff = [x](std::uint32_t a, std::uint32_t b) { return sub_mod(a, b, x); };
  const std::uint32_t dg = diff(dst.g, src.g);
  if (src.j == dst.j && src.delta == dst.delta) {
    if (src.p == dst.p) return dg != 0 ? 1 : 0;
    return diff(dst.p, src.p) == dg ? 2 : 0;
  }
  if (src.p != dst.p) return 0;
  if (src.delta == dst.delta) return diff(dst.j, src.j) == dg ? 3 : 0;
  if (src.j == dst.j) return diff(dst.delta, src.delta) == dg ? 4 : 0;
  return 0;
}

// The transceiver for any pair: the step's rule when the pair matches a step's move, RAMP eq. 2
// otherwise. O(1).
inline std::uint32_t transceiver_for_pair(const Coord& src, const Coord& dst, const RampShape& s) {
  const int step = step_of_pair(src, dst, s);
  return transceiver(step == 0 ? 1 : step, src, dst, s);
}

// RAMP §6.2.2 eq. 3: additional transceiver groups per pair when the active subgroup has d < x
// devices, #TRX_additional = floor((x - floor(x/d)(d - 1)) / (d - 1)); 0 for d < 2.
inline std::uint32_t eq3_additional(std::uint32_t x, std::uint32_t d) {
  if (d < 2 || d > x) return 0;
  return (x - x / d * (d - 1)) / (d - 1);
}

// How many u in [0, s) have (u + r) mod x in [0, s) too (0 < r < x, s <= x): the overlap of a
// window of s offsets with itself shifted by r on the cycle of x.
inline std::uint32_t cyclic_overlap(std::uint32_t x, std::uint32_t s, std::uint32_t r) {
  return (s > r ? s - r : 0) + (s > x - r ? s - (x - r) : 0);
}

// Additional transceiver groups a pair of step 1..4 of `job` uses (RAMP §6.2.2 eq. 3-4, read as
// groups t0 + i*d mod x, i = 0..e, t0 the step's group, d = job.active[step - 1]): the largest
// e <= eq3_additional(x, d) that keeps optical rules (a)-(c) for every concurrent transfer of
// the step. Group i*d of one transfer meets group 0 of another transfer exactly when
// r = i*d mod x is one of these differences of their t0 (docs/models.md, "RAMP transport"):
//  (a), (b): r = 0 (a transfer's own groups), or, for d >= 3, r = c - c' for two of the d - 1
//    peers of a node, whose t0 = base + c (receiver: base - c) with c in a window of d
//    consecutive offsets: min(r, x - r) < d;
//  (c): transfers on the same subnet pair (g_src, g_dst) and wavelength lambda_dst differ by
//    (c1, c3) -> (c1 - r, c3 + r) mod x (step 3: c3 of both source and destination + r; step
//    1: c1 of both - r) and their t0 by r: such pairs exist when the shifts stay in the job,
//    cyclic_overlap(x, s1, r) >= n1 and cyclic_overlap(x, s3, r) >= n3, with n_k = 2 for the
//    step's own dimension (source and destination must both shift) and 1 otherwise.
// At the 65,536-node reference point (full job) nothing changes: steps 1-3 have d = x = J, for
// which eq. 3 gives 0, and step 4 (d = D = 2) has every transceiver index of its subnets taken
// (rule (c) for every r, as s1 = s3 = x).
// `d` (default: the job's step size) is the size of the step-k subgroups whose pairs use the
// groups; with a smaller d (a training job's innermost groups, RampSpec::inner) rule (c) is still
// checked over the whole job's extents.
inline std::uint32_t extra_groups(int step, const RampShape& job, std::uint32_t d = 0) {
  if (step < 1 || step > 4) return 0;
  const std::uint32_t x = job.x;
  if (d == 0) d = job.active[step - 1];
  const std::uint32_t n1 = step == 1 ? 2 : 1, n3 = step == 3 ? 2 : 1;
  const std::uint32_t cap = eq3_additional(x, d);
  std::uint32_t e = 0;
  while (e < cap) {
    const auto r = static_cast<std::uint32_t>(std::uint64_t{e + 1} * d % x);
    if (r == 0) break;
    if (d >= 3 && std::min(r, x - r) < d) break;  // (a), (b)
    if (cyclic_overlap(x, job.active[0], r) >= n1 && cyclic_overlap(x, job.active[2], r) >= n3) {
      break;  // (c)
    }
    ++e;
  }
  return e;
}

// The transceiver groups a transfer src -> dst uses: (first + i*stride) mod x for i < count.
struct TransceiverGroups {
  std::uint32_t first = 0, count = 1, stride = 1;
  std::uint32_t group(std::uint32_t i, std::uint32_t x) const {
    return static_cast<std::uint32_t>((first + std::uint64_t{i} * stride) % x);
  }
};
// What the fabric transport and the estimator use for every transfer: the pair's group
// (transceiver_for_pair) plus, for a pair of a RAMP-x step of `job` (job.active non-zero), the
// extra groups of that step (extra_groups). Without a job (active all 0), one group. O(x).
inline TransceiverGroups transceivers_for_pair(const Coord& src, const Coord& dst,
                                               const RampShape& job) {
  const int step = step_of_pair(src, dst, job);
  TransceiverGroups t;
  t.first = transceiver(step == 0 ? 1 : step, src, dst, job);
  if (step != 0 && job.active[0] != 0) {
    t.count = 1 + extra_groups(step, job);
    t.stride = job.active[step - 1];
  }
  return t;
}

// Active sizes for an n-member job on fabric (x, J, D) (RAMP §6.3): the factorisation
// n = s1*s2*s3*s4 with s1, s2 <= x, s3 <= J, s4 <= D and the fewest sizes > 1 (active steps);
// ties prefer filling the steps in the order 1, 2, 3, 4 (lexicographically largest
// (s1, s2, s3, s4)). Throws std::invalid_argument when the fabric is invalid (zero sizes,
// J > x, D > x) or n cannot be factored within the limits.
inline RampShape shape_for(std::uint32_t x, std::uint32_t J, std::uint32_t D, std::uint32_t n) {
  if (x == 0 || J == 0 || D == 0 || J > x || D > x) {
    throw std::invalid_argument("ramp::shape_for: invalid fabric (x, J, D) = (" +
                                std::to_string(x) + ", " + std::to_string(J) + ", " +
                                std::to_string(D) + ")");
  }
  RampShape best{x, J, D, {0, 0, 0, 0}};
  int best_active = 5;
  for (std::uint32_t s1 = std::min(x, n); s1 >= 1; --s1) {
    if (n % s1 != 0) continue;
    const std::uint32_t n1 = n / s1;
    for (std::uint32_t s2 = std::min(x, n1); s2 >= 1; --s2) {
      if (n1 % s2 != 0) continue;
      const std::uint32_t n2 = n1 / s2;
      for (std::uint32_t s3 = std::min(J, n2); s3 >= 1; --s3) {
        if (n2 % s3 != 0 || n2 / s3 > D) continue;
        const std::uint32_t s4 = n2 / s3;
        const int active = (s1 > 1) + (s2 > 1) + (s3 > 1) + (s4 > 1);
        if (active < best_active) {  // candidates come in lexicographically decreasing order
          best_active = active;
          best.active[0] = s1;
          best.active[1] = s2;
          best.active[2] = s3;
          best.active[3] = s4;
        }
      }
    }
  }
  if (best_active == 5) {
    throw std::invalid_argument(
        "ramp::shape_for: " + std::to_string(n) +
        " nodes cannot be factored as s1*s2*s3*s4 with s1, s2 <= " + std::to_string(x) +
        ", s3 <= " + std::to_string(J) + ", s4 <= " + std::to_string(D));
  }
  return best;
}

// RAMP §6.1's pipelined tree broadcast. A node multicasts: one transmission on
// its transceiver towards group g (eq. 2: (g_src + g + j_src) mod x) reaches, through
// the broadcast-and-select subnet, every rack of g on the destination wavelength. The
// root reaches the x*J nodes of its wavelength (level 1); Lambda - 1 of them each
// reach the x*J nodes of another wavelength (level 2): a tree of diameter s = 3
// covering the fabric when x*J >= Lambda. Only full jobs (every node a member). How
// many pipeline stages it runs (eq. 1) is RAMP-x's choice (collective/ramp_x.hpp).
inline bool tree_broadcast_fits(const RampShape& s) {
  return s.active[0] == s.x && s.active[1] == s.x && s.active[2] == s.J && s.active[3] == s.D &&
         std::uint64_t{s.x} * s.J >= rack_size(s);
}
// The level-1 node that forwards to wavelength `lambda` (!= the root's): the
// level-1 nodes (g, j) in order, skipping the root, the i-th serving the i-th other
// wavelength.
inline Coord tree_forwarder(const Coord& root, std::uint32_t lambda, const RampShape& s) {
  const std::uint32_t lr = root.lambda(s.x);
  const std::uint32_t i = lambda < lr ? lambda : lambda - 1;  // index among the other wavelengths
  const std::uint32_t r = root.g * s.J + root.j;              // the root's (g, j) rank
  const std::uint32_t q = i < r ? i : i + 1;                  // skip the root
  Coord c;
  c.g = q / s.J;
  c.j = q % s.J;
  c.delta = lr / s.x;
  c.p = lr % s.x;
  return c;
}

}  // namespace sipsim::fabric::ramp
