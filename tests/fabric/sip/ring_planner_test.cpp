// SiP-Ring's wavelength planner (App. A.1): the plan rules, the simple cases
// whose answer is known, determinism, and the solve time at 1,024 GPUs.
#include "sipsim/fabric/sip/ring_planner.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace sipsim::fabric {
namespace {

struct Matrix {
  std::uint32_t n;
  std::vector<double> bytes;
  explicit Matrix(std::uint32_t gpus) : n(gpus), bytes(std::size_t{gpus} * gpus, 0.0) {}
  double& at(std::uint32_t i, std::uint32_t j) { return bytes[std::size_t{i} * n + j]; }
};

// The planner's input for matrix m (which must outlive it).
RingPlanInput Input(const Matrix& m, std::uint32_t w, std::uint32_t reach, std::uint64_t seed,
                    std::uint64_t epoch) {
  RingPlanInput in;
  in.gpus = m.n;
  in.wavelengths = w;
  in.reach = reach;
  in.traffic = m.bytes;
  in.seed = seed;
  in.epoch = epoch;
  return in;
}

RingPlan Plan(const Matrix& m, std::uint32_t w, std::uint32_t reach = 15, std::uint64_t seed = 1,
              std::uint64_t epoch = 0) {
  RingPlan plan = plan_ring_wavelengths(Input(m, w, reach, seed, epoch));
  const auto violation = check_ring_plan(plan, m.n, w, reach);
  EXPECT_FALSE(violation.has_value()) << *violation;
  return plan;
}

std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> PerPair(const RingPlan& plan) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> out;
  for (const Lightpath& l : lightpaths_of(plan)) ++out[{l.src, l.dst}];
  return out;
}

// A ring all-reduce plus all-to-all traffic inside contiguous MP groups.
Matrix RingPlusGroups(std::uint32_t n, std::uint32_t group, double ring_bytes, double mp_bytes) {
  Matrix m(n);
  for (std::uint32_t i = 0; i < n; ++i) m.at(i, (i + 1) % n) += ring_bytes;
  for (std::uint32_t g = 0; g < n; g += group) {
    for (std::uint32_t i = g; i < g + group; ++i) {
      for (std::uint32_t j = g; j < g + group; ++j) {
        if (i != j) m.at(i, j) += mp_bytes * (1 + (i * 7 + j * 3) % 5);
      }
    }
  }
  return m;
}

TEST(RingPlanner, CheckerCatchesEachRule) {
  std::vector<Lightpath> plan = {{0, 2, RingDirection::kClockwise, 0},
                                 {1, 3, RingDirection::kClockwise, 0}};
  EXPECT_TRUE(check_ring_plan(plan, 8, 4, 15).has_value());  // segment 1 twice
  plan = {{0, 1, RingDirection::kClockwise, 0}, {0, 3, RingDirection::kCounterClockwise, 0}};
  EXPECT_TRUE(check_ring_plan(plan, 8, 4, 15).has_value());  // GPU 0 sends to two peers on 0
  plan = {{0, 5, RingDirection::kClockwise, 0}};
  EXPECT_TRUE(check_ring_plan(plan, 8, 4, 4).has_value());  // beyond the reach
  plan = {{0, 2, RingDirection::kClockwise, 0},
          {2, 0, RingDirection::kClockwise, 0},
          {0, 7, RingDirection::kCounterClockwise, 1}};
  EXPECT_FALSE(check_ring_plan(plan, 8, 4, 15).has_value());
  // A plan's grants expand to one lightpath per wavelength.
  RingPlan grants;
  grants.grants = {{0, 2, RingDirection::kClockwise, 1, 2}};
  EXPECT_EQ(lightpaths_of(grants), (std::vector<Lightpath>{{0, 2, RingDirection::kClockwise, 1},
                                                           {0, 2, RingDirection::kClockwise, 2}}));
}

TEST(RingPlanner, EmptyMatrixGivesEmptyPlan) {
  const RingPlan plan = Plan(Matrix(16), 8);
  EXPECT_TRUE(plan.grants.empty());
  EXPECT_TRUE(plan.unreachable.empty());
  EXPECT_EQ(plan.steps, 0u);
}

TEST(RingPlanner, NeighbourRingGetsAllWavelengths) {
  Matrix m(32);
  for (std::uint32_t i = 0; i < 32; ++i) m.at(i, (i + 1) % 32) = 1e6;
  const RingPlan plan = Plan(m, 16);
  const auto pairs = PerPair(plan);
  ASSERT_EQ(pairs.size(), 32u);
  for (const auto& [pair, count] : pairs) {
    EXPECT_EQ(pair.second, (pair.first + 1) % 32);
    EXPECT_EQ(count, 16u);
  }
  EXPECT_EQ(plan.clockwise_wavelengths, 16u);
  EXPECT_EQ(plan.steps, 0u);  // every segment is a bridge: no flow to solve
}

// A fibre without a bridge splits once demands complete: 2-hop pairs tile
// the 16-GPU ring (every segment crossed once), six of 1 MB, 0 -> 2 of 10 MB
// and 8 -> 10 of 5.5 MB. The first chain serves all eight by 1 MB; the six
// complete and leave two stretches, drained in 9 and 4.5 MB. The ring's own
// chain gets W x 1/10 of the wavelengths; each stretch gets the other 9,
// 8 -> 10 too although it drains in half the time (A.1's fibre-wide average
// would leave it 1 + 4.5 of them: docs/models.md, step 4).
TEST(RingPlanner, ABridgelessFibreSplitsAsDemandsComplete) {
  Matrix m(16);
  for (std::uint32_t i = 0; i < 16; i += 2) m.at(i, i + 2 == 16 ? 0 : i + 2) = 1e6;
  m.at(0, 2) = 10e6;
  m.at(8, 10) = 5.5e6;
  const RingPlan plan = Plan(m, 10);
  const auto pairs = PerPair(plan);
  ASSERT_EQ(pairs.size(), 8u);
  for (const auto& [pair, count] : pairs) {
    const bool big = pair.first == 0 || pair.first == 8;
    EXPECT_EQ(count, big ? 10u : 1u) << pair.first << " -> " << pair.second;
  }
  EXPECT_EQ(plan.steps, 3u);  // the ring's chain, then one per stretch
  EXPECT_EQ(plan.clockwise_wavelengths, 10u);
}

TEST(RingPlanner, DisjointPairsReuseWavelengths) {
  Matrix m(32);
  m.at(0, 4) = 1e6;    // segments 0..3
  m.at(10, 14) = 1e6;  // segments 10..13
  const RingPlan plan = Plan(m, 8);
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::set<std::uint32_t>> waves;
  for (const Lightpath& l : lightpaths_of(plan)) waves[{l.src, l.dst}].insert(l.wavelength);
  ASSERT_EQ(waves.size(), 2u);
  const std::set<std::uint32_t>& a = waves[std::make_pair(0u, 4u)];
  const std::set<std::uint32_t>& b = waves[std::make_pair(10u, 14u)];
  EXPECT_EQ(a.size(), 8u);
  EXPECT_EQ(a, b);  // the same wavelengths, both served fully
}

TEST(RingPlanner, BeyondReachGetsNothingAndIsReported) {
  Matrix m(64);
  m.at(0, 20) = 5e5;  // 20 hops clockwise, 44 counter-clockwise
  m.at(3, 1) = 1e5;   // 2 hops counter-clockwise
  const RingPlan plan = Plan(m, 4);
  ASSERT_EQ(plan.unreachable.size(), 1u);
  EXPECT_EQ(plan.unreachable[0], (RingDemand{0, 20, 5e5}));
  for (const Lightpath& l : lightpaths_of(plan)) {
    EXPECT_EQ(l.src, 3u);
    EXPECT_EQ(l.dst, 1u);
    EXPECT_EQ(l.direction, RingDirection::kCounterClockwise);
  }
  EXPECT_EQ(lightpaths_of(plan).size(), 4u);
  EXPECT_EQ(plan.clockwise_wavelengths, 0u);
}

TEST(RingPlanner, MultiEdgeCutsStayFeasible) {
  // Every segment is crossed by several demands, so every cut has many edges.
  Matrix m(24);
  for (std::uint32_t i = 0; i < 24; ++i) {
    for (std::uint32_t h = 1; h <= 5; ++h) m.at(i, (i + h) % 24) = 1e5 * (1 + (i + h) % 3);
  }
  const RingPlan plan = Plan(m, 12, 5);
  EXPECT_GT(plan.solves, plan.steps);
  EXPECT_FALSE(plan.grants.empty());
}

TEST(RingPlanner, SameInputsSamePlanEpochsMayDiffer) {
  const Matrix m = RingPlusGroups(64, 8, 4e6, 1e6);
  const RingPlan a = Plan(m, 16, 15, 7, 3);
  const RingPlan b = Plan(m, 16, 15, 7, 3);
  EXPECT_EQ(a, b);
  bool differs = false;
  for (std::uint64_t epoch = 4; epoch < 20 && !differs; ++epoch) {
    differs = Plan(m, 16, 15, 7, epoch).grants != a.grants;
  }
  EXPECT_TRUE(differs);
}

TEST(RingPlanner, RandomMatricesObeyTheRules) {
  for (std::uint32_t trial = 0; trial < 20; ++trial) {
    const std::uint32_t n = 5 + trial * 3;
    Matrix m(n);
    std::uint64_t x = 12345 + trial;
    for (auto& b : m.bytes) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      b = (x >> 60) < 3 ? static_cast<double>(x >> 40) : 0.0;
    }
    for (std::uint32_t i = 0; i < n; ++i) m.at(i, i) = 0;
    const RingPlan plan = Plan(m, 1 + trial % 9, 1 + trial % 6, trial, trial);
    EXPECT_EQ(plan.clockwise_wavelengths <= 1 + trial % 9, true);
  }
}

// The shortest-path solver finds network simplex's optimum: on matrices
// without ties, the same chains and so the same plan; with the structured
// traffic of a ring plus MP groups (many equal weights) the same step count.
TEST(RingPlanner, ShortestPathSolverMatchesNetworkSimplex) {
  for (std::uint32_t trial = 0; trial < 30; ++trial) {
    const std::uint32_t n = 4 + trial * 2;
    Matrix m(n);
    std::uint64_t x = 777 + trial;
    for (auto& b : m.bytes) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      b = (x >> 61) < 3 ? 1.0 + static_cast<double>(x >> 20) : 0.0;
    }
    for (std::uint32_t i = 0; i < n; ++i) m.at(i, i) = 0;
    RingPlanInput in = Input(m, 1 + trial % 7, 1 + trial % 5, trial, trial);
    const RingPlan fast = plan_ring_wavelengths(in);
    in.solver = RingSolver::kNetworkSimplex;
    const RingPlan simplex = plan_ring_wavelengths(in);
    EXPECT_EQ(fast, simplex) << "trial " << trial << ", " << n << " GPUs";
    EXPECT_FALSE(check_ring_plan(fast, n, in.wavelengths, in.reach).has_value());
  }
}

// Split over 2 or 3 ranks (plan_ring_fibres), the plan is the one planned
// whole: each fibre's blocks, their children and counts travel exactly. One
// rank shares nothing, and a share cut short is refused.
TEST(RingPlanner, FibresPlannedOnOtherRanksGiveTheSamePlan) {
  for (std::uint32_t trial = 0; trial < 12; ++trial) {
    const std::uint32_t group = 2 + trial % 4;
    const std::uint32_t n = group * (3 + trial);
    Matrix m = RingPlusGroups(n, group, 1e6, 3e5);
    std::uint64_t x = 99 + trial;
    for (auto& b : m.bytes) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      if ((x >> 61) == 0) b += static_cast<double>(x >> 30);
    }
    for (std::uint32_t i = 0; i < n; ++i) m.at(i, i) = 0;
    const RingPlanInput in = Input(m, 2 + trial % 8, 2 + trial % 6, trial, trial);
    const RingPlan whole = plan_ring_wavelengths(in);
    EXPECT_TRUE(plan_ring_fibres(in, 0, 1).empty());
    for (int ranks = 2; ranks <= 3; ++ranks) {
      std::vector<std::vector<std::uint64_t>> shares;
      for (int r = 0; r < ranks; ++r) shares.push_back(plan_ring_fibres(in, r, ranks));
      EXPECT_TRUE(ranks < 3 || shares[2].empty());
      RingPlanInput split = in;
      split.planned = shares;
      EXPECT_EQ(plan_ring_wavelengths(split), whole) << "trial " << trial << ", " << ranks;
      // One fibre from another rank, the other planned here.
      split.planned = std::span(shares).subspan(1, 1);
      EXPECT_EQ(plan_ring_wavelengths(split), whole) << "trial " << trial << ", " << ranks;
    }
    std::vector<std::vector<std::uint64_t>> cut = {plan_ring_fibres(in, 0, 2)};
    ASSERT_FALSE(cut[0].empty());
    cut[0].pop_back();
    RingPlanInput broken = in;
    broken.planned = cut;
    EXPECT_THROW(plan_ring_wavelengths(broken), std::logic_error);
  }
}

TEST(RingPlanner, RejectsBadInputs) {
  Matrix m(4);
  RingPlanInput in;
  in.gpus = 5;
  in.wavelengths = 4;
  in.traffic = m.bytes;
  EXPECT_THROW(plan_ring_wavelengths(in), std::invalid_argument);
  in.gpus = 4;
  m.at(0, 1) = -1;
  in.traffic = m.bytes;
  EXPECT_THROW(plan_ring_wavelengths(in), std::invalid_argument);
}

// The figure for the fabric: N = 1,024, W = 64, ring all-reduce + MP groups of 16.
TEST(RingPlanner, SolveTimeAt1024Gpus) {
  const Matrix m = RingPlusGroups(1024, 16, 8e6, 1e6);
  const auto start = std::chrono::steady_clock::now();
  const RingPlan plan = Plan(m, 64, 15, 1, 0);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::size_t demands = 0;
  for (const double b : m.bytes) demands += b > 0 ? 1 : 0;
  std::printf(
      "ring planner N=1024 W=64: %.1f ms, %zu steps, %zu solves, %zu lightpaths, %zu of %zu "
      "pairs lit\n",
      ms, plan.steps, plan.solves, lightpaths_of(plan).size(), PerPair(plan).size(), demands);
  EXPECT_TRUE(plan.unreachable.empty());
  EXPECT_FALSE(plan.grants.empty());
}

}  // namespace
}  // namespace sipsim::fabric
