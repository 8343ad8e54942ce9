// The estimators' level-by-level evaluation (every member's step i before any
// step i + 1) gives exactly the member-by-member longest path: same total,
// breakdown, steps and messages, for every operation and algorithm on flat,
// routed and RAMP fabrics, with odd sizes and roots.
#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <string>

#include "../common/test_fabrics.hpp"
#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/compute/roofline.hpp"
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
        s.ramp = fabric::ramp::shape_for(4, 4, 2, n);
        if (op == Op::kBroadcast && n == 128) s.stages = 3;  // the multicast tree
        if (!collective::why_invalid(s).empty()) s.stages = 0;
        for (bool job : {false, true}) {
          fabric::RampSpec rs;
          rs.x = 4;
          rs.J = 4;
          rs.Lambda = 8;
          if (job) rs.job = s.ramp;
          const auto net = fabric::make_ramp(rs);
          checked += check(s, fabric::ramp::job_nodes(s.ramp), *net,
                           name + " n" + std::to_string(n) + (job ? " job" : ""));
        }
      }
    }
  }
  EXPECT_GT(checked, 50);
}

}  // namespace
}  // namespace sipsim::analytical
