// Tests of direct / pairwise exchange (src/collective/algorithms/direct.cpp).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <utility>

#include "collective/algorithms/step_counts.hpp"

namespace sipsim::collective {
namespace {

using namespace oracle;

// p-1 rounds (2(p-1) for all-reduce); rooted: p-1 rounds at the root, one step elsewhere.
TEST(Direct, StepCounts) {
  for (std::uint32_t p : kStepCountSizes) {
    expect_uniform(make_spec(Op::kAllToAll, algorithm("direct"), p), p - 1);
    expect_uniform(make_spec(Op::kAllGather, algorithm("direct"), p), p - 1);
    expect_uniform(make_spec(Op::kReduceScatter, algorithm("direct"), p), p - 1);
    expect_uniform(make_spec(Op::kAllReduce, algorithm("direct"), p), 2 * (p - 1));
    for (Op op : {Op::kGather, Op::kScatter, Op::kBroadcast, Op::kReduce}) {
      const CollectiveSpec s = make_spec(op, algorithm("direct"), p, 100, p / 2);
      EXPECT_EQ(Schedule(s, p / 2).steps(), p - 1);
      EXPECT_EQ(Schedule(s, (p / 2 + 1) % p).steps(), 1u);
      EXPECT_EQ(execute(s).rounds, p - 1);
    }
  }
}

// Concurrent: one step (two for all-reduce), every member sending to every other at once;
// rooted: one step everywhere, the root's with p-1 sends or receives.
TEST(DirectConcurrent, StepCounts) {
  for (std::uint32_t p : kStepCountSizes) {
    const Algorithm a = algorithm("direct-concurrent");
    for (Op op : {Op::kAllToAll, Op::kAllGather, Op::kReduceScatter, Op::kBarrier}) {
      expect_uniform(make_spec(op, a, p), 1);
    }
    expect_uniform(make_spec(Op::kAllReduce, a, p), 2);
    const CollectiveSpec all_to_all = make_spec(Op::kAllToAll, a, p);
    EXPECT_EQ(wire_step(Schedule(all_to_all, 0), 0).out.size(), p - 1);
    for (Op op : {Op::kGather, Op::kScatter, Op::kBroadcast, Op::kReduce}) {
      const CollectiveSpec s = make_spec(op, a, p, 100, p / 2);
      EXPECT_EQ(Schedule(s, p / 2).steps(), 1u);
      EXPECT_EQ(Schedule(s, (p / 2 + 1) % p).steps(), 1u);
    }
  }
}

// Its steps receive from every member at once, unscheduled, as the multicast trees' receive
// from a whole digit group: `auto` passes over them where the fabric refuses that (strict
// RAMP, rule (c)), and over nothing else.
TEST(DirectConcurrent, NotAnAutoCandidateWhereIncastIsRefused) {
  for (const Algorithm a : all_algorithms()) {
    const bool concurrent = a == algorithm("direct-concurrent") || a == algorithm("multicast-tree");
    EXPECT_EQ(traits(a).incast, concurrent) << to_string(a);
    // Listed by the scenario, so that only the incast rule decides (ring-relay
    // is named_only: rings_test.cpp).
    EXPECT_EQ(auto_candidate(traits(a), true, true), !concurrent) << to_string(a);
    EXPECT_TRUE(auto_candidate(traits(a), false, true)) << to_string(a);
  }
}

}  // namespace
}  // namespace sipsim::collective
