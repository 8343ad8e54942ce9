// TopoOpt's reconfigured circuits (fabric/circuit/topoopt_reconfig.cpp): how the controller gives
// each GPU's `degree` ports to the pairs with traffic, what stays lit, and the reader's keys.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../sip/read_section.hpp"
#include "sipsim/fabric/circuit/topoopt.hpp"
#include "sipsim/pdes/random.hpp"

namespace sipsim::fabric {
namespace {

using pdes::kMicrosecond;

std::uint32_t units(const CircuitPlan& plan, std::uint32_t src, std::uint32_t dst) {
  for (const Circuit& c : plan.circuits) {
    if (c.src == src && c.dst == dst) return c.units;
  }
  return 0;
}

// Every GPU's circuits out and in stay within its degree.
void expect_within_degree(const CircuitPlan& plan, std::uint32_t gpus, std::uint32_t degree) {
  std::vector<std::uint32_t> out(gpus, 0), in(gpus, 0);
  for (const Circuit& c : plan.circuits) {
    out[c.src] += c.units;
    in[c.dst] += c.units;
  }
  for (std::uint32_t g = 0; g < gpus; ++g) {
    EXPECT_LE(out[g], degree) << g;
    EXPECT_LE(in[g], degree) << g;
  }
}

// A ring (one peer each way): the effective degree is one, every port on the ring's pair
// (RAMP §7.4's TopoOpt). Two peers: the ports by bytes, the larger first at a tie of ratios.
TEST(TopooptReconfig, PortsGoToThePairsByBytes) {
  auto c = make_topoopt_reconfig_controller(4, 4, {10 * kMicrosecond, 0});
  const std::vector<PairTraffic> ring = {{0, 1, 100}, {1, 2, 100}, {2, 3, 100}, {3, 0, 100}};
  const CircuitPlan first = c->first_plan(ring);
  for (const PairTraffic& t : ring) EXPECT_EQ(units(first, t.src, t.dst), 4u);
  for (const Circuit& k : first.circuits) EXPECT_EQ(k.kept, k.units);  // lit before the job
  // GPU 0 sends 3x more to 1 than to 2: 3 ports and 1.
  const std::vector<PairTraffic> two = {{0, 1, 300}, {0, 2, 100}};
  auto d = make_topoopt_reconfig_controller(4, 4, {10 * kMicrosecond, 0});
  const CircuitPlan split = d->first_plan(two);
  EXPECT_EQ(units(split, 0, 1), 3u);
  EXPECT_EQ(units(split, 0, 2), 1u);
  // More peers than ports: the largest get one each.
  const std::vector<PairTraffic> many = {{0, 1, 5}, {0, 2, 50}, {0, 3, 40}};
  auto e = make_topoopt_reconfig_controller(4, 2, {10 * kMicrosecond, 0});
  const CircuitPlan two_ports = e->first_plan(many);
  EXPECT_EQ(units(two_ports, 0, 2), 1u);
  EXPECT_EQ(units(two_ports, 0, 3), 1u);
  EXPECT_EQ(units(two_ports, 0, 1), 0u);
  expect_within_degree(two_ports, 4, 2);
}

// At an epoch: the pairs with traffic take the ports, the job's idle pairs keep one where
// ports are left, the circuits both plans give a pair stay lit; an idle period or the same
// plan changes nothing.
TEST(TopooptReconfig, EpochsFollowTheTraffic) {
  const TopooptReconfiguration r{5 * kMicrosecond, 1 * kMicrosecond};
  auto c = make_topoopt_reconfig_controller(4, 4, r);
  EXPECT_EQ(c->period(), 5 * kMicrosecond);
  EXPECT_EQ(c->reconfiguration_delay(), 1 * kMicrosecond);
  // The job: a TP pair 0 -> 1 and a DP pair 0 -> 2.
  const CircuitPlan first = c->first_plan(std::vector<PairTraffic>{{0, 1, 100}, {0, 2, 100}});
  EXPECT_EQ(units(first, 0, 1), 2u);
  EXPECT_EQ(units(first, 0, 2), 2u);
  pdes::RandomStream rng;
  const pdes::EpochInfo info{5 * kMicrosecond, 0, rng};
  // Only the DP pair had traffic: it takes 3 ports, the TP pair keeps 1 (2 of DP's stay lit).
  const auto next = c->next_plan(first, std::vector<PairTraffic>{{0, 2, 1000}}, info);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(units(*next, 0, 2), 3u);
  EXPECT_EQ(units(*next, 0, 1), 1u);
  for (const Circuit& k : next->circuits)
    EXPECT_EQ(k.kept, std::min(k.units, units(first, k.src, k.dst)));
  EXPECT_FALSE(c->next_plan(*next, {}, info).has_value());
  EXPECT_FALSE(c->next_plan(*next, std::vector<PairTraffic>{{0, 2, 1000}}, info).has_value());
}

TEST(TopooptReconfig, ReaderKeysAndErrors) {
  auto read = [](base::MapReader& f) { return read_topoopt(f, 8); };
  const std::string base = "{degree: 2, link_bandwidth: 100Gbps, latency: 260ns, ";
  const TopooptSpec s =
      testing::read_section(base + "reconfiguration: {period: 10us, delay: 2us}}", read);
  ASSERT_TRUE(s.reconfiguration.has_value());
  EXPECT_EQ(s.reconfiguration->period, 10 * kMicrosecond);
  EXPECT_EQ(s.reconfiguration->delay, 2 * kMicrosecond);
  EXPECT_EQ(
      testing::read_section(base + "reconfiguration: {period: 10us}}", read).reconfiguration->delay,
      0u);
  EXPECT_FALSE(testing::read_section(base + "}", read).reconfiguration.has_value());
  EXPECT_NE(testing::section_error(base + "reconfiguration: {period: 0ns}}", read, "")
                .find("fabric.reconfiguration.period: must be > 0"),
            std::string::npos);
  EXPECT_NE(testing::section_error(base + "reconfiguration: {period: 1us, delay: 1us}}", read, "")
                .find("fabric.reconfiguration.delay: must be shorter than the period"),
            std::string::npos);
  EXPECT_NE(testing::section_error(base + "reconfiguration: {period: 1us, when: 1us}}", read, "")
                .find("fabric.reconfiguration.when"),
            std::string::npos);
}

}  // namespace
}  // namespace sipsim::fabric
