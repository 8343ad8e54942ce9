// The transformer workload: hand-computed iteration times on elect-flat with
// a device whose ops cost their FLOPs plus bytes in nanoseconds, schedule
// orders, exact breakdowns, and the reader's located errors. Runs at 1 and 3
// ranks (ctest): the same times at every rank count.
#include "sipsim/workload/transformer/transformer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "../../support/training.hpp"
#include "scenario_run.hpp"
#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/flat/elect_flat.hpp"
#include "sipsim/setup/setup.hpp"

namespace sipsim::workload::transformer {
namespace {

using pdes::kNanosecond;
using pdes::Time;

constexpr std::uint64_t k100G = 100'000'000'000;  // 64 B take 5.12 ns
constexpr Time kLatency = 1000 * kNanosecond;

using testing::LinearDevice;
using testing::run_training;

// h 8, 2 heads, ffn 32, seq 4, vocab 16, b 1, fp16: activations are 64 B.
constexpr auto& tiny = testing::tiny_transformer;

struct Outcome {
  std::unique_ptr<TransformerResults> results;
  std::string unfinished;
  std::uint64_t events = 0;
};

Outcome run(const Config& c, TraceLevel trace = TraceLevel::kNone) {
  Outcome r;
  r.results = std::make_unique<TransformerResults>(
      c, fabric::make_elect_flat(c.gpus(), k100G, kLatency), std::make_unique<LinearDevice>());
  r.results->set_trace(trace);
  r.unfinished = run_training(*r.results, &r.events);
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

// vocab 0 (RAMP §7.3's encoder-block stack): no logit layer. One stage of
// 2 layers, 2 micro-batches: a layer's forward is 3264 + 5056 ns, the logits
// 1280 ns, backward twice forward.
TEST(Transformer, VocabZeroHasNoLogitLayer) {
  Config c = tiny(1, 1, 1, Schedule::kGpipe);
  const Outcome with = run(c);
  c.model.vocab = 0;
  const Outcome without = run(c);
  ASSERT_EQ(with.unfinished, "");
  ASSERT_EQ(without.unfinished, "");
  EXPECT_EQ(column(*with.results, 0, Category::kForward), 2 * (2 * 8320 + 1280) * kNanosecond);
  EXPECT_EQ(column(*without.results, 0, Category::kForward), 2 * 2 * 8320 * kNanosecond);
  EXPECT_EQ(column(*without.results, 0, Category::kBackward), 2 * 2 * 2 * 8320 * kNanosecond);
  const LinearDevice d;
  EXPECT_EQ(make_programs(c, d, 1).programs[0].size() + 4,  // 2 micro-batches x (F, B)
            make_programs(tiny(1, 1, 1, Schedule::kGpipe), d, 1).programs[0].size());
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

// The trace at `steps`: the communication ops, each followed by its wire
// steps (a 2-member ring all-reduce has 2), back to back inside the op.
TEST(Transformer, TraceSteps) {
  const Config c = tiny(2, 1, 2, Schedule::kGpipe);
  const LinearDevice d;
  const ProgramSet set = make_programs(c, d, 4);
  const Outcome r = run(c, TraceLevel::kSteps);
  ASSERT_EQ(r.unfinished, "");
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::vector<Trace::Row>> by_op;
  std::size_t steps = 0;
  for (const Trace::Row& row : r.results->trace()->rows()) {
    const Op& op = set.programs[set.bindings[row.node]->program].op(row.op);
    EXPECT_NE(op.kind, OpKind::kCompute);
    by_op[{row.node, row.iteration, row.op}].push_back(row);
    if (row.step >= 0) {
      ++steps;
      EXPECT_EQ(op.kind, OpKind::kCollective);
      EXPECT_EQ(std::string(row.kind, strnlen(row.kind, sizeof(row.kind))), "step");
    }
  }
  EXPECT_GT(steps, 0u);
  for (auto& [key, rows] : by_op) {
    std::sort(rows.begin(), rows.end(),
              [](const auto& a, const auto& b) { return a.step < b.step; });
    ASSERT_EQ(rows.front().step, -1);
    const Op& op = set.programs[set.bindings[std::get<0>(key)]->program].op(std::get<2>(key));
    if (op.kind != OpKind::kCollective) {
      EXPECT_EQ(rows.size(), 1u);
      continue;
    }
    ASSERT_EQ(rows.size(), 3u);  // the op, then steps 0 and 1
    EXPECT_EQ(rows[1].start_ps, rows[0].start_ps);
    EXPECT_EQ(rows[2].start_ps, rows[1].end_ps);
    EXPECT_EQ(rows[2].end_ps, rows[0].end_ps);
    EXPECT_EQ(rows[1].step, 0);
    EXPECT_EQ(rows[2].step, 1);
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

// Interleaved 1F1B (Megatron-LM's order; Narayanan et al. 2021, §2.2): pp
// 4, v 2, 8 layers (one per chunk), m 8. Stage 0 runs (pp - 1)·2 + (v - 1)·pp
// = 10 warm-up chunk passes, the last stage 4; chunks wrap from the last
// stage to stage 0, so every stage sends and receives in both directions;
// the run finishes, every breakdown adds up, and the bubble is smaller than
// 1F1B's at the same cost.
TEST(Transformer, InterleavedOneFOneB) {
  Config c = tiny(1, 4, 1, Schedule::kInterleaved);
  c.model.layers = 8;
  c.model.global_batch = 8;
  c.virtual_stages = 2;
  EXPECT_EQ(interleaved_warmup(c, 0), 10u);
  EXPECT_EQ(interleaved_warmup(c, 3), 4u);
  const LinearDevice d;
  const ProgramSet set = make_programs(c, d, 4);
  EXPECT_EQ(order(set.programs[0], 2),
            std::string(10, 'F') + "FBFBFBFBFBFB" + std::string(10, 'B') + "O");
  std::uint32_t sends = 0, recvs = 0;
  for (std::uint32_t i = 0; i < set.programs[0].size(); ++i) {
    sends += set.programs[0].op(i).kind == OpKind::kSend ? 1 : 0;
    recvs += set.programs[0].op(i).kind == OpKind::kRecv ? 1 : 0;
  }
  EXPECT_EQ(sends, 2u * 8 + 8);  // both chunks forward, chunk 1 backward
  EXPECT_EQ(recvs, 8u + 2 * 8);
  const Outcome r = run(c);
  ASSERT_EQ(r.unfinished, "");
  Time longest = 0;
  for (std::uint32_t g = 0; g < 4; ++g)
    longest = std::max(longest, sum(r.results->breakdown(0, g)));
  EXPECT_EQ(longest, r.results->iteration_time(0));
  Config plain = c;
  plain.schedule = Schedule::kOneFOneB;
  plain.virtual_stages = 1;
  const Outcome p = run(plain);
  ASSERT_EQ(p.unfinished, "");
  EXPECT_LT(r.results->iteration_time(0), p.results->iteration_time(0));
  for (std::uint32_t g = 0; g < 4; ++g) {
    EXPECT_EQ(column(*r.results, g, Category::kForward), column(*p.results, g, Category::kForward));
  }
  // Memory: stage 0 holds 11 chunk passes of one layer (1F1B: 4 of two).
  EXPECT_EQ(memory_use(c, 0).in_flight, 11u);
  EXPECT_EQ(memory_use(plain, 0).in_flight, 4u);
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
    EXPECT_GT(r.results->hardware_tflops_per_gpu(0), 0.0);
  }
}

// Three identical iterations, tp 2 x pp 2 x dp 2, 1F1B: the last stage starts
// iteration i + 1 before stage 0 ends iteration i, so end - start over-counts
// every iteration after the first. The periods (end_i - end_{i-1}, iteration
// 0 its whole time) add up to the run's span, are equal in the steady state,
// and are what the TFLOP/s divide by.
TEST(Transformer, PeriodsAddUpToTheRun) {
  Config c = tiny(2, 2, 2, Schedule::kOneFOneB);
  c.iterations = 3;
  const Outcome r = run(c);
  ASSERT_EQ(r.unfinished, "");
  const TransformerResults& x = *r.results;
  EXPECT_EQ(x.period(0), x.iteration_time(0));
  EXPECT_EQ(x.period(0) + x.period(1) + x.period(2), x.end(2) - x.start(0));
  EXPECT_EQ(x.period(1), x.period(2));
  EXPECT_EQ(x.period(1), x.end(1) - x.end(0));
  EXPECT_LT(x.start(1), x.end(0));              // the iterations overlap
  EXPECT_GT(x.iteration_time(1), x.period(1));  // so end - start is longer
  for (std::uint32_t i = 0; i < 3; ++i) {
    const double seconds = pdes::to_seconds(x.period(i));
    EXPECT_DOUBLE_EQ(x.hardware_tflops_per_gpu(i), hardware_iteration_flops(c) / seconds / 8 / 1e12)
        << i;
    EXPECT_DOUBLE_EQ(x.model_tflops_per_gpu(i), iteration_flops(c) / seconds / 8 / 1e12) << i;
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

// The hardware count at ffn = 4h: with full recomputation Megatron's
// 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) (Narayanan et al. 2021, eq. 3), 4/3 of
// the model FLOPs in the layers and 1 in the logits; with selective the model
// FLOPs + 4 B s^2 h l (Korthikanti et al. 2022, §5); with none the model FLOPs.
TEST(Transformer, HardwareFlopsCountTheRecomputation) {
  Config c;
  c.model = {24, 2048, 16, 8192, 2048, 51200, 64, 1, compute::Precision::kFp16};
  const double B = 64, s = 2048, l = 24, h = 2048, V = 51200;
  EXPECT_EQ(hardware_iteration_flops(c), iteration_flops(c));
  c.recompute = Recompute::kSelective;
  EXPECT_NEAR(hardware_iteration_flops(c) / (iteration_flops(c) + 4 * B * s * s * h * l), 1.0,
              1e-12);
  c.recompute = Recompute::kFull;
  const double megatron = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  EXPECT_NEAR(hardware_iteration_flops(c) / megatron, 1.0, 1e-12);
}

// Recomputation adds exactly its forward work to backward (tiny, 2
// micro-batches of 2 layers). tp 1: selective recomputes the attention core,
// 4bs^2h = 512 FLOPs + 4·b·a·s^2·e = 256 B = 768 ns per layer and
// micro-batch; full the attention and MLP blocks, 3264 + 5056 ns. tp 2: full
// also reruns the 2 TP all-reduces per layer (2005.12 ns each), and the
// blocks cost 1856 + 2752 ns. Nothing else changes; TFLOP/s are reported by
// both counts, their ratio that of the counts, and the hardware count adds
// exactly the FLOPs recomputed: 512 (selective) or the layer's 6656 (full) per
// layer and micro-batch.
TEST(Transformer, RecomputationAddsTheStatedWork) {
  const Outcome none = run(tiny(1, 1, 1, Schedule::kOneFOneB));
  ASSERT_EQ(none.unfinished, "");
  const Time t0 = none.results->iteration_time(0);
  const Time b0 = column(*none.results, 0, Category::kBackward);
  for (const auto& [mode, extra, flops] :
       {std::tuple{Recompute::kSelective, Time{2 * 2 * 768}, 2 * 2 * 512.0},
        std::tuple{Recompute::kFull, Time{2 * 2 * (3264 + 5056)}, 2 * 2 * 6656.0}}) {
    Config c = tiny(1, 1, 1, Schedule::kOneFOneB);
    c.recompute = mode;
    const Outcome r = run(c);
    ASSERT_EQ(r.unfinished, "");
    EXPECT_EQ(column(*r.results, 0, Category::kBackward), b0 + extra * kNanosecond);
    EXPECT_EQ(column(*r.results, 0, Category::kForward),
              column(*none.results, 0, Category::kForward));
    EXPECT_EQ(r.results->iteration_time(0), t0 + extra * kNanosecond);
    EXPECT_EQ(sum(r.results->breakdown(0, 0)), r.results->iteration_time(0));
    EXPECT_NEAR(r.results->hardware_tflops_per_gpu(0) / r.results->model_tflops_per_gpu(0),
                hardware_iteration_flops(c) / iteration_flops(c), 1e-12);
    EXPECT_EQ(hardware_iteration_flops(c) - iteration_flops(c), flops);
  }
  Config c = tiny(2, 1, 1, Schedule::kGpipe);
  const Outcome base = run(c);
  c.recompute = Recompute::kFull;
  const Outcome full = run(c);
  ASSERT_EQ(full.unfinished, "");
  for (std::uint32_t g = 0; g < 2; ++g) {
    EXPECT_EQ(column(*full.results, g, Category::kBackward),
              column(*base.results, g, Category::kBackward) + 2 * 2 * (1856 + 2752) * kNanosecond);
    EXPECT_EQ(column(*full.results, g, Category::kTpComm),
              column(*base.results, g, Category::kTpComm) + 2 * 2 * 2 * 2005120);
  }
}

// Sequence parallelism (tiny, tp 2, one stage, 2 micro-batches of 2 layers):
// each TP all-reduce becomes a reduce-scatter and an all-gather of the same
// 64 B, one ring step of 32 B each (1002.56 ns), so tp-comm is unchanged on a
// ring of 2; the 7·bsh element-wise bytes are split over tp: attention 1280 +
// (112 + 64)·2 = 1632 ns, MLP 2048 + (112 + 128)·2 = 2528 ns, logits 640.
TEST(Transformer, SequenceParallelism) {
  Config c = tiny(2, 1, 1, Schedule::kGpipe);
  const Outcome base = run(c);
  c.sequence_parallel = true;
  const Outcome r = run(c);
  ASSERT_EQ(r.unfinished, "");
  const Time forward = (2 * 2 * (1632 + 2528) + 2 * 640) * kNanosecond;
  for (std::uint32_t g = 0; g < 2; ++g) {
    EXPECT_EQ(column(*r.results, g, Category::kForward), forward) << g;
    EXPECT_EQ(column(*r.results, g, Category::kBackward), 2 * forward) << g;
    EXPECT_EQ(column(*r.results, g, Category::kTpComm), 32 * Time{1002560}) << g;
    EXPECT_EQ(column(*r.results, g, Category::kTpComm),
              column(*base.results, g, Category::kTpComm));
    EXPECT_EQ(sum(r.results->breakdown(0, g)), r.results->iteration_time(0)) << g;
  }
  // The program: per layer and pass two reduce-scatters and two all-gathers.
  const LinearDevice d;
  const ProgramSet set = make_programs(c, d, 2);
  std::uint32_t collectives = 0;
  for (std::uint32_t i = 0; i < set.programs[0].size(); ++i) {
    collectives += set.programs[0].op(i).kind == OpKind::kCollective ? 1 : 0;
  }
  EXPECT_EQ(collectives, 2u * 2 * 2 * 4);
  // With pipelines, recomputation and DP too, every breakdown adds up.
  for (const Recompute rc : {Recompute::kNone, Recompute::kFull}) {
    Config x = tiny(2, 2, 2, Schedule::kOneFOneB);
    x.sequence_parallel = true;
    x.recompute = rc;
    const Outcome o = run(x);
    ASSERT_EQ(o.unfinished, "");
    Time longest = 0;
    for (std::uint32_t g = 0; g < 8; ++g) {
      longest = std::max(longest, sum(o.results->breakdown(0, g)));
    }
    EXPECT_EQ(longest, o.results->iteration_time(0));
  }
}

// ZeRO on tiny(2, 1, 2) (the 960 parameters per GPU of
// TensorAndDataParallelOneStage). Stages 1 and 2: the gradient all-reduce
// becomes a reduce-scatter and an all-gather of 1920 B, one ring step of 960
// B each (1076.8 ns, the same 2153.6 ns as the all-reduce's two steps), and
// Adam updates 480 parameters (19200 ns): nothing else changes. Stage 3: per
// layer and micro-batch, an all-gather of the layer's 436 parameters (872 B,
// 1034.88 ns) before its forward and its backward and a reduce-scatter of its
// gradients after; then the other 88 parameters (176 B, 1007.04 ns each way)
// around the optimizer.
TEST(Transformer, ZeroChangesTheDataParallelCollectives) {
  const Config base_config = tiny(2, 1, 2, Schedule::kOneFOneB);
  const Outcome base = run(base_config);
  for (std::uint32_t zero = 1; zero <= 3; ++zero) {
    Config c = base_config;
    c.zero = zero;
    const Outcome r = run(c);
    ASSERT_EQ(r.unfinished, "");
    const Time dp = zero < 3 ? 2153600 : 12 * Time{1034880} + 2 * Time{1007040};
    for (std::uint32_t g = 0; g < 4; ++g) {
      for (const Category k : {Category::kForward, Category::kBackward, Category::kTpComm}) {
        EXPECT_EQ(column(*r.results, g, k), column(*base.results, g, k)) << zero << " " << g;
      }
      EXPECT_EQ(column(*r.results, g, Category::kDpComm), dp) << zero << " " << g;
      EXPECT_EQ(column(*r.results, g, Category::kOptimizer), 19200 * kNanosecond) << zero;
      EXPECT_EQ(idle(*r.results, g), 0u);
    }
    EXPECT_EQ(r.results->iteration_time(0),
              base.results->iteration_time(0) - 19200 * kNanosecond - 2153600 + dp)
        << zero;
  }
}

// DP overlap (tiny, tp 1 x dp 2, one stage, 2 micro-batches of 2 layers;
// 1920 parameters per GPU, 872 per layer). The default 25 MiB bucket takes
// the whole gradient after the backward pass: the same as dp_overlap: false,
// one all-reduce of 3840 B (2 x (1000 + 153.6) = 2307.2 ns). With 1-byte
// buckets, layer 1's 1744 B start as soon as its last backward is done
// (2 x 1069.76 ns, hidden by layer 0's 16640 ns backward); layer 0's with the
// other 176 parameters (2096 B, 2 x 1083.84 = 2167.68 ns) are exposed. With
// ZeRO-1 the buckets are reduce-scatters (1083.84 ns exposed), Adam updates
// 960 parameters, and the all-gather of 3840 B takes 1153.6 ns.
TEST(Transformer, DataParallelBucketsOverlapBackward) {
  Config c = tiny(1, 1, 2, Schedule::kOneFOneB);
  c.dp_overlap = false;
  const Outcome serial = run(c);
  c.dp_overlap = true;
  const Outcome one_bucket = run(c);
  c.dp_bucket_bytes = 1;
  const Outcome buckets = run(c);
  c.zero = 1;
  const Outcome zero = run(c);
  ASSERT_EQ(buckets.unfinished, "");
  ASSERT_EQ(zero.unfinished, "");
  const Time base = serial.results->iteration_time(0);
  EXPECT_EQ(column(*serial.results, 0, Category::kDpComm), 2307200u);
  EXPECT_EQ(one_bucket.results->iteration_time(0), base);
  EXPECT_EQ(buckets.results->iteration_time(0), base - 2307200 + 2167680);
  EXPECT_EQ(zero.results->iteration_time(0),
            base - 2307200 + 1083840 + 1153600 - 38400 * kNanosecond);
  for (std::uint32_t g = 0; g < 2; ++g) {
    EXPECT_EQ(column(*buckets.results, g, Category::kDpComm), 2167680u) << g;
    EXPECT_EQ(column(*zero.results, g, Category::kDpComm), 1083840u + 1153600u) << g;
    for (const Category k : {Category::kForward, Category::kBackward}) {
      EXPECT_EQ(column(*buckets.results, g, k), column(*serial.results, g, k)) << g;
    }
    EXPECT_EQ(sum(buckets.results->breakdown(0, g)), buckets.results->iteration_time(0));
    EXPECT_EQ(sum(zero.results->breakdown(0, g)), zero.results->iteration_time(0));
  }
}

// tp_overlap: each block's backward TP all-reduce (2005.12 ns, a ring of 2 on
// 64 B) runs beside its first linear's weight gradient: QKV's 2 x 8 x 12 x 4
// = 768 FLOPs and fc1's 2 x 8 x 16 x 4 = 1024 (tp 2, b*s = 4), which leave
// the backward column for the weight-gradient one and hide behind the
// all-reduce: 2 layers x 2 micro-batches x 1792 ns off the iteration.
TEST(Transformer, TensorParallelAllReduceOverlapsWeightGradients) {
  Config c = tiny(2, 1, 1, Schedule::kOneFOneB);
  const Outcome serial = run(c);
  c.tp_overlap = true;
  const Outcome overlap = run(c);
  ASSERT_EQ(overlap.unfinished, "");
  constexpr Time kHidden = 2 * 2 * 1792 * kNanosecond;
  EXPECT_EQ(overlap.results->iteration_time(0), serial.results->iteration_time(0) - kHidden);
  for (std::uint32_t g = 0; g < 2; ++g) {
    EXPECT_EQ(column(*overlap.results, g, Category::kWeightGradient), kHidden) << g;
    EXPECT_EQ(column(*overlap.results, g, Category::kBackward) + kHidden,
              column(*serial.results, g, Category::kBackward))
        << g;
    // The breakdown counts computation first: tp-comm keeps what is exposed.
    EXPECT_EQ(column(*overlap.results, g, Category::kTpComm) + kHidden,
              column(*serial.results, g, Category::kTpComm))
        << g;
  }
}

// pp_scatter_gather: each GPU of a TP group sends 1/tp of the b*s*h message
// (64 B / 2), and the receivers all-gather it over TP, counted as pp-comm.
// Sequence parallelism's messages are 1/tp already: nothing changes then.
TEST(Transformer, PipelineMessagesScatterOverTheTensorGroup) {
  Config c = tiny(2, 2, 1, Schedule::kOneFOneB);
  c.pp_scatter_gather = true;
  const LinearDevice d;
  const ProgramSet set = make_programs(c, d, c.gpus());
  std::uint32_t sends = 0, gathers = 0;
  for (const Program& p : set.programs) {
    for (std::uint32_t i = 0; i < p.size(); ++i) {
      const Op& op = p.op(i);
      if (op.kind == OpKind::kSend) {
        EXPECT_EQ(op.bytes, 32u);
        ++sends;
      }
      if (op.kind == OpKind::kCollective && op.category == Category::kPpComm) {
        EXPECT_EQ(p.call(op.call).op, collective::Op::kAllGather);
        EXPECT_EQ(p.call(op.call).bytes, 64u);
        EXPECT_EQ(p.op(p.deps(i)[0]).kind, OpKind::kRecv);
        ++gathers;
      }
    }
  }
  EXPECT_EQ(sends, 4u);  // 2 micro-batches, forward and backward
  EXPECT_EQ(gathers, sends);
  const Outcome r = run(c);
  ASSERT_EQ(r.unfinished, "");
  // Under replay-shapes each stage's TP groups share records among
  // themselves only: stage 1's first all-gather (forward) cannot wait for
  // stage 0's (backward, after stage 1's own backward).
  c.replay_collectives = collective::Replay::kShape;
  EXPECT_EQ(run(c).unfinished, "");
  c.sequence_parallel = true;
  EXPECT_FALSE(scatter_gather(c));
}

// Replay (workload.collectives: replay): TP 2 x DP 2, one stage, 4
// micro-batches, no DP overlap: each TP and DP group's collectives start their
// members together on an otherwise idle elect-flat, which is where replay is
// exact. Later calls of a kind send nothing, and ZeRO-1 (reduce-scatter and
// all-gather: two kinds on the DP communicator) is replayed as exactly.
TEST(Transformer, ReplayedCollectivesRepeatTheFirstExactly) {
  for (const std::uint32_t zero : {0u, 1u}) {
    Config c = tiny(2, 1, 2, Schedule::kOneFOneB);
    c.dp_overlap = false;
    c.zero = zero;
    c.model.global_batch = 8;
    const Outcome simulated = run(c);
    c.replay_collectives = collective::Replay::kCommunicator;
    const Outcome replayed = run(c);
    ASSERT_EQ(simulated.unfinished, "");
    ASSERT_EQ(replayed.unfinished, "");
    EXPECT_EQ(replayed.results->iteration_time(0), simulated.results->iteration_time(0)) << zero;
    EXPECT_EQ(replayed.results->shape().replay_collectives, collective::Replay::kCommunicator);
    // The energy counts the bytes replayed parts would have sent.
    EXPECT_GT(simulated.results->fabric_bytes(), 0u);
    EXPECT_EQ(replayed.results->fabric_bytes(), simulated.results->fabric_bytes());
    for (std::uint32_t g = 0; g < c.gpus(); ++g) {
      EXPECT_EQ(replayed.results->breakdown(0, g), simulated.results->breakdown(0, g))
          << "GPU " << g << ", zero " << zero;
    }
  }
}

// Replay by shape (workload.collectives: replay-shapes): TP 2 x DP 4, one
// stage, no DP overlap, with and without ZeRO-1. The four TP groups are
// translates of each other, and so are the two DP groups: only the lowest of
// each shape simulates a call's first instance, and the others replay every
// instance from its record. The others start their first instance with the
// recorder, and the record reaches them one max_lookahead (the 1 us latency)
// after the recorder's instance ended: their first TP all-reduce, and their
// first DP collective, end 1 us late (the ZeRO-1 all-gather then starts late
// by as much and is not delayed again). Every other time is replay's.
TEST(Transformer, ReplayedCollectivesByShape) {
  for (const std::uint32_t zero : {0u, 1u}) {
    Config c = tiny(2, 1, 4, Schedule::kOneFOneB);
    c.dp_overlap = false;
    c.zero = zero;
    c.model.global_batch = 16;
    const Outcome simulated = run(c);
    c.replay_collectives = collective::Replay::kCommunicator;
    const Outcome replayed = run(c);
    c.replay_collectives = collective::Replay::kShape;
    const Outcome shapes = run(c);
    ASSERT_EQ(simulated.unfinished, "");
    ASSERT_EQ(shapes.unfinished, "");
    EXPECT_EQ(shapes.results->shape().replay_collectives, collective::Replay::kShape);
    EXPECT_EQ(shapes.results->fabric_bytes(), simulated.results->fabric_bytes()) << zero;
    EXPECT_LT(shapes.events, replayed.events) << zero;
    EXPECT_LT(replayed.events, simulated.events) << zero;
    EXPECT_EQ(replayed.results->iteration_time(0), simulated.results->iteration_time(0)) << zero;
    EXPECT_EQ(shapes.results->iteration_time(0),
              simulated.results->iteration_time(0) + 2 * kLatency)
        << zero;
    for (std::uint32_t g = 0; g < c.gpus(); ++g) {
      const Breakdown& b = shapes.results->breakdown(0, g);
      const Breakdown& s = simulated.results->breakdown(0, g);
      EXPECT_LE(sum(b), shapes.results->iteration_time(0)) << g;  // GPUs end apart
      for (const Category k : {Category::kForward, Category::kBackward, Category::kOptimizer}) {
        EXPECT_EQ(column(*shapes.results, g, k), column(*simulated.results, g, k)) << g;
      }
      // The recorder's TP group (GPUs 0, 1) runs as under replay; the others'
      // first TP all-reduce waits for the record.
      EXPECT_EQ(b[static_cast<std::size_t>(Category::kTpComm)],
                s[static_cast<std::size_t>(Category::kTpComm)] + (g < 2 ? 0 : kLatency))
          << "GPU " << g << ", zero " << zero;
    }
  }
}

// Replay where it is not exact: TP 2 x PP 2 x DP 2, 1F1B on 4 micro-batches,
// DP buckets overlapping backward. Pipeline sends share the injection ports
// with TP traffic, and DP buckets with both, which a replayed collective does
// not take: the times differ by a few port serialisations (2.56 ns each).
TEST(Transformer, ReplayedCollectivesUnderContention) {
  Config c = tiny(2, 2, 2, Schedule::kOneFOneB);
  c.model.global_batch = 8;
  c.dp_bucket_bytes = 1;
  const Outcome simulated = run(c);
  c.replay_collectives = collective::Replay::kCommunicator;
  const Outcome replayed = run(c);
  ASSERT_EQ(replayed.unfinished, "");
  const auto near = [](Time a, Time b) { return (a > b ? a - b : b - a) <= 10 * kNanosecond; };
  EXPECT_TRUE(near(replayed.results->iteration_time(0), simulated.results->iteration_time(0)));
  for (std::uint32_t g = 0; g < c.gpus(); ++g) {
    for (std::size_t k = 0; k < kBreakdownColumns; ++k) {
      EXPECT_TRUE(near(replayed.results->breakdown(0, g)[k], simulated.results->breakdown(0, g)[k]))
          << "GPU " << g << ", column " << breakdown_column(k);
    }
  }
  // replay-shapes: the four TP groups (two per stage) share their records,
  // and so do the DP groups that run a call of the same size; calls no other
  // group of the shape runs are replayed from their own first instance. The
  // records arrive late by at most a few latencies.
  c.replay_collectives = collective::Replay::kShape;
  const Outcome shapes = run(c);
  ASSERT_EQ(shapes.unfinished, "");
  EXPECT_LT(shapes.events, replayed.events);
  EXPECT_GE(shapes.results->iteration_time(0), replayed.results->iteration_time(0));
  EXPECT_LE(shapes.results->iteration_time(0), replayed.results->iteration_time(0) + 4 * kLatency);
}

// replay-shapes where the communicators of a shape contend: Megatron's
// schedule on the SuperPod fat-tree (TP 8 x PP 4 x DP 4, as
// tests/app/training-megatron.yaml). Each stage's eight DP groups are
// translates by one node but strided over the same servers, and their
// gradient all-reduces share leaf uplinks. Unpriced, every group repeated
// its recorder's uncontended run and the steady period came out 14.5% short
// of `replay`'s (36.11 against 42.22 ms); priced by the critical path of the
// groups together, it is within 1% (42.32 ms), and the summary says which
// call was stretched the most.
TEST(Transformer, ReplayedByShapeWithContention) {
  const std::string scenario = R"(
fabric: {type: cluster, preset: superpod, forwarding: cut-through, chunk: 1MiB, nodes: 128}
compute: {preset: a100-80gb, model: gemm}
workload:
  type: transformer
  model: {layers: 8, hidden: 4096, heads: 32, seq: 1024, vocab: 51200,
          global_batch: 16, micro_batch: 1, precision: fp16}
  parallelism: {tp: 8, pp: 4, dp: 4}
  schedule: interleaved-1f1b
  virtual_stages: 2
  tp_overlap: true
  pp_scatter_gather: true
  recompute: full
  iterations: 2
)";
  const ScenarioRun replay = run_scenario(scenario + "  collectives: replay\n");
  const ScenarioRun shapes = run_scenario(scenario + "  collectives: replay-shapes\n");
  const double ratio =
      static_cast<double>(shapes.last_period) / static_cast<double>(replay.last_period);
  EXPECT_GT(ratio, 0.99);
  EXPECT_LT(ratio, 1.01);
  EXPECT_NE(shapes.printed.find("replay-shapes contention: 14 shared call(s), 14 priced"),
            std::string::npos)
      << shapes.printed;
  EXPECT_NE(shapes.printed.find("slower, whose replayed instances"), std::string::npos);
  EXPECT_EQ(replay.printed.find("replay-shapes contention"), std::string::npos);
}

// MoE (tiny, tp 1 x dp 2, one stage, 2 micro-batches; 2 experts, top-1,
// every 2nd layer, capacity 1): layer 1's MLP is the router (2bshE = 128
// FLOPs) and the experts on b·s = 4 tokens (4·4·h·f = 4096 FLOPs, (7·bsh +
// 2·4·f)·e = 960 B): 5184 ns forward, twice backward. ep 2: two all-to-alls
// of 64 B forward and two backward per micro-batch (direct, one 32 B message
// each: 1002.56 ns), `ep-comm`; each GPU holds one expert (552 parameters),
// the dense 1384 are all-reduced over dp (2768 B: 2221.44 ns), the experts'
// gradients need no all-reduce (dp / ep = 1). ep 1: both experts on every
// GPU (2488 parameters), their 2208 B all-reduced over dp (2176.64 ns).
TEST(Transformer, MixtureOfExperts) {
  Config c = tiny(1, 1, 2, Schedule::kOneFOneB);
  c.moe = {2, 1, 2, 2, 1000};
  EXPECT_FALSE(is_moe_layer(c, 0));
  EXPECT_TRUE(is_moe_layer(c, 1));
  EXPECT_EQ(stage_parameters(c, 0), 1936u);
  EXPECT_EQ(stage_expert_parameters(c, 0), 552u);
  const Time forward = 2 * (3264 + 5056 + 3264 + 5184 + 1280) * kNanosecond;
  Outcome r = run(c);
  ASSERT_EQ(r.unfinished, "");
  for (std::uint32_t g = 0; g < 2; ++g) {
    EXPECT_EQ(column(*r.results, g, Category::kForward), forward) << g;
    EXPECT_EQ(column(*r.results, g, Category::kBackward), 2 * forward) << g;
    EXPECT_EQ(column(*r.results, g, Category::kEpComm), 8 * Time{1002560}) << g;
    EXPECT_EQ(column(*r.results, g, Category::kDpComm), 2221440u) << g;
    EXPECT_EQ(column(*r.results, g, Category::kOptimizer), 40 * 1936 * kNanosecond) << g;
    EXPECT_EQ(sum(r.results->breakdown(0, g)), r.results->iteration_time(0)) << g;
  }
  c.moe.ep = 1;
  EXPECT_EQ(stage_parameters(c, 0), 2488u);
  r = run(c);
  ASSERT_EQ(r.unfinished, "");
  EXPECT_EQ(column(*r.results, 0, Category::kEpComm), 0u);
  EXPECT_EQ(column(*r.results, 0, Category::kDpComm), 2221440u + 2176640u);
  EXPECT_EQ(r.results->iteration_time(0),
            3 * forward + 2221440 + 2176640 + 40 * 2488 * kNanosecond);
  // Useful FLOPs: the MoE layer's forward is 6656 (dense) + 128 (router).
  EXPECT_EQ(moe_layer_forward_flops(c), layer_forward_flops(c.model) + 128);
  EXPECT_NEAR(iteration_flops(c), 3.0 * 4 * (6656 + 6784 + 1024), 1e-9);  // + logits 2bshV
}

// Memory per GPU of tiny(2, 2, 2): 1 layer per stage, m = 2, fp16. Stage 0
// holds 1032 / 2 = 516 parameters (2 B weights, 2 B gradients, 12 B Adam),
// stage 1 888 / 2 = 444. One layer's activations per micro-batch
// (Korthikanti): 10sbh + (8sbh + 4sbf)/t + 5as^2b/t = 320 + 384 + 80 = 784 B
// (selective: without the 80; full: the layer's input sbh·e = 64 B, plus one
// layer's 784 B being recomputed). 1F1B: stage 0 holds 2 micro-batches, stage
// 1 one and its fp32 logits 4·s·b·V/t = 128 B; GPipe: both hold 2.
TEST(TransformerMemory, HandComputedTerms) {
  Config c = tiny(2, 2, 2, Schedule::kOneFOneB);
  MemoryUse u = memory_use(c, 0);
  EXPECT_EQ(u.weights, 1032.0);
  EXPECT_EQ(u.gradients, 1032.0);
  EXPECT_EQ(u.optimizer, 6192.0);
  EXPECT_EQ(u.activations, 1568.0);
  EXPECT_EQ(u.logits, 0.0);
  EXPECT_EQ(u.in_flight, 2u);
  EXPECT_EQ(u.total(), 9824.0);
  u = memory_use(c, 1);
  EXPECT_EQ(u.in_flight, 1u);
  EXPECT_EQ(u.activations, 784.0);
  EXPECT_EQ(u.logits, 128.0);
  EXPECT_EQ(u.total(), 888 + 888 + 5328 + 784 + 128.0);
  EXPECT_EQ(peak_memory_stage(c), 0u);
  c.recompute = Recompute::kSelective;
  EXPECT_EQ(memory_use(c, 0).activations, 1408.0);
  c.recompute = Recompute::kFull;
  EXPECT_EQ(memory_use(c, 0).activations, 2 * 64 + 784.0);
  // ZeRO over dp 2: the optimizer state, then the gradients, then the
  // weights (plus the gathered layer, 436 parameters) halve.
  c.zero = 1;
  EXPECT_EQ(memory_use(c, 0).optimizer, 3096.0);
  EXPECT_EQ(memory_use(c, 0).gradients, 1032.0);
  c.zero = 2;
  EXPECT_EQ(memory_use(c, 0).gradients, 516.0);
  EXPECT_EQ(memory_use(c, 0).weights, 1032.0);
  c.zero = 3;
  EXPECT_EQ(memory_use(c, 0).weights, 516 + 872.0);
  c.zero = 0;
  // Sequence parallelism splits the 10sbh too: 160 + 384 + 80 = 624 B.
  c.sequence_parallel = true;
  EXPECT_EQ(memory_use(c, 0).activations, 2 * 32 + 624.0);
  c.recompute = Recompute::kNone;
  EXPECT_EQ(memory_use(c, 0).activations, 2 * 624.0);
  c.sequence_parallel = false;
  c.schedule = Schedule::kGpipe;
  EXPECT_EQ(memory_use(c, 1).activations, 1568.0);
  EXPECT_EQ(memory_use(c, 1).logits, 256.0);
  EXPECT_EQ(memory_error(c), "");
}

// On RAMP the job is placed by RAMP §6.3 per axis and its TP and DP groups
// run RAMP-x (fabric/ramp/placement.hpp): with one collective at a time per
// group kind (pp 1, no DP overlap) every transfer keeps the optical rules
// (fabric.permissive: false stops the run on a violation), and the DP
// all-reduce over 32 GPUs takes 2 RAMP-x steps instead of a ring's 62.
TEST(Transformer, RampPlacesTheJobAndRunsRampX) {
  struct Run {
    Time iteration = 0, tp_comm = 0;
  };
  const auto run = [](const std::string& fabric, const std::string& extra) {
    const ScenarioRun r = run_scenario(
        "fabric: {type: ramp, permissive: false, " + fabric +
        "}\nworkload:\n  type: transformer\n"
        "  model: {layers: 2, hidden: 1024, heads: 4, seq: 256, vocab: 256, global_batch: 32}\n"
        "  dp_overlap: false\n" +
        extra);
    EXPECT_EQ(r.rule_conflicts, 0u);
    return Run{r.iteration, r.gpu0[static_cast<std::size_t>(Category::kTpComm)]};
  };
  const std::string small = "x: 4, J: 4, Lambda: 4", tp2 = "  parallelism: {tp: 2, dp: 32}\n";
  const Run ramp_x = run(small, tp2);
  const Run ring = run(small, tp2 + "  algorithms: {tp: ring, dp: ring}\n");
  EXPECT_GT(ramp_x.iteration, 0u);
  EXPECT_LT(ramp_x.iteration, ring.iteration);
  // x 16: the job is (16, 4, 1, 1), TP 4 takes (4, 1, 1, 1); its pairs use
  // 1 + 1 transceiver groups (eq. 3 for d = 4, RampSpec::inner), the job's
  // step-1 pairs one (d = 16).
  const std::string wide = "x: 16, J: 4, Lambda: 16, ignore_power_budget: true",
                    tp4 = "  parallelism: {tp: 4, dp: 16}\n";
  const Run inner = run(wide, tp4), plain = run(wide + ", extra_transceivers: false", tp4);
  EXPECT_LT(inner.tp_comm, plain.tp_comm);
}

// Only the communicators that exist count against the tag's 65,534: one TP
// group of 65,536 GPUs and no DP groups (RAMP Table 9's CE 1.0 row).
TEST(Transformer, OneTensorParallelGroupOf65536) {
  Config c = tiny(1, 1, 1, Schedule::kGpipe);
  c.model.heads = c.model.hidden = c.model.ffn = 65536;
  c.model.global_batch = 1;
  c.tp = 65536;
  const LinearDevice d;
  const ProgramSet set = make_programs(c, d, 65536);
  ASSERT_EQ(set.comms.size(), 1u);
  EXPECT_EQ(set.comms[0].nodes.size(), 65536u);
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
  EXPECT_NE(error_of(kModel + "  parallelism: {}\n  recompute: some\n").find("recompute"),
            std::string::npos);
  EXPECT_EQ(error_of(kModel + "  parallelism: {}\n  recompute: selective\n"), "");
  EXPECT_EQ(error_of(kModel + "  parallelism: {tp: 2, sequence_parallel: true}\n"), "");
  EXPECT_EQ(error_of(kModel + "  parallelism: {tp: 2, sequence_parallel: true}\n"
                              "  algorithms: {tp: double-binary-tree}\n"),
            "t.yaml:6:20 workload.algorithms.tp: algorithm double-binary-tree does not implement "
            "op reduce-scatter");
  EXPECT_EQ(error_of(kModel + "  parallelism: {tp: 2}\n  algorithms: {tp: double-binary-tree}\n"),
            "");
  EXPECT_NE(error_of(kModel + "  parallelism: {tp: 2}\n  tp_overlap: maybe\n")
                .find("workload.tp_overlap"),
            std::string::npos);
  EXPECT_EQ(error_of(kModel + "  parallelism: {tp: 2}\n  tp_overlap: true\n"), "");
  // Scattered pipeline messages need the TP algorithm's all-gather.
  EXPECT_NE(error_of(kModel + "  parallelism: {tp: 2, pp: 2}\n  pp_scatter_gather: true\n"
                              "  algorithms: {tp: double-binary-tree}\n")
                .find("does not implement op all-gather"),
            std::string::npos);
  EXPECT_NE(error_of("  model: {layers: 2, hidden: 8, heads: 2, seq: 3, vocab: 16, "
                     "global_batch: 4}\n  parallelism: {tp: 2, sequence_parallel: true}\n")
                .find("workload.parallelism.sequence_parallel: needs tp (2) to divide model.seq"),
            std::string::npos);
  EXPECT_NE(error_of(kModel + "  parallelism: {zero: 4}\n").find("workload.parallelism.zero"),
            std::string::npos);
  EXPECT_EQ(error_of(kModel + "  parallelism: {dp: 2, zero: 1}\n"
                              "  algorithms: {dp: double-binary-tree}\n"),
            "t.yaml:6:20 workload.algorithms.dp: algorithm double-binary-tree does not implement "
            "op reduce-scatter");
  EXPECT_NE(error_of(kModel + "  parallelism: {}\n  dp_bucket_bytes: 0\n").find("dp_bucket_bytes"),
            std::string::npos);
  EXPECT_EQ(error_of(kModel + "  parallelism: {}\n  dp_bucket_bytes: 1MiB\n  dp_overlap: false\n"),
            "");
  EXPECT_NE(error_of(kModel + "  parallelism: {pp: 2}\n  schedule: interleaved-1f1b\n")
                .find("workload.schedule: needs parallelism.pp >= 3"),
            std::string::npos);
  EXPECT_NE(error_of(kModel + "  parallelism: {}\n  virtual_stages: 2\n")
                .find("workload.virtual_stages: needs schedule: interleaved-1f1b"),
            std::string::npos);
  EXPECT_EQ(error_of(kModel + "  parallelism: {dp: 2}\n  moe: {experts: 4, ep: 2, every: 2}\n"),
            "");
  EXPECT_NE(error_of(kModel + "  parallelism: {dp: 2}\n  moe: {experts: 3, ep: 2}\n")
                .find("workload.moe.ep: must divide"),
            std::string::npos);
  EXPECT_NE(error_of(kModel + "  parallelism: {dp: 2, zero: 1}\n  moe: {experts: 2}\n")
                .find("workload.moe: ZeRO"),
            std::string::npos);
  EXPECT_EQ(error_of(kModel + "  parallelism: {dp: 2}\n  moe: {experts: 2, ep: 2}\n"
                              "  algorithms: {ep: double-binary-tree}\n"),
            "t.yaml:7:20 workload.algorithms.ep: algorithm double-binary-tree does not implement "
            "op all-to-all");
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

// A configuration that does not fit fails at setup, located at
// `parallelism`, with every term: 8 layers of h 4096 (1,829,150,720
// parameters: 3.41 GiB of weights and of gradients, 20.44 of Adam),
// activations 8 x sbh(34 + 5as/h) = 14.25 GiB at b = 2, logits 4sbV = 0.78.
TEST(TransformerMemory, ErrorGivesTheNumbers) {
  const std::string model =
      "  model: {layers: 8, hidden: 4096, heads: 32, seq: 2048, vocab: 51200, global_batch: 16, "
      "micro_batch: 2}\n";
  EXPECT_EQ(
      error_of(model + "  parallelism: {}\n"),
      "t.yaml:5:16 workload.parallelism: the model does not fit in the accelerator's memory: a GPU "
      "of stage 0 needs 42.29 GiB (weights 3.41, gradients 3.41, optimizer state 20.44, "
      "activations 14.25 for 1 micro-batches in flight, logits 0.78) but a100 has 40.00 GiB; try "
      "more tp or pp, recompute: full, a smaller model.micro_batch (or memory_check: false to run "
      "anyway)");
  EXPECT_EQ(error_of(model + "  parallelism: {}\n  memory_check: false\n"), "");
  EXPECT_EQ(error_of(model + "  parallelism: {}\n  recompute: full\n"), "");
  EXPECT_EQ(error_of(model + "  parallelism: {tp: 2}\n"), "");
}

}  // namespace

// `algorithms: {tp: auto, dp: auto}` picks, per group kind, the algorithm with
// the smallest critical-path estimate: never slower than ring here (a 2-tier
// fat-tree of 8-GPU servers, DP groups across servers).
TEST(Transformer, AutoAlgorithmsAreNoSlowerThanRing) {
  const auto iteration = [](const std::string& algorithms) {
    return run_scenario(
               "fabric: {type: cluster, preset: superpod, nodes: 64, chunk: 64KiB}\n"
               "workload:\n  type: transformer\n"
               "  model: {layers: 2, hidden: 1024, heads: 8, seq: 256, vocab: 256, "
               "global_batch: 8}\n"
               "  parallelism: {tp: 8, dp: 8}\n  dp_overlap: false\n  algorithms: " +
               algorithms + "\n")
        .iteration;
  };
  const Time automatic = iteration("{tp: auto, dp: auto}"),
             ring = iteration("{tp: ring, dp: ring}");
  EXPECT_GT(automatic, 0u);
  EXPECT_LE(automatic, ring);
  EXPECT_NE(error_of(kModel + "  parallelism: {tp: 2}\n  algorithms: {ep: auto}\n")
                .find("workload.algorithms.ep"),
            std::string::npos);
}

}  // namespace sipsim::workload::transformer
