// The estimators' level-by-level evaluation (every member's step i before any
// step i + 1) gives exactly the member-by-member longest path: same total,
// breakdown, steps and messages, for every operation and algorithm on flat,
// routed and RAMP fabrics, with odd sizes and roots.
#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "../support/test_fabrics.hpp"
#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/collective/ramp_x.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/fabric/electrical/torus2d.hpp"
#include "sipsim/fabric/flat/elect_flat.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"
#include "sipsim/fabric/ramp/transport.hpp"
#include "sipsim/fabric/routed/routed_network.hpp"

namespace sipsim::analytical {
namespace {

using collective::CollectiveSpec;
using collective::Op;

constexpr std::uint64_t k400G = 400'000'000'000;
const compute::Roofline kA100(compute::a100());

void expect_same(const CollectiveEstimate& a, const CollectiveEstimate& b, const std::string& at) {
  EXPECT_EQ(a.total, b.total) << at;
  EXPECT_EQ(a.compute, b.compute) << at;
  EXPECT_EQ(a.h2t, b.h2t) << at;
  EXPECT_EQ(a.h2h, b.h2h) << at;
  EXPECT_EQ(a.steps, b.steps) << at;
  EXPECT_EQ(a.messages, b.messages) << at;
}

// Both estimates, both orders, on one network.
int check(const CollectiveSpec& spec, const std::vector<std::uint32_t>& members,
          const fabric::Network& net, const std::string& at) {
  expect_same(estimate_collective(spec, members, net, kA100, Evaluation::kLevels),
              estimate_collective(spec, members, net, kA100, Evaluation::kMembers), at + " idle");
  expect_same(
      estimate_critical_path(spec, members, net, kA100, kDefaultMaxWork, Evaluation::kLevels),
      estimate_critical_path(spec, members, net, kA100, kDefaultMaxWork, Evaluation::kMembers),
      at + " critical path");
  // One walk for both (analyze's idle column) gives the same numbers.
  const EstimateWithIdle both = estimate_critical_path_with_idle(spec, members, net, kA100);
  expect_same(both.critical, estimate_critical_path(spec, members, net, kA100), at + " with idle");
  EXPECT_TRUE(both.idle.has_value()) << at;
  if (both.idle) {
    expect_same(*both.idle, estimate_collective(spec, members, net, kA100), at + " idle beside");
  }
  return 1;
}

TEST(LevelSweep, EqualsMemberByMemberOnFlatAndRoutedFabrics) {
  int checked = 0;
  for (std::uint32_t p : {16u, 24u}) {  // the test cluster has 16 nodes
    std::vector<std::uint32_t> members(p);
    std::iota(members.begin(), members.end(), 0u);
    std::reverse(members.begin(), members.end());  // members are not their node ids
    const auto flat = fabric::make_elect_flat(p, k400G, pdes::kMicrosecond);
    std::unique_ptr<fabric::Network> routed;
    if (p == 16) {
      routed =
          fabric::make_routed(fabric::make_cluster(testing::cluster_spec(k400G / 2, 2), p), 65536);
    }
    for (const std::string& op_name : collective::op_names()) {
      for (const std::string& algo_name : collective::algorithm_names()) {
        for (std::uint64_t bytes : {std::uint64_t{123'457}, std::uint64_t{1} << 20}) {
          CollectiveSpec s;
          s.op = *collective::parse_op(op_name);
          s.algorithm = *collective::parse_algorithm(algo_name);
          s.p = p;
          s.bytes = s.op == Op::kBarrier ? 0 : bytes;
          s.root = 5;
          if (algo_name == "hierarchical-ring" || algo_name == "torus2d") {
            s.dims[0] = 4;
            s.dims[1] = p / 4;
          }
          if (!collective::why_invalid(s).empty()) continue;
          const std::string at = op_name + " " + algo_name + " p" + std::to_string(p);
          checked += check(s, members, *flat, at + " flat");
          if (routed) checked += check(s, members, *routed, at + " routed");
        }
      }
    }
  }
  EXPECT_GT(checked, 100);
}

// 2D tori (routes as runs, half way round on even sides: the ECMP hash picks
// each source's direction), every operation and algorithm, even and ragged
// sizes: the level walk, the member walk and the walk for both agree.
TEST(LevelSweep, EqualsMemberByMemberOnTori) {
  int checked = 0;
  for (const auto& [nx, ny] :
       {std::pair<std::uint32_t, std::uint32_t>{5, 3}, {4, 4}, {2, 8}, {7, 7}, {6, 4}}) {
    const std::uint32_t p = nx * ny;
    std::vector<std::uint32_t> members(p);
    std::iota(members.begin(), members.end(), 0u);
    const auto torus =
        fabric::make_routed(fabric::make_torus2d({{nx, ny}, 600'000'000'000, 2113}), 4096);
    for (const std::string& op_name : collective::op_names()) {
      for (const std::string& algo_name : collective::algorithm_names()) {
        for (std::uint64_t bytes : {std::uint64_t{10'007}, std::uint64_t{p} * 4096}) {
          CollectiveSpec s;
          s.op = *collective::parse_op(op_name);
          s.algorithm = *collective::parse_algorithm(algo_name);
          s.p = p;
          s.bytes = s.op == Op::kBarrier ? 0 : bytes;
          s.root = p / 2;
          s.dims[0] = nx;
          s.dims[1] = ny;
          if (!collective::why_invalid(s).empty()) continue;
          checked += check(s, members, *torus,
                           op_name + " " + algo_name + " " + std::to_string(nx) + "x" +
                               std::to_string(ny) + " " + std::to_string(bytes));
        }
      }
    }
  }
  EXPECT_GT(checked, 100);
}

// Above max_work member-steps of the idle walk, only the critical path (whose
// ring phases cost one step per run) is given.
TEST(LevelSweep, WithIdleLeavesOutIdleAboveMaxWork) {
  const std::uint32_t p = 16;
  std::vector<std::uint32_t> members(p);
  std::iota(members.begin(), members.end(), 0u);
  const auto flat = fabric::make_elect_flat(p, k400G, pdes::kMicrosecond);
  CollectiveSpec s;
  s.op = Op::kAllReduce;
  s.algorithm = *collective::parse_algorithm("ring");
  s.p = p;
  s.bytes = 1 << 20;
  const std::uint64_t work = critical_path_work(s);
  const CollectiveEstimate critical = estimate_critical_path(s, members, *flat, kA100);
  ASSERT_LT(work, std::uint64_t{p} * critical.steps);
  const EstimateWithIdle both = estimate_critical_path_with_idle(s, members, *flat, kA100, work);
  expect_same(both.critical, critical, "ring");
  EXPECT_FALSE(both.idle.has_value());
  EXPECT_TRUE(
      estimate_critical_path_with_idle(s, members, *flat, kA100, std::uint64_t{p} * critical.steps)
          .idle.has_value());
}

TEST(LevelSweep, EqualsMemberByMemberForRampX) {
  int checked = 0;
  for (const std::string& name : collective::op_names()) {
    const Op op = *collective::parse_op(name);
    for (std::uint32_t n : {128u, 32u, 8u}) {
      for (std::uint64_t bytes : {std::uint64_t{1} << 20, std::uint64_t{999'999}}) {
        CollectiveSpec s;
        s.op = op;
        s.algorithm = collective::algorithm("ramp-x");
        s.p = n;
        s.bytes = op == Op::kBarrier ? 0 : bytes;
        s.root = 3;
        const fabric::ramp::RampShape shape = fabric::ramp::shape_for(4, 4, 2, n);
        // The multicast tree where it fits.
        collective::ramp_x::set_spec(s, shape, op == Op::kBroadcast && n == 128 ? 3 : 0);
        if (!collective::why_invalid(s).empty()) collective::ramp_x::set_spec(s, shape);
        for (bool job : {false, true}) {
          fabric::RampSpec rs;
          rs.x = 4;
          rs.J = 4;
          rs.Lambda = 8;
          if (job) rs.job = shape;
          const auto net = fabric::make_ramp(rs);
          checked += check(s, fabric::ramp::job_nodes(shape), *net,
                           name + " n" + std::to_string(n) + (job ? " job" : ""));
        }
      }
    }
  }
  EXPECT_GT(checked, 50);
}

}  // namespace
}  // namespace sipsim::analytical
