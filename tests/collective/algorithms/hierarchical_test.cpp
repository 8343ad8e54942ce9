// Tests of the hierarchical family (src/collective/algorithms/hierarchical.cpp): a ring per
// level of the hierarchy, and the 2D torus.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <utility>

#include "collective/algorithms/step_counts.hpp"

namespace sipsim::collective {
namespace {

using namespace oracle;

// Two-level rings: 2(L-1) + 2(G-1); the torus's all-to-all: (L-1) + (G-1).
TEST(Hierarchical, StepCounts) {
  for (auto [l, g] : {std::pair{2u, 3u}, {4u, 4u}, {3u, 5u}, {1u, 7u}, {7u, 1u}}) {
    expect_uniform(make_spec(Op::kAllReduce, algorithm("hierarchical-ring"), l * g, 100, 0, l, g),
                   2 * (l - 1) + 2 * (g - 1));
    expect_uniform(make_spec(Op::kAllReduce, algorithm("torus2d"), l * g, 100, 0, l, g),
                   2 * (l - 1) + 2 * (g - 1));
    expect_uniform(make_spec(Op::kAllToAll, algorithm("torus2d"), l * g, 100, 0, l, g),
                   (l - 1) + (g - 1));
  }
  // A ring per level: 2 * sum(d_i - 1), e.g. the 65,536-GPU SuperPod's 8 x 2 x 16 x 16 x 16
  // takes 106 steps where two levels (8 x 8192) take 16,396.
  CollectiveSpec deep = make_spec(Op::kAllReduce, algorithm("hierarchical-ring"), 2 * 3 * 4, 1000);
  deep.dims = Dims{2, 3, 4};
  expect_uniform(deep, 2 * (1 + 2 + 3));
  deep.op = Op::kReduceScatter;
  expect_uniform(deep, 1 + 2 + 3);
  deep.p = 65536;
  deep.dims = Dims{8, 2, 16, 16, 16};
  EXPECT_EQ(Schedule(deep, 12345).steps(), 53u);
}

}  // namespace
}  // namespace sipsim::collective
