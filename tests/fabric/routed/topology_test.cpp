// The routed topologies' shared parts: the ECMP hash.
#include "sipsim/fabric/routed/topology.hpp"

#include <gtest/gtest.h>

namespace sipsim::fabric {
namespace {

TEST(EcmpHash, DeterministicAndOrderSensitive) {
  EXPECT_EQ(ecmp_hash(1, 2, 3), ecmp_hash(1, 2, 3));
  EXPECT_NE(ecmp_hash(1, 2, 3), ecmp_hash(2, 1, 3));
  EXPECT_NE(ecmp_hash(1, 2, 3), ecmp_hash(1, 2, 4));
  // Consecutive flows spread evenly over a small modulus.
  std::vector<int> bins(4, 0);
  for (std::uint64_t f = 0; f < 4000; ++f) ++bins[ecmp_hash(7, 9, f) % 4];
  for (int b : bins) EXPECT_NEAR(b, 1000, 150);
}

}  // namespace
}  // namespace sipsim::fabric
