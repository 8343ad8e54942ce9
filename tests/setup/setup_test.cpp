// The composition root: scenario/ parses only the top level, the registries
// read each section with its module, and a collectives workload takes its
// shapes and placement from the fabric.
#include "sipsim/setup/setup.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/analytical/estimators.hpp"
#include "sipsim/collective/ramp_x.hpp"

namespace sipsim::setup {
namespace {

Setup read_text(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return read(base::Document::load_string(yaml, "s.yaml", overrides));
}

std::string error_of(const std::string& yaml) {
  try {
    read_text(yaml);
  } catch (const base::ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST(Setup, ScenarioParsesOnlyTheTopLevel) {
  // A bad fabric key passes the scenario's own parse; its module refuses it.
  const std::string yaml =
      "fabric: {type: elect-flat, nodes: 4, bandwidth: 1Gbps, latency: 1us, colour: red}\n"
      "workload: {type: collectives, op: all-reduce, algorithm: ring, size: 1MiB}\n";
  const scenario::Scenario s = scenario::load_scenario(base::Document::load_string(yaml, "s.yaml"));
  ASSERT_TRUE(s.fabric && s.workload);
  EXPECT_EQ(error_of(yaml), "s.yaml:1:70: fabric.colour: unknown key");
}

TEST(Setup, EveryRegisteredTypeIsOffered) {
  const std::string fabric_error = error_of("fabric: {type: mesh}\nworkload: {type: phold}\n");
  for (const FabricEntry& e : fabric_registry()) {
    EXPECT_NE(fabric_error.find(std::string(e.type)), std::string::npos) << e.type;
  }
  const std::string workload_error = error_of("workload: {type: trainer}\n");
  for (const WorkloadEntry& e : workload_registry()) {
    EXPECT_NE(workload_error.find(std::string(e.type)), std::string::npos) << e.type;
  }
}

TEST(Setup, EachFabricReadsItsSectionAndBuilds) {
  const std::vector<std::pair<std::string, std::uint32_t>> cases = {
      {"{type: elect-flat, nodes: 8, bandwidth: 100Gbps, latency: 1us}", 8},
      {"{type: cluster, preset: superpod, nodes: 64}", 64},
      {"{type: torus2d, dims: [4, 4], link_bandwidth: 100Gbps, hop_latency: 10ns}", 16},
      {"{type: bcube, ports: 4, levels: 2, link_bandwidth: 100Gbps}", 16},
      {"{type: topoopt, nodes: 32, link_bandwidth: 100Gbps, latency: 100ns}", 32},
      {"{type: ramp, x: 4, J: 4, Lambda: 8}", 128},
      {"{type: sipac, ports: 4, level: 1, bandwidth: 2048Gbps}", 16},
      {"{type: sip-ocs, nodes: 16, switches: 4, bandwidth: 400Gbps, latency: 1us}", 16},
      {"{type: sip-ring, nodes: 24, wavelengths: 8, latency: 1us}", 24},
  };
  std::vector<std::string> seen;
  for (const auto& [fabric, nodes] : cases) {
    const setup::Setup s =
        read_text("fabric: " + fabric +
                  "\nworkload: {type: collectives, op: all-gather, algorithm: ring, "
                  "size: 64KiB}\n");
    ASSERT_TRUE(s.fabric);
    EXPECT_EQ(s.fabric->nodes(), nodes) << fabric;
    EXPECT_EQ(build_network(s)->nodes(), nodes) << fabric;
    seen.emplace_back(s.fabric->type());
  }
  EXPECT_EQ(seen.size(), fabric_registry().size());  // every row exercised
}

TEST(Setup, CollectiveShapesComeFromTheFabricUnlessGiven) {
  const std::string workload =
      "\nworkload: {type: collectives, op: all-reduce, algorithm: auto, size: 1MiB}\n";
  {
    // One hierarchy level per tier of the 1,024-GPU SuperPod: servers of 8, leaves of 16 NICs.
    const setup::Setup s =
        read_text("fabric: {type: cluster, preset: superpod, nodes: 1024}" + workload);
    const collective::AlgorithmParams& p = s.workload->collective_job()->config.params;
    EXPECT_EQ(collective::levels(p.hierarchy), 4u);
    EXPECT_EQ(p.hierarchy[0], 8u);
    EXPECT_EQ(p.hierarchy[1], 2u);
    EXPECT_EQ(p.torus[0], 8u);
    EXPECT_EQ(p.torus[1], 128u);
  }
  {
    const setup::Setup s = read_text(
        "fabric: {type: torus2d, dims: [8, 4], link_bandwidth: 100Gbps, "
        "hop_latency: 10ns}" +
            workload,
        {"workload.dims=[2,16]"});
    const collective::AlgorithmParams& p = s.workload->collective_job()->config.params;
    EXPECT_EQ(p.hierarchy[0], 2u);
    EXPECT_EQ(p.torus[1], 16u);
  }
}

// RAMP §6.3: a ramp-x job is placed by the fabric (the sub-box with the fewest
// active steps) and the transcoder serves it (RAMP §6.2.2 eq. 3-4).
TEST(Setup, TheFabricPlacesJobsWhoseAlgorithmAsks) {
  const std::string fabric = "fabric: {type: ramp, x: 4, J: 4, Lambda: 8}\n";
  const setup::Setup placed =
      read_text(fabric +
                "workload: {type: collectives, op: all-reduce, algorithm: ramp-x, size: 1MiB, "
                "group: {count: 8}}\n");
  const CollectiveJob& job = *placed.workload->collective_job();
  EXPECT_EQ(job.members.size(), 8u);
  const fabric::ramp::RampShape& shape = collective::ramp_x::job_params(job.config.params).shape;
  EXPECT_EQ(fabric::ramp::job_size(shape), 8u);
  EXPECT_EQ(job.members, fabric::ramp::job_nodes(shape));
  bool served = false;
  for (const auto& [k, v] : build_network(placed)->facts()) {
    served = served || (k == "groups/pair (eq. 3-4)" && v.find("job 4x2x1x1") != std::string::npos);
  }
  EXPECT_TRUE(served);
  // The ring keeps the scenario's group: nodes 0..7.
  const setup::Setup ring =
      read_text(fabric +
                "workload: {type: collectives, op: all-reduce, algorithm: ring, size: 1MiB, "
                "group: {count: 8}}\n");
  const auto& members = ring.workload->collective_job()->members;
  EXPECT_EQ(members, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(error_of(fabric + "workload: {type: collectives, op: all-reduce, algorithm: ramp-x, "
                              "size: 1MiB, group: {count: 8, stride: 2}}\n"),
            "s.yaml:2:85: workload.group: the fabric chooses this job's nodes (RAMP §6.3): give "
            "only group.count");
}

TEST(Setup, AutoIsResolvedWhenBuilding) {
  const setup::Setup s = read_text(
      "fabric: {type: elect-flat, nodes: 16, bandwidth: 100Gbps, latency: 1us}\n"
      "workload: {type: collectives, op: all-reduce, algorithm: auto, sizes: {min: 1KiB, max: "
      "16MiB, factor: 128}}\n");
  EXPECT_TRUE(s.workload->collective_job()->auto_algorithm);
  const workload::Simulation sim = build(s);
  ASSERT_TRUE(sim.model && sim.results && sim.network);
  EXPECT_EQ(sim.network->nodes(), 16u);
}

TEST(Setup, AutoAmongNeedsAutoAndNamesEachAlgorithmOnce) {
  const std::string fabric =
      "fabric: {type: elect-flat, nodes: 16, bandwidth: 100Gbps, latency: 1us}\n";
  EXPECT_EQ(error_of(fabric +
                     "workload: {type: collectives, op: all-reduce, algorithm: ring, size: 1MiB, "
                     "auto_among: [ring]}\n"),
            "s.yaml:2:88: workload.auto_among: needs `algorithm: auto`: it lists what `auto` "
            "chooses among");
  EXPECT_EQ(error_of(fabric +
                     "workload: {type: collectives, op: all-reduce, algorithm: auto, size: 1MiB, "
                     "auto_among: [ring, ring]}\n"),
            "s.yaml:2:95: workload.auto_among[1]: is listed twice");
  EXPECT_NE(error_of(fabric +
                     "workload: {type: collectives, op: all-reduce, algorithm: auto, size: 1MiB, "
                     "auto_among: [rings]}\n")
                .find("workload.auto_among[0]"),
            std::string::npos);
}

TEST(Setup, AutoCanBeCheckedWithoutTheEstimates) {
  const setup::Setup s = read_text(
      "fabric: {type: elect-flat, nodes: 16, bandwidth: 100Gbps, latency: 1us}\n"
      "workload: {type: collectives, op: all-to-all, algorithm: auto, sizes: {min: 1KiB, max: "
      "16MiB, factor: 128}}\n");
  const workload::Simulation sim = build(s, {.resolve_auto = false});
  ASSERT_TRUE(sim.model && sim.results && sim.network);
  EXPECT_EQ(sim.network->nodes(), 16u);
}

// validate checks `auto` with a lower bound of the estimator's count of
// member-steps and computes the exact count only within 4x of the limit
// (workloads.cpp, check_auto): the bound must be within 4x.
TEST(Setup, WorkLowerBoundIsWithin4x) {
  std::size_t checked = 0;
  std::vector<std::pair<std::uint32_t, collective::Dims>> shapes;
  for (const std::uint32_t p : {2u, 3u, 5u, 8u, 12u, 64u, 96u, 256u, 1000u, 1024u}) {
    std::uint32_t a = 1;
    for (std::uint32_t d = 1; d * d <= p; ++d) {
      if (p % d == 0) a = d;
    }
    shapes.push_back({p, collective::Dims{a, p / a}});
  }
  shapes.push_back({1024, collective::Dims{8, 8, 16}});
  shapes.push_back({1024, collective::Dims{2, 512}});
  shapes.push_back({768, collective::Dims{8, 2, 3, 16}});
  for (const auto& [p, dims] : shapes) {
    collective::AlgorithmParams params;
    params.torus = params.hierarchy = dims;
    for (const std::string& name : collective::op_names()) {
      for (const collective::Algorithm algorithm : collective::all_algorithms()) {
        for (const std::uint64_t bytes : {0ull, 1ull, 1000ull, 1ull << 20, (1ull << 30) + 7}) {
          for (const std::uint32_t root : {0u, p - 1}) {
            const collective::CollectiveSpec spec = collective::make_spec(
                *collective::parse_op(name), algorithm, p, bytes, root, params);
            if (!collective::why_invalid(spec).empty()) continue;
            const std::uint64_t lower = analytical::critical_path_work_lower_bound(spec);
            const std::uint64_t exact = analytical::critical_path_work(spec);
            EXPECT_LE(lower, exact)
                << name << " " << collective::to_string(algorithm) << " p=" << p;
            EXPECT_LE(exact, 4 * lower) << name << " " << collective::to_string(algorithm)
                                        << " p=" << p << " bytes=" << bytes << " root=" << root;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 1000u);
}

// Every fabric parameter the builders would refuse is refused by the reader,
// at its key (docs/scenarios.md); what a reader accepts builds.
TEST(Setup, FabricErrorsNameTheirKey) {
  const std::string coll =
      "workload: {type: collectives, op: all-reduce, algorithm: ring, size: 1MiB}\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{type: cluster, preset: superpod, nodes: 100}",
       "s.yaml:1:50: fabric.nodes: must be a multiple of the server size (8, the default "
       "server_size)"},
      {"{type: cluster, nodes: 64, server_size: 1, nic: {bandwidth: 1Gbps}, tiers: [{down: 8}]}",
       "s.yaml:1:84: fabric.tiers: the product of the tiers' down (8) must equal the number of "
       "nodes (64, one NIC per node)"},
      {"{type: cluster, nodes: 64, server_size: 1, nic: {bandwidth: 1Gbps}, tiers: [{down: 8, "
       "oversubscription: 3}, {down: 8}]}",
       "s.yaml:1:113: fabric.tiers[0].oversubscription: must divide down (8): each switch has "
       "down / oversubscription uplinks"},
      {"{type: cluster, nodes: 64, server_size: 8, intra: {bandwidth: 1Tbps}, nic: {per: server, "
       "bandwidth: 1Gbps}, tiers: [{down: 64}]}",
       "s.yaml:1:124: fabric.tiers: the product of the tiers' down (64) must equal the number of "
       "servers (8, one NIC per server)"},
      {"{type: topoopt, nodes: 64, degree: 5, link_bandwidth: 1Gbps, latency: 1ns}",
       "s.yaml:1:44: fabric.degree: must be even and at least 2 (got 5): a node's links form "
       "degree / 2 bidirectional rings"},
      {"{type: topoopt, nodes: 12, degree: 6, link_bandwidth: 1Gbps, latency: 1ns}",
       "s.yaml:1:44: fabric.degree: degree 6 needs 3 ring offsets coprime with 12 in [1, 6], but "
       "only 2 exist (1, 5); the largest degree for 12 nodes is 4"},
      {"{type: ramp, x: 4, J: 4, Lambda: 16, line_rate: 1bps}",
       "s.yaml:1:57: fabric.line_rate: a slot must carry at least one byte, but 19ns of data at "
       "1bps is less than 8 bits"},
      {"{type: ramp, x: 4, J: 4, Lambda: 16, slot: 1010ps}",
       "s.yaml:1:52: fabric.slot: a slot must carry at least one byte, but 10ps of data at "
       "400Gbps is less than 8 bits"},
      {"{type: ramp, x: 128, J: 1, Lambda: 128}",
       "s.yaml:1:44: fabric.Lambda: exceeds the 122 wavelength channels of the tunable source "
       "(RAMP §4.1)"},
      {"{type: torus2d, dims: [65536, 65536], link_bandwidth: 1Gbps, hop_latency: 1ns}",
       "s.yaml:1:31: fabric.dims: 65536 x 65536 = 4294967296 nodes; at most 2^24 = 16777216"},
  };
  for (const auto& [fabric, message] : cases) {
    EXPECT_EQ(error_of("fabric: " + fabric + "\n" + coll), message);
  }
  // Through --set, the error names the argument.
  try {
    read_text("fabric: {type: topoopt, nodes: 64, link_bandwidth: 1Gbps, latency: 1ns}\n" + coll,
              {"fabric.degree=7"});
    ADD_FAILURE() << "degree 7 accepted";
  } catch (const base::ScenarioError& e) {
    EXPECT_EQ(e.location(), "--set fabric.degree=7");
    EXPECT_EQ(e.key_path(), "fabric.degree");
  }
}

TEST(Setup, SimulatedTimeBound) {
  const std::string fabric =
      "fabric: {type: elect-flat, nodes: 8, bandwidth: 400Gbps, latency: 1us}\n";
  EXPECT_EQ(error_of(fabric +
                     "workload: {type: collectives, op: all-reduce, algorithm: ring, size: 1PiB, "
                     "iterations: 100}\n"),
            "s.yaml:2:70: workload.size: the sweep may need more simulated time than a run can "
            "reach (2^63 ps, about 106 days): at 1PiB, 101 runs x 14 steps x 2.252e+04 s (the "
            "size over the fabric's slowest link, 400Gbps) exceed it; sizes up to about 326.1TB "
            "fit (docs/scenarios.md, \"Size bound\")");
  EXPECT_EQ(
      error_of(fabric +
               "workload: {type: collectives, op: all-reduce, algorithm: ring, size: 1PiB}\n"),
      "");
}

TEST(Setup, WorkloadsWithoutAFabric) {
  EXPECT_EQ(error_of("workload: {type: collectives, op: all-reduce, algorithm: ring, size: 1B}\n"),
            "s.yaml:1:11: workload: collectives need a fabric: add a fabric section");
  const setup::Setup phold =
      read_text("simulation: {end_time: 10us}\nworkload: {type: phold, lps: 4, lookahead: 1us}\n");
  EXPECT_FALSE(phold.fabric);
  EXPECT_EQ(phold.workload->collective_job(), nullptr);
  EXPECT_NE(phold.workload->closed_form(nullptr, analytical::Estimators()).find("events expected"),
            std::string::npos);
}

}  // namespace
}  // namespace sipsim::setup
