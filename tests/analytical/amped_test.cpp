// AMPeD (eq. 1-12, analytical/amped.hpp): hand-computed terms for a small
// configuration, and the simulator run in-process beside it on elect-flat
// (an ideal switch) with ring all-reduces. Where the two models' assumptions
// coincide (one pipeline stage: no bubble, no point-to-point overlap) they
// agree to the picosecond; with a pipeline the test states the two terms that
// differ and checks the difference exactly.
#include "sipsim/analytical/amped.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "../support/test_fabrics.hpp"
#include "../support/training.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/fabric/flat/elect_flat.hpp"
#include "sipsim/fabric/routed/routed_network.hpp"

namespace sipsim::analytical {
namespace {

using pdes::kNanosecond;
using pdes::Time;
using workload::Category;
using workload::transformer::Config;
using workload::transformer::hardware_iteration_flops;
using workload::transformer::iteration_flops;
using workload::transformer::Recompute;
using workload::transformer::Schedule;
using workload::transformer::TransformerResults;

constexpr std::uint64_t k100G = 100'000'000'000;  // 64 B take 5.12 ns
constexpr Time kLatency = 1000 * kNanosecond;

using testing::LinearDevice;

// h 8, 2 heads, ffn 32, seq 4, vocab 16, b 1, fp16: activations are 64 B.
constexpr auto& tiny = testing::tiny_transformer;

std::unique_ptr<TransformerResults> simulate(const Config& c,
                                             std::unique_ptr<compute::Device> device) {
  auto r = std::make_unique<TransformerResults>(
      c, fabric::make_elect_flat(c.gpus(), k100G, kLatency), std::move(device));
  EXPECT_EQ(testing::run_training(*r), "");
  return r;
}

AmpedEstimate amped(const Config& c, const compute::Device& d) {
  const auto network = fabric::make_elect_flat(c.gpus(), k100G, kLatency);
  return estimate_amped(c, d, read_amped_fabric(c, *network));
}

Time column(const TransformerResults& r, std::uint32_t gpu, Category c) {
  return r.breakdown(0, gpu)[static_cast<std::size_t>(c)];
}

// tp 2, dp 2, one stage (the numbers of tests/workload/transformer): attention
// 1280 FLOPs + 576 B = 1856 ns, MLP 2048 + 704 = 2752 ns, logits 512 + 128 =
// 640 ns, backward twice each. eq. 6 for the TP all-reduce of 64 B on a ring
// of 2: C T N + n S / BW T = 1000 ns x 1 x 2 + 64 B / 100 Gb/s x 1 = 2005.12 ns;
// 2 layers x 2 micro-batches x 4 = 16 of them. eq. 11 for the 960 gradients
// (1920 B): 2000 + 153.6 = 2153.6 ns. Adam on 960 parameters: 38400 ns.
TEST(Amped, HandComputedOneStage) {
  const LinearDevice d;
  const Config c = tiny(2, 1, 2, Schedule::kGpipe);
  const AmpedEstimate e = amped(c, d);
  EXPECT_EQ(e.layer_forward, (1856 + 2752) * kNanosecond);
  EXPECT_EQ(e.layer_backward, 2 * (1856 + 2752) * kNanosecond);
  EXPECT_EQ(e.logit_forward, 640 * kNanosecond);
  EXPECT_EQ(e.tp_all_reduce, 2005120u);
  EXPECT_EQ(e.dp_all_reduce, 2153600u);
  EXPECT_EQ(e.dp_parameters, 960u);
  EXPECT_EQ(e.micro_batches, 2u);
  EXPECT_EQ(e.forward, 2 * (2 * (1856 + 2752) + 640) * kNanosecond);
  EXPECT_EQ(e.backward, 2 * (2 * 2 * (1856 + 2752) + 2 * 640) * kNanosecond);
  EXPECT_EQ(e.tp_comm, 16 * 2005120u);
  EXPECT_EQ(e.dp_comm, 2153600u);
  EXPECT_EQ(e.optimizer, 38400 * kNanosecond);
  EXPECT_EQ(e.pp_comm, 0u);
  EXPECT_EQ(e.bubble, 0u);
  EXPECT_EQ(e.iteration, 131771520u);  // the simulator's, tests/workload/transformer
  // run's two counts over the estimate's time; without recomputation they agree.
  const double per_gpu = pdes::to_seconds(e.iteration) * 4 * 1e12;
  EXPECT_NEAR(e.model_tflops_per_gpu / (iteration_flops(c) / per_gpu), 1.0, 1e-12);
  EXPECT_EQ(e.hardware_tflops_per_gpu, e.model_tflops_per_gpu);
  // Full recomputation, as run simulates it: each layer's forward again
  // (2 micro-batches x 2 layers x 4608 ns) and its two TP all-reduces; the
  // hardware count adds the rerun forward work.
  Config full = c;
  full.recompute = Recompute::kFull;
  const AmpedEstimate f = amped(full, d);
  EXPECT_EQ(f.iteration, e.iteration + 4 * 4608 * kNanosecond + 8 * 2005120u);
  const double full_per_gpu = pdes::to_seconds(f.iteration) * 4 * 1e12;
  EXPECT_NEAR(f.model_tflops_per_gpu / (iteration_flops(c) / full_per_gpu), 1.0, 1e-12);
  EXPECT_NEAR(f.hardware_tflops_per_gpu / (hardware_iteration_flops(full) / full_per_gpu), 1.0,
              1e-12);
  EXPECT_GT(f.hardware_tflops_per_gpu, f.model_tflops_per_gpu);
}

// eq. 7-8 by hand: pp 2, 2 micro-batches, one layer per stage (tp 1: attention
// 3264 ns, MLP 5056 ns, logits 1280 ns; 1032 parameters on stage 0: Adam
// 41280 ns). Forward 2 x (8320 + 1280) (the last stage's), backward twice
// that; pp-comm 2 micro-batches x 2 passes x (1000 + 5.12) ns; bubble
// R (2 - 1) / 2 of the mean stage's forward and backward, 2 x 3 x (8320 +
// 1280 / 2), and pp-comm.
TEST(Amped, HandComputedPipeline) {
  const LinearDevice d;
  const AmpedEstimate e = amped(tiny(1, 2, 1, Schedule::kGpipe), d);
  EXPECT_EQ(e.forward, 19200 * kNanosecond);
  EXPECT_EQ(e.backward, 38400 * kNanosecond);
  EXPECT_EQ(e.pp_message, 1005120u);
  EXPECT_EQ(e.pp_comm, 4020480u);
  EXPECT_EQ(e.bubble, (17920 + 35840) * kNanosecond / 2 + 4020480u / 2);
  EXPECT_EQ(e.optimizer, 41280 * kNanosecond);
  EXPECT_EQ(e.iteration, 127950720u + 3840 * kNanosecond);
  // R scales the bubble (eq. 8).
  const auto network = fabric::make_elect_flat(2, k100G, kLatency);
  const Config c = tiny(1, 2, 1, Schedule::kGpipe);
  const AmpedEstimate half = estimate_amped(c, d, read_amped_fabric(c, *network), {500'000});
  EXPECT_EQ(half.bubble, e.bubble / 2);
  // R from the schedule: 1 for GPipe and 1F1B, 1/v interleaved.
  EXPECT_EQ(amped_options(c).r_ppm, compute::kPpm);
  Config v = tiny(1, 4, 1, Schedule::kInterleaved);
  v.model.layers = 8;
  v.virtual_stages = 2;
  EXPECT_EQ(amped_options(v).r_ppm, compute::kPpm / 2);
  EXPECT_EQ(amped_options(tiny(1, 2, 1, Schedule::kOneFOneB)).r_ppm, compute::kPpm);
}

// eq. 6 hierarchical (eq. 10's intra then inter): 4 per node at C 1 us and
// 800 Gb/s, 2 nodes at C 5 us and 100 Gb/s, 8 KiB: 2 x 3 x (1 us + 2 KiB at
// 800 Gb/s) + 2 x 1 x (5 us + 4 KiB at 100 Gb/s).
TEST(Amped, HierarchicalAllReduce) {
  AmpedGroup g;
  g.intra = 4;
  g.inter = 2;
  g.intra_link = {pdes::kMicrosecond, 800'000'000'000};
  g.inter_link = {5 * pdes::kMicrosecond, 100'000'000'000};
  EXPECT_EQ(amped_all_reduce(g, 8192), 6 * (1'000'000 + 20'480) + 2 * (5'000'000 + 327'680));
  EXPECT_EQ(amped_all_reduce(AmpedGroup{}, 8192), 0u);
}

// elect-flat: one AMPeD node (every pair at the same rate); C its latency,
// BW its port rate.
TEST(Amped, ReadsElectFlat) {
  const Config c = tiny(2, 2, 2, Schedule::kGpipe);
  const auto network = fabric::make_elect_flat(8, k100G, kLatency);
  const AmpedFabric f = read_amped_fabric(c, *network);
  EXPECT_EQ(f.tp.intra, 2u);
  EXPECT_EQ(f.tp.inter, 1u);
  EXPECT_EQ(f.tp.intra_link.latency, kLatency);
  EXPECT_EQ(f.tp.intra_link.rate_bps, k100G);
  EXPECT_EQ(f.dp.intra, 2u);
  EXPECT_EQ(f.pp.latency, kLatency);
  EXPECT_EQ(f.pp.rate_bps, k100G);
  EXPECT_EQ(f.node_rate_bps, k100G);
}

// A cluster of 2 servers of 8 GPUs (2.4 Tb/s NVLink, 200 Gb/s NIC per GPU):
// AMPeD's node is the server. TP 8 is intra-node; DP across servers is
// inter-node; DP 4 over tp 4 is 2 per server x 2 servers; the pipeline's
// stages (one per server) talk over the NICs.
TEST(Amped, ReadsClusterServersAsNodes) {
  constexpr std::uint64_t k200G = 200'000'000'000, kNvlink = 2'400'000'000'000;
  const auto net =
      fabric::make_routed(fabric::make_cluster(testing::cluster_spec(k200G, 2), 16), 1 << 20);
  const AmpedFabric a = read_amped_fabric(tiny(8, 1, 2, Schedule::kGpipe), *net);
  EXPECT_EQ(a.node_rate_bps, kNvlink);
  EXPECT_EQ(a.tp.intra, 8u);
  EXPECT_EQ(a.tp.inter, 1u);
  EXPECT_EQ(a.tp.intra_link.rate_bps, kNvlink);
  EXPECT_EQ(a.tp.intra_link.latency, net->uncongested_ps(0, 1, 0));
  EXPECT_EQ(a.dp.intra, 1u);
  EXPECT_EQ(a.dp.inter, 2u);
  EXPECT_EQ(a.dp.inter_link.rate_bps, k200G);
  EXPECT_EQ(a.dp.inter_link.latency, net->uncongested_ps(0, 8, 0));
  Config c = tiny(4, 1, 4, Schedule::kGpipe);
  const AmpedFabric b = read_amped_fabric(c, *net);
  EXPECT_EQ(b.dp.intra, 2u);
  EXPECT_EQ(b.dp.inter, 2u);
  EXPECT_EQ(b.dp.intra_link.rate_bps, kNvlink);
  EXPECT_EQ(b.dp.inter_link.rate_bps, k200G);
  const AmpedFabric p = read_amped_fabric(tiny(8, 2, 1, Schedule::kGpipe), *net);
  EXPECT_EQ(p.pp.rate_bps, k200G);
  EXPECT_EQ(p.pp.latency, net->uncongested_ps(0, 8, 0));
}

// One stage: AMPeD's assumptions and the simulator's coincide (no bubble, no
// point-to-point messages to overlap, TP all-reduces between compute, the
// gradient all-reduce after the last backward pass, ring factors on an ideal
// switch, reductions free): every column and the iteration agree exactly.
TEST(Amped, AgreesWithSimulationOneStage) {
  for (const Schedule s : {Schedule::kGpipe, Schedule::kOneFOneB}) {
    for (const auto& [tp, dp] : {std::pair{2u, 2u}, std::pair{4u, 1u}, std::pair{1u, 4u}}) {
      const Config c = tiny(tp, 1, dp, s);
      const AmpedEstimate e = amped(c, LinearDevice());
      const auto r = simulate(c, std::make_unique<LinearDevice>());
      EXPECT_EQ(r->iteration_time(0), e.iteration) << tp << " " << dp;
      EXPECT_DOUBLE_EQ(r->model_tflops_per_gpu(0), e.model_tflops_per_gpu);
      EXPECT_DOUBLE_EQ(r->hardware_tflops_per_gpu(0), e.hardware_tflops_per_gpu);
      for (std::uint32_t g = 0; g < c.gpus(); ++g) {
        EXPECT_EQ(column(*r, g, Category::kForward), e.forward);
        EXPECT_EQ(column(*r, g, Category::kBackward), e.backward);
        EXPECT_EQ(column(*r, g, Category::kOptimizer), e.optimizer);
        EXPECT_EQ(column(*r, g, Category::kTpComm), e.tp_comm);
        EXPECT_EQ(column(*r, g, Category::kDpComm), e.dp_comm);
        EXPECT_EQ(column(*r, g, Category::kPpComm), 0u);
      }
    }
  }
}

// Recomputation and the overlaps as `run` has them, on one stage (tp 2, 2
// micro-batches of 2 layers; a layer's forward 1856 + 2752 ns, its attention
// core 4bs^2h/tp = 256 FLOPs + 4 x b x (a/tp) x s^2 x 2 B = 128 B;
// QKV's weight gradient 768 ns, fc1's 1024, each TP all-reduce 2005.12 ns).
// Where the estimate and the simulator coincide (one stage), they still
// agree to the picosecond.
TEST(Amped, RecomputationAndOverlapsAsRunHasThem) {
  const LinearDevice d;
  Config c = tiny(2, 1, 1, Schedule::kOneFOneB);
  const AmpedEstimate none = amped(c, d);
  c.recompute = workload::transformer::Recompute::kSelective;
  const AmpedEstimate selective = amped(c, d);
  c.recompute = workload::transformer::Recompute::kFull;
  const AmpedEstimate full = amped(c, d);
  EXPECT_EQ(selective.layer_backward, none.layer_backward + 384 * kNanosecond);
  EXPECT_EQ(full.layer_backward, none.layer_backward + none.layer_forward);
  EXPECT_EQ(full.tp_comm, none.tp_comm * 6 / 4);
  EXPECT_EQ(selective.tp_comm, none.tp_comm);
  c.recompute = workload::transformer::Recompute::kNone;
  c.tp_overlap = true;
  const AmpedEstimate overlap = amped(c, d);
  // Per layer and micro-batch the two backward all-reduces hide 768 and 1024 ns.
  EXPECT_EQ(overlap.tp_comm, none.tp_comm - 2 * 2 * 1792 * kNanosecond);
  for (const Config& k : {c, tiny(2, 1, 1, Schedule::kOneFOneB)}) {
    Config r = k;
    r.recompute = workload::transformer::Recompute::kFull;
    const auto sim = simulate(r, std::make_unique<LinearDevice>());
    EXPECT_EQ(sim->iteration_time(0), amped(r, d).iteration) << r.tp_overlap;
  }
}

// A pipeline of P stages and m micro-batches (GPipe, tp 1, dp 1, one layer
// per stage). The simulator's first stage finishes last, at
//   (P - 1)(F + B + 2 D) + m (F + lf + B + lb) + Adam(stage 0),
// F, B one stage's layers per micro-batch, lf, lb the logit layer (on the
// last stage, which paces the pipeline), D = eq. 7's message. `analyze`
// runs eq. 1 at the last stage's pace and eq. 8 on the mean stage:
//   m (F + B + lf + lb) + 2 m D + (P - 1)/m [m (F + B) + m (lf + lb) / P + 2 m D]
//   + Adam(stage 0).
// Two assumptions differ, and only they:
//  - no overlap: AMPeD counts all 2m messages of a GPU (pp-comm); the
//    simulator's sends leave asynchronously, so only the pipeline's fill and
//    drain hops are exposed, which AMPeD's bubble also counts ((P-1)/m of
//    2 m D): AMPeD is 2 m D longer;
//  - the fill and drain: the simulator's stages before the last fill and
//    drain without the logit layer, eq. 8 with the mean stage's share of it:
//    AMPeD is (P-1)/P (lf + lb) longer.
TEST(Amped, PipelineDiffersByOverlapAndLogits) {
  for (const auto& [pp, m] : {std::pair{2u, 2u}, std::pair{4u, 4u}, std::pair{4u, 8u}}) {
    Config c = tiny(1, pp, 1, Schedule::kGpipe);
    c.model.layers = pp;
    c.model.global_batch = m;
    const LinearDevice d;
    const AmpedEstimate e = amped(c, d);
    const auto r = simulate(c, std::make_unique<LinearDevice>());
    const Time logits = e.logit_forward + e.logit_backward;
    ASSERT_EQ(logits % pp, 0u);
    const Time amped_longer = 2 * m * e.pp_message + (pp - 1) * logits / pp;
    EXPECT_EQ(r->iteration_time(0) + amped_longer, e.iteration) << pp << " " << m;
    // The first stage's compute columns are AMPeD's without the logit layer.
    EXPECT_EQ(column(*r, 0, Category::kForward) + m * e.logit_forward, e.forward);
    EXPECT_EQ(column(*r, 0, Category::kOptimizer), e.optimizer);
  }
}

// With a real device the simulator's ring all-reduce also reduces each
// received chunk (the roofline's k-to-1 reduction, N - 1 times per
// all-reduce), which eq. 6 and 11 do not price: that, exactly, is the
// difference in tp-comm.
TEST(Amped, RealDeviceDiffersByReductions) {
  Config c = tiny(4, 1, 1, Schedule::kOneFOneB);
  c.accelerator = compute::preset("a100-80gb", compute::Dtype::kFloat16);
  c.accelerator.model = compute::Model::kAmped;
  const auto device = compute::make_device(c.accelerator);
  const AmpedEstimate e = amped(c, *device);
  const auto r = simulate(c, compute::make_device(c.accelerator));
  const Time reduce = 3 * device->reduce_ps(2, 64 / 4);
  const Time all_reduces = 2 * 2 * 4;  // micro-batches x layers x (2 forward + 2 backward)
  EXPECT_EQ(column(*r, 0, Category::kTpComm), e.tp_comm + all_reduces * reduce);
  EXPECT_EQ(column(*r, 0, Category::kForward), e.forward);
  EXPECT_EQ(column(*r, 0, Category::kBackward), e.backward);
  EXPECT_EQ(column(*r, 0, Category::kOptimizer), e.optimizer);
  EXPECT_EQ(r->iteration_time(0), e.iteration + all_reduces * reduce);
}

}  // namespace
}  // namespace sipsim::analytical
