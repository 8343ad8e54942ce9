// Tests of Bruck's algorithms (src/collective/algorithms/bruck.cpp).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <utility>

#include "collective/algorithms/step_counts.hpp"

namespace sipsim::collective {
namespace {

using namespace oracle;

// [B97], [HFM88]: ceil(log2 p) rounds for all-gather, all-to-all and the dissemination barrier.
TEST(Bruck, StepCounts) {
  for (std::uint32_t p : kStepCountSizes) {
    const std::uint32_t lg = ceil_log2(p);
    expect_uniform(make_spec(Op::kAllGather, algorithm("bruck"), p), lg);
    expect_uniform(make_spec(Op::kAllToAll, algorithm("bruck"), p), lg);
    expect_uniform(make_spec(Op::kBarrier, algorithm("bruck"), p), lg);
  }
}

}  // namespace
}  // namespace sipsim::collective
