// Tests of the RAMP physical models: geometry and counts (RAMP §3.1), power budget
// (RAMP §4.2, Fig. 6), cost (RAMP §4.3, Table 3) and power (RAMP §4.3, Table 4).
// Paper values are targets only; the model computes them from per-component inputs.
#include "sipsim/fabric/ramp/physical.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

namespace sipsim::fabric::ramp {
namespace {

using Kind = RampGeometry::SubnetKind;

RampGeometry Geo(std::uint32_t x, std::uint32_t j, std::uint32_t lambda, std::uint32_t b = 1,
                 Kind kind = Kind::kBroadcastSelect) {
  RampGeometry g;
  g.x = x;
  g.J = j;
  g.Lambda = lambda;
  g.b = b;
  g.kind = kind;
  return g;
}

bool AnyStartsWith(const std::vector<std::string>& errors, const std::string& prefix) {
  for (const auto& e : errors) {
    if (e.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// --- Geometry (RAMP §3.1) -----------------------------------------------------

TEST(RampGeometry, ReferencePointCounts) {
  const RampGeometry g;  // Λ=64, x=J=32, B=400G, b=1
  EXPECT_EQ(g.nodes(), 65'536u);
  EXPECT_EQ(g.transceivers_per_node(), 32u);
  EXPECT_DOUBLE_EQ(g.node_capacity_bps(), 12.8e12);
  EXPECT_EQ(g.subnets(), 32'768u);
  EXPECT_EQ(g.subnet_ports(), 2'048u);
  EXPECT_DOUBLE_EQ(g.total_node_capacity_bps(), 65'536 * 12.8e12);
  EXPECT_DOUBLE_EQ(g.bisection_bps(), 65'536 * 12.8e12 / 2);
  // Abstract: "system capacity (0.84 Ebps)".
  EXPECT_NEAR(g.system_capacity_bps() / 1e18, 0.84, 0.005);
}

TEST(RampGeometry, LinkCountsFollowTheArchitecture) {
  const LinkCounts c = link_counts(RampGeometry{});
  EXPECT_EQ(c.transceivers, 2'097'152u);
  EXPECT_EQ(c.splitters, c.transceivers);
  EXPECT_EQ(c.combiners, c.transceivers);
  EXPECT_EQ(c.edge_soas, 2u * 32 * 2'097'152);
  EXPECT_EQ(c.coupler_ports_per_side, 32'768u * 2'048);
  EXPECT_EQ(c.edge_fibres, 2 * c.coupler_ports_per_side);  // each fibre ends on one coupler port
  EXPECT_EQ(c.grouped_cables, 2u * 32 * 32 * 32);          // paper: 2Jx²
  EXPECT_EQ(c.star_couplers, 32'768u);
  EXPECT_EQ(c.awgrs, 0u);

  const LinkCounts rb = link_counts(Geo(4, 3, 8, 2, Kind::kRouteBroadcast));
  EXPECT_EQ(rb.awgrs, 2u * 64 * 3);          // b·x³·J
  EXPECT_EQ(rb.star_couplers, 2u * 64 * 8);  // b·x³·Λ
  const LinkCounts rs = link_counts(Geo(4, 3, 8, 2, Kind::kRouteSwitch));
  EXPECT_EQ(rs.core_soas, 2u * 64 * 8 * 9);  // Λ crossbars of J² SOAs per subnet
  EXPECT_EQ(rs.star_couplers, 0u);
}

TEST(RampGeometry, ScalesWithParameters) {
  const RampGeometry g = Geo(8, 4, 16, 3);
  EXPECT_EQ(g.nodes(), 8u * 4 * 16);
  EXPECT_EQ(g.transceivers_per_node(), 24u);
  EXPECT_DOUBLE_EQ(g.node_capacity_bps(), 24 * 400e9);
  EXPECT_EQ(g.subnets(), 3u * 512);
  EXPECT_EQ(g.subnet_ports(), 64u);
  // J < x: subnet capacity exceeds node capacity by x/J.
  EXPECT_DOUBLE_EQ(g.system_capacity_bps() / g.total_node_capacity_bps(), 2.0);
}

TEST(RampGeometry, ValidationNamesTheParameter) {
  EXPECT_TRUE(validate(RampGeometry{}).empty());
  EXPECT_TRUE(validate_for_ramp_x(RampGeometry{}).empty());
  EXPECT_TRUE(AnyStartsWith(validate(Geo(4, 5, 8)), "J "));
  EXPECT_TRUE(AnyStartsWith(validate(Geo(0, 0, 8)), "x "));
  EXPECT_TRUE(AnyStartsWith(validate(Geo(4, 4, 0)), "Lambda "));
  EXPECT_TRUE(AnyStartsWith(validate(Geo(4, 4, 8, 0)), "b "));
  EXPECT_TRUE(AnyStartsWith(validate(Geo(4, 4, 123)), "Lambda "));  // > 122 channels
  EXPECT_TRUE(validate(Geo(4, 4, 123), 128).empty());
  RampGeometry zero_rate;
  zero_rate.line_rate_bps = 0;
  EXPECT_TRUE(AnyStartsWith(validate(zero_rate), "line_rate_bps "));
  EXPECT_EQ(validate(Geo(0, 0, 0, 0)).size(), 4u);
  // x=J=40, Λ=64 and the Fig. 7 sweep's x=10 are physically valid but not RAMP-x
  // geometries (Λ = D·x).
  EXPECT_TRUE(validate(Geo(40, 40, 64)).empty());
  EXPECT_TRUE(AnyStartsWith(validate_for_ramp_x(Geo(40, 40, 64)), "Lambda "));
  EXPECT_TRUE(AnyStartsWith(validate_for_ramp_x(Geo(10, 10, 64)), "Lambda "));
  EXPECT_TRUE(AnyStartsWith(validate_for_ramp_x(Geo(2, 2, 8)), "Lambda "));  // D = 4 > x
  EXPECT_TRUE(validate_for_ramp_x(Geo(4, 3, 16)).empty());                   // D = 4 = x
}

// --- Power budget (RAMP §4.2, Fig. 6) -----------------------------------------

TEST(RampPowerBudget, ReferencePointReproducesFig6) {
  const PowerBudget pb = power_budget(RampGeometry{});
  const double fig6[] = {8, -7, 15, -18, 4, -11};  // dBm after Tx, splitter, SOA, coupler, SOA, Rx
  ASSERT_EQ(pb.stages.size(), std::size(fig6));
  for (std::size_t i = 0; i < pb.stages.size(); ++i) {
    EXPECT_NEAR(pb.stages[i].power_dbm, fig6[i], 0.25) << pb.stages[i].name;
  }
  EXPECT_EQ(pb.stages[3].name, "2048x2048 star coupler");
  EXPECT_NEAR(pb.rx_dbm, 8 - 2 * 15.0515 - 33.1133 + 2 * 22, 1e-3);  // -11.216
  EXPECT_NEAR(pb.min_dbm, 8 - 15.0515 + 22 - 33.1133, 1e-3);         // -18.165
  EXPECT_EQ(pb.min_stage, "2048x2048 star coupler");
  EXPECT_TRUE(pb.ok) << pb.reason;
  EXPECT_TRUE(pb.reason.empty());
  EXPECT_TRUE(budget_ok(RampGeometry{}));
}

TEST(RampPowerBudget, BiggerGeometriesViolate) {
  // 2560-port coupler: -20.1 dBm after it, below the -20 dBm floor.
  const PowerBudget pb40 = power_budget(Geo(40, 40, 64));
  EXPECT_FALSE(pb40.ok);
  EXPECT_LT(pb40.min_dbm, -20.0);
  EXPECT_NE(pb40.reason.find("minimum along the path"), std::string::npos) << pb40.reason;
  EXPECT_FALSE(budget_ok(Geo(32, 32, 128), OpticalParams{}));  // 4096-port coupler
}

TEST(RampPowerBudget, ReceiverSensitivityViolation) {
  OpticalParams p;
  p.rx_filter_loss_db = 5.0;  // -16.2 dBm at the receiver; path minimum still fine
  const PowerBudget pb = power_budget(RampGeometry{}, p);
  EXPECT_FALSE(pb.ok);
  EXPECT_NE(pb.reason.find("receiver power"), std::string::npos) << pb.reason;
  EXPECT_EQ(pb.reason.find("minimum along"), std::string::npos) << pb.reason;
}

TEST(RampPowerBudget, SmallerGeometriesPass) {
  for (const RampGeometry& g : {Geo(16, 16, 64), Geo(10, 10, 64, 256), Geo(8, 8, 64), Geo(4, 2, 16),
                                Geo(32, 16, 64), Geo(1, 1, 1)}) {
    const PowerBudget pb = power_budget(g);
    EXPECT_TRUE(pb.ok) << g.x << " " << g.J << " " << g.Lambda << ": " << pb.reason;
    // A smaller coupler loses less than the reference one.
    EXPECT_GT(pb.min_dbm, power_budget(RampGeometry{}).min_dbm);
  }
}

TEST(RampPowerBudget, LossesArePhysical) {
  // Doubling the coupler ports costs 3.01 dB at the coupler output.
  const double a = power_budget(Geo(32, 16, 64)).stages[3].power_dbm;
  const double b = power_budget(Geo(32, 32, 64)).stages[3].power_dbm;
  EXPECT_NEAR(a - b, 3.0103, 1e-3);
  OpticalParams p;
  p.coupler_excess_db = 1.5;
  EXPECT_NEAR(power_budget(RampGeometry{}, p).rx_dbm, power_budget(RampGeometry{}).rx_dbm - 1.5,
              1e-9);
  // The SOA saturates: at x=2 the Tx-side SOA would output 27 dBm.
  const PowerBudget small = power_budget(Geo(2, 2, 4));
  EXPECT_DOUBLE_EQ(small.stages[2].power_dbm, OpticalParams{}.soa_saturation_dbm);
}

TEST(RampPowerBudget, OtherSubnetKindsAreLessLossy) {
  for (Kind k : {Kind::kRouteBroadcast, Kind::kRouteSwitch}) {
    const PowerBudget pb = power_budget(Geo(32, 32, 64, 1, k));
    EXPECT_TRUE(pb.ok) << pb.reason;
    EXPECT_GT(pb.min_dbm, power_budget(RampGeometry{}).min_dbm);
  }
  EXPECT_EQ(power_budget(Geo(32, 32, 64, 1, Kind::kRouteBroadcast)).stages.size(), 7u);
  EXPECT_EQ(power_budget(Geo(32, 32, 64, 1, Kind::kRouteSwitch)).stages.size(), 9u);
}

TEST(RampPowerBudget, InvalidGeometryIsRefused) {
  const PowerBudget pb = power_budget(Geo(4, 8, 16));
  EXPECT_FALSE(pb.ok);
  EXPECT_TRUE(pb.stages.empty());
  EXPECT_NE(pb.reason.find("J "), std::string::npos);
}

// --- Cost (RAMP §4.3, Table 3) ------------------------------------------------

TEST(RampCost, ReproducesTable3) {
  const CostReport r = cost(RampGeometry{});
  EXPECT_EQ(r.ramp_transceivers, 2'097'152u);  // Table 3 "#items"
  EXPECT_EQ(r.ramp_couplers, 32'768u);
  // Network cost 1.62-6.12 $/Gbit (exact), ratios 93:7 and 98:2 (within 0.5 points).
  EXPECT_NEAR(r.ramp_low.usd_per_gbit, 1.62, 1e-9);
  EXPECT_NEAR(r.ramp_high.usd_per_gbit, 6.12, 1e-9);
  EXPECT_NEAR(100 * r.ramp_low.transceiver_share, 93, 0.5);
  EXPECT_NEAR(100 * r.ramp_low.switch_share, 7, 0.5);
  EXPECT_NEAR(100 * r.ramp_high.transceiver_share, 98, 0.5);
  EXPECT_NEAR(100 * r.ramp_high.switch_share, 2, 0.5);
  // EPS 20.12 $/Gbit (within 0.1%: we get 20.109), 25:75 (within 0.5 points).
  EXPECT_NEAR(r.eps.usd_per_gbit, 20.12, 0.02);
  EXPECT_NEAR(100 * r.eps.transceiver_share, 25, 0.5);
  EXPECT_NEAR(100 * r.eps.switch_share, 75, 0.5);
  // §4.3: "overall network cost reduced by 3.3-12.4x".
  EXPECT_NEAR(r.reduction_low, 3.3, 0.05);
  EXPECT_NEAR(r.reduction_high, 12.4, 0.05);
}

TEST(RampCost, FatTreeCounts) {
  const CostInputs c;
  EXPECT_EQ(c.eps_transceivers, c.eps_switches * c.eps_switch_ports);  // one per switch port
  const ClosCounts clos = folded_clos_counts(65'536, 40, 3);
  EXPECT_DOUBLE_EQ(clos.switches, 8'192);
  EXPECT_DOUBLE_EQ(clos.switch_ports, 327'680);
  EXPECT_NEAR(clos.switches / static_cast<double>(c.eps_switches), 1.0, 0.016);
}

TEST(RampCost, ScalesWithInputs) {
  const CostReport base = cost(RampGeometry{});
  CostInputs c;
  c.coupler_usd_per_port_gbit *= 2;
  c.ocs_transceiver_usd_per_gbit_low *= 2;
  c.eps_switch_usd_per_gbit *= 2;
  const CostReport doubled = cost(RampGeometry{}, c);
  EXPECT_NEAR(doubled.ramp_low.usd_per_gbit, 2 * base.ramp_low.usd_per_gbit, 1e-9);
  EXPECT_NEAR(doubled.ramp_high.usd_per_gbit, 6.24, 1e-9);
  EXPECT_NEAR(doubled.eps.usd_per_gbit, base.eps.usd_per_gbit + 15.03, 0.05);
  // J = x/2: each node-Gbit needs twice the coupler capacity.
  const CostReport half = cost(Geo(32, 16, 64));
  EXPECT_NEAR(half.ramp_low.usd_per_gbit, 1.5 + 2 * 0.12, 1e-9);
  // Per-Gbit cost is scale-free when J = x.
  EXPECT_NEAR(cost(Geo(8, 8, 64, 4)).ramp_low.usd_per_gbit, 1.62, 1e-9);
}

// --- Power (RAMP §4.3, Table 4) -----------------------------------------------

TEST(RampPower, RampColumn) {
  const PowerReport r = power(RampGeometry{});
  EXPECT_DOUBLE_EQ(r.capacity_bps, 65'536 * 12.8e12);
  EXPECT_NEAR(r.ramp.pj_per_bit_path_low, 8.5, 0.05);  // 8.475
  EXPECT_NEAR(r.ramp.total_mw_low, 7.1, 0.05);         // 7.109
  // Equal to transceiver count x transceiver power.
  EXPECT_NEAR(r.ramp.total_mw_low, 2'097'152 * 3.39 / 1e6, 1e-9);
  // The table's 0.085 W/Gbps is 10x total / capacity (see deviations()).
  EXPECT_NEAR(10 * r.ramp.w_per_gbps_low, 0.085, 0.002);
}

TEST(RampPower, SuperPodColumn) {
  const PowerReport r = power(RampGeometry{});
  EXPECT_NEAR(r.superpod.pj_per_bit_path_low, 383, 0.5);  // exact: 5 x 50.5 + 6 x 21.75
  EXPECT_NEAR(r.superpod.total_mw_low / 334, 1.0, 0.05);  // 321.3 MW (see deviations())
  EXPECT_NEAR(10 * r.superpod.w_per_gbps_low / 3.98, 1.0, 0.05);
}

TEST(RampPower, FatTreeColumnBracketsTable) {
  const PowerReport r = power(RampGeometry{});
  EXPECT_LT(r.fat_tree.pj_per_bit_path_low, 361);
  EXPECT_GT(r.fat_tree.pj_per_bit_path_high, 361);
  EXPECT_LT(r.fat_tree.total_mw_low, 339);
  EXPECT_GT(r.fat_tree.total_mw_high, 339);
  EXPECT_LT(10 * r.fat_tree.w_per_gbps_low, 4.04);
  EXPECT_GT(10 * r.fat_tree.w_per_gbps_high, 4.04);
  // §4.3: RAMP reduces energy by 42-53x; at our figures the ratio is in that ballpark.
  EXPECT_GT(r.superpod.total_mw_low / r.ramp.total_mw_low, 42);
}

TEST(RampPower, ScalesWithInputs) {
  const PowerReport base = power(RampGeometry{});
  PowerInputs p;
  p.ramp.soa_in_transceiver = false;  // + 2 x 0.88 W / 400 Gb/s = 4.4 pJ/bit
  EXPECT_NEAR(power(RampGeometry{}, p).ramp.pj_per_bit_path_low,
              base.ramp.pj_per_bit_path_low + 4.4, 1e-9);
  p = PowerInputs{};
  p.ramp.transceiver_w /= 2;
  p.superpod.switch_w *= 2;
  const PowerReport changed = power(RampGeometry{}, p);
  EXPECT_NEAR(changed.ramp.total_mw_low, base.ramp.total_mw_low / 2, 1e-9);
  EXPECT_NEAR(changed.superpod.pj_per_bit_path_low, 383 + 252.5, 1e-6);
  // A quarter of the nodes: a quarter of the power, same energy per bit.
  const PowerReport small = power(Geo(32, 8, 64));
  EXPECT_NEAR(small.ramp.total_mw_low, base.ramp.total_mw_low / 4, 1e-9);
  EXPECT_NEAR(small.superpod.total_mw_low, base.superpod.total_mw_low / 4, 1e-9);
  EXPECT_DOUBLE_EQ(small.ramp.pj_per_bit_path_low, base.ramp.pj_per_bit_path_low);
}

// --- Report -------------------------------------------------------------------

TEST(RampDescribe, ReferenceAndViolation) {
  const std::string ok = describe_physical(RampGeometry{});
  for (const char* needle :
       {"nodes            65536", "12.8Tbps", "32768 (b*x^3)", "2048x2048 star coupler", ": OK",
        "7.109 MW", "1.62-6.12 $/Gbit", "93:7 - 98:2"}) {
    EXPECT_NE(ok.find(needle), std::string::npos) << needle << "\n" << ok;
  }
  EXPECT_EQ(ok.find("VIOLATED"), std::string::npos);
  const std::string bad = describe_physical(Geo(40, 40, 64));
  EXPECT_NE(bad.find("VIOLATED"), std::string::npos) << bad;
  EXPECT_NE(describe_physical(Geo(4, 8, 16)).find("INVALID: J "), std::string::npos);
}

TEST(RampDeviations, ListedWithComputedNumbers) {
  const std::vector<std::string> d = deviations();
  EXPECT_GE(d.size(), 8u);
  bool power_per_gbps = false;
  for (const auto& s : d) {
    EXPECT_NE(s.find("RAMP §"), std::string::npos) << s;
    if (s.find("0.085") != std::string::npos && s.find("0.0085") != std::string::npos) {
      power_per_gbps = true;
    }
  }
  EXPECT_TRUE(power_per_gbps);
}

}  // namespace
}  // namespace sipsim::fabric::ramp
