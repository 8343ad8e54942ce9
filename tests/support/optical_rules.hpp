#pragma once
// The optical-rule checker of the RAMP-x tests (docs/models.md, "RAMP-x collectives"). The table of
// subgroups, digits and transceivers is restated here from docs/models.md, independently of
// fabric/ramp/geometry.hpp, and the schedules are checked against it: invariants (1) subgroups
// partition the nodes with sizes = radix, (2) members of a step-k subgroup share the digits of
// steps 1..k-1, (3) the final state (the executor, schedule_oracle.hpp), (4) optical rules (a)-(c)
// for every concurrent transmission, (5) at most 4 steps (8 for the two-stage ops).
#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sipsim/collective/schedule.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"
#include "support/schedule_oracle.hpp"

namespace sipsim::collective::rampt {

struct Node {
  std::uint32_t g = 0, j = 0, d = 0, p = 0;
  friend bool operator==(const Node&, const Node&) = default;
};

struct Fabric {
  std::uint32_t x = 1, J = 1, D = 1;
  std::uint32_t lambda_n() const { return D * x; }
  std::uint32_t nodes() const { return x * J * lambda_n(); }
  Node node(std::uint32_t n) const {
    const std::uint32_t lam = n % lambda_n(), rack = n / lambda_n();
    return Node{rack / J, rack % J, lam / x, lam % x};
  }
  std::uint32_t id(const Node& c) const { return (c.g * J + c.j) * lambda_n() + c.d * x + c.p; }
  std::uint32_t md(std::int64_t v) const {
    const std::int64_t m = x;
    return static_cast<std::uint32_t>(((v % m) + m) % m);
  }
  std::uint32_t radix(int row) const { return row <= 2 ? x : (row == 3 ? J : D); }
  // docs/models.md table, "members" column.
  std::vector<Node> subgroup(int row, const Node& a) const {
    std::vector<Node> out;
    const std::int64_t g = a.g, j = a.j, d = a.d;
    for (std::uint32_t c = 0; c < radix(row); ++c) {
      switch (row) {
        case 1:
          out.push_back(Node{c, a.j, a.d, a.p});
          break;
        case 2:
          out.push_back(Node{md(g + c), a.j, a.d, md(a.p + c)});
          break;
        case 3:
          out.push_back(Node{md(g - j + c), c, a.d, a.p});
          break;
        default:
          out.push_back(Node{md(g - d + c), a.j, c, a.p});
          break;
      }
    }
    return out;
  }
  // The row whose subgroup of a holds b (b != a), 0 if none.
  int row_of(const Node& a, const Node& b) const {
    for (int row = 1; row <= 4; ++row) {
      for (const Node& n : subgroup(row, a)) {
        if (n == b && !(b == a)) return row;
      }
    }
    return 0;
  }
  // "digit held after the step" column.
  std::array<std::uint32_t, 4> digits(const Node& a) const {
    return {md(sgn(a.g) - a.p - a.j - a.d), md(sgn(a.g) - a.j - a.d), a.j, a.d};
  }
  // "transceiver for src -> dst" column.
  std::uint32_t trx(int row, const Node& s, const Node& t) const {
    if (row <= 2) return (s.g + t.g + s.j) % x;
    if (row == 3) return (s.g + t.j) % x;
    return (s.j + t.d + x - s.d) % x;
  }
  // The member of dst's row-k subgroup in group gs (closed form), if any and not dst itself.
  std::optional<Node> source_in_group(int row, const Node& dst, std::uint32_t gs) const {
    const std::uint32_t c = md(sgn(gs) - dst.g);
    if (c == 0) return std::nullopt;
    switch (row) {
      case 1:
        return Node{gs, dst.j, dst.d, dst.p};
      case 2:
        return Node{gs, dst.j, dst.d, md(sgn(dst.p) + c)};
      case 3: {
        const std::uint32_t j2 = md(sgn(dst.j) + c);
        if (j2 >= J) return std::nullopt;
        return Node{gs, j2, dst.d, dst.p};
      }
      default: {
        const std::uint32_t d2 = md(sgn(dst.d) + c);
        if (d2 >= D) return std::nullopt;
        return Node{gs, dst.j, d2, dst.p};
      }
    }
  }
  static std::int64_t sgn(std::uint32_t v) { return static_cast<std::int64_t>(v); }
};

// RAMP §6.2.2 eq. 3, restated: additional transceiver groups for a subgroup of d devices.
std::uint32_t eq3(std::uint32_t x, std::uint32_t d);

// Optical rules (a)-(c) (docs/models.md, "RAMP-x collectives") over one step's concurrent
// transmissions (src, dst, row), each on the transceiver groups trx(row) + i*stride mod x, i <
// groups (RAMP §6.2.2 eq. 3-4); returns "" or the first violation. Rule (b) is checked as the
// transport does: a receiving transceiver serves one transmitter (a second one in the same subnet
// would share its wavelength, rule (c)).
struct Tx {
  Node src, dst;
  int row = 0;
  std::uint32_t groups = 1, stride = 1;
};
std::string check_optical(const Fabric& f, const std::vector<Tx>& txs);

// A RAMP-x spec of `op` on job `sh`.
CollectiveSpec spec(Op op, const fabric::ramp::RampShape& sh, std::uint64_t bytes,
                    std::uint32_t root = 0);

// Every member talks to all of its step's subgroup in every step.
bool uniform(Op op);
// Reduce-scatter-like then all-gather-like steps (up to 8).
bool two_stage(Op op);

// Invariants (1), (2), (4), (5) on a logged run (the executor checks (3)).
std::string check_invariants(const CollectiveSpec& s, const std::vector<oracle::Transfer>& log);

// All-to-all where the executor's bit sets would be too big: every block has one holder.
std::string track_all_to_all(const CollectiveSpec& s, std::vector<oracle::Transfer>* log);

// The executor (or track_all_to_all for large all-to-alls), then the invariant checks.
std::string run_and_check(const CollectiveSpec& s);

// Every transmission of step `row` of a job: each member to every other member of its job
// subgroup (offsets equal but for c_row), on `groups` transceiver groups d = s_row apart.
std::vector<Tx> all_pairs(const fabric::ramp::RampShape& sh, int row, std::uint32_t groups);

// The largest e <= eq. 3 for which step `row` of the job keeps rules (a)-(c) on 1 + e groups
// d apart, by trying them all.
std::uint32_t safe_extra(const fabric::ramp::RampShape& sh, int row);

// Job shapes (s1, s2, s3, s4) of fabric (x, J, D): every one, or those whose sizes are in `only`.
std::vector<fabric::ramp::RampShape> job_shapes(std::uint32_t x, std::uint32_t J, std::uint32_t D,
                                                const std::set<std::uint32_t>& only = {});

}  // namespace sipsim::collective::rampt
