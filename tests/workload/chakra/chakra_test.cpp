// The chakra workload on the shared test data (skipped when absent):
// ASTRA-sim's 8-NPU all-reduce microbenchmark on elect-flat against the ring
// all-reduce's closed form, and the PyTorch step replicated to 8 GPUs on
// RAMP and the SuperPod. Runs at 1 and 3 ranks (ctest).
#include <gtest/gtest.h>

#include <boost/mpi/communicator.hpp>
#include <cmath>
#include <filesystem>
#include <string>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/compute/accelerator.hpp"
#include "sipsim/compute/roofline.hpp"
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

Ran run_scenario(const fs::path& path) {
  const setup::Setup s = setup::read(base::Document::load_file(path.string()));
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

// Ring all-reduce of S bytes on p GPUs behind an idle elect-flat switch of
// bandwidth B and latency a: 2 (p - 1) steps of S / p bytes, each a + S / (p B),
// and p - 1 reductions of S / p bytes on the device:
//   T = 2 (p - 1) (a + S / (p B)) + (p - 1) reduce(S / p).
TEST(ChakraWorkload, AstraSimAllReduceMatchesTheRingClosedForm) {
  if (!fs::exists(kData / "astra-sim-microbenchmarks")) GTEST_SKIP() << "no test data";
  const Ran r = run_scenario(kScenarios / "chakra" / "astra-all-reduce-8-flat.yaml");
  ASSERT_EQ(r.unfinished, "");
  const double p = 8, S = 1'048'576, B = 400e9 / 8, a = 1e-6;
  const auto device = compute::make_device(compute::preset("a100"));
  const double reduce =
      static_cast<double>(device->reduce_ps(2, static_cast<std::uint64_t>(S / p))) * 1e-12;
  const double expected = 2 * (p - 1) * (a + S / (p * B)) + (p - 1) * reduce;
  const double simulated = static_cast<double>(r.training->iteration_time(0)) * 1e-12;
  const double error = std::abs(simulated - expected) / expected;
  RecordProperty("relative_error", std::to_string(error));
  std::printf("ring all-reduce 1 MiB on 8: simulated %.6f us, closed form %.6f us, error %.4f%%\n",
              simulated * 1e6, expected * 1e6, error * 100);
  EXPECT_LT(error, 0.005);
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

}  // namespace
}  // namespace sipsim::workload::chakra
