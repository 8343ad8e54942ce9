// The DLRM workload: the partitioner's table-wise / column-wise choice, a
// tiny job on elect-flat whose iteration time and breakdown are computed by
// hand (a device whose ops cost their FLOPs plus bytes in nanoseconds), and
// the reader's located errors. Runs at 1 and 3 ranks (ctest).
#include "sipsim/workload/dlrm/dlrm.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>
#include <string>

#include "../../support/training.hpp"
#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/flat/elect_flat.hpp"
#include "sipsim/setup/setup.hpp"

namespace sipsim::workload::dlrm {
namespace {

using pdes::kNanosecond;
using pdes::Time;

constexpr std::uint64_t k100G = 100'000'000'000;  // 4 B take 0.32 ns
constexpr Time kLatency = 1000 * kNanosecond;

using testing::LinearDevice;

Config config(std::uint32_t gpus, std::uint32_t tables, std::uint32_t dim, std::uint64_t rows,
              std::uint64_t share) {
  Config c;
  c.gpus = gpus;
  c.model.tables = tables;
  c.model.rows = rows;
  c.model.dim = dim;
  c.model.dense = 2;
  c.model.bottom = {dim};
  c.model.top = {1};
  c.model.global_batch = 2 * gpus;
  c.memory_share = share;
  return c;
}

TEST(DlrmPartition, TableWiseWhenTablesFit) {
  // 8 tables of 1000 x 64 fp16 (128,000 B) on 4 GPUs: two whole tables each.
  const Partition x = partition(config(4, 8, 64, 1000, 1 << 20));
  EXPECT_EQ(x.split, 1u);
  EXPECT_EQ(x.shard_cols, 64u);
  EXPECT_EQ(x.most, 2u);
  EXPECT_EQ(x.least, 2u);
  EXPECT_EQ(x.shard_bytes, 128000u);
}

TEST(DlrmPartition, ColumnWiseWhenATableDoesNotFit) {
  // 3 tables on 2 GPUs: table-wise puts 2 tables (256,000 B) on GPU 0, more
  // than 200,000 B; halves put 3 x 64,000 B on each.
  Partition x = partition(config(2, 3, 64, 1000, 200000));
  EXPECT_EQ(x.split, 2u);
  EXPECT_EQ(x.shards, 6u);
  EXPECT_EQ(x.most, 3u);
  // With room for two tables, table-wise: GPU 0 holds 2, GPU 1 holds 1.
  x = partition(config(2, 3, 64, 1000, 256000));
  EXPECT_EQ(x.split, 1u);
  EXPECT_EQ(x.most, 2u);
  EXPECT_EQ(x.least, 1u);
  EXPECT_EQ(x.shards_on(0, 2), 2u);
  EXPECT_EQ(x.shards_on(1, 2), 1u);
  // Nothing fits: an error.
  EXPECT_THROW(partition(config(2, 3, 64, 1000, 60000)), std::invalid_argument);
}

TEST(DlrmPartition, ColumnWiseToGiveEveryGpuAShard) {
  // RAMP Table 10: 8 tables of dim 4096 on 256 GPUs -> 32 shards of 128 columns.
  Partition x = partition(config(256, 8, 4096, 10'000'000, 0));
  EXPECT_EQ(x.split, 32u);
  EXPECT_EQ(x.shard_cols, 128u);
  x = partition(config(65536, 256, 16384, 10'000'000, 0));
  EXPECT_EQ(x.shard_cols, 64u);  // Table 10's last row
  // dim 3 cannot be cut in 8: 3 shards of one column, GPUs 3..7 hold none.
  x = partition(config(8, 1, 3, 10, 0));
  EXPECT_EQ(x.split, 3u);
  EXPECT_EQ(x.most, 1u);
  EXPECT_EQ(x.least, 0u);
}

struct Outcome {
  std::unique_ptr<DlrmResults> results;
  std::string unfinished;
};

Outcome run(const Config& c) {
  Outcome r;
  r.results = std::make_unique<DlrmResults>(c, fabric::make_elect_flat(c.gpus, k100G, kLatency),
                                            std::make_unique<LinearDevice>());
  r.unfinished = testing::run_training(*r.results);
  return r;
}

Time column(const DlrmResults& r, std::uint32_t gpu, Category c) {
  return r.breakdown(0, gpu)[static_cast<std::size_t>(c)];
}
Time sum(const Breakdown& b) {
  return std::accumulate(b.begin(), b.end(), Time{0});
}

// 2 GPUs, 1 table of 100 x 4 (fp16) cut in 2 shards of 2 columns; dense 2,
// bottom MLP 2 -> 4, top MLP 5 -> 1 (dim 4 + 1 pair); global batch 2 (1 per GPU).
//   lookup: 4 pooled values, 4 FLOPs + 16 B = 20 ns; bottom forward: 16 FLOPs
//   + (8 weights + 6 activations) x 2 B = 44 ns; interaction 2 x 2^2 x 4 = 32
//   FLOPs + (8 + 5) x 2 B = 58 ns, top 10 + 22 = 32 ns: 90 ns forward; the
//   backward twice each: 180 and 88 ns; sparse SGD 8 + 24 = 32 ns; SGD on the
//   18 MLP parameters 36 + 108 = 144 ns.
//   all-to-all of 8 B (4 B to the peer): 1000.32 ns; all-reduce of 36 B
//   (ring of 2, chunks of 18 B, 1.44 ns): 2 x 1001.44 = 2002.88 ns.
// Timeline: lookup 0-20; all-to-all 20-1020.32 (bottom forward 20-64); top
// 1020.32-1110.32, backward -1290.32; backward all-to-all -2290.64 (bottom
// backward -1378.32); then the all-reduce -4293.52 (embedding update
// 2290.64-2322.64); MLP update 4293.52-4437.52 ns. Exposed communication:
// collective 1020.32 - 64 + 2290.64 - 1378.32 = 1868.64 ns; dp-comm 4293.52 -
// 2322.64 = 1970.88 ns.
TEST(Dlrm, TinyIterationByHand) {
  Config c = config(2, 1, 4, 100, 1 << 20);
  c.model.global_batch = 2;
  c.iterations = 2;
  const Outcome r = run(c);
  ASSERT_EQ(r.unfinished, "");
  const Time iteration = 4437520;
  for (std::uint32_t i = 0; i < 2; ++i) EXPECT_EQ(r.results->iteration_time(i), iteration) << i;
  for (std::uint32_t g = 0; g < 2; ++g) {
    EXPECT_EQ(column(*r.results, g, Category::kForward), 154 * kNanosecond) << g;
    EXPECT_EQ(column(*r.results, g, Category::kBackward), 268 * kNanosecond) << g;
    EXPECT_EQ(column(*r.results, g, Category::kOptimizer), 176 * kNanosecond) << g;
    EXPECT_EQ(column(*r.results, g, Category::kCollective), 1868640u) << g;
    EXPECT_EQ(column(*r.results, g, Category::kDpComm), 1970880u) << g;
    EXPECT_EQ(sum(r.results->breakdown(0, g)), iteration) << g;
  }
  // 3 x 2 samples x (16 + 32 + 10) FLOPs per 4437.52 ns, per GPU.
  EXPECT_NEAR(r.results->hardware_tflops_per_gpu(0), 3.0 * 2 * 58 / 4437.52e-9 / 2 / 1e12, 1e-12);
  EXPECT_EQ(r.results->model_tflops_per_gpu(0), r.results->hardware_tflops_per_gpu(0));
}

// Replayed collectives (workload.collectives): the backward all-to-all and
// the second iteration repeat the first instances. These 1 us collectives are
// shorter than a replay's synchronisation (2 x the 1 us latency), which then
// sets their end (docs/models.md). The one communicator has no other of its
// shape: replay-shapes is replay.
TEST(Dlrm, ReplayedCollectives) {
  Config c = config(2, 1, 4, 100, 1 << 20);
  c.model.global_batch = 2;
  c.iterations = 2;
  c.replay_collectives = collective::Replay::kCommunicator;
  const Outcome replayed = run(c);
  c.replay_collectives = collective::Replay::kShape;
  const Outcome shapes = run(c);
  ASSERT_EQ(replayed.unfinished, "");
  ASSERT_EQ(shapes.unfinished, "");
  EXPECT_EQ(shapes.results->shape().replay_collectives, collective::Replay::kShape);
  for (std::uint32_t i = 0; i < 2; ++i) {
    EXPECT_GE(replayed.results->iteration_time(i), 4437520u) << i;
    EXPECT_EQ(shapes.results->iteration_time(i), replayed.results->iteration_time(i)) << i;
  }
}

// GPUs without a shard run the second role (no lookup, no sparse update) and
// still take part in both all-to-alls.
TEST(Dlrm, GpusWithoutShardsFinish) {
  Config c = config(4, 1, 3, 10, 1 << 20);
  c.model.bottom = {3};
  const Outcome r = run(c);
  ASSERT_EQ(r.unfinished, "");
  EXPECT_EQ(
      column(*r.results, 0, Category::kOptimizer) > column(*r.results, 3, Category::kOptimizer),
      true);
  Time longest = 0;
  for (std::uint32_t g = 0; g < 4; ++g)
    longest = std::max(longest, sum(r.results->breakdown(0, g)));
  EXPECT_EQ(longest, r.results->iteration_time(0));
}

// The reader: every bad key is an error at that key.
std::string error_of(const std::string& workload, const std::string& compute = "") {
  const std::string text =
      "fabric: {type: elect-flat, nodes: 8, bandwidth: 100Gbps, latency: 1us}\n" + compute +
      "workload:\n  type: dlrm\n" + workload;
  try {
    setup::read(base::Document::load_string(text, "t.yaml"));
  } catch (const base::ScenarioError& e) {
    return e.key_path() + ": " + e.message();
  }
  return "";
}

std::string model(const std::string& extra) {
  return "  model: {tables: 4, rows: 1000, dim: 16, dense: 8, bottom_mlp: [32, 16], top_mlp: "
         "[32, 1]" +
         extra + "}\n";
}

TEST(DlrmConfig, Errors) {
  EXPECT_EQ(error_of("  gpus: 8\n" + model(", global_batch: 64")), "");
  EXPECT_EQ(error_of("  gpus: 8\n" + model(", batch_per_gpu: 8")), "");
  EXPECT_EQ(error_of("  gpus: 9\n" + model(", global_batch: 72")).rfind("workload.gpus:", 0), 0u);
  EXPECT_EQ(
      error_of("  gpus: 8\n" + model(", global_batch: 60")).rfind("workload.model.global_batch", 0),
      0u);
  EXPECT_NE(
      error_of("  gpus: 8\n" + model(", global_batch: 64, batch_per_gpu: 8")).find("exactly one"),
      std::string::npos);
  EXPECT_NE(error_of("  gpus: 8\n" + model("")).find("exactly one"), std::string::npos);
  EXPECT_EQ(error_of("  gpus: 8\n  model: {tables: 4, rows: 1000, dim: 16, dense: 8, bottom_mlp: "
                     "[32, 8], top_mlp: [1], global_batch: 8}\n")
                .rfind("workload.model.bottom_mlp:", 0),
            0u);
  EXPECT_EQ(error_of("  gpus: 8\n  model: {tables: 4, rows: 1000, dim: 16, dense: 8, bottom_mlp: "
                     "32, top_mlp: [1], global_batch: 8}\n")
                .rfind("workload.model.bottom_mlp:", 0),
            0u);
  EXPECT_EQ(error_of("  gpus: 8\n" + model(", global_batch: 64") + "  memory_share: 1KiB\n")
                .rfind("workload.memory_share:", 0),
            0u);
  // A share larger than the accelerator's memory (the a100's 40 GiB by default).
  EXPECT_EQ(error_of("  gpus: 8\n" + model(", global_batch: 64") + "  memory_share: 256TiB\n"),
            "workload.memory_share: 256TiB exceeds the a100's 40GiB of memory");
  EXPECT_EQ(error_of("  gpus: 8\n" + model(", global_batch: 64") + "  memory_share: 40GiB\n"), "");
  EXPECT_EQ(error_of("  gpus: 8\n" + model(", global_batch: 64") + "  memory_share: 64GiB\n",
                     "compute: {preset: h100}\n"),
            "");
  EXPECT_EQ(error_of("  gpus: 8\n" + model(", global_batch: 64") + "  memory_share: 81GiB\n",
                     "compute: {preset: h100}\n"),
            "workload.memory_share: 81GiB exceeds the h100's 80GiB of memory");
  EXPECT_EQ(
      error_of("  gpus: 8\n" + model(", global_batch: 64") + "  algorithms: {all_to_all: foo}\n")
          .rfind("workload.algorithms.all_to_all:", 0),
      0u);
  // RAMP-x needs a fabric that places jobs.
  EXPECT_EQ(
      error_of("  gpus: 8\n" + model(", global_batch: 64") + "  algorithms: {all_reduce: ramp-x}\n")
          .rfind("workload.algorithms.all_reduce:", 0),
      0u);
  EXPECT_EQ(error_of("  gpus: 8\n" + model(", global_batch: 64, precision: fp4"))
                .rfind("workload.model.precision:", 0),
            0u);
  EXPECT_NE(error_of("  gpus: 8\n" + model(", global_batch: 64") + "  extra: 1\n").find("extra"),
            std::string::npos);
  EXPECT_EQ(
      error_of("  gpus: 8\n" + model(", global_batch: 64") + "  collectives: replay-shapes\n"), "");
  EXPECT_EQ(error_of("  gpus: 8\n" + model(", global_batch: 64") + "  collectives: some\n")
                .rfind("workload.collectives:", 0),
            0u);
}

}  // namespace
}  // namespace sipsim::workload::dlrm
