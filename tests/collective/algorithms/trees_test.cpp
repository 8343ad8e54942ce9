// Tests of the tree family (src/collective/algorithms/trees.cpp) beyond the cross-family
// checks of ../schedule_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>

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

}  // namespace
}  // namespace sipsim::collective
