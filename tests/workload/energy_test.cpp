// Training energy (docs/models.md, "Energy"): device energy from a breakdown,
// fabric energy from bytes and the fabric's Table 4 figure, NaN where a fabric
// has none.
#include "sipsim/workload/energy.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "sipsim/compute/accelerator.hpp"
#include "sipsim/fabric/electrical/cluster.hpp"
#include "sipsim/fabric/flat/elect_flat.hpp"
#include "sipsim/fabric/ramp/transport.hpp"
#include "sipsim/fabric/routed/routed_network.hpp"

namespace sipsim::workload {
namespace {

using pdes::kSecond;

Breakdown sample() {
  Breakdown b{};
  b[static_cast<std::size_t>(Category::kForward)] = kSecond;
  b[static_cast<std::size_t>(Category::kOptimizer)] = kSecond / 2;
  b[static_cast<std::size_t>(Category::kTpComm)] = kSecond / 4;
  b[kBubbleColumn] = kSecond / 4;
  b[kIdleColumn] = kSecond;
  return b;
}

TEST(Energy, DeviceIsBusyPowerWhileComputingAndIdlePowerOtherwise) {
  const EnergyModel m{400, 50, {}};
  EXPECT_DOUBLE_EQ(device_energy_j(m, sample()), 400 * 1.5 + 50 * 1.5);  // 675 J
  const Breakdown two[2] = {sample(), Breakdown{}};
  const IterationEnergy e = iteration_energy(m, two, 1'000'000);
  EXPECT_DOUBLE_EQ(e.device_j, 675);
  EXPECT_TRUE(std::isnan(e.fabric_j));  // no figure: not a made-up number
  EXPECT_TRUE(std::isnan(e.total_j));
}

TEST(Energy, FabricFiguresFollowRampTable4) {
  const compute::Accelerator a100;
  // elect-flat: no source.
  const auto flat = fabric::make_elect_flat(4, 400'000'000'000, 700);
  const EnergyModel none = energy_model(a100, *flat);
  EXPECT_FALSE(none.fabric.known());
  EXPECT_EQ(none.busy_w, 400);
  EXPECT_EQ(none.idle_w, 50);
  // RAMP: 3.39 W / 400 Gb/s = 8.475 pJ/bit (Table 4: 8.5).
  fabric::RampSpec r;
  r.x = r.J = 2;
  r.Lambda = 2;
  const EnergyModel ramp = energy_model(a100, *fabric::make_ramp(r));
  EXPECT_NEAR(ramp.fabric.pj, 8.475, 1e-9);
  EXPECT_NEAR(fabric_energy_j(ramp, 1'000'000'000), 8e9 * 8.475e-12, 1e-12);
  EXPECT_NE(ramp.fabric.source.find("Table 4"), std::string::npos);
  // Cluster: QM8790 50.5 pJ/bit per switch, 21.75 per transceiver; 2 tiers:
  // 3 x 50.5 + 4 x 21.75 = 238.5; 3 tiers: 5 x 50.5 + 6 x 21.75 = 383 (Table 4).
  fabric::ClusterSpec c;
  c.server_size = 1;
  c.nic_rate_bps = 200'000'000'000;
  const fabric::TierSpec tier{2, 1, 200'000'000'000, 350, 10};
  c.tiers = {tier, tier};
  EXPECT_NEAR(fabric::make_routed(fabric::make_cluster(c, 4), 4096)->energy_pj_per_bit().pj, 238.5,
              1e-9);
  c.tiers = {tier, tier, tier};
  EXPECT_NEAR(fabric::make_routed(fabric::make_cluster(c, 8), 4096)->energy_pj_per_bit().pj, 383.0,
              1e-9);
}

}  // namespace
}  // namespace sipsim::workload
