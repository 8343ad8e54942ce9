// The training workloads' readers against a fabric with a degree limit
// (fabric::Facts::degree_limit, SiP-ML §3.2): a job whose GPUs need more
// direct peers is refused at the workload section, one that fits is not, and
// the graph workload's `degree` defaults to the fabric's. No registered
// fabric has a limit yet, so a fake one (elect-flat with a limit) stands in.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "sipsim/analytical/estimators.hpp"
#include "sipsim/fabric/flat/elect_flat.hpp"
#include "sipsim/setup/setup.hpp"

namespace sipsim::setup {
namespace {

const analytical::Estimators kEstimators;

class LimitedFabric final : public fabric::Plugin {
 public:
  LimitedFabric(std::uint32_t nodes, std::optional<std::uint32_t> degree)
      : nodes_(nodes), degree_(degree) {}
  std::string_view type() const override { return "limited"; }
  std::uint32_t nodes() const override { return nodes_; }
  std::uint64_t slowest_rate_bps() const override { return kRate; }
  std::unique_ptr<fabric::Network> build() const override {
    return fabric::make_elect_flat(nodes_, kRate, pdes::kMicrosecond);
  }
  fabric::Facts facts() const override {
    fabric::Facts f;
    f.degree_limit = degree_;
    return f;
  }

 private:
  static constexpr std::uint64_t kRate = 100'000'000'000;
  std::uint32_t nodes_;
  std::optional<std::uint32_t> degree_;
};

// The workload section of `yaml` read by its registry entry on `fabric`:
// the ScenarioError's text, or "" (and the setup in `out`).
std::string read_on(fabric::Plugin& fabric, const std::string& yaml,
                    std::unique_ptr<workload::Plugin>* out = nullptr) {
  try {
    const scenario::Scenario s =
        scenario::load_scenario(base::Document::load_string(yaml, "s.yaml"));
    const compute::Accelerator accelerator = compute::read_accelerator(s.compute);
    base::MapReader w = s.workload->as_map();
    const std::string type = w.required("type").as_string();
    const workload::Context ctx{&fabric, nullptr, *s.workload, accelerator, s.simulation.end_time,
                                s.path};
    for (const WorkloadEntry& e : workload_registry()) {
      if (e.type != type) continue;
      std::unique_ptr<workload::Plugin> setup = e.read(w, ctx);
      w.finish();
      if (out != nullptr) *out = std::move(setup);
      return "";
    }
    return "no workload " + type;
  } catch (const base::ScenarioError& e) {
    return e.what();
  }
}

// tp 2 x pp 2 x dp 8 of a tiny model: each way a TP peer, a pipeline peer
// and the DP group's (ring: 1, direct: 7).
std::string transformer(const std::string& dp_algorithm) {
  return "compute: {preset: a100}\n"
         "workload:\n"
         "  type: transformer\n"
         "  model: {layers: 2, hidden: 8, heads: 2, ffn: 32, seq: 4, vocab: 16, global_batch: "
         "16}\n"
         "  parallelism: {tp: 2, pp: 2, dp: 8}\n"
         "  algorithms: {dp: " +
         dp_algorithm + "}\n";
}

TEST(DegreeLimit, TransformerRefusedAtTheWorkloadSectionWhenAGpuNeedsMorePeers) {
  LimitedFabric eight(32, 8), three(32, 3), unlimited(32, std::nullopt);
  EXPECT_EQ(read_on(eight, transformer("direct")),
            "s.yaml:3:3: workload: GPU 0 needs 9 direct peers (sends to 9, receives from 9), but "
            "fabric limited gives each GPU at most 8 each way (its degree): tp-0-0 (2 GPUs, "
            "ring): 1, dp-0-0 (8 GPUs, direct): 7, point-to-point (pp-comm): 1; ring algorithms "
            "for dp-0-0 would need at most 3");
  EXPECT_EQ(read_on(three, transformer("ring")), "");
  EXPECT_EQ(read_on(unlimited, transformer("direct")), "");  // no limit, no check
}

TEST(DegreeLimit, TransformerAutoCheckedOnceTheAlgorithmIsChosen) {
  // Every DP algorithm needs at least one peer each way besides TP and PP:
  // `auto` finds no pair that fits.
  LimitedFabric two(32, 2);
  std::unique_ptr<workload::Plugin> setup;
  ASSERT_EQ(read_on(two, transformer("auto"), &setup), "");
  try {
    setup->build(two.build(), {}, kEstimators);
    ADD_FAILURE() << "built";
  } catch (const std::invalid_argument& e) {
    // No DP algorithm fits: the fastest pair's error (here halving-doubling,
    // 3 peers each way), then that `auto` tried them all.
    const std::string why = e.what();
    EXPECT_EQ(why.rfind("GPU 0 needs ", 0), 0u) << why;
    EXPECT_NE(why.find("dp-0-0 (8 GPUs, "), std::string::npos) << why;
    EXPECT_NE(why.find("pairs of valid algorithms fits)"), std::string::npos) << why;
  }
}

TEST(DegreeLimit, DlrmAllToAllCountsEveryOtherGpu) {
  const std::string yaml =
      "compute: {preset: a100}\n"
      "workload:\n"
      "  type: dlrm\n"
      "  gpus: 8\n"
      "  model: {tables: 8, rows: 1000, dim: 16, dense: 16, bottom_mlp: [16, 16], top_mlp: [16, "
      "1], global_batch: 64}\n"
      "  algorithms: {all_to_all: direct, all_reduce: ring}\n";
  LimitedFabric seven(8, 7), six(8, 6);
  EXPECT_EQ(read_on(seven, yaml), "");
  EXPECT_EQ(read_on(six, yaml),
            "s.yaml:3:3: workload: GPU 0 needs 7 direct peers (sends to 7, receives from 7), but "
            "fabric limited gives each GPU at most 6 each way (its degree): all-to-all (8 GPUs, "
            "direct): 7, dp (8 GPUs, ring): 1; ring algorithms for all-to-all would need at "
            "most 2");
}

std::string graph(const std::string& degree_line) {
  return "compute: {preset: a100}\n"
         "workload:\n"
         "  type: graph\n"
         "  graph: " SIPSIM_SCENARIOS_DIR
         "/graphs/resnet50.json\n"
         "  placement: degree-aware\n"
         "  mp: 4\n"
         "  dp: 4\n"
         "  global_batch: 16\n" +
         degree_line;
}

TEST(DegreeLimit, GraphDegreeDefaultsToTheFabricsAndMayNotExceedIt) {
  LimitedFabric three(16, 3), unlimited(16, std::nullopt);
  std::unique_ptr<workload::Plugin> defaulted, given;
  ASSERT_EQ(read_on(three, graph(""), &defaulted), "");
  ASSERT_EQ(read_on(unlimited, graph("  degree: 3\n"), &given), "");
  // The same placement: D = 3 from the fabric as from the scenario.
  EXPECT_EQ(defaulted->closed_form(nullptr, kEstimators), given->closed_form(nullptr, kEstimators));
  EXPECT_EQ(read_on(three, graph("  degree: 4\n")),
            "s.yaml:9:11: workload.degree: 4 is more than fabric limited gives each GPU (3, its "
            "degree): give at most 3 or leave it out");
  // Without a limit the key stays required.
  EXPECT_NE(read_on(unlimited, graph("")).find("degree"), std::string::npos);
}

}  // namespace
}  // namespace sipsim::setup
