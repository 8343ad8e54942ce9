// Tests of the tree family (src/collective/algorithms/trees.cpp) beyond the cross-family
// checks of ../schedule_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "collective/algorithms/step_counts.hpp"
#include "sipsim/collective/schedule.hpp"
#include "support/schedule_oracle.hpp"

namespace sipsim::collective {
namespace {

using namespace oracle;

// NCCL's complementary trees: with an even number of ranks, no member reduces data of both
// trees (a member is an inner node in at most one tree).
TEST(DoubleBinaryTree, InnerInAtMostOneTree) {
  for (std::uint32_t p : {2u, 4u, 6u, 10u, 14u, 64u}) {
    const CollectiveSpec spec = make_spec(Op::kAllReduce, algorithm("double-binary-tree"), p, 1000);
    for (std::uint32_t r = 0; r < p; ++r) {
      const Schedule s(spec, r);
      std::set<std::uint64_t> reduced;
      for (std::uint32_t i = 0; i < s.steps(); ++i) {
        for (const Recv& rv : s.step(i).recvs) {
          if (rv.combine == Combine::kReduce) reduced.insert(rv.chunks.first);
        }
      }
      EXPECT_LE(reduced.size(), 1u) << "p=" << p << " member " << r;
    }
  }
}

// Binomial tree: depth ceil(log2 p) at the deepest member, log2 p sends at the root; double
// binary trees: up and down trees of depth <= floor(log2 p) + 1.
TEST(Trees, StepCounts) {
  for (std::uint32_t p : kStepCountSizes) {
    const std::uint32_t lg = ceil_log2(p);
    for (Op op : {Op::kBroadcast, Op::kReduce, Op::kGather, Op::kScatter}) {
      const CollectiveSpec s = make_spec(op, algorithm("binomial-tree"), p, 100, p - 1);
      EXPECT_EQ(Schedule(s, p - 1).steps(), lg) << to_string(op) << " p=" << p;
      EXPECT_EQ(execute(s).rounds, lg) << to_string(op) << " p=" << p;
    }
    EXPECT_EQ(execute(make_spec(Op::kAllReduce, algorithm("binomial-tree"), p)).rounds, 2 * lg);
    const Outcome dbt = execute(make_spec(Op::kAllReduce, algorithm("double-binary-tree"), p));
    EXPECT_EQ(dbt.error, "");
    EXPECT_LE(dbt.rounds, 2 * (lg + 1)) << p;
  }
}

}  // namespace
}  // namespace sipsim::collective
