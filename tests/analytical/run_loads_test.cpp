// Paths as runs: RunLoads' loads and range maxima equal a per-position count,
// and the critical-path and idle estimates over a torus that describes its
// routes as runs equal, field by field, those over the same torus walked
// resource by resource, for every operation and algorithm the torus runs.
#include "sipsim/analytical/run_loads.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "../fabric/routed/without_runs.hpp"
#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/fabric/electrical/torus2d.hpp"
#include "sipsim/fabric/routed/routed_network.hpp"

namespace sipsim::analytical {
namespace {

using fabric::Network;

TEST(RunLoads, EqualPerPositionCounts) {
  // Rings of sizes 1, 2, 5, 16, 37 laid end to end.
  const std::vector<std::uint32_t> sizes = {1, 2, 5, 16, 37};
  std::vector<std::uint32_t> bases;
  std::uint32_t space = 0;
  for (std::uint32_t s : sizes) {
    bases.push_back(space);
    space += s;
  }
  RunLoads loads(space);
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::uint64_t> want(space, 0);
    std::vector<Network::PathRun> runs;
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      const std::size_t r = rng() % sizes.size();
      Network::PathRun run;
      run.base = bases[r];
      run.size = sizes[r];
      run.first = static_cast<std::uint32_t>(rng() % run.size);
      run.length = static_cast<std::uint32_t>(rng() % (run.size + 1));
      run.rate_bps = 1;
      const std::uint64_t bytes = rng() % 1000;
      loads.add(run, bytes);
      for (std::uint32_t k = 0; k < run.length; ++k) {
        want[run.base + (run.first + k) % run.size] += bytes;
      }
      runs.push_back(run);
    }
    loads.settle();
    for (std::uint32_t r = 0; r < sizes.size(); ++r) {
      for (std::uint32_t k = 0; k < sizes[r]; ++k) {
        const std::uint32_t at = bases[r] + k;
        const bool touched = std::any_of(runs.begin(), runs.end(),
                                         [&](const auto& x) { return x.base == bases[r]; });
        if (touched) {
          EXPECT_EQ(loads.load(at), want[at]) << round << " " << at;
        }
      }
    }
    for (const Network::PathRun& run : runs) {
      std::uint64_t m = 0;
      for (std::uint32_t k = 0; k < run.length; ++k) {
        m = std::max(m, want[run.base + (run.first + k) % run.size]);
      }
      EXPECT_EQ(loads.max_load(run), m) << round;
    }
    loads.clear();
  }
}

const compute::Roofline kA100(compute::a100());

void expect_same(const CollectiveEstimate& a, const CollectiveEstimate& b, const std::string& at) {
  EXPECT_EQ(a.total, b.total) << at;
  EXPECT_EQ(a.compute, b.compute) << at;
  EXPECT_EQ(a.h2t, b.h2t) << at;
  EXPECT_EQ(a.h2h, b.h2h) << at;
  EXPECT_EQ(a.steps, b.steps) << at;
  EXPECT_EQ(a.messages, b.messages) << at;
}

// Every algorithm `algorithm: auto` may pick on a torus, every operation,
// sizes below, at and above the chunk, on tori with rings of 1, 2, odd and
// even sizes (ECMP ties half way round).
TEST(RunLoads, TorusEstimatesEqualTheResourceWalk) {
  int checked = 0;
  for (const std::array<std::uint32_t, 2> dims :
       {std::array<std::uint32_t, 2>{4, 4}, {5, 3}, {2, 8}, {8, 8}, {16, 4}, {1, 6}, {7, 2}}) {
    const fabric::Torus2dSpec ts{{dims[0], dims[1]}, 600'000'000'000, 2113};
    constexpr std::uint64_t kChunk = 65536;
    const auto fast = fabric::make_routed(fabric::make_torus2d(ts), kChunk, 100'000);
    const auto walk = fabric::make_routed(
        std::make_unique<fabric::testing::WithoutRuns>(fabric::make_torus2d(ts)), kChunk, 100'000);
    ASSERT_GT(fast->run_space(), 0u);
    ASSERT_EQ(walk->run_space(), 0u);
    const std::uint32_t p = dims[0] * dims[1];
    std::vector<std::uint32_t> members(p);
    std::iota(members.begin(), members.end(), 0u);
    for (const std::string& op_name : collective::op_names()) {
      for (const std::string& algo_name : collective::algorithm_names()) {
        for (std::uint64_t bytes : {std::uint64_t{1000}, std::uint64_t{999'999}, kChunk * p}) {
          collective::CollectiveSpec s;
          s.op = *collective::parse_op(op_name);
          s.algorithm = *collective::parse_algorithm(algo_name);
          s.p = p;
          s.bytes = s.op == collective::Op::kBarrier ? 0 : bytes;
          s.root = p > 3 ? 3 : 0;
          s.dims[0] = dims[0];
          s.dims[1] = dims[1];
          if (!collective::why_invalid(s).empty()) continue;
          const std::string at = op_name + " " + algo_name + " " + std::to_string(dims[0]) + "x" +
                                 std::to_string(dims[1]) + " " + std::to_string(bytes);
          for (const Evaluation order : {Evaluation::kLevels, Evaluation::kMembers}) {
            expect_same(estimate_critical_path(s, members, *fast, kA100, kDefaultMaxWork, order),
                        estimate_critical_path(s, members, *walk, kA100, kDefaultMaxWork, order),
                        at + " critical path");
            expect_same(estimate_collective(s, members, *fast, kA100, order),
                        estimate_collective(s, members, *walk, kA100, order), at + " idle");
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 300);
}

}  // namespace
}  // namespace sipsim::analytical
