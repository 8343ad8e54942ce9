// Tests of the ring family (src/collective/algorithms/rings.cpp): step counts of ring,
// bidirectional-ring, the pipelined chains, the gather / scatter relays and ring-relay.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <utility>

#include "collective/algorithms/step_counts.hpp"

namespace sipsim::collective {
namespace {

using namespace oracle;

// [PY09]: 2(p-1) steps for all-reduce, p-1 for the others.
TEST(Rings, StepCounts) {
  for (std::uint32_t p : kStepCountSizes) {
    expect_uniform(make_spec(Op::kAllReduce, algorithm("ring"), p), 2 * (p - 1));
    expect_uniform(make_spec(Op::kReduceScatter, algorithm("ring"), p), p - 1);
    expect_uniform(make_spec(Op::kAllGather, algorithm("ring"), p), p - 1);
    expect_uniform(make_spec(Op::kAllToAll, algorithm("ring"), p), p - 1);
    expect_uniform(make_spec(Op::kBarrier, algorithm("ring"), p), p - 1);
    expect_uniform(make_spec(Op::kAllReduce, algorithm("bidirectional-ring"), p), 2 * (p - 1));
    // Pipelined ring chain: (p-1) hops + (C-1) chunks, C = p.
    EXPECT_EQ(execute(make_spec(Op::kBroadcast, algorithm("ring"), p, 100, 1)).rounds, 2 * p - 2);
    EXPECT_EQ(execute(make_spec(Op::kReduce, algorithm("ring"), p, 100, 1)).rounds, 2 * p - 2);
    EXPECT_EQ(Schedule(make_spec(Op::kBroadcast, algorithm("ring"), p), 0).steps(), p);
    EXPECT_EQ(max_steps(make_spec(Op::kBroadcast, algorithm("ring"), p)), p == 2 ? p : p + 1);
    // Ring relays for gather / scatter: p-1 steps at the root.
    EXPECT_EQ(Schedule(make_spec(Op::kGather, algorithm("ring"), p, 1, 1), 1).steps(), p - 1);
    EXPECT_EQ(execute(make_spec(Op::kGather, algorithm("ring"), p, 1, 1)).rounds, p - 1);
    EXPECT_EQ(execute(make_spec(Op::kScatter, algorithm("ring"), p, 1, 1)).rounds, p - 1);
  }
}

// ring-relay (ASTRA-sim's ring all-to-all): p(p-1)/2 steps of one block each, every byte
// of the all-to-all delivered (execute's final-state check); refused past 65,536 members.
TEST(Rings, RingRelayStepCounts) {
  for (std::uint32_t p : kStepCountSizes) {
    const CollectiveSpec spec = make_spec(Op::kAllToAll, algorithm("ring-relay"), p, 1024 * p);
    expect_uniform(spec, p * (p - 1) / 2);
    // One message per step and member: each block of a member's p-1 crosses its d hops.
    EXPECT_EQ(execute(spec).messages, std::uint64_t{p} * p * (p - 1) / 2) << p;
  }
  EXPECT_EQ(why_invalid(make_spec(Op::kAllToAll, algorithm("ring-relay"), 65'536)), "");
  EXPECT_NE(why_invalid(make_spec(Op::kAllToAll, algorithm("ring-relay"), 65'537)), "");
  EXPECT_NE(why_invalid(make_spec(Op::kAllReduce, algorithm("ring-relay"), 8)), "");
  // Only where named: `auto` passes over it unless the scenario lists it.
  EXPECT_FALSE(auto_candidate(traits(algorithm("ring-relay")), false));
  EXPECT_TRUE(auto_candidate(traits(algorithm("ring-relay")), false, true));
  EXPECT_TRUE(auto_candidate(traits(algorithm("ring")), false));
}

}  // namespace
}  // namespace sipsim::collective
