// Tests of recursive halving / doubling (src/collective/algorithms/halving_doubling.cpp).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <utility>

#include "collective/algorithms/step_counts.hpp"

namespace sipsim::collective {
namespace {

using namespace oracle;

// [TRG05]: 2 log2 p steps for all-reduce at powers of two; otherwise fold + log2 p' +
// log2 p' + unfold.
TEST(HalvingDoubling, StepCounts) {
  for (std::uint32_t p : kStepCountSizes) {
    const std::uint32_t lg = ceil_log2(p);
    if (std::has_single_bit(p)) {
      expect_uniform(make_spec(Op::kAllReduce, algorithm("halving-doubling"), p), 2 * lg);
      expect_uniform(make_spec(Op::kReduceScatter, algorithm("halving-doubling"), p), lg);
      expect_uniform(make_spec(Op::kAllGather, algorithm("halving-doubling"), p), lg);
    } else {
      const Outcome out = execute(make_spec(Op::kAllReduce, algorithm("halving-doubling"), p));
      EXPECT_EQ(out.rounds, 2 * (lg - 1) + 2) << p;
    }
  }
}

}  // namespace
}  // namespace sipsim::collective
