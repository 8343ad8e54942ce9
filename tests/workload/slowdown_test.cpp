// A compute op's end under its GPU's slowdown windows
// (src/workload/slowdown.cpp), against closed forms.
#include "sipsim/workload/slowdown.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace sipsim::workload {
namespace {

using pdes::kTimeMax;

TEST(Slowdown, NoWindowIsExact) {
  EXPECT_EQ(slowed_end(10, 1000, {}), 1010u);
}

TEST(Slowdown, InsideAWindowTakesOneOverTheFactorLonger) {
  const std::vector<Slowdown> w{{0, 0, kTimeMax, 0.8}};
  EXPECT_EQ(slowed_end(0, 1000, w), 1250u);
  EXPECT_EQ(slowed_end(500, 1000, w), 1750u);
  // Rounded up to the picosecond.
  EXPECT_EQ(slowed_end(0, 1001, std::vector<Slowdown>{{0, 0, kTimeMax, 0.3}}), 3337u);
}

TEST(Slowdown, AnOpAcrossTheEdgesOfAWindow) {
  // At half speed from 100 to 300: 100 at full speed, 200 ps give 100 of
  // work, the last 800 at full speed again.
  const std::vector<Slowdown> w{{0, 100, 300, 0.5}};
  EXPECT_EQ(slowed_end(0, 1000, w), 1100u);
  // Starting inside: 100 ps give 50, then 950 at full speed.
  EXPECT_EQ(slowed_end(200, 1000, w), 1250u);
  // Ending inside: 100 at full speed, then 20 of work in 40 ps.
  EXPECT_EQ(slowed_end(0, 120, w), 140u);
  // Entirely before or after the window.
  EXPECT_EQ(slowed_end(0, 100, w), 100u);
  EXPECT_EQ(slowed_end(300, 100, w), 400u);
}

TEST(Slowdown, SeveralWindows) {
  const std::vector<Slowdown> w{{0, 0, 100, 0.5}, {0, 200, kTimeMax, 0.25}};
  // 50 of work by 100, 100 more by 200, the last 50 at a quarter: 200 ps.
  EXPECT_EQ(slowed_end(0, 200, w), 400u);
}

}  // namespace
}  // namespace sipsim::workload
