#include "sipsim/pdes/scaling.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <numbers>

namespace sipsim::pdes {
namespace {

// A 2-rank run: 1 M events in 20,000 windows, 20% remote, the busiest rank
// of each window carrying 1.2x the mean.
ScalingFigures two_ranks() {
  ScalingFigures m;
  m.ranks = 2;
  m.windowed = true;
  m.events = 1'000'000;
  m.windows = 20'000;
  m.critical_path_events = 600'000;
  m.wall_seconds = 2.0;
  m.busy_seconds_mean = 0.6;
  m.critical_path_seconds = 0.8;
  m.remote_fraction = 0.2;
  return m;
}

TEST(Scaling, ExpectedMaxNormalMatchesClosedForms) {
  EXPECT_EQ(expected_max_normal(1), 0.0);
  EXPECT_NEAR(expected_max_normal(2), 1 / std::sqrt(std::numbers::pi), 1e-9);
  EXPECT_NEAR(expected_max_normal(3), 1.5 / std::sqrt(std::numbers::pi), 1e-9);
  // Tabulated: the expected maximum of 8 standard normals is 1.4236.
  EXPECT_NEAR(expected_max_normal(8), 1.4236003, 1e-6);
}

// At the measured rank count the model gives back the run: its
// synchronisation (wall - critical path) plus the critical path's events at
// the estimated cost of one (mean busy x m / E).
TEST(Scaling, ReproducesTheMeasuredRunAtItsOwnRankCount) {
  const ScalingFigures m = two_ranks();
  const std::array<int, 1> at{2};
  const auto p = predict_scaling(m, at);
  ASSERT_EQ(p.size(), 1u);
  const double c = m.busy_seconds_mean * 2 / 1e6;
  EXPECT_NEAR(p[0].wall_seconds, (2.0 - 0.8) + 600'000 * c, 1e-12);
  EXPECT_NEAR(p[0].efficiency, 1e6 * c / (2 * p[0].wall_seconds), 1e-12);
}

// The values of python/sipsim/scaling.py's predict() on the same figures
// (no 1-rank run), so the summary and the Python model stay one model.
TEST(Scaling, MatchesThePythonModel) {
  const std::array<int, 4> at{2, 16, 64, 256};
  const auto p = predict_scaling(two_ranks(), at);
  ASSERT_EQ(p.size(), 4u);
  const std::array<double, 4> wall{1.92, 0.5742743401861553, 0.29499274955864807,
                                   0.24931340359481524};
  const std::array<double, 4> eff{0.3125, 0.13059960153484865, 0.06356088421851967,
                                  0.018801636544251495};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(p[i].ranks, at[i]);
    EXPECT_NEAR(p[i].wall_seconds, wall[i], 1e-9 * wall[i]) << at[i];
    EXPECT_NEAR(p[i].efficiency, eff[i], 1e-9 * eff[i]) << at[i];
  }
}

// A windowed run on one rank is its own 1-rank run: efficiency 1 there, and
// the Python model's values beyond (every event remote as P grows).
TEST(Scaling, OneWindowedRankPredictsFromItself) {
  ScalingFigures m;
  m.windowed = true;
  m.events = 1'000'000;
  m.windows = 20'000;
  m.critical_path_events = 1'000'000;
  m.wall_seconds = 1.5;
  m.busy_seconds_mean = 1.2;
  m.critical_path_seconds = 1.2;
  const std::array<int, 4> at{1, 2, 16, 256};
  const auto p = predict_scaling(m, at);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_NEAR(p[0].wall_seconds, 1.5, 1e-12);
  EXPECT_NEAR(p[0].efficiency, 1.0, 1e-12);
  EXPECT_NEAR(p[1].efficiency, 0.8063496424748998, 1e-9);
  EXPECT_NEAR(p[2].efficiency, 0.29723973862581793, 1e-9);
  EXPECT_NEAR(p[3].efficiency, 0.027543467029549178, 1e-9);
}

TEST(Scaling, NothingToPredictWithoutWindows) {
  ScalingFigures m = two_ranks();
  m.windowed = false;
  const std::array<int, 1> at{16};
  EXPECT_TRUE(predict_scaling(m, at).empty());
  EXPECT_EQ(ranks_that_pay(m), 0);
  m = two_ranks();
  m.windows = 0;
  EXPECT_TRUE(predict_scaling(m, at).empty());
}

// The largest power of two whose predicted efficiency is at least one half:
// a run whose windows hold many events, few of them remote, pays further.
TEST(Scaling, RanksThatPayGrowWithTheEventsPerWindow) {
  ScalingFigures m = two_ranks();
  EXPECT_EQ(ranks_that_pay(m), 1);  // 0.31 at 2 ranks already
  m.windows = 20;                   // 50,000 events per window
  m.critical_path_events = 500'100;
  m.critical_path_seconds = 0.6;
  m.wall_seconds = 0.61;
  m.remote_fraction = 0.001;
  const int pays = ranks_that_pay(m);
  EXPECT_GE(pays, 16);
  const std::array<int, 2> at{pays, pays * 2};
  const auto p = predict_scaling(m, at);
  EXPECT_GE(p[0].efficiency, kPaysEfficiency);
  if (pays < 256) {
    EXPECT_LT(p[1].efficiency, kPaysEfficiency);
  }
}

}  // namespace
}  // namespace sipsim::pdes
