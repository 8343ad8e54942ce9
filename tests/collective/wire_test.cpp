// The wire view of a step (one message per peer) must equal what the chunk-level
// schedule sends, including where it is computed in closed form.
#include <gtest/gtest.h>

#include <algorithm>

#include "sipsim/collective/schedule.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"

namespace sipsim::collective {

// RAMP-x reads the RAMP geometry of fabric/ramp/ (DESIGN.md §1).
namespace ramp = fabric::ramp;
using fabric::ramp::RampShape;
namespace {

bool same(std::vector<WireMessage> a, std::vector<WireMessage> b) {
  auto key = [](const WireMessage& m) { return std::pair(m.peer, m.bytes); };
  auto less = [&](const WireMessage& x, const WireMessage& y) { return key(x) < key(y); };
  std::sort(a.begin(), a.end(), less);
  std::sort(b.begin(), b.end(), less);
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [&](const WireMessage& x, const WireMessage& y) { return key(x) == key(y); });
}

TEST(WireStep, GroupsSendsAndReceivesPerPeer) {
  Step s;
  s.sends = {{3, {}, 10}, {4, {}, 5}, {3, {}, 7}};
  s.recvs = {{2, {}, 1, Combine::kCopy}};
  const auto out = outgoing(s);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].peer, 3u);
  EXPECT_EQ(out[0].bytes, 17u);
  EXPECT_EQ(out[0].parts, 2u);
  EXPECT_EQ(incoming(s).size(), 1u);
}

// RAMP-x all-to-all in closed form (RAMP Table 8) against the chunk sets.
TEST(WireStep, RampAllToAllClosedFormMatchesTheChunkSchedule) {
  int checked = 0;
  for (std::uint32_t x : {2u, 3u, 4u}) {
    for (std::uint32_t J = 1; J <= x; ++J) {
      for (std::uint32_t D = 1; D <= x; ++D) {
        for (std::uint32_t n : {x * J * D * x, x, x * J}) {
          RampShape shape;
          try {
            shape = ramp::shape_for(x, J, D, n);
          } catch (const std::invalid_argument&) {
            continue;
          }
          CollectiveSpec spec;
          spec.op = Op::kAllToAll;
          spec.algorithm = algorithm("ramp-x");
          spec.p = n;
          spec.bytes = std::uint64_t{n} * 48;  // uniform blocks: the closed form applies
          spec.ramp = shape;
          for (std::uint32_t m = 0; m < n; ++m) {
            const Schedule sched(spec, m);
            for (std::uint32_t i = 0; i < sched.steps(); ++i) {
              const Step step = sched.step(i);
              const WireStep w = wire_step(sched, i);
              ASSERT_TRUE(same(w.out, outgoing(step))) << x << J << D << " m" << m << " i" << i;
              ASSERT_TRUE(same(w.in, incoming(step))) << x << J << D << " m" << m << " i" << i;
              EXPECT_EQ(w.local, step.local);
              EXPECT_EQ(w.local_bytes, step.local_bytes);
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace sipsim::collective
