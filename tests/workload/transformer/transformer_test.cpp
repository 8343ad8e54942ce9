// The transformer workload: hand-computed iteration times on elect-flat with
// a device whose ops cost their FLOPs plus bytes in nanoseconds, schedule
// orders, exact breakdowns, and the reader's located errors. Runs at 1 and 3
// ranks (ctest): the same times at every rank count.
#include "sipsim/workload/transformer/transformer.hpp"

#include <gtest/gtest.h>

#include <boost/mpi/communicator.hpp>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/flat/elect_flat.hpp"
#include "sipsim/pdes/engine.hpp"
#include "sipsim/setup/setup.hpp"

namespace sipsim::workload::transformer {
namespace {

using pdes::kNanosecond;
using pdes::Time;

constexpr std::uint64_t k100G = 100'000'000'000;  // 64 B take 5.12 ns
constexpr Time kLatency = 1000 * kNanosecond;

// An op costs (FLOPs + bytes) ns; collectives' local operations are free.
class LinearDevice final : public compute::Device {
 public:
  Time reduce_ps(std::uint32_t, std::uint64_t) const override { return 0; }
  Time copy_ps(std::uint64_t) const override { return 0; }
  Time op_ps(const compute::OpCost& op) const override {
    return (op.flops + op.bytes) * kNanosecond;
  }
};

// h 8, 2 heads, ffn 32, seq 4, vocab 16, b 1, fp16: activations are 64 B.
Config tiny(std::uint32_t tp, std::uint32_t pp, std::uint32_t dp, Schedule schedule) {
  Config c;
  c.model = {2, 8, 2, 32, 4, 16, 2 * dp, 1, compute::Precision::kFp16};
  c.tp = tp;
  c.pp = pp;
  c.dp = dp;
  c.schedule = schedule;
  return c;
}

struct Outcome {
  std::unique_ptr<TransformerResults> results;
  std::string unfinished;
};

Outcome run(const Config& c, TraceLevel trace = TraceLevel::kNone) {
  const boost::mpi::communicator world;
  Outcome r;
  r.results = std::make_unique<TransformerResults>(
      c, fabric::make_elect_flat(c.gpus(), k100G, kLatency), std::make_unique<LinearDevice>());
  r.results->set_trace(trace);
  std::unique_ptr<Interpreter> model = r.results->take_model();
  pdes::EngineOptions o;
  o.progress_interval_s = 0;
  pdes::run(*model, model->partition(world.size()), world, o);
  r.unfinished = r.results->unfinished(world);
  r.results->collect(world);
  return r;
}

Time column(const TransformerResults& r, std::uint32_t gpu, Category c) {
  return r.breakdown(0, gpu)[static_cast<std::size_t>(c)];
}
Time idle(const TransformerResults& r, std::uint32_t gpu) {
  return r.breakdown(0, gpu)[kIdleColumn];
}
Time bubble(const TransformerResults& r, std::uint32_t gpu) {
  return r.breakdown(0, gpu)[kBubbleColumn];
}
Time sum(const Breakdown& b) {
  return std::accumulate(b.begin(), b.end(), Time{0});
}

// tp 2, dp 2, one stage, 2 micro-batches of 2 layers (tp 2: attention 1280
// FLOPs + 576 B = 1856 ns, MLP 2048 + 704 = 2752 ns, logits 512 + 128 = 640 ns;
// backward twice each). Each TP all-reduce of 64 B: ring of 2, chunks of 32 B
// (2.56 ns): 2 x (1000 + 2.56) = 2005.12 ns; 16 of them. The DP all-reduce of
// the 960 parameters per GPU (1920 B; chunks 76.8 ns): 2 x 1076.8 = 2153.6 ns.
// Adam on 960 parameters: 12 x 960 FLOPs + 28 x 960 B = 38400 ns.
TEST(Transformer, TensorAndDataParallelOneStage) {
  for (const Schedule s : {Schedule::kGpipe, Schedule::kOneFOneB}) {
    const Outcome r = run(tiny(2, 1, 2, s));
    ASSERT_EQ(r.unfinished, "");
    const Time forward = 2 * (2 * (1856 + 2752) + 640) * kNanosecond;
    const Time backward = 2 * (2 * 2 * (1856 + 2752) + 2 * 640) * kNanosecond;
    const Time tp = 16 * 2005120, dp = 2153600, opt = 38400 * kNanosecond;
    EXPECT_EQ(r.results->iteration_time(0), forward + backward + tp + dp + opt);  // 131771.52 ns
    for (std::uint32_t g = 0; g < 4; ++g) {
      EXPECT_EQ(column(*r.results, g, Category::kForward), forward) << g;
      EXPECT_EQ(column(*r.results, g, Category::kBackward), backward) << g;
      EXPECT_EQ(column(*r.results, g, Category::kTpComm), tp) << g;
      EXPECT_EQ(column(*r.results, g, Category::kDpComm), dp) << g;
      EXPECT_EQ(column(*r.results, g, Category::kOptimizer), opt) << g;
      EXPECT_EQ(idle(*r.results, g), 0u) << g;
      EXPECT_EQ(sum(r.results->breakdown(0, g)), r.results->iteration_time(0)) << g;
    }
  }
}

// pp 2, tp = dp = 1, 2 micro-batches, one layer per stage (tp 1: attention
// 3264 ns, MLP 5056 ns, logits 1280 ns). F0 = 8320, F1 = 9600 (with logits),
// B1 = 19200, B0 = 16640; a 64 B message D = 1000 + 5.12 ns; Adam 41280 ns
// (stage 0: 1032 parameters) and 35520 ns (stage 1: 888).
// Stage 1: F(0) after act 0 at F0 + D, then F(1) (act 1 is in at 2 F0 + D),
// B(0), B(1) (GPipe) or B(0), F(1), B(1) (1F1B): B(1) ends F0 + D + 2 F1 + 2 B1,
// and grad 1 reaches stage 0 D later; stage 0's B(0) is done by then (B0 < B1),
// so it ends F0 + 2D + 2 F1 + 2 B1 + B0 + 41280 = 125850.24 ns. Stage 0 waits
// on its recv of grad 0 from 2 F0 to F0 + 2D + 2 F1 + B1 and of grad 1 for
// B1 - B0; stage 1 waits for act 0 only.
// The bubble of each wait is the part before the peer sent, the rest (D each
// here) pp-comm. GPipe: grad 0 is sent at F0 + D + 2 F1 + B1 (bubble
// D + 2 F1 + B1 - F0), grad 1 at F0 + D + 2 F1 + 2 B1, B1 - B0 - D after the
// wait began. 1F1B: grad 0 is sent F1 earlier (bubble D + F1 + B1 - F0), so
// stage 0's B(0) runs earlier and grad 1's bubble is F1 + B1 - B0 - D. Both:
// stage 0's bubble 2 F1 + 2 B1 - F0 - B0 = 32640 ns, pp-comm 2D, but for the
// first 5.12 ns of the first wait, while act 1's send is in flight (pp-comm);
// stage 1's bubble F0 (act 0 is sent at F0), pp-comm D.
TEST(Transformer, PipelineGpipeAndOneFOneB) {
  for (const Schedule s : {Schedule::kGpipe, Schedule::kOneFOneB}) {
    const Outcome r = run(tiny(1, 2, 1, s));
    ASSERT_EQ(r.unfinished, "");
    EXPECT_EQ(r.results->iteration_time(0), 125850240u);
    const TransformerResults& x = *r.results;
    EXPECT_EQ(column(x, 0, Category::kForward), 16640 * kNanosecond);
    EXPECT_EQ(column(x, 0, Category::kBackward), 33280 * kNanosecond);
    EXPECT_EQ(column(x, 0, Category::kOptimizer), 41280 * kNanosecond);
    EXPECT_EQ(column(x, 0, Category::kPpComm), 2 * 1005120u + 5120);
    EXPECT_EQ(bubble(x, 0), 32640 * kNanosecond - 5120);  // 34650.24 ns of waiting in all
    EXPECT_EQ(column(x, 1, Category::kForward), 19200 * kNanosecond);
    EXPECT_EQ(column(x, 1, Category::kBackward), 38400 * kNanosecond);
    EXPECT_EQ(column(x, 1, Category::kOptimizer), 35520 * kNanosecond);
    EXPECT_EQ(column(x, 1, Category::kPpComm), 1005120u);
    EXPECT_EQ(bubble(x, 1), 8320 * kNanosecond);
    for (std::uint32_t g = 0; g < 2; ++g) EXPECT_EQ(idle(x, g), 0u);
    EXPECT_EQ(sum(x.breakdown(0, 0)), 125850240u);
    EXPECT_EQ(sum(x.breakdown(0, 1)), 102445120u);
    // Energy (A100: 400 W busy, 50 W idle): computing 91200 + 93120 ns, the
    // rest of the spans 34650.24 + 9325.12 ns; elect-flat has no fabric figure.
    const IterationEnergy e = x.energy(0);
    EXPECT_NEAR(e.device_j, 400 * 184320e-9 + 50 * 43975.36e-9, 1e-15);
    EXPECT_TRUE(std::isnan(e.fabric_j));
  }
}

// The trace: at `ops` every op but the joins, at `collectives` only the
// communication; stage 1's recv of act 0 is posted at 0 and done at F0 + D.
TEST(Transformer, TraceLevels) {
  const Config c = tiny(1, 2, 1, Schedule::kGpipe);
  const LinearDevice d;
  const ProgramSet set = make_programs(c, d, 2);
  for (const TraceLevel level : {TraceLevel::kOps, TraceLevel::kCollectives}) {
    const Outcome r = run(c, level);
    ASSERT_EQ(r.unfinished, "");
    for (const Trace::Row& row : r.results->trace()->rows()) {
      const Op& op = set.programs[set.bindings[row.node]->program].op(row.op);
      EXPECT_NE(op.kind, OpKind::kWait);
      if (level == TraceLevel::kCollectives) {
        EXPECT_NE(op.kind, OpKind::kCompute);
      }
      EXPECT_EQ(std::string(row.kind, strnlen(row.kind, sizeof(row.kind))), to_string(op.kind));
      EXPECT_LE(row.start_ps, row.end_ps);
      if (row.node == 1 && op.kind == OpKind::kRecv && row.start_ps == 0) {
        EXPECT_EQ(row.end_ps, 8320 * kNanosecond + 1005120);
      }
    }
  }
}

// The order of a stage's passes: F = one micro-batch's forward, B = its
// backward (`per_pass` compute ops each), O = the optimizer.
std::string order(const Program& p, std::uint32_t per_pass) {
  std::string out;
  std::uint32_t n = 0;
  for (std::uint32_t i = 0; i < p.size(); ++i) {
    const Op& op = p.op(i);
    if (op.kind != OpKind::kCompute) continue;
    if (op.category == Category::kOptimizer) {
      out += 'O';
    } else if (n++ % per_pass == 0) {
      out += op.category == Category::kForward ? 'F' : 'B';
    }
  }
  return out;
}

TEST(Transformer, ScheduleOrders) {
  Config c = tiny(1, 4, 1, Schedule::kOneFOneB);
  c.model.layers = 4;
  c.model.global_batch = 6;  // 6 micro-batches, 4 stages
  const LinearDevice d;
  ProgramSet set = make_programs(c, d, 4);
  // Stage 0 of 4: 3 warm-up forwards; the last stage alternates from the start.
  EXPECT_EQ(order(set.programs[0], 2), "FFFFBFBFBBBBO");
  EXPECT_EQ(order(set.programs[3], 3), "FBFBFBFBFBFBO");  // + the logits per pass
  c.schedule = Schedule::kGpipe;
  set = make_programs(c, d, 4);
  EXPECT_EQ(order(set.programs[1], 2), "FFFFFFBBBBBBO");
}

// tp 2 x pp 2 x dp 2: every GPU's breakdown adds up to its own iteration, the
// slowest one's to the iteration time; both schedules finish.
TEST(Transformer, ThreeDimensionalBreakdownIsExact) {
  for (const Schedule s : {Schedule::kGpipe, Schedule::kOneFOneB}) {
    const Outcome r = run(tiny(2, 2, 2, s));
    ASSERT_EQ(r.unfinished, "");
    Time longest = 0;
    for (std::uint32_t g = 0; g < 8; ++g)
      longest = std::max(longest, sum(r.results->breakdown(0, g)));
    EXPECT_EQ(longest, r.results->iteration_time(0));
    EXPECT_GT(r.results->tflops_per_gpu(0), 0.0);
  }
}

TEST(Transformer, Mapping) {
  Config c = tiny(2, 2, 2, Schedule::kGpipe);
  EXPECT_EQ(gpu_of(c, {1, 0, 0}), 1u);  // TP innermost, then DP, PP
  EXPECT_EQ(gpu_of(c, {0, 1, 0}), 2u);
  EXPECT_EQ(gpu_of(c, {0, 0, 1}), 4u);
  c.order = {Axis::kPp, Axis::kDp, Axis::kTp};
  EXPECT_EQ(gpu_of(c, {1, 0, 0}), 4u);
  for (std::uint32_t g = 0; g < 8; ++g) EXPECT_EQ(gpu_of(c, coord_of(c, g)), g);
}

// Megatron's count at ffn = 4h: 72 B s l h^2 (1 + s/(6h) + V/(12 l h)).
TEST(Transformer, IterationFlopsFollowMegatron) {
  Config c;
  c.model = {24, 2048, 16, 8192, 2048, 51200, 64, 1, compute::Precision::kFp16};
  const double B = 64, s = 2048, l = 24, h = 2048, V = 51200;
  const double expected = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  EXPECT_NEAR(iteration_flops(c) / expected, 1.0, 1e-12);
}

// The reader: every bad key is an error at that key.
std::string error_of(const std::string& workload) {
  const std::string text =
      "fabric: {type: elect-flat, nodes: 8, bandwidth: 100Gbps, latency: 1us}\n"
      "workload:\n  type: transformer\n" +
      workload;
  try {
    setup::read(base::Document::load_string(text, "t.yaml"));
  } catch (const base::ScenarioError& e) {
    return e.location() + " " + e.key_path() + ": " + e.message();
  }
  return "";
}

const std::string kModel =
    "  model: {layers: 2, hidden: 8, heads: 2, seq: 4, vocab: 16, global_batch: 4}\n";

TEST(TransformerConfig, Errors) {
  EXPECT_EQ(error_of(kModel + "  parallelism: {tp: 2, pp: 2, dp: 2}\n"), "");
  EXPECT_NE(error_of(kModel + "  parallelism: {tp: 2, pp: 2, dp: 4}\n").find("16 GPUs"),
            std::string::npos);
  EXPECT_NE(error_of(kModel + "  parallelism: {tp: 4}\n").find("workload.parallelism.tp"),
            std::string::npos);  // 4 does not divide 2 heads
  EXPECT_NE(error_of(kModel + "  parallelism: {pp: 4}\n").find("workload.parallelism.pp"),
            std::string::npos);  // 4 does not divide 2 layers
  EXPECT_NE(error_of(kModel + "  parallelism: {dp: 8}\n").find("workload.parallelism.dp"),
            std::string::npos);  // 8 does not divide the batch of 4
  EXPECT_NE(error_of(kModel + "  parallelism: {tp: 1}\n  schedule: zb\n").find("schedule"),
            std::string::npos);
  EXPECT_NE(error_of(kModel + "  parallelism: {tq: 1}\n").find("tq"), std::string::npos);
  EXPECT_NE(error_of("  model: {layers: 2, hidden: 8, heads: 3, seq: 4, vocab: 16, "
                     "global_batch: 4}\n  parallelism: {}\n")
                .find("workload.model.heads"),
            std::string::npos);
  EXPECT_NE(error_of(kModel + "  parallelism: {}\n  mapping: tp-tp-dp\n").find("mapping"),
            std::string::npos);
  EXPECT_NE(error_of(kModel).find("parallelism"), std::string::npos);
  EXPECT_NE(error_of(kModel + "  parallelism: {}\n  model2: 1\n").find("model2"),
            std::string::npos);
}

}  // namespace
}  // namespace sipsim::workload::transformer
