// quiet_time: how long a program keeps quiet towards other ranks after each op.
#include "sipsim/workload/quiet_time.hpp"

#include <gtest/gtest.h>

namespace sipsim::workload {
namespace {

using pdes::kTimeMax;

collective::CollectiveCall all_reduce() {
  collective::CollectiveCall c;
  c.bytes = 1024;  // an all-reduce
  return c;
}

// compute(10) -> local all-reduce -> compute(20) -> send (crossing) -> recv
//                                 \-> compute(5) -> wait
TEST(QuietTime, ComputeAheadOfTheNextCrossingOp) {
  Program p;
  const auto a = p.compute(Category::kForward, 10);
  const auto ar = p.collective(Category::kTpComm, 0, all_reduce(), {a});
  const auto b = p.compute(Category::kForward, 20, {ar});
  const auto s = p.send(Category::kPpComm, 0, 64, {b});
  const auto r = p.recv(Category::kPpComm, 0, 64, {s});
  const auto c = p.compute(Category::kForward, 5, {ar});
  const auto w = p.wait({c, r});
  p.finish();
  std::vector<std::uint8_t> crossing(p.size(), 0);
  crossing[s] = 1;
  const QuietTime q = quiet_time(p, crossing);
  EXPECT_EQ(q.after[b], 0u);    // the send is next
  EXPECT_EQ(q.after[ar], 20u);  // b's 20 before the send; c's branch never sends
  EXPECT_EQ(q.after[a], 20u);
  EXPECT_EQ(q.until_crossing(p, a), 30u);
  EXPECT_EQ(q.until_crossing(p, s), 0u);
  // The iteration's last ops lead to the next iteration's first send: 30.
  EXPECT_EQ(q.after[w], 30u);
  EXPECT_EQ(q.after[r], 30u);
  EXPECT_EQ(q.after[c], 30u);
}

TEST(QuietTime, AProgramThatNeverCrossesIsQuietForever) {
  Program p;
  const auto a = p.compute(Category::kForward, 10);
  p.collective(Category::kTpComm, 0, all_reduce(), {a});
  p.finish();
  const QuietTime q = quiet_time(p, std::vector<std::uint8_t>(p.size(), 0));
  EXPECT_EQ(q.after[0], kTimeMax);
  EXPECT_EQ(q.after[1], kTimeMax);
  EXPECT_EQ(q.until_crossing(p, 0), kTimeMax);
}

// Every op crossing: nothing to wait for.
TEST(QuietTime, CrossingCollectivesAreQuietForNoTime) {
  Program p;
  const auto a = p.collective(Category::kDpComm, 0, all_reduce());
  const auto b = p.compute(Category::kForward, 7, {a});
  p.collective(Category::kDpComm, 0, all_reduce(), {b});
  p.finish();
  const QuietTime q = quiet_time(p, {1, 0, 1});
  EXPECT_EQ(q.after[0], 7u);
  EXPECT_EQ(q.after[1], 0u);
  EXPECT_EQ(q.after[2], 0u);  // the next iteration's first op crosses
  EXPECT_THROW(quiet_time(p, {1, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace sipsim::workload
