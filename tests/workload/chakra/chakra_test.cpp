// The chakra workload on the shared test data (skipped when absent):
// ASTRA-sim's microbenchmarks on the fabrics equal to its analytical Ring and
// Switch against its closed forms, and the PyTorch step replicated to 8 GPUs on
// RAMP and the SuperPod; traces written by et_writer.hpp for what the data
// lacks: a send and receive between GPUs against latency + bytes / bandwidth,
// and traces that disagree across GPUs. Runs at 1 and 3 ranks (ctest).
#include <gtest/gtest.h>

#include <boost/mpi/communicator.hpp>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "et_writer.hpp"
#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/collective/ramp_x.hpp"
#include "sipsim/compute/accelerator.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"
#include "sipsim/fabric/ramp/transport.hpp"
#include "sipsim/pdes/engine.hpp"
#include "sipsim/setup/setup.hpp"
#include "sipsim/workload/training_results.hpp"

namespace sipsim::workload::chakra {
namespace {

namespace fs = std::filesystem;

const fs::path kData = SIPSIM_CHAKRA_DATA;
const fs::path kScenarios = SIPSIM_SCENARIOS;

struct Ran {
  std::unique_ptr<Results> results;
  TrainingResults* training = nullptr;
  std::string unfinished;
};

Ran run_setup(const setup::Setup& s) {
  Simulation sim = setup::build(s);
  Ran r;
  r.results = std::move(sim.results);
  r.training = dynamic_cast<TrainingResults*>(r.results.get());
  EXPECT_NE(r.training, nullptr);
  if (r.training == nullptr) return r;
  const boost::mpi::communicator world;
  pdes::EngineOptions o;
  o.progress_interval_s = 0;
  pdes::run(*sim.model, sim.model->partition(world.size()), world, o);
  r.unfinished = r.training->unfinished(world);
  r.training->collect(world);
  return r;
}

Ran run_scenario(const fs::path& path) {
  return run_setup(setup::read(base::Document::load_file(path.string())));
}

using testing::EtWriter;

using testing::write_traces;

std::string scenario(const std::string& trace, std::uint32_t gpus) {
  return "fabric: {type: elect-flat, nodes: " + std::to_string(gpus) +
         ", bandwidth: 100Gbps, latency: 1us}\n"
         "compute: {preset: a100}\n"
         "workload: {type: chakra, trace: " +
         trace + "}\n";
}

// The message of reading a scenario that must fail at workload.trace.
std::string trace_error(const std::string& trace, std::uint32_t gpus) {
  try {
    setup::read(base::Document::load_string(scenario(trace, gpus), "t.yaml"));
  } catch (const base::ScenarioError& e) {
    EXPECT_EQ(e.key_path(), "workload.trace") << e.message();
    return e.message();
  }
  ADD_FAILURE() << trace << " read without an error";
  return "";
}

// ASTRA-sim's microbenchmarks against ASTRA-sim's closed forms
// (docs/validation.md). Its analytical backend prices a message of m bytes
// over h hops at h L + m / B (B in GB/s of 2^30 bytes), and its ring
// collectives move, per NPU of p, with S = comm_size:
//   all-reduce      2 (p - 1) messages of S / p
//   reduce-scatter      p - 1 messages of S / p
//   all-gather          p - 1 messages of S
//   all-to-all   p (p - 1) / 2 messages of S / p (relayed, one in flight)
// each to a ring neighbour, one after another: one hop on a Ring, two
// (NPU, switch, NPU) on a Switch. Both shipped scenarios run every
// microbenchmark (4 ops at 4, 8 and 16 NPUs) within 0.5%.
TEST(ChakraWorkload, AstraSimMicrobenchmarksMatchAstraSimClosedForms) {
  const fs::path bench = kData / "astra-sim-microbenchmarks";
  if (!fs::exists(bench)) GTEST_SKIP() << "no test data";
  const double L = 500e-9, B = 50.0 * (1u << 30), S = 1'048'576;
  struct Topology {
    const char* scenario;
    double hops;
  };
  double worst = 0;
  for (const Topology topo :
       {Topology{"astra-ring-8.yaml", 1}, Topology{"astra-switch-8.yaml", 2}}) {
    for (const char* op : {"all_reduce", "reduce_scatter", "all_gather", "all_to_all"}) {
      for (const int p : {4, 8, 16}) {
        const std::string op_s = op;
        const double messages = op_s == "all_reduce"   ? 2.0 * (p - 1)
                                : op_s == "all_to_all" ? p * (p - 1) / 2.0
                                                       : p - 1.0;
        const double m = op_s == "all_gather" ? S : S / p;
        const double expected = messages * (topo.hops * L + m / B);
        const fs::path trace = bench / op / (std::to_string(p) + "npus_1MB") / op;
        const Ran r = run_setup(setup::read(base::Document::load_file(
            (kScenarios / "chakra" / topo.scenario).string(),
            {"workload.trace=" + trace.string(), "fabric.nodes=" + std::to_string(p)})));
        ASSERT_EQ(r.unfinished, "") << topo.scenario << " " << op << " " << p;
        const double simulated = static_cast<double>(r.training->iteration_time(0)) * 1e-12;
        const double error = std::abs(simulated - expected) / expected;
        worst = std::max(worst, error);
        std::printf("%-19s %-14s p=%2d simulated %12.6f us, ASTRA-sim %12.6f us, error %.5f%%\n",
                    topo.scenario, op, p, simulated * 1e6, expected * 1e6, error * 100);
        EXPECT_LT(error, 0.005) << topo.scenario << " " << op << " " << p;
      }
    }
  }
  RecordProperty("worst_relative_error", std::to_string(worst));
}

TEST(ChakraWorkload, PyTorchStepOnRampAndSuperPod) {
  if (!fs::exists(kData / "pytorch" / "chakra.0.et")) GTEST_SKIP() << "no test data";
  for (const char* name : {"pytorch-8-ramp.yaml", "pytorch-8-superpod.yaml"}) {
    const Ran r = run_scenario(kScenarios / "chakra" / name);
    ASSERT_EQ(r.unfinished, "") << name;
    ASSERT_EQ(r.training->iterations(), 2u) << name;
    // The step's GPU compute is serial on each GPU: at least its sum.
    const Breakdown total = r.training->total_breakdown();
    EXPECT_GT(total[static_cast<std::size_t>(Category::kCompute)], 0) << name;
    EXPECT_GT(r.training->iteration_time(0), 0) << name;
  }
}

// On a RAMP larger than the job the GPUs go where the fabric places them
// (RAMP §6.3's sub-box) and run RAMP-x there: one all-reduce of 1 MiB on 8
// GPUs of a 16-node RAMP takes what the critical-path estimator, exact for
// RAMP-x on an idle RAMP (Collectives.RampXEqualsTheEstimatorOnRamp), gives
// on that sub-box; the run's header names the algorithm and the placement.
TEST(ChakraWorkload, PlacedOnRampRunsRampXOnItsSubBox) {
  std::vector<EtWriter> t(1);
  t[0].add(testing::coll(1, 0, 1 << 20));
  const std::string trace = write_traces("placed", std::move(t));
  const Ran r = run_setup(setup::read(base::Document::load_string(
      "fabric: {type: ramp, x: 2, J: 2, Lambda: 4}\ncompute: {preset: a100}\n"
      "workload: {type: chakra, trace: " +
          trace + ", replicate: 8}\n",
      "placed.yaml")));
  ASSERT_EQ(r.unfinished, "");
  const fabric::ramp::RampShape shape = fabric::ramp::shape_for(2, 2, 2, 8);
  collective::CollectiveSpec spec;
  spec.op = collective::Op::kAllReduce;
  spec.algorithm = collective::algorithm("ramp-x");
  spec.p = 8;
  spec.bytes = 1 << 20;
  collective::ramp_x::set_spec(spec, shape);
  fabric::RampSpec ramp;
  ramp.x = 2;
  ramp.J = 2;
  ramp.Lambda = 4;
  ramp.job = shape;
  const auto net = fabric::make_ramp(ramp);
  const auto device = compute::make_device(compute::preset("a100"));
  const pdes::Time expected =
      analytical::estimate_collective(spec, fabric::ramp::job_nodes(shape), *net, *device).total;
  EXPECT_EQ(r.training->iteration_time(0), expected);
  std::ostringstream out;
  r.results->print(out);
  EXPECT_NE(out.str().find("# algorithms: all-reduce ramp-x; placed by the fabric"),
            std::string::npos)
      << out.str();
  // The breakdown is per GPU wherever it runs: all 8 took part.
  EXPECT_GT(r.training->total_breakdown()[static_cast<std::size_t>(Category::kCollective)], 0);
}

TEST(ChakraWorkload, ReaderErrorsAreLocatedAtTrace) {
  const std::string text =
      "fabric: {type: elect-flat, nodes: 8, bandwidth: 100Gbps, latency: 1us}\n"
      "workload: {type: chakra, trace: no-such-trace}\n";
  try {
    setup::read(base::Document::load_string(text, "t.yaml"));
    FAIL() << "read without an error";
  } catch (const base::ScenarioError& e) {
    EXPECT_EQ(e.key_path(), "workload.trace");
    EXPECT_NE(e.message().find("no trace file"), std::string::npos) << e.message();
  }
}

// GPU 0 sends N bytes with tag 7 to GPU 1, which receives them: one message
// on an idle elect-flat fabric takes its latency plus N / bandwidth.
TEST(ChakraWorkload, SendReceiveTakesLatencyPlusBytesOverBandwidth) {
  constexpr std::int64_t kBytes = 1'000'000;
  std::vector<EtWriter> t(2);
  t[0].add(testing::p2p(1, true, 1, kBytes, 7));
  t[1].add(testing::p2p(1, false, 0, kBytes, 7));
  const std::string trace = write_traces("p2p", std::move(t));
  const Ran r = run_setup(setup::read(base::Document::load_string(scenario(trace, 2), "p2p.yaml")));
  ASSERT_EQ(r.unfinished, "");
  const double expected = 1e-6 + kBytes / (100e9 / 8);
  const double simulated = static_cast<double>(r.training->iteration_time(0)) * 1e-12;
  EXPECT_NEAR(simulated, expected, expected * 1e-3) << simulated * 1e6 << " us";
  const Breakdown total = r.training->total_breakdown();
  EXPECT_GT(total[static_cast<std::size_t>(Category::kCollective)], 0);
}

// Messages are matched by tag (MPI's rule): GPU 0 sends tag 1 (1 MB), then
// tag 2 (2 MB); GPU 1 receives tag 2, then tag 1. Each takes its own
// message: the run ends when the second send is in, at alpha + 3 MB / B (one
// port: the sends leave one after the other), and GPU 1's first receive
// waits for exactly that.
TEST(ChakraWorkload, SendsAndReceivesMatchByTag) {
  std::vector<EtWriter> t(2);
  t[0].add(testing::p2p(1, true, 1, 1'000'000, 1));
  t[0].add(testing::p2p(2, true, 1, 2'000'000, 2, {1}));
  t[1].add(testing::p2p(1, false, 0, 2'000'000, 2));
  t[1].add(testing::p2p(2, false, 0, 1'000'000, 1, {1}));
  const std::string trace = write_traces("p2p_tags", std::move(t));
  const Ran r = run_setup(setup::read(base::Document::load_string(scenario(trace, 2), "p2p.yaml")));
  ASSERT_EQ(r.unfinished, "");
  const double expected = 1e-6 + 3e6 / (100e9 / 8);
  const double simulated = static_cast<double>(r.training->iteration_time(0)) * 1e-12;
  EXPECT_NEAR(simulated, expected, expected * 1e-3) << simulated * 1e6 << " us";
}

// Each GPU receives before it sends: the run ends with both receives
// unfinished (reported, not a hang).
TEST(ChakraWorkload, SendReceiveDeadlockIsReported) {
  std::vector<EtWriter> t(2);
  for (std::uint32_t g = 0; g < 2; ++g) {
    t[g].add(testing::p2p(1, false, 1 - g, 4096, 7));
    t[g].add(testing::p2p(2, true, 1 - g, 4096, 7, {1}));
  }
  const std::string trace = write_traces("p2p_deadlock", std::move(t));
  const Ran r = run_setup(setup::read(base::Document::load_string(scenario(trace, 2), "p2p.yaml")));
  EXPECT_NE(r.unfinished.find("never received its message"), std::string::npos) << r.unfinished;
}

// A receive whose tag no send has, a size that differs from its send's, and
// a send nobody receives: the nodes named.
TEST(ChakraWorkload, SendReceiveMismatchIsLocated) {
  for (const auto& [tag, bytes] : {std::pair{8, 4096}, std::pair{7, 2048}}) {
    std::vector<EtWriter> t(2);
    t[0].add(testing::comp(1, 3));
    t[0].add(testing::p2p(2, true, 1, 4096, 7, {1}));
    t[1].add(testing::p2p(5, false, 0, bytes, tag));
    const std::string trace = write_traces("p2p_bad", std::move(t));
    const std::string e = trace_error(trace, 2);
    const std::string expected =
        tag == 8 ? trace +
                       ".1.et: node 5 ('recv_5') receives tag 8 from GPU 0, which sends GPU 1 "
                       "no further message with it"
                 : "tag 7 from GPU 0 to GPU 1: " + trace +
                       ".0.et: node 2 ('send_2') sends 4096 "
                       "bytes, " +
                       trace + ".1.et: node 5 ('recv_5') receives 2048 bytes";
    EXPECT_NE(e.find(expected), std::string::npos) << e;
  }
  // A send nobody receives.
  std::vector<EtWriter> t(2);
  t[0].add(testing::p2p(2, true, 1, 4096, 7));
  t[1].add(testing::comp(1, 3));
  const std::string trace = write_traces("p2p_lost", std::move(t));
  const std::string e = trace_error(trace, 2);
  EXPECT_NE(e.find(trace + ".0.et: node 2 ('send_2') sends tag 7 to GPU 1, which never receives "
                           "it (0 of 1 messages received)"),
            std::string::npos)
      << e;
  // A send to a GPU that is not there, or to itself, and a receive without comm_src.
  for (const std::int64_t peer : {2, 0}) {
    std::vector<EtWriter> u(2);
    u[0].add(testing::p2p(3, true, peer, 4096, 7));
    u[1].add(testing::comp(1, 3));
    const std::string f = write_traces("p2p_peer", std::move(u));
    EXPECT_NE(trace_error(f, 2).find(f + ".0.et: node 3 ('send_3'): attr comm_dst: " +
                                     std::to_string(peer) + " is not another GPU of the 2"),
              std::string::npos);
  }
  std::vector<EtWriter> u(2);
  testing::et::Node recv = testing::p2p(4, false, 0, 4096, 7);
  recv.mutable_attr()->erase(recv.mutable_attr()->begin());  // comm_src
  u[1].add(recv);
  const std::string f = write_traces("p2p_nosrc", std::move(u));
  EXPECT_NE(trace_error(f, 2).find(f + ".1.et: node 4 ('recv_4'): attr comm_src: missing"),
            std::string::npos);
}

// Collectives that differ across GPUs (count, kind, size, order): one error
// naming both files and nodes.
TEST(ChakraWorkload, CollectivesDifferingAcrossGpusAreLocated) {
  using testing::coll;
  struct Case {
    const char* name;
    std::vector<testing::et::Node> gpu0, gpu1;
    std::string expect;  // with F0, F1 for the files
  };
  const std::vector<Case> cases = {
      {"kind",
       {coll(1, 0, 64)},
       {coll(4, 2, 64)},
       "collective 0 differs between GPUs: F0: node 1 ('coll_1') is ALL_REDUCE of 64 bytes, F1: "
       "node 4 ('coll_4') is ALL_GATHER of 64 bytes"},
      {"size",
       {coll(1, 0, 64), coll(2, 0, 128, {1})},
       {coll(1, 0, 64), coll(2, 0, 256, {1})},
       "collective 1 differs between GPUs: F0: node 2 ('coll_2') is ALL_REDUCE of 128 bytes, F1: "
       "node 2 ('coll_2') is ALL_REDUCE of 256 bytes"},
      {"order",
       {coll(1, 0, 64), coll(2, 2, 128, {1})},
       {coll(1, 2, 128), coll(2, 0, 64, {1})},
       "collective 0 differs between GPUs: F0: node 1 ('coll_1') is ALL_REDUCE of 64 bytes, F1: "
       "node 1 ('coll_1') is ALL_GATHER of 128 bytes"},
      {"count",
       {coll(1, 0, 64)},
       {coll(1, 0, 64), coll(9, 6, 32, {1})},
       "F0 has 1 collectives, F1 has 2: collective 1 (F1: node 9 ('coll_9'), ALL_TO_ALL of 32 "
       "bytes) has no counterpart"},
  };
  for (const Case& c : cases) {
    std::vector<EtWriter> t(3);
    for (const auto& n : c.gpu0) t[0].add(n);
    for (const auto& n : c.gpu0) t[1].add(n);  // GPU 1 agrees with GPU 0
    for (const auto& n : c.gpu1) t[2].add(n);
    const std::string trace = write_traces(std::string("coll_") + c.name, std::move(t));
    std::string expect = c.expect;
    for (const auto& [key, file] : {std::pair{"F0", trace + ".0.et"}, {"F1", trace + ".2.et"}})
      for (std::size_t at; (at = expect.find(key)) != std::string::npos;)
        expect.replace(at, 2, file);
    const std::string e = trace_error(trace, 3);
    EXPECT_NE(e.find(expect), std::string::npos) << c.name << ": " << e;
  }
}

// Every op but the joins is named after its trace node (docs/models.md):
// compute, the collective (not the join before it) and the messages.
TEST(ChakraWorkload, OpsAreNamedAfterTheirNodes) {
  std::vector<EtWriter> t(2);
  for (std::uint32_t g = 0; g < 2; ++g) {
    testing::et::Node meta;
    meta.set_id(9);
    meta.set_name("metadata_9");
    meta.set_type(1);
    t[g].add(meta);
    t[g].add(testing::comp(1, 3, {9}));
    t[g].add(testing::coll(2, 0, 4096, {1}));
    t[g].add(testing::p2p(3, g == 0, 1 - g, 4096, 7, {2}));
  }
  const std::string trace = write_traces("names", std::move(t));
  // The programs are the interpreter's, which the simulation owns: kept alive.
  const Simulation sim =
      setup::build(setup::read(base::Document::load_string(scenario(trace, 2), "n.yaml")));
  const auto* training = dynamic_cast<const TrainingResults*>(sim.results.get());
  ASSERT_NE(training, nullptr);
  const ProgramSet& set = training->programs();
  ASSERT_EQ(set.programs.size(), 2u);
  for (std::uint32_t g = 0; g < 2; ++g) {
    const Program& p = set.programs[g];
    std::vector<std::string> named;
    for (std::uint32_t i = 0; i < p.size(); ++i) {
      if (p.op(i).kind == OpKind::kWait) {
        EXPECT_EQ(p.op_name(i), "") << p.describe(i);
      } else {
        named.emplace_back(p.op_name(i));
      }
    }
    // GPU 1's receive is posted when the iteration starts (first), named
    // after its node; the node itself is the join after it.
    const std::vector<std::string> expected =
        g == 0 ? std::vector<std::string>{"comp_1", "coll_2", "send_3"}
               : std::vector<std::string>{"recv_3", "comp_1", "coll_2"};
    EXPECT_EQ(named, expected);
  }
}

}  // namespace
}  // namespace sipsim::workload::chakra
