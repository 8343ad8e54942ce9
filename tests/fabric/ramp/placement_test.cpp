#include "sipsim/fabric/ramp/placement.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <set>
#include <vector>

namespace sipsim::fabric::ramp {
namespace {

struct Case {
  std::uint32_t x, J, D;
  std::vector<std::uint32_t> sizes;  // innermost first
};

// Every group of one axis (the other axes' ranks fixed) is a RAMP-x job of the
// axis's shape: two members whose offsets in that shape differ in step k only
// are a step-k move of the fabric (step_of_pair), so step k's transceiver
// rule serves them. Nodes are distinct, and the axes share out every step.
TEST(RampPlacement, AxisGroupsAreRampXJobs) {
  const std::vector<Case> cases = {
      {4, 4, 1, {2, 8, 4}},  {4, 4, 1, {4, 4}},   {4, 2, 2, {2, 2, 2}}, {8, 8, 2, {4, 32}},
      {8, 8, 2, {2, 8, 8}},  {8, 4, 2, {16, 4}},  {4, 4, 2, {8, 3}},    {32, 32, 2, {4, 32}},
      {32, 32, 2, {128, 8}}, {6, 3, 2, {3, 4, 2}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "x=" << c.x << " J=" << c.J << " D=" << c.D);
    const auto placed = place_axes(c.x, c.J, c.D, c.sizes);
    ASSERT_TRUE(placed.has_value());
    std::uint64_t n = 1;
    for (std::uint32_t s : c.sizes) n *= s;
    ASSERT_EQ(placed->nodes.size(), n);
    const RampShape fabric = full_job(c.x, c.J, c.D);
    EXPECT_EQ(std::set<std::uint32_t>(placed->nodes.begin(), placed->nodes.end()).size(), n);
    for (std::uint32_t node : placed->nodes) EXPECT_LT(node, fabric_nodes(fabric));
    for (int k = 0; k < 4; ++k) {
      std::uint32_t product = 1;
      for (const auto& t : placed->axes) product *= t[k];
      EXPECT_EQ(product, placed->job.active[k]) << "step " << k + 1;
    }
    std::uint32_t inner = 1;
    for (std::size_t a = 0; a < c.sizes.size(); ++a) {
      const RampShape shape = placed->axis_shape(a);
      ASSERT_EQ(job_size(shape), c.sizes[a]);
      // GPUs with rank 0 on every other axis, and the group of the last GPU.
      for (const std::uint64_t base :
           {std::uint64_t{0}, n - 1 - (n - 1) / inner % c.sizes[a] * inner}) {
        for (std::uint32_t r = 0; r < c.sizes[a]; ++r) {
          for (std::uint32_t q = 0; q < c.sizes[a]; ++q) {
            const Offsets u = offsets_of_member(r, shape), v = offsets_of_member(q, shape);
            int differ = 0, step = 0;
            for (int k = 0; k < 4; ++k) {
              if (u[k] != v[k]) {
                ++differ;
                step = k + 1;
              }
            }
            if (differ != 1) continue;
            const Coord cu = coord_of_node(placed->nodes[base + std::uint64_t{r} * inner], fabric);
            const Coord cv = coord_of_node(placed->nodes[base + std::uint64_t{q} * inner], fabric);
            EXPECT_EQ(step_of_pair(cu, cv, fabric), step)
                << "axis " << a << " members " << r << ", " << q;
          }
        }
      }
      inner *= c.sizes[a];
    }
  }
}

TEST(RampPlacement, RefusesWhatDoesNotFactor) {
  EXPECT_FALSE(
      place_axes(4, 4, 1, std::vector<std::uint32_t>{5, 2}).has_value());  // 10 = 5 x 2, 5 > x
  EXPECT_FALSE(place_axes(4, 4, 1, std::vector<std::uint32_t>{1, 1}).has_value());   // one GPU
  EXPECT_FALSE(place_axes(4, 4, 1, std::vector<std::uint32_t>{64, 2}).has_value());  // > 64 nodes
  // 16 = (4, 4, 1, 1): an axis of 8 takes 4 from step 1 and 2 from step 2.
  const auto placed = place_axes(4, 4, 1, std::vector<std::uint32_t>{8, 2});
  ASSERT_TRUE(placed.has_value());
  EXPECT_EQ(placed->axes[0], (std::array<std::uint32_t, 4>{4, 2, 1, 1}));
  EXPECT_EQ(placed->axes[1], (std::array<std::uint32_t, 4>{1, 2, 1, 1}));
}

}  // namespace
}  // namespace sipsim::fabric::ramp
