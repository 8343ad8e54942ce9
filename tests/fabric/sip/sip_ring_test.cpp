// SiP-Ring's controller (fabric/sip/sip_ring): the reach the power budget
// allows, the legs beyond it, the plans it hands the circuit fabric (the
// App. A.1 planner's lightpaths per pair, kept where a wavelength stays) and
// its section's errors.
#include "sipsim/fabric/sip/sip_ring.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../routed/one_message.hpp"
#include "read_section.hpp"
#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/sip/ring_planner.hpp"
#include "sipsim/pdes/model.hpp"

namespace sipsim::fabric {
namespace {

using pdes::kNanosecond;

SipRingSpec Spec(std::uint32_t gpus, double loss_db = 0.625, std::uint32_t wavelengths = 4) {
  SipRingSpec s;
  s.gpus = gpus;
  s.wavelengths = wavelengths;
  s.transport.latency = 1000 * kNanosecond;
  s.loss_per_node_db = loss_db;
  return s;
}

TEST(SipRing, ReachFromThePowerBudget) {
  // 10 dB / 0.625 dB = 16 interfaces: 15 hops (SiP-ML §5's degree 16).
  EXPECT_EQ(sip_ring_reach(Spec(64)), 15u);
  // 10 / 0.525 = 19.05: 19 interfaces, 18 hops.
  EXPECT_EQ(sip_ring_reach(Spec(64, 0.525)), 18u);
  // 2.5 dB: 4 interfaces, 3 hops (tests/app/graph-sip-ring.yaml).
  EXPECT_EQ(sip_ring_reach(Spec(16, 2.5)), 3u);
  // Exactly 2 interfaces: one hop; fewer: none.
  EXPECT_EQ(sip_ring_reach(Spec(64, 5)), 1u);
  EXPECT_EQ(sip_ring_reach(Spec(64, 6)), 0u);
  EXPECT_EQ(sip_ring_reach(Spec(64, 20)), 0u);
  SipRingSpec budget = Spec(64);
  budget.power_budget_db = 1.25;  // 2 interfaces
  EXPECT_EQ(sip_ring_reach(budget), 1u);
  budget.power_budget_db = 1.2;
  EXPECT_EQ(sip_ring_reach(budget), 0u);
  // Never beyond half the ring: the other direction is shorter.
  EXPECT_EQ(sip_ring_reach(Spec(16)), 8u);
  EXPECT_EQ(sip_ring_reach(Spec(17)), 8u);
  EXPECT_EQ(sip_ring_reach(Spec(2)), 1u);
}

TEST(SipRing, LegTargetsStopAtTheReachInTheShorterDirection) {
  const auto c = make_sip_ring_controller(Spec(64));  // reach 15
  EXPECT_EQ(c->leg_target(0, 1), 1u);
  EXPECT_EQ(c->leg_target(0, 15), 15u);   // exactly the reach
  EXPECT_EQ(c->leg_target(0, 49), 49u);   // 15 counter-clockwise
  EXPECT_EQ(c->leg_target(0, 16), 15u);   // clockwise 16: the GPU at 15
  EXPECT_EQ(c->leg_target(0, 48), 49u);   // counter-clockwise 16: the GPU at 64 - 15
  EXPECT_EQ(c->leg_target(0, 32), 15u);   // half way: clockwise
  EXPECT_EQ(c->leg_target(60, 30), 45u);  // counter-clockwise 30
  EXPECT_EQ(c->leg_target(60, 20), 11u);  // clockwise 24, wrapping past 0

  // Every walk ends at its destination in ceil(distance / reach) legs, each
  // within the reach in the direction of the shorter way.
  for (const auto& [gpus, loss] : std::vector<std::pair<std::uint32_t, double>>{
           {64, 0.625}, {40, 2.5}, {17, 2.5}, {16, 0.625}, {9, 5}, {2, 0.625}}) {
    const SipRingSpec s = Spec(gpus, loss);
    const std::uint32_t reach = sip_ring_reach(s);
    const auto ring = make_sip_ring_controller(s);
    for (std::uint32_t a = 0; a < gpus; ++a) {
      for (std::uint32_t b = 0; b < gpus; ++b) {
        if (a == b) continue;
        const std::uint32_t cw = ring_hops(gpus, a, b, RingDirection::kClockwise);
        const std::uint32_t distance = std::min(cw, gpus - cw);
        std::uint32_t legs = 0;
        for (std::uint32_t u = a; u != b && legs <= gpus; ++legs) {
          const std::uint32_t next = ring->leg_target(u, b);
          const std::uint32_t hop = ring_hops(gpus, u, next, RingDirection::kClockwise);
          ASSERT_NE(next, u) << gpus << ": " << a << " -> " << b;
          ASSERT_LE(std::min(hop, gpus - hop), reach) << gpus << ": " << u << " -> " << next;
          u = next;
        }
        EXPECT_EQ(legs, (distance + reach - 1) / reach) << gpus << ": " << a << " -> " << b;
      }
    }
  }
}

using PairKey = std::pair<std::uint32_t, std::uint32_t>;

// The job of tests/app/graph-sip-ring.yaml in small: 16 GPUs, reach 3, a ring
// (i -> i+1) and DP pairs 4 apart, which relay at i+3.
std::vector<PairTraffic> RingAndDp() {
  std::vector<PairTraffic> job;
  for (std::uint32_t i = 0; i < 16; ++i) {
    job.push_back({i, (i + 1) % 16, 1'000'000});
    job.push_back({i, (i + 4) % 16, 2'000'000});
  }
  std::sort(job.begin(), job.end(), [](const auto& a, const auto& b) {
    return std::tie(a.src, a.dst) < std::tie(b.src, b.dst);
  });
  return job;
}

// The planner's lightpaths for `demand` (per pair, N x N dense).
RingPlan Planned(const SipRingSpec& s, const std::map<PairKey, double>& demand, std::uint64_t seed,
                 std::uint64_t epoch) {
  std::vector<double> tm(std::size_t{s.gpus} * s.gpus, 0.0);
  for (const auto& [pair, bytes] : demand) tm[pair.first * s.gpus + pair.second] = bytes;
  RingPlanInput in;
  in.gpus = s.gpus;
  in.wavelengths = s.wavelengths;
  in.reach = sip_ring_reach(s);
  in.traffic = tm;
  in.seed = seed;
  in.epoch = epoch;
  RingPlan plan = plan_ring_wavelengths(in);
  const auto violation = check_ring_plan(plan, s.gpus, s.wavelengths, in.reach);
  EXPECT_FALSE(violation.has_value()) << *violation;
  return plan;
}

// The circuits a plan's lightpaths make: units per pair, kept where the same
// pair keeps a (direction, wavelength) of `before`.
std::vector<Circuit> Circuits(const RingPlan& plan, const RingPlan* before) {
  std::set<std::tuple<std::uint32_t, std::uint32_t, RingDirection, std::uint32_t>> lit;
  if (before != nullptr) {
    for (const Lightpath& l : lightpaths_of(*before))
      lit.insert({l.src, l.dst, l.direction, l.wavelength});
  }
  std::map<PairKey, Circuit> by_pair;
  for (const Lightpath& l : lightpaths_of(plan)) {
    Circuit& c = by_pair[{l.src, l.dst}];
    c.src = l.src;
    c.dst = l.dst;
    ++c.units;
    if (before == nullptr || lit.contains({l.src, l.dst, l.direction, l.wavelength})) ++c.kept;
  }
  std::vector<Circuit> out;
  for (const auto& [pair, c] : by_pair) out.push_back(c);
  return out;
}

// What the circuit fabric requires of a plan, and the ring's own limits seen
// through its circuits: W wavelengths to send and W to receive per GPU, no
// circuit beyond the reach.
void ExpectRingCircuits(const CircuitPlan& plan, const SipRingSpec& s) {
  const std::uint32_t reach = sip_ring_reach(s);
  std::vector<std::uint32_t> out(s.gpus, 0), in(s.gpus, 0);
  for (std::size_t k = 0; k < plan.circuits.size(); ++k) {
    const Circuit& c = plan.circuits[k];
    if (k > 0) {
      EXPECT_LT(std::tie(plan.circuits[k - 1].src, plan.circuits[k - 1].dst),
                std::tie(c.src, c.dst));
    }
    EXPECT_NE(c.src, c.dst);
    EXPECT_GT(c.units, 0u);
    EXPECT_LE(c.kept, c.units);
    const std::uint32_t cw = ring_hops(s.gpus, c.src, c.dst, RingDirection::kClockwise);
    EXPECT_LE(std::min(cw, s.gpus - cw), reach) << c.src << " -> " << c.dst;
    out[c.src] += c.units;
    in[c.dst] += c.units;
  }
  for (std::uint32_t v = 0; v < s.gpus; ++v) {
    EXPECT_LE(out[v], s.wavelengths) << "GPU " << v;
    EXPECT_LE(in[v], s.wavelengths) << "GPU " << v;
  }
}

TEST(SipRing, PlansAreThePlannersLightpathsPerPair) {
  const SipRingSpec s = Spec(16, 2.5);  // reach 3, W = 4
  auto ring = make_sip_ring_controller(s);
  EXPECT_EQ(ring->period(), 100'000'000u);
  EXPECT_EQ(ring->reconfiguration_delay(), 25'000'000u);

  // The first plan: the job's legs, merged per pair (i -> i+3 carries the DP
  // pair's 2 MB; i+3 -> i+4 that and the ring's 1 MB), planned with seed 0 at
  // epoch 0, all lit from the start.
  const std::vector<PairTraffic> job = RingAndDp();
  std::map<PairKey, double> legs;
  for (std::uint32_t i = 0; i < 16; ++i) {
    legs[{i, (i + 1) % 16}] += 1'000'000;
    legs[{i, (i + 3) % 16}] += 2'000'000;
    legs[{(i + 3) % 16, (i + 4) % 16}] += 2'000'000;
  }
  const CircuitPlan first = ring->first_plan(job);
  const RingPlan first_ring = Planned(s, legs, 0, 0);
  EXPECT_EQ(first.circuits, Circuits(first_ring, nullptr));
  ExpectRingCircuits(first, s);
  for (const Circuit& c : first.circuits) {
    EXPECT_EQ(c.kept, c.units);
    EXPECT_TRUE(legs.contains({c.src, c.dst}))
        << c.src << " -> " << c.dst;  // no pair without demand
  }
  ASSERT_FALSE(first.circuits.empty());

  // The same traffic again keeps the plan, and so does an idle period.
  std::vector<PairTraffic> same;
  for (const auto& [pair, bytes] : legs) {
    same.push_back({pair.first, pair.second, static_cast<std::uint64_t>(bytes)});
  }
  pdes::RandomStream rng(7, pdes::kEpochStreamLp, 0);
  pdes::EpochInfo info{100'000'000, 0, rng};
  EXPECT_FALSE(ring->next_plan(first, same, info).has_value());
  EXPECT_FALSE(ring->next_plan(first, {}, info).has_value());

  // Other traffic (only the ring's pairs) is re-planned with the epoch's
  // draw as the seed, at the planner's epoch index + 1; a wavelength the
  // same pair keeps in the same direction stays lit.
  std::vector<PairTraffic> ring_only;
  std::map<PairKey, double> ring_demand;
  for (std::uint32_t i = 0; i < 16; ++i) ring_demand[{i, (i + 1) % 16}] = 3'000'000;
  for (const auto& [pair, bytes] : ring_demand) {
    ring_only.push_back({pair.first, pair.second, static_cast<std::uint64_t>(bytes)});
  }
  pdes::RandomStream rng1(7, pdes::kEpochStreamLp, 1);
  pdes::EpochInfo info1{200'000'000, 1, rng1};
  const auto second = ring->next_plan(first, ring_only, info1);
  ASSERT_TRUE(second.has_value());
  const RingPlan second_ring =
      Planned(s, ring_demand, pdes::RandomStream(7, pdes::kEpochStreamLp, 1).next_u64(), 2);
  EXPECT_EQ(second->circuits, Circuits(second_ring, &first_ring));
  ExpectRingCircuits(*second, s);
  // The neighbour pairs had lightpaths before: some of them stay lit.
  std::uint32_t kept = 0;
  for (const Circuit& c : second->circuits) kept += c.kept;
  EXPECT_GT(kept, 0u);

  // Unchanged since the last plan: kept; the first traffic again: re-planned
  // against the second plan.
  pdes::RandomStream rng2(7, pdes::kEpochStreamLp, 2);
  pdes::EpochInfo info2{300'000'000, 2, rng2};
  EXPECT_FALSE(ring->next_plan(*second, ring_only, info2).has_value());
  const auto third = ring->next_plan(*second, same, info2);
  ASSERT_TRUE(third.has_value());
  const RingPlan third_ring =
      Planned(s, legs, pdes::RandomStream(7, pdes::kEpochStreamLp, 2).next_u64(), 3);
  EXPECT_EQ(third->circuits, Circuits(third_ring, &second_ring));
  ExpectRingCircuits(*third, s);
}

TEST(SipRing, LoneMessagesTakeTheLegsTheClosedFormQuotes) {
  // The job above on the fabric (W = 8): DP pairs 4 apart relay at the reach
  // (i + 3), although the first plan also joins 0 -> 1 and 1 -> 4 (a leg of
  // 1 -> 5), another 2-hop path with other rates.
  SipRingSpec s = Spec(16, 2.5, 8);
  s.transport.chunk_bytes = 64 << 10;
  auto net = make_sip_ring(s);
  net->plan_for_job(RingAndDp());
  std::vector<Network::Resource> path;
  net->path_resources(0, 4, path);
  const CircuitPlan first = make_sip_ring_controller(s)->first_plan(RingAndDp());
  ASSERT_EQ(path.size(), 2u);
  EXPECT_EQ(first.circuits[path[0].id].dst, 3u);
  EXPECT_EQ(first.circuits[path[1].id].src, 3u);
  EXPECT_EQ(first.circuits[path[1].id].dst, 4u);
  for (const std::uint64_t bytes : {0ull, 1000ull, 200'000ull}) {
    testing::expect_exact(*net, 0, 4, bytes);  // two legs
    testing::expect_exact(*net, 0, 1, bytes);  // one
    testing::expect_exact(*net, 4, 8, bytes);
  }
}

TEST(SipRing, DescriptionAndFacts) {
  const auto net = make_sip_ring(Spec(64));
  EXPECT_EQ(net->nodes(), 64u);
  const auto facts = net->facts();
  const auto fact = [&](const std::string& name) {
    for (const auto& [k, v] : facts) {
      if (k == name) return v;
    }
    return std::string("(missing)");
  };
  EXPECT_EQ(fact("lightpath reach"),
            "15 hops: (hops + 1) x 0.625 dB per node <= 10 dB budget (degree 16)");
  EXPECT_EQ(fact("wavelengths per GPU"), "4");
  EXPECT_EQ(fact("re-planning period"), "100us");
  EXPECT_EQ(fact("reconfiguration delay"), "25us");
  EXPECT_NE(net->describe().find("reach 15 hops"), std::string::npos) << net->describe();
}

// ---------------------------------------------------------------------------
// The section reader: every error names its file, line, column and key.

SipRingSpec Read(const std::string& section) {
  return testing::read_section(section, read_sip_ring);
}
std::string ErrorOf(const std::string& section) {
  return testing::section_error(section, read_sip_ring, "(no error)");
}
std::string At(const std::string& section, const std::string& key) {
  return testing::located_at(section, key);
}

TEST(SipRingConfig, ReadsTheKeys) {
  const SipRingSpec d = Read("{nodes: 64, latency: 1us}");
  EXPECT_EQ(d.gpus, 64u);
  EXPECT_EQ(d.wavelengths, 64u);
  EXPECT_EQ(d.wavelength_rate_bps, 25'000'000'000u);
  EXPECT_EQ(d.transport.latency, 1000 * kNanosecond);
  EXPECT_EQ(d.transport.chunk_bytes, 256u << 10);
  EXPECT_EQ(d.period, 100'000'000u);
  EXPECT_EQ(d.reconfiguration_delay, 25'000'000u);
  EXPECT_EQ(d.loss_per_node_db, 0.625);
  EXPECT_EQ(d.power_budget_db, 10);
  EXPECT_EQ(d.solver, RingSolver::kShortestPath);
  EXPECT_EQ(Read("{nodes: 64, latency: 1us, planner: network-simplex}").solver,
            RingSolver::kNetworkSimplex);
  EXPECT_EQ(Read("{nodes: 64, latency: 1us, planner: shortest-path}").solver,
            RingSolver::kShortestPath);
  const SipRingSpec s = Read(
      "{nodes: 16, wavelengths: 8, wavelength_rate: 50Gbps, latency: 2us, chunk: 64KiB, "
      "period: 20us, reconfiguration_delay: 5us, loss_per_node: 2.5, power_budget: 12}");
  EXPECT_EQ(s.gpus, 16u);
  EXPECT_EQ(s.wavelengths, 8u);
  EXPECT_EQ(s.wavelength_rate_bps, 50'000'000'000u);
  EXPECT_EQ(s.transport.latency, 2000 * kNanosecond);
  EXPECT_EQ(s.transport.chunk_bytes, 64u << 10);
  EXPECT_EQ(s.period, 20'000'000u);
  EXPECT_EQ(s.reconfiguration_delay, 5'000'000u);
  EXPECT_EQ(s.loss_per_node_db, 2.5);
  EXPECT_EQ(s.power_budget_db, 12);
  EXPECT_EQ(sip_ring_reach(s), 3u);  // 12 / 2.5 = 4.8: 4 interfaces
}

// Every period is an epoch of the run: a rate at which one chunk spans more
// than 10,000 periods is refused, with the least rate that would do.
TEST(SipRingConfig, RefusesARateOfBillionsOfEpochs) {
  const std::string e = ErrorOf("{nodes: 16, latency: 1us, wavelength_rate: 1bps}");
  EXPECT_EQ(e.rfind(At("{nodes: 16, latency: 1us, wavelength_rate: 1bps}", "wavelength_rate"), 0),
            0u)
      << e;
  EXPECT_NE(e.find("2.1e+10 re-planning periods of 100us"), std::string::npos) << e;
  EXPECT_NE(e.find("at least 2.097Mbps"), std::string::npos) << e;
  // At the least rate the run is accepted; a longer period or smaller chunk also helps.
  (void)Read("{nodes: 16, latency: 1us, wavelength_rate: 2098kbps}");
  (void)Read("{nodes: 16, latency: 1us, wavelength_rate: 1Mbps, period: 1ms}");
  EXPECT_NE(ErrorOf("{nodes: 16, latency: 1us, wavelength_rate: 2097kbps}"), "(no error)");
}

TEST(SipRingConfig, EachKeysErrorIsLocated) {
  const std::pair<std::string, std::string> bad[] = {
      {"{nodes: 1, latency: 1us}", "nodes"},
      {"{nodes: 70000, latency: 1us}", "nodes"},
      {"{nodes: 16, latency: 1us, wavelengths: 0}", "wavelengths"},
      {"{nodes: 16, latency: 1us, wavelengths: 5000}", "wavelengths"},
      {"{nodes: 16, latency: 1us, wavelength_rate: 0Gbps}", "wavelength_rate"},
      {"{nodes: 16, latency: 1us, wavelength_rate: fast}", "wavelength_rate"},
      {"{nodes: 16, latency: 0ns}", "latency"},
      {"{nodes: 16, latency: soon}", "latency"},
      {"{nodes: 16, latency: 1us, chunk: 0B}", "chunk"},
      {"{nodes: 16, latency: 1us, chunk: 3GiB}", "chunk"},
      {"{nodes: 16, latency: 1us, period: 0us}", "period"},
      {"{nodes: 16, latency: 1us, reconfiguration_delay: 100us}", "reconfiguration_delay"},
      {"{nodes: 16, latency: 1us, period: 20us, reconfiguration_delay: 30us}",
       "reconfiguration_delay"},
      {"{nodes: 16, latency: 1us, period: 20us}", "period"},  // the 25 us default delay
      {"{nodes: 16, latency: 1us, loss_per_node: 0}", "loss_per_node"},
      {"{nodes: 16, latency: 1us, loss_per_node: 6}", "loss_per_node"},  // no reach
      {"{nodes: 16, latency: 1us, power_budget: -1}", "power_budget"},
      {"{nodes: 16, latency: 1us, power_budget: 1}", "power_budget"},  // no reach
      {"{nodes: 16, latency: 1us, loss_per_node: 6, power_budget: 1}", "power_budget"},
      {"{nodes: 16, latency: 1us, planner: simplex}", "planner"},
  };
  for (const auto& [section, key] : bad) {
    const std::string e = ErrorOf(section);
    EXPECT_EQ(e.rfind(At(section, key), 0), 0u) << section << "\n  " << e;
  }
  EXPECT_NE(ErrorOf("{nodes: 16, latency: 1us, loss_per_node: 6}").find("leaves no reach"),
            std::string::npos);
  // Missing keys and typos.
  const std::string no_latency = ErrorOf("{nodes: 16}");
  EXPECT_EQ(no_latency.rfind("s.yaml:1:", 0), 0u) << no_latency;
  EXPECT_NE(no_latency.find("fabric.latency: missing required key"), std::string::npos)
      << no_latency;
  const std::string no_nodes = ErrorOf("{latency: 1us}");
  EXPECT_NE(no_nodes.find("fabric.nodes: missing required key"), std::string::npos) << no_nodes;
  // A typo is reported where the key is, with the key it resembles.
  EXPECT_EQ(ErrorOf("{nodes: 16, latency: 1us, wavelenghts: 8}"),
            "s.yaml:1:35: fabric.wavelenghts: unknown key; did you mean 'wavelengths'?");
}

}  // namespace
}  // namespace sipsim::fabric
