// Tests of the ring family (src/collective/algorithms/rings.cpp): step counts of ring,
// bidirectional-ring, the pipelined chains and the gather / scatter relays.
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

}  // namespace
}  // namespace sipsim::collective
