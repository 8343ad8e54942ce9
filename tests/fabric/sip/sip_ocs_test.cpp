// SiP-OCS's controller (fabric/sip/sip_ocs): the one-shot plan is the App.
// A.2 allocation's circuits; in dynamic mode every 5d a new allocation, kept
// where a switch keeps a GPU's input-output pair, with the job's idle pairs
// served where ports allow; and its section's errors.
#include "sipsim/fabric/sip/sip_ocs.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "read_section.hpp"
#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/pdes/model.hpp"

namespace sipsim::fabric {
namespace {

using pdes::kNanosecond;

SipOcsSpec Spec(std::uint32_t gpus, std::uint32_t switches, bool dynamic = false) {
  SipOcsSpec s;
  s.gpus = gpus;
  s.switches = switches;
  s.bandwidth_bps = 400'000'000'000;
  s.transport.latency = 1000 * kNanosecond;
  s.allocation = OcsMethod::heuristic;
  s.dynamic = dynamic;
  s.reconfiguration_delay = 4'000'000;  // 4 us
  return s;
}

std::vector<double> Dense(std::uint32_t n, const std::vector<PairTraffic>& pairs) {
  std::vector<double> tm(std::size_t{n} * n, 0.0);
  for (const PairTraffic& t : pairs) tm[t.src * n + t.dst] += static_cast<double>(t.bytes);
  return tm;
}

OcsAllocation Allocate(const SipOcsSpec& s, const std::vector<PairTraffic>& pairs) {
  OcsAllocationOptions o;
  o.method = s.allocation;
  o.ilp_time_limit_s = s.ilp_time_limit_s;
  return allocate_ocs_circuits(static_cast<int>(s.gpus), static_cast<int>(s.switches),
                               Dense(s.gpus, pairs), o);
}

// The circuits of an allocation, kept where `before` had the same switch
// joining the same pair (all of them without `before`).
std::vector<Circuit> Circuits(const OcsAllocation& a, const OcsAllocation* before) {
  std::vector<Circuit> out;
  for (int i = 0; i < a.gpus; ++i) {
    for (int j = 0; j < a.gpus; ++j) {
      if (i == j || a.circuits_between(i, j) == 0) continue;
      Circuit c{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j),
                static_cast<std::uint32_t>(a.circuits_between(i, j)), 0};
      for (int k = 0; k < a.switches; ++k) {
        const auto& now = a.permutation[static_cast<std::size_t>(k)];
        if (now[static_cast<std::size_t>(i)] != j) continue;
        if (before == nullptr ||
            before->permutation[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)] == j) {
          ++c.kept;
        }
      }
      out.push_back(c);
    }
  }
  return out;
}

// 8 GPUs: a ring (i -> i+1, 4 MB) and pairs 4 apart (i -> i+4, 1 MB).
std::vector<PairTraffic> RingAndHalves() {
  std::vector<PairTraffic> job;
  for (std::uint32_t i = 0; i < 8; ++i) {
    const std::uint32_t a = (i + 1) % 8, b = (i + 4) % 8;
    if (a < b) {
      job.push_back({i, a, 4'000'000});
      job.push_back({i, b, 1'000'000});
    } else {
      job.push_back({i, b, 1'000'000});
      job.push_back({i, a, 4'000'000});
    }
  }
  return job;
}

TEST(SipOcs, OneShotPlanIsTheAllocationsCircuits) {
  for (const OcsMethod method : {OcsMethod::heuristic, OcsMethod::ilp}) {
    SipOcsSpec s = Spec(8, 4);
    s.allocation = method;
    auto ocs = make_sip_ocs_controller(s);
    EXPECT_EQ(ocs->period(), 0u);  // one plan for the job
    const std::vector<PairTraffic> job = RingAndHalves();
    const CircuitPlan plan = ocs->first_plan(job);
    const OcsAllocation a = Allocate(s, job);
    EXPECT_EQ(plan.circuits, Circuits(a, nullptr));
    // Every pair of the job has a circuit (Q = 4 ports for 2 peers), the ring
    // more of them, and no GPU more than Q.
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> units;
    std::vector<std::uint32_t> out(8, 0);
    for (const Circuit& c : plan.circuits) {
      units[std::make_pair(c.src, c.dst)] = c.units;
      out[c.src] += c.units;
      EXPECT_EQ(c.kept, c.units);  // set up before the job starts
    }
    for (const PairTraffic& t : job) EXPECT_GE(units[std::make_pair(t.src, t.dst)], 1u);
    for (std::uint32_t i = 0; i < 8; ++i) {
      EXPECT_LE(out[i], 4u);
      EXPECT_GT(units[std::make_pair(i, (i + 1) % 8)], units[std::make_pair(i, (i + 4) % 8)]);
    }
  }
  EXPECT_EQ(sip_ocs_circuit_rate_bps(Spec(8, 4)), 100'000'000'000u);
}

TEST(SipOcs, DynamicPlansKeepWhatEachSwitchKeeps) {
  const SipOcsSpec s = Spec(8, 4, true);
  auto ocs = make_sip_ocs_controller(s);
  EXPECT_EQ(ocs->period(), 5 * 4'000'000u);  // 5d
  EXPECT_EQ(ocs->reconfiguration_delay(), 4'000'000u);
  const std::vector<PairTraffic> job = RingAndHalves();
  const CircuitPlan first = ocs->first_plan(job);
  const OcsAllocation a = Allocate(s, job);
  EXPECT_EQ(first.circuits, Circuits(a, nullptr));

  pdes::RandomStream rng(1, pdes::kEpochStreamLp, 0);
  const pdes::EpochInfo info{20'000'000, 0, rng};
  // An idle period keeps the plan.
  EXPECT_FALSE(ocs->next_plan(first, {}, info).has_value());

  // A period with only the pairs 4 apart busy: the allocation for them, the
  // job's idle ring pairs asking 1 B each.
  std::vector<PairTraffic> demand;
  for (std::uint32_t i = 0; i < 8; ++i) demand.push_back({i, (i + 4) % 8, 9'000'000});
  std::vector<PairTraffic> wanted = demand;
  for (std::uint32_t i = 0; i < 8; ++i) wanted.push_back({i, (i + 1) % 8, 1});
  const auto second = ocs->next_plan(first, demand, info);
  ASSERT_TRUE(second.has_value());
  const OcsAllocation b = Allocate(s, wanted);
  EXPECT_EQ(second->circuits, Circuits(b, &a));
  // Ports allow it: the idle ring pairs keep a circuit, and the busy pairs
  // get the rest (3 of each GPU's 4).
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> units;
  std::uint32_t changed = 0;
  for (const Circuit& c : second->circuits) {
    units[std::make_pair(c.src, c.dst)] = c.units;
    changed += c.units - c.kept;
  }
  for (std::uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(units[std::make_pair(i, (i + 1) % 8)], 1u) << i;
    EXPECT_EQ(units[std::make_pair(i, (i + 4) % 8)], 3u) << i;
  }
  EXPECT_GT(changed, 0u);  // the halves gained circuits: some are new

  // The same demand again: the same allocation, every circuit kept.
  const auto third = ocs->next_plan(*second, demand, info);
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(third->circuits, Circuits(b, &b));
  for (const Circuit& c : third->circuits) EXPECT_EQ(c.kept, c.units);
}

TEST(SipOcs, DescriptionAndFacts) {
  EXPECT_EQ(make_sip_ocs_controller(Spec(8, 4))->describe(),
            "4 OCSs, heuristic allocation, one-shot");
  EXPECT_EQ(make_sip_ocs_controller(Spec(8, 4, true))->describe(),
            "4 OCSs, heuristic allocation, dynamic (every 5d, d = 4us)");
  const auto net = make_sip_ocs(Spec(8, 4, true));
  EXPECT_EQ(net->nodes(), 8u);
  bool period = false;
  for (const auto& [k, v] : net->facts()) {
    if (k == "re-planning period") {
      EXPECT_EQ(v, "20us");
      period = true;
    }
  }
  EXPECT_TRUE(period);
}

// ---------------------------------------------------------------------------
// The section reader: every error names its file, line, column and key.

SipOcsSpec Read(const std::string& section) {
  return testing::read_section(section, read_sip_ocs);
}
std::string ErrorOf(const std::string& section) {
  return testing::section_error(section, read_sip_ocs, "(no error)");
}
std::string At(const std::string& section, const std::string& key) {
  return testing::located_at(section, key);
}

// Dynamic mode re-plans every 5d: a circuit rate at which one chunk spans
// more than 10,000 periods is refused at bandwidth.
TEST(SipOcsConfig, RefusesARateOfBillionsOfEpochs) {
  const std::string slow =
      "{nodes: 16, bandwidth: 16bps, latency: 1us, mode: dynamic, reconfiguration_delay: 1us}";
  const std::string e = ErrorOf(slow);
  EXPECT_EQ(e.rfind(At(slow, "bandwidth"), 0), 0u) << e;
  EXPECT_NE(e.find("re-planning periods of 5us"), std::string::npos) << e;
  // One-shot mode has no epochs: the same rate is accepted.
  (void)Read("{nodes: 16, bandwidth: 16bps, latency: 1us}");
}

TEST(SipOcsConfig, ReadsTheKeys) {
  const SipOcsSpec d = Read("{nodes: 16, bandwidth: 400Gbps, latency: 1us}");
  EXPECT_EQ(d.gpus, 16u);
  EXPECT_EQ(d.switches, 16u);
  EXPECT_EQ(d.bandwidth_bps, 400'000'000'000u);
  EXPECT_EQ(d.transport.latency, 1000 * kNanosecond);
  EXPECT_EQ(d.transport.chunk_bytes, 1u << 20);
  EXPECT_EQ(d.allocation, OcsMethod::ilp);  // up to 16 GPUs
  EXPECT_EQ(d.ilp_time_limit_s, 30);
  EXPECT_FALSE(d.dynamic);
  EXPECT_EQ(d.reconfiguration_delay, 10'000'000'000u);  // 10 ms
  EXPECT_EQ(Read("{nodes: 17, bandwidth: 400Gbps, latency: 1us}").allocation, OcsMethod::heuristic);
  const SipOcsSpec s = Read(
      "{nodes: 64, switches: 4, bandwidth: 1Tbps, latency: 2us, chunk: 64KiB, allocation: ilp, "
      "ilp_time_limit: 5, mode: dynamic, reconfiguration_delay: 300us}");
  EXPECT_EQ(s.gpus, 64u);
  EXPECT_EQ(s.switches, 4u);
  EXPECT_EQ(s.bandwidth_bps, 1'000'000'000'000u);
  EXPECT_EQ(s.transport.latency, 2000 * kNanosecond);
  EXPECT_EQ(s.transport.chunk_bytes, 64u << 10);
  EXPECT_EQ(s.allocation, OcsMethod::ilp);
  EXPECT_EQ(s.ilp_time_limit_s, 5);
  EXPECT_TRUE(s.dynamic);
  EXPECT_EQ(s.reconfiguration_delay, 300'000'000u);
}

TEST(SipOcsConfig, EachKeysErrorIsLocated) {
  const std::pair<std::string, std::string> bad[] = {
      {"{nodes: 1, bandwidth: 400Gbps, latency: 1us}", "nodes"},
      {"{nodes: 70000, bandwidth: 400Gbps, latency: 1us}", "nodes"},
      {"{nodes: 16, switches: 0, bandwidth: 400Gbps, latency: 1us}", "switches"},
      {"{nodes: 16, switches: 2000, bandwidth: 400Gbps, latency: 1us}", "switches"},
      {"{nodes: 16, bandwidth: 0Gbps, latency: 1us}", "bandwidth"},
      {"{nodes: 16, switches: 16, bandwidth: 15bps, latency: 1us}", "bandwidth"},
      {"{nodes: 16, bandwidth: 400Gbps, latency: 0ns}", "latency"},
      {"{nodes: 16, bandwidth: 400Gbps, latency: 1us, chunk: 0B}", "chunk"},
      {"{nodes: 16, bandwidth: 400Gbps, latency: 1us, chunk: 3GiB}", "chunk"},
      {"{nodes: 16, bandwidth: 400Gbps, latency: 1us, allocation: greedy}", "allocation"},
      {"{nodes: 65, bandwidth: 400Gbps, latency: 1us, allocation: ilp}", "allocation"},
      {"{nodes: 16, bandwidth: 400Gbps, latency: 1us, ilp_time_limit: 0}", "ilp_time_limit"},
      {"{nodes: 16, bandwidth: 400Gbps, latency: 1us, mode: sometimes}", "mode"},
      {"{nodes: 16, bandwidth: 400Gbps, latency: 1us, mode: dynamic, reconfiguration_delay: 0us}",
       "reconfiguration_delay"},
  };
  for (const auto& [section, key] : bad) {
    const std::string e = ErrorOf(section);
    EXPECT_EQ(e.rfind(At(section, key), 0), 0u) << section << "\n  " << e;
  }
  EXPECT_NE(ErrorOf("{nodes: 65, bandwidth: 400Gbps, latency: 1us, allocation: ilp}")
                .find("ilp is for at most 64 GPUs; use heuristic"),
            std::string::npos);
  // A zero delay is fine one-shot (it is not used).
  EXPECT_EQ(Read("{nodes: 16, bandwidth: 400Gbps, latency: 1us, reconfiguration_delay: 0us}")
                .reconfiguration_delay,
            0u);
  const std::pair<std::string, std::string> missing[] = {
      {"{bandwidth: 400Gbps, latency: 1us}", "nodes"},
      {"{nodes: 16, latency: 1us}", "bandwidth"},
      {"{nodes: 16, bandwidth: 400Gbps}", "latency"},
  };
  for (const auto& [section, key] : missing) {
    const std::string e = ErrorOf(section);
    EXPECT_EQ(e.rfind("s.yaml:1:", 0), 0u) << e;
    EXPECT_NE(e.find("fabric." + key + ": missing required key"), std::string::npos)
        << section << "\n  " << e;
  }
  const std::string typo = ErrorOf("{nodes: 16, bandwidth: 400Gbps, latency: 1us, swiches: 4}");
  EXPECT_NE(typo.find("fabric.swiches: unknown key"), std::string::npos) << typo;
}

}  // namespace
}  // namespace sipsim::fabric
