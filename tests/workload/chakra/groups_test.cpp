// The chakra workload's process groups (docs/models.md, "Chakra traces") on
// traces written by et_writer.hpp: collectives on `process_groups` (listed
// ranks, {size, stride}) and on involved_dim with `dimensions` take the ring
// all-reduce's closed form of their group size on an idle elect-flat fabric,
// per-GPU and replicated traces alike; every error is located. Runs at 1 and
// 2 ranks (ctest): the same times at both.
#include <gtest/gtest.h>

#include <boost/mpi/communicator.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "et_writer.hpp"
#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/compute/accelerator.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/pdes/engine.hpp"
#include "sipsim/setup/setup.hpp"
#include "sipsim/workload/training_results.hpp"

namespace sipsim::workload::chakra {
namespace {

namespace fs = std::filesystem;
using testing::EtWriter;
using Node = testing::et::Node;

// The end of one iteration (ps), or -1 with a failure.
double run_time(const std::string& yaml) {
  Simulation sim = setup::build(setup::read(base::Document::load_string(yaml, "pg.yaml")));
  auto* training = dynamic_cast<TrainingResults*>(sim.results.get());
  EXPECT_NE(training, nullptr);
  if (training == nullptr) return -1;
  const boost::mpi::communicator world;
  pdes::EngineOptions o;
  o.progress_interval_s = 0;
  pdes::run(*sim.model, sim.model->partition(world.size()), world, o);
  EXPECT_EQ(training->unfinished(world), "");
  training->collect(world);
  return static_cast<double>(training->iteration_time(0));
}

using testing::write_traces;

// An all-reduce of `bytes` on pg_name `pg` (none: "") with an involved_dim
// (none: {}).
Node all_reduce(std::uint64_t id, std::int64_t bytes, const std::string& pg,
                const std::vector<bool>& dims = {}, std::vector<std::uint64_t> deps = {}) {
  Node n = testing::coll(id, 0, bytes, std::move(deps));
  if (!pg.empty()) testing::set_string(n, "pg_name", pg);
  if (!dims.empty()) testing::set_bools(n, "involved_dim", dims);
  return n;
}

constexpr double kBandwidth = 100e9 / 8, kLatency = 1e-6;

std::string scenario(const std::string& trace, const std::string& keys) {
  return "fabric: {type: elect-flat, nodes: 8, bandwidth: 100Gbps, latency: 1us}\n"
         "compute: {preset: a100}\n"
         "workload: {type: chakra, trace: " +
         trace + ", algorithms: {all-reduce: ring}" + (keys.empty() ? "" : ", " + keys) + "}\n";
}

// Ring all-reduce of S bytes on p GPUs behind an idle elect-flat switch
// (ps): 2 (p - 1) steps of a + S / (p B), and p - 1 reductions of S / p.
double ring_ps(double p, double bytes) {
  const auto device = compute::make_device(compute::preset("a100"));
  const double reduce =
      static_cast<double>(device->reduce_ps(2, static_cast<std::uint64_t>(bytes / p)));
  return 2 * (p - 1) * (kLatency + bytes / (p * kBandwidth)) * 1e12 + (p - 1) * reduce;
}

constexpr std::int64_t kTpBytes = 1 << 20, kDpBytes = 3 << 20;
const char* const kGroups = "process_groups: {tp: {size: 4}, dp: {size: 2, stride: 4}}";

// tp (groups of 4) then dp (groups of 2, 4 apart) on 8 GPUs, one after the
// other: the sum of the two rings' closed forms, per-GPU traces or one
// replicated.
TEST(ChakraGroups, ProcessGroupsTakeTheirRingsClosedForms) {
  const double expected = ring_ps(4, kTpBytes) + ring_ps(2, kDpBytes);
  std::vector<EtWriter> t(8);
  for (EtWriter& w : t) {
    w.add(all_reduce(1, kTpBytes, "tp"));
    w.add(all_reduce(2, kDpBytes, "dp", {}, {1}));
  }
  const std::string per_gpu = write_traces("pg", std::move(t));
  const double simulated = run_time(scenario(per_gpu, kGroups));
  std::printf("tp 1 MiB on 4, then dp 3 MiB on 2: simulated %.6f us, closed form %.6f us\n",
              simulated * 1e-6, expected * 1e-6);
  EXPECT_NEAR(simulated, expected, expected * 5e-3) << simulated << " ps";

  std::vector<EtWriter> one(1);
  one[0].add(all_reduce(1, kTpBytes, "tp"));
  one[0].add(all_reduce(2, kDpBytes, "dp", {}, {1}));
  const std::string replicated = write_traces("pg_replicated", std::move(one));
  EXPECT_EQ(run_time(scenario(replicated, std::string(kGroups) + ", replicate: 8")), simulated);

  // The same groups listed rank by rank: GPUs 0..3 and 4..7 on tp, pairs on dp.
  std::vector<EtWriter> listed(8);
  for (std::uint32_t g = 0; g < 8; ++g) {
    listed[g].add(all_reduce(1, kTpBytes, g < 4 ? "tp0" : "tp1"));
    listed[g].add(all_reduce(2, kDpBytes, "dp" + std::to_string(g % 4), {}, {1}));
  }
  const std::string by_rank = write_traces("pg_listed", std::move(listed));
  EXPECT_EQ(run_time(scenario(by_rank,
                              "process_groups: {tp0: [0, 1, 2, 3], tp1: [4, 5, 6, 7], dp0: [0, 4], "
                              "dp1: [1, 5], dp2: [2, 6], dp3: [3, 7]}")),
            simulated);
}

// Without a dependency between them, tp and dp run on their own streams:
// they overlap, so the iteration is shorter than their sum.
TEST(ChakraGroups, CollectivesOnDifferentCommunicatorsOverlap) {
  std::vector<EtWriter> t(1);
  t[0].add(all_reduce(1, kTpBytes, "tp"));
  t[0].add(all_reduce(2, kDpBytes, "dp"));
  const std::string trace = write_traces("pg_overlap", std::move(t));
  const double simulated = run_time(scenario(trace, std::string(kGroups) + ", replicate: 8"));
  EXPECT_LT(simulated, ring_ps(4, kTpBytes) + ring_ps(2, kDpBytes));
  EXPECT_GE(simulated, std::max(ring_ps(4, kTpBytes), ring_ps(2, kDpBytes)) * 0.995);
}

// dimensions [2, 4]: involved_dim [1, 0] is pairs of consecutive GPUs,
// [0, 1] groups of 4 GPUs 2 apart, [1, 1] (or none) all 8, a pg_name not in
// process_groups all 8 too; a group of one GPU is a no-op.
TEST(ChakraGroups, InvolvedDimWithDimensions) {
  std::vector<EtWriter> t(1);
  t[0].add(all_reduce(1, kTpBytes, "", {true, false}));
  t[0].add(all_reduce(2, kDpBytes, "", {false, true}, {1}));
  t[0].add(all_reduce(3, kTpBytes, "", {true, true}, {2}));
  t[0].add(all_reduce(4, kTpBytes, "default_pg", {}, {3}));
  t[0].add(all_reduce(5, kTpBytes, "", {false, false}, {4}));
  const std::string trace = write_traces("dims", std::move(t));
  const std::string yaml = scenario(trace, "replicate: 8, dimensions: [2, 4]");
  const double expected = ring_ps(2, kTpBytes) + ring_ps(4, kDpBytes) + 2 * ring_ps(8, kTpBytes);
  const double simulated = run_time(yaml);
  std::printf("dims [2, 4]: simulated %.6f us, closed form %.6f us\n", simulated * 1e-6,
              expected * 1e-6);
  EXPECT_NEAR(simulated, expected, expected * 5e-3) << simulated << " ps";
  // `sipsim info` lists the communicators.
  const std::string info =
      setup::read(base::Document::load_string(yaml, "pg.yaml")).workload->info();
  for (const char* line : {"dims [1, 0]: 4 groups of 2 GPUs", "dims [0, 1]: 2 groups of 4 GPUs",
                           "all GPUs: 1 group of 8 GPUs", "dims [0, 0]: 8 groups of 1 GPU",
                           "pg 'default_pg': not in process_groups, on all GPUs"}) {
    EXPECT_NE(info.find(line), std::string::npos) << line << " in\n" << info;
  }
}

// On RAMP, `dimensions` are the job's axes as the fabric places them (RAMP
// §6.3: each axis a factor of the sub-box): the axis groups, and the job of
// all GPUs, run RAMP-x under `auto`. Without `dimensions` a sub-group has
// only the mapper's plain parameters, so the all-reduces fall back to ring.
TEST(ChakraGroups, DimensionsAreTheJobsAxesOnRamp) {
  std::vector<EtWriter> t(1);
  t[0].add(all_reduce(1, kTpBytes, "", {true, false}));
  t[0].add(all_reduce(2, kDpBytes, "", {false, true}, {1}));
  t[0].add(all_reduce(3, kTpBytes, "", {true, true}, {2}));
  const std::string trace = write_traces("ramp_axes", std::move(t));
  std::vector<EtWriter> u(1);
  u[0].add(all_reduce(1, kTpBytes, "tp"));
  u[0].add(all_reduce(2, kTpBytes, "", {}, {1}));
  const std::string pg_trace = write_traces("ramp_pg", std::move(u));
  const auto header = [&](const std::string& file, const std::string& keys) {
    const std::string yaml =
        "fabric: {type: ramp, x: 2, J: 2, Lambda: 2}\ncompute: {preset: a100}\n"
        "workload: {type: chakra, trace: " +
        file + ", replicate: 8, " + keys + "}\n";
    Simulation sim = setup::build(setup::read(base::Document::load_string(yaml, "axes.yaml")));
    auto* training = dynamic_cast<TrainingResults*>(sim.results.get());
    if (training == nullptr) return std::string("no training results");
    const boost::mpi::communicator world;
    pdes::EngineOptions o;
    o.progress_interval_s = 0;
    pdes::run(*sim.model, sim.model->partition(world.size()), world, o);
    EXPECT_EQ(training->unfinished(world), "") << keys;
    training->collect(world);
    EXPECT_GT(training->iteration_time(0), 0) << keys;
    std::ostringstream out;
    training->print(out);
    return out.str();
  };
  const std::string axes = header(trace, "dimensions: [2, 4]");
  EXPECT_NE(axes.find("# algorithms: all-reduce ramp-x; placed by the fabric"), std::string::npos)
      << axes;
  const std::string groups = header(pg_trace, "process_groups: {tp: {size: 2}}");
  EXPECT_NE(groups.find("# algorithms: all-reduce ring;"), std::string::npos) << groups;
}

struct Failure {
  std::string key, message;
};

Failure failure(const std::string& yaml) {
  try {
    setup::read(base::Document::load_string(yaml, "pg.yaml"));
  } catch (const base::ScenarioError& e) {
    return {e.key_path(), e.message()};
  }
  ADD_FAILURE() << yaml << " read without an error";
  return {};
}

// Each error of the keys at its key, each of the traces at `trace` naming the
// file and node.
TEST(ChakraGroups, ErrorsAreLocated) {
  std::vector<EtWriter> t(8);
  for (std::uint32_t g = 0; g < 8; ++g) {
    t[g].add(all_reduce(1, 4096, g < 4 ? "tp" : "other"));
    t[g].add(all_reduce(2, 4096, "", {true, false}, {1}));
  }
  const std::string trace = write_traces("bad", std::move(t));
  struct Case {
    std::string keys, key, message;
  };
  const std::vector<Case> cases = {
      {"process_groups: {tp: [0, 9]}", "workload.process_groups.tp[1]",
       "rank 9 is not a GPU of the 8"},
      {"process_groups: {tp: [0, 1, 1]}", "workload.process_groups.tp[2]",
       "rank 1 is listed twice"},
      {"process_groups: {tp: {size: 3}}", "workload.process_groups.tp",
       "size 3 x stride 1 = 3 does not divide the 8 GPUs"},
      {"process_groups: {tp: {size: 2, stride: 3}}", "workload.process_groups.tp",
       "size 2 x stride 3 = 6 does not divide the 8 GPUs"},
      {"process_groups: {tp: 4}", "workload.process_groups.tp",
       "expected a list of GPU ranks or {size: k, stride: s}"},
      {"dimensions: [2, 2]", "workload.dimensions",
       "the product of the dimensions is 4, not the 8 GPUs"},
      {"process_groups: {tp: [0, 1, 2]}, dimensions: [2, 4]", "workload.trace",
       trace + ".3.et: node 1 ('coll_1'): attr pg_name: GPU 3 runs a collective on pg 'tp', whose "
               "ranks are [0, 1, 2]"},
      {"", "workload.trace",
       trace + ".0.et: node 2 ('coll_2'): attr involved_dim: dims [1, 0] leaves dimensions out, "
               "but the workload has no `dimensions`"},
      {"dimensions: [2, 2, 2]", "workload.trace",
       trace + ".0.et: node 2 ('coll_2'): attr involved_dim: 2 dimensions, but `dimensions` has 3"},
  };
  for (const Case& c : cases) {
    const Failure f = failure(scenario(trace, c.keys));
    EXPECT_EQ(f.key, c.key) << c.keys << ": " << f.message;
    EXPECT_NE(f.message.find(c.message), std::string::npos) << c.keys << ": " << f.message;
  }
}

// Collectives match among each communicator's members only: the two tp
// groups may differ, GPUs within one may not (both files and nodes named).
TEST(ChakraGroups, CollectivesMatchWithinTheirCommunicator) {
  const auto traces = [](std::int64_t gpu6_bytes) {
    std::vector<EtWriter> t(8);
    for (std::uint32_t g = 0; g < 8; ++g)
      t[g].add(all_reduce(1, g == 6 ? gpu6_bytes : g < 4 ? 4096 : 8192, "tp"));
    return t;
  };
  const std::string good = write_traces("match", traces(8192));
  EXPECT_GT(run_time(scenario(good, kGroups)), 0);
  const std::string bad = write_traces("mismatch", traces(4096));
  const Failure f = failure(scenario(bad, kGroups));
  EXPECT_EQ(f.key, "workload.trace");
  EXPECT_NE(f.message.find("collective 0 differs between GPUs: " + bad +
                           ".4.et: node 1 ('coll_1') is ALL_REDUCE of 8192 bytes, " + bad +
                           ".6.et: node 1 ('coll_1') is ALL_REDUCE of 4096 bytes (communicator "
                           "pg 'tp' #1)"),
            std::string::npos)
      << f.message;
}

}  // namespace
}  // namespace sipsim::workload::chakra
