// The critical-path estimator (RAMP §7.4.1): exact where no resource is
// shared, never below the idle-fabric longest path, loads where links are
// shared, and cheap at 65,536 members thanks to Schedule::runs.
#include <gtest/gtest.h>

#include <numeric>

#include "../support/test_fabrics.hpp"
#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/collective/ramp_x.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/fabric/flat/elect_flat.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"
#include "sipsim/fabric/ramp/transport.hpp"
#include "sipsim/fabric/routed/routed_network.hpp"

namespace sipsim::analytical {
namespace {

using collective::algorithm;
using collective::Algorithm;
using collective::CollectiveSpec;
using collective::Op;
using pdes::kMicrosecond;
using pdes::kNanosecond;
using pdes::Time;

constexpr std::uint64_t k400G = 400'000'000'000;
const compute::Roofline kA100(compute::a100());

std::vector<std::uint32_t> iota(std::uint32_t p) {
  std::vector<std::uint32_t> v(p);
  std::iota(v.begin(), v.end(), 0u);
  return v;
}

CollectiveSpec spec_of(Op op, Algorithm a, std::uint32_t p, std::uint64_t bytes) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = a;
  s.p = p;
  s.bytes = bytes;
  s.root = p > 3 ? 3 : 0;
  if (a == algorithm("hierarchical-ring") || a == algorithm("torus2d")) {
    s.dims[0] = 4;
    s.dims[1] = p / 4;
  }
  return s;
}

using testing::cluster_spec;

// Ring all-reduce on elect-flat shares no port: 2(p-1) steps of
// alpha + (S/p)/B plus p-1 two-input reductions, as the idle estimate and the
// simulator give (tests/workload), at 16 and at 65,536 members.
TEST(CriticalPath, RingOnElectFlatIsTheClosedForm) {
  for (std::uint32_t p : {16u, 65536u}) {
    const std::uint64_t S = std::uint64_t{1} << 30;
    const Time alpha = kMicrosecond;
    const auto net = fabric::make_elect_flat(p, k400G, alpha);
    const CollectiveSpec spec = spec_of(Op::kAllReduce, algorithm("ring"), p, S);
    const CollectiveEstimate e = estimate_critical_path(spec, iota(p), *net, kA100);
    const Time step = alpha + fabric::serialization_ps(S / p, k400G);
    EXPECT_EQ(e.total, 2 * (p - 1) * step + (p - 1) * kA100.reduce_ps(2, S / p)) << p;
    EXPECT_EQ(e.compute, (p - 1) * kA100.reduce_ps(2, S / p));
    EXPECT_EQ(e.h2t, 2 * (p - 1) * fabric::serialization_ps(S / p, k400G));
    EXPECT_EQ(e.h2h, 2 * (p - 1) * alpha);
    EXPECT_EQ(e.steps, 2 * (p - 1));
    if (p == 16) {
      EXPECT_EQ(e.total, estimate_collective(spec, iota(p), *net, kA100).total);
    }
  }
}

// On RAMP, RAMP-x is contention-free: the critical path is the lock-step
// estimate (which the simulator reproduces, tests/workload) for every
// operation, full and subset jobs.
TEST(CriticalPath, RampXIsTheLockStepEstimate) {
  for (const std::string& name : collective::op_names()) {
    const Op op = *collective::parse_op(name);
    for (std::uint32_t n : {128u, 32u, 8u, 2u}) {
      CollectiveSpec s = spec_of(op, algorithm("ramp-x"), n, op == Op::kBarrier ? 0 : 1 << 20);
      const fabric::ramp::RampShape shape = fabric::ramp::shape_for(4, 4, 2, n);
      collective::ramp_x::set_spec(s, shape);
      const auto nodes = fabric::ramp::job_nodes(shape);
      for (bool job : {false, true}) {  // with the job, small subgroups use extra groups (eq. 4)
        fabric::RampSpec rs;
        rs.x = 4;
        rs.J = 4;
        rs.Lambda = 8;
        if (job) rs.job = shape;
        const auto net = fabric::make_ramp(rs);
        const CollectiveEstimate idle = estimate_collective(s, nodes, *net, kA100);
        const CollectiveEstimate crit = estimate_critical_path(s, nodes, *net, kA100);
        EXPECT_EQ(crit.total, idle.total) << name << " on " << n << (job ? " (job)" : "");
        EXPECT_EQ(crit.compute, idle.compute) << name << " on " << n;
      }
    }
  }
}

// Synchronous steps with loads are never faster than the idle-fabric longest
// path, for every operation and algorithm on a routed and a flat fabric.
TEST(CriticalPath, NeverBelowTheIdleEstimate) {
  int checked = 0;
  for (const std::string& op_name : collective::op_names()) {
    for (const std::string& algo_name : collective::algorithm_names()) {
      const Op op = *collective::parse_op(op_name);
      const Algorithm a = *collective::parse_algorithm(algo_name);
      const CollectiveSpec spec = spec_of(op, a, 16, op == Op::kBarrier ? 0 : 123'457);
      if (!collective::why_invalid(spec).empty()) continue;
      const auto flat = fabric::make_elect_flat(16, k400G, kMicrosecond);
      const auto routed =
          fabric::make_routed(fabric::make_cluster(cluster_spec(k400G / 2, 2), 16), 65536);
      for (const fabric::Network* net : {flat.get(), routed.get()}) {
        const auto idle = estimate_collective(spec, iota(16), *net, kA100);
        const auto crit = estimate_critical_path(spec, iota(16), *net, kA100);
        EXPECT_GE(crit.total, idle.total) << op_name << " " << algo_name;
        EXPECT_EQ(crit.h2h + crit.h2t + crit.compute, crit.total) << op_name << " " << algo_name;
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 80);
}

// All-to-all across servers (one member per server): the NICs are the only
// shared links, so 200 Gb/s NICs (1:12 against NVLink) make it at least 10x
// slower than 2.4 Tb/s ones, as in the simulator (RAMP §7.5, Fig. 21).
TEST(CriticalPath, OversubscribedNicsLoadTheAllToAll) {
  const std::uint32_t p = 8;
  std::vector<std::uint32_t> members(p);
  for (std::uint32_t i = 0; i < p; ++i) members[i] = 8 * i;
  const CollectiveSpec spec = spec_of(Op::kAllToAll, algorithm("direct"), p, 64 << 20);
  const auto slow =
      fabric::make_routed(fabric::make_cluster(cluster_spec(200'000'000'000, 8), 64), 1 << 16);
  const auto fast =
      fabric::make_routed(fabric::make_cluster(cluster_spec(2'400'000'000'000, 8), 64), 1 << 16);
  const double ratio =
      static_cast<double>(estimate_critical_path(spec, members, *slow, kA100).total) /
      static_cast<double>(estimate_critical_path(spec, members, *fast, kA100).total);
  EXPECT_GE(ratio, 10.0);
  EXPECT_LE(ratio, 12.0);
}

// Eight members of one server all send through the same 200 Gb/s uplinks
// when they talk to another server: the shared links' load shows up in the
// step, while the idle estimate sees each flow alone.
TEST(CriticalPath, SharedUplinksSlowTheStep) {
  const std::uint32_t p = 16;  // two full servers
  const CollectiveSpec spec = spec_of(Op::kAllToAll, algorithm("direct"), p, 16 << 20);
  const auto net =
      fabric::make_routed(fabric::make_cluster(cluster_spec(200'000'000'000, 2), 16), 1 << 16);
  const auto idle = estimate_collective(spec, iota(p), *net, kA100);
  const auto crit = estimate_critical_path(spec, iota(p), *net, kA100);
  EXPECT_GT(crit.total, idle.total);
  EXPECT_GT(crit.h2t, idle.h2t);
}

// A ring across servers has slow (NIC) and fast (NVLink) hops. Its steps
// pipeline: the fast hops run ahead, and the run grows at the maximum cycle
// mean (the slowest sender's own step, or the mean hop), not at the slowest
// hop per step. Nothing is shared, so the idle longest path (= the simulator)
// is the reference: within 3% (the fill step is most of it at this small p;
// 0.2% for a 1,024-GPU ring, docs/validation.md), where charging every step its slowest hop
// would be several times slower.
TEST(CriticalPath, HeterogeneousRingRunsAtItsCycleMean) {
  const std::uint32_t p = 64;
  const auto net =
      fabric::make_routed(fabric::make_cluster(cluster_spec(200'000'000'000, 8), p), 1 << 20);
  const CollectiveSpec spec = spec_of(Op::kAllReduce, algorithm("ring"), p, 64 << 20);
  const auto idle = estimate_collective(spec, iota(p), *net, kA100);
  const auto crit = estimate_critical_path(spec, iota(p), *net, kA100);
  const double ratio = static_cast<double>(crit.total) / static_cast<double>(idle.total);
  EXPECT_GE(ratio, 1.0);
  EXPECT_LT(ratio, 1.03);
  const Time slowest_hop = net->uncongested_ps(7, 8, (64 << 20) / p);
  EXPECT_LT(crit.total, 2 * (p - 1) * slowest_hop / 2);
}

// Without repeated steps the estimate refuses work above its limit instead of
// running for hours: direct all-to-all on 65,536 members has 65,535 distinct steps.
TEST(CriticalPath, RefusesWorkAboveTheLimit) {
  const std::uint32_t p = 65536;
  const auto net = fabric::make_elect_flat(p, k400G, kMicrosecond);
  const CollectiveSpec spec = spec_of(Op::kAllToAll, algorithm("direct"), p, 1 << 20);
  EXPECT_EQ(critical_path_work(spec), std::uint64_t{p} * (p - 1));
  EXPECT_THROW(estimate_critical_path(spec, iota(p), *net, kA100), EstimateTooLarge);
  const CollectiveSpec small = spec_of(Op::kAllToAll, algorithm("direct"), 64, 1 << 20);
  EXPECT_THROW(estimate_critical_path(small, iota(64), *net, kA100, 100), EstimateTooLarge);
  EXPECT_NO_THROW(estimate_critical_path(small, iota(64), *net, kA100, 64 * 63));
}

}  // namespace
}  // namespace sipsim::analytical
