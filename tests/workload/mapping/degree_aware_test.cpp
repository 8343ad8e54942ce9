// SiP-ML's Algorithm 1 (workload/mapping/degree_aware.hpp) on its generic
// input: a reconstruction of Fig. 4, gathering and block edges, one message
// per producer and GPU, the relocation, its invariants on a random graph,
// its checks of the input, and the same placement as the graph workload's
// place_job.
#include "sipsim/workload/mapping/degree_aware.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sipsim/compute/device.hpp"
#include "sipsim/workload/graph/graph.hpp"

namespace sipsim::workload::mapping {
namespace {

using pdes::Time;

// 0, 1, ..., n - 1: the order of ops listed producers first.
std::vector<std::uint32_t> in_order(std::size_t n) {
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  return order;
}

// SiP-ML Fig. 4's shape (k = 4, l = 2, D = 3, Delta = 2): four sequential
// ops; A of 3 tau, B of tau, C of 4 tau, D of 2 tau (the figure's sizes are
// not given in the text; these reproduce what it says: C cannot be spread
// over the 4 GPUs, since B's GPU may talk to only 2 others).
TEST(DegreeAware, Fig4) {
  const std::vector<std::uint32_t> on_a{0}, on_b{1}, on_c{2};
  const std::vector<DagOp> ops{{{}, 100, false},  // A
                               {on_a, 100, false},
                               {on_b, 100, false},
                               {on_c, 100, false}};
  const Time tau = 1000;
  const PlacementResult p = place(ops, in_order(4), {3 * tau, tau, 4 * tau, 2 * tau}, tau, 4, 2);
  EXPECT_EQ(p.parts, (std::vector<std::uint32_t>{3, 1, 4, 2}));
  std::vector<std::uint32_t> devices;
  for (const SubOp& s : p.subops) devices.push_back(s.device);
  // Reach 1 on the ring of 4. A on 0, 1, 2 (the earliest start, ties to the
  // smallest index); B on the one GPU within reach of all three (1); C on B's
  // GPU and its two neighbours: 1, 0, 2, then 1 again (ties go to the GPU
  // nearest the parents); D's halves on 0 and 1.
  EXPECT_EQ(devices, (std::vector<std::uint32_t>{0, 1, 2, 1, 1, 0, 2, 1, 0, 1}));
  EXPECT_EQ(p.subops[3].start, tau);
  EXPECT_EQ(p.makespan, 5 * tau);
  EXPECT_EQ(p.relocations, 0u);
  EXPECT_EQ(check_placement(p, 4, 2), "");
  // The traffic matrix: A's thirds send B 33 B each; each C quarter needs a
  // quarter of B's output (25 B) and D's halves get C's quarters (25 B);
  // the gradients go back over the same pairs. GPU 1 talks to 0 and 2 only.
  const std::vector<std::uint64_t> m = traffic_matrix(p, 4);
  ASSERT_EQ(m.size(), 16u);
  // 0 -> 1: A0 -> B, and the gradients of B -> C1 and C0 -> D0.
  EXPECT_EQ(m[0 * 4 + 1], 33u + 25u + 25u);
  EXPECT_EQ(m[1 * 4 + 0], 83u);
  EXPECT_EQ(m[2 * 4 + 1], 33u + 25u + 25u);  // A2 -> B, C2 -> D1, the gradient of B -> C2
  EXPECT_EQ(m[1 * 4 + 2], 83u);
  for (const std::size_t zero : {0, 2, 3, 5, 7, 8, 10, 11, 12, 13, 14, 15}) {
    EXPECT_EQ(m[zero], 0u) << zero;
  }
}

// A gathering op (with weights: split by output features) needs every part
// of its producer, each part's whole output share; others map block to block.
TEST(DegreeAware, GatheringOpsNeedEveryProducerPart) {
  const std::vector<std::uint32_t> on_a{0}, on_b{1}, on_c{2};
  const std::vector<DagOp> ops{{{}, 100, false},   // A
                               {on_a, 100, true},  // B gathers
                               {on_b, 100, false},
                               {on_c, 100, false}};
  const PlacementResult p = place(ops, in_order(4), {2000, 2000, 2000, 2000}, 1000, 4, 3);
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>> edges;
  for (const SubEdge& e : p.edges) edges.emplace_back(e.from, e.to, e.bytes);
  // A0 A1 | B0 B1 | C0 C1 | D0 D1: B's parts get both of A's halves (50 B each).
  EXPECT_EQ(edges, (std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>>{
                       {0, 2, 50},
                       {0, 3, 50},
                       {1, 2, 50},
                       {1, 3, 50},
                       {2, 4, 50},
                       {3, 5, 50},
                       {4, 6, 50},
                       {5, 7, 50}}));
}

// A producer's output crosses to another GPU once for all its consumers
// there: the sum of their edges, at most its output share.
TEST(DegreeAware, OneMessagePerProducerAndGpu) {
  PlacementResult p;
  // Sub-op 0 (output share 100) on GPU 0; 1 and 2 on GPU 1; 3 on GPU 2.
  p.subops = {{0, 0, 0, 0, 0, 100}, {1, 0, 1, 0, 0, 10}, {1, 1, 1, 0, 0, 10}, {2, 0, 2, 0, 0, 10}};
  p.edges = {{0, 1, 100}, {0, 2, 50}, {0, 3, 30}, {1, 3, 10}, {2, 3, 10}};
  const std::vector<Message> m = messages(p);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].from, 0u);
  EXPECT_EQ(m[0].to_device, 1u);
  EXPECT_EQ(m[0].bytes, 100u);  // 100 + 50, capped at the share
  EXPECT_EQ(m[0].consumers, (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(m[1].to_device, 2u);
  EXPECT_EQ(m[1].bytes, 30u);
  EXPECT_EQ(m[2].from, 1u);  // 1 -> 3 and 2 -> 3: two producers, two messages
  EXPECT_EQ(m[3].from, 2u);
  const std::vector<std::uint64_t> t = traffic_matrix(p, 3);
  EXPECT_EQ(t, (std::vector<std::uint64_t>{0, 100, 30, 100, 0, 20, 30, 20, 0}));
}

// An empty candidate set: B needs all four parts of A, and no GPU of the
// ring of 4 is within reach 1 (Delta 2) of all four; the relocation moves
// A's parts together.
TEST(DegreeAware, RelocatesParentsWhenNoDeviceFits) {
  const std::vector<std::uint32_t> on_a{0}, on_b_a{1, 0};
  const std::vector<DagOp> ops{{{}, 8, false},  // A
                               {on_a, 8, false},
                               {on_b_a, 8, false}};
  const PlacementResult p = place(ops, in_order(3), {4000, 1000, 4000}, 1000, 4, 2);
  EXPECT_EQ(p.parts, (std::vector<std::uint32_t>{4, 1, 4}));
  EXPECT_GT(p.relocations, 0u);
  EXPECT_EQ(p.fallbacks, 0u);
  EXPECT_EQ(check_placement(p, 4, 2), "");
  // Delta 1 leaves a reach of 0: everything on one GPU.
  const PlacementResult one = place(ops, in_order(3), {4000, 1000, 4000}, 1000, 4, 1);
  EXPECT_EQ(check_placement(one, 4, 1), "");
  for (const SubOp& s : one.subops) EXPECT_EQ(s.device, one.subops[0].device);
}

// A chain of gathering ops split 32 ways (a GPT's layers) with reach 8 of
// 32: every part needs every part of its producer, so an op's parts fit in
// w + 1 = 9 consecutive GPUs at most. The relocation pulls the producers
// within half the reach, so that the parts spread over those 9; pulled only
// within the reach, the producers spanned 17 GPUs and every other op ran
// all its parts on one.
TEST(DegreeAware, RelocationSpreadsAGatheringChainOverTheReach) {
  constexpr std::uint32_t kOps = 24, kK = 32, kDelta = 16;
  std::vector<std::vector<std::uint32_t>> deps(kOps);
  for (std::uint32_t i = 1; i < kOps; ++i) deps[i] = {i - 1};
  std::vector<DagOp> ops;
  for (std::uint32_t i = 0; i < kOps; ++i) ops.push_back({deps[i], 1000, true});
  const Time tau = 1000;
  const PlacementResult p =
      place(ops, in_order(kOps), std::vector<Time>(kOps, kK * tau), tau, kK, kDelta);
  EXPECT_GT(p.relocations, 0u);
  EXPECT_EQ(check_placement(p, kK, kDelta), "");
  std::vector<Time> busy(kK, 0);
  for (const SubOp& s : p.subops) busy[s.device] += tau;
  const Time total = Time{kOps} * kK * tau;
  const Time most = *std::max_element(busy.begin(), busy.end());
  const auto used = std::count_if(busy.begin(), busy.end(), [](Time b) { return b > 0; });
  EXPECT_GE(used, 9);
  // Within 1/8 of an even share of the 9-GPU window (32 parts on 9 GPUs:
  // 4 on some, 3 on others, and the first op spread wider).
  EXPECT_LE(most, total / 9 + total / 72) << most << " of " << total;
}

// Invariants on a random layered graph with skips: every sub-op placed,
// every edge within reach, every producer before its consumer, no GPU
// exchanging data with more than Delta others; for several k, Delta.
TEST(DegreeAware, InvariantsOnARandomGraph) {
  std::uint64_t x = 12345;
  auto next = [&x](std::uint64_t n) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return (x >> 33) % n;
  };
  constexpr std::uint32_t kOps = 120;
  std::vector<std::vector<std::uint32_t>> deps(kOps);
  std::vector<std::uint64_t> output(kOps);
  std::vector<Time> durations;
  for (std::uint32_t i = 0; i < kOps; ++i) {
    if (i > 0) deps[i].push_back(i - 1);
    if (i > 4 && next(3) == 0) deps[i].push_back(static_cast<std::uint32_t>(i - 2 - next(3)));
    output[i] = 1 + next(1000);
    durations.push_back(100 + next(10000));
  }
  std::vector<DagOp> ops;
  for (std::uint32_t i = 0; i < kOps; ++i) ops.push_back({deps[i], output[i], false});
  for (const auto& [k, delta] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{
           {2, 1}, {4, 1}, {4, 2}, {8, 2}, {8, 3}, {8, 5}, {16, 4}, {16, 15}}) {
    const PlacementResult p = place(ops, in_order(kOps), durations, 1000, k, delta);
    EXPECT_EQ(check_placement(p, k, delta), "") << k << " " << delta;
    std::uint32_t subops = 0;
    for (const std::uint32_t parts : p.parts) {
      EXPECT_GE(parts, 1u);
      EXPECT_LE(parts, k);
      subops += parts;
    }
    EXPECT_EQ(p.subops.size(), subops);
  }
}

// The ops in a topological order, each once; k and the quantum positive,
// one duration per op.
TEST(DegreeAware, RejectsInvalidInput) {
  const std::vector<std::uint32_t> on_a{0}, on_c{2};
  const std::vector<DagOp> ops{{{}, 8, false}, {on_a, 8, false}, {{}, 8, false}};
  const std::vector<Time> durations{1000, 1000, 1000};
  EXPECT_NO_THROW(place(ops, std::vector<std::uint32_t>{2, 0, 1}, durations, 1000, 2, 1));
  for (const std::vector<std::uint32_t>& order :
       std::vector<std::vector<std::uint32_t>>{{1, 0, 2}, {0, 1}, {0, 1, 1}, {0, 1, 3}}) {
    EXPECT_THROW(place(ops, order, durations, 1000, 2, 1), std::invalid_argument);
  }
  const std::vector<DagOp> unknown{{on_c, 8, false}};
  EXPECT_THROW(place(unknown, in_order(1), {1000}, 1000, 2, 1), std::invalid_argument);
  EXPECT_THROW(place(ops, in_order(3), durations, 1000, 0, 1), std::invalid_argument);
  EXPECT_THROW(place(ops, in_order(3), durations, 0, 2, 1), std::invalid_argument);
  EXPECT_THROW(place(ops, in_order(3), {1000}, 1000, 2, 1), std::invalid_argument);
}

// An op costs (FLOPs + bytes) nanoseconds.
class LinearDevice final : public compute::Device {
 public:
  Time reduce_ps(std::uint32_t, std::uint64_t) const override { return 0; }
  Time copy_ps(std::uint64_t) const override { return 0; }
  Time op_ps(const compute::OpCost& op) const override {
    return (op.flops + op.bytes) * pdes::kNanosecond;
  }
};

// The generic entry point on the graph's DagOp view gives graph::place_job's
// placement: at the graph's batch (one sample per MP group) an op lasts its
// FLOPs + bytes in ns and its output is its own; ops split (quantum 10 ns),
// a gathering op, two producers of one op and an order that is not 0..n-1.
TEST(DegreeAware, SameAsTheGraphWorkloadsPlaceJob) {
  graph::Config c;
  auto add = [&c](std::uint64_t flops, std::uint64_t bytes, std::uint64_t output, bool gathers,
                  std::vector<std::uint32_t> deps) {
    graph::GraphOp op;
    op.name = "op" + std::to_string(c.graph.ops.size());
    op.flops = flops;
    op.backward_flops = 2 * flops;
    op.bytes = bytes;
    op.output_bytes = output;
    op.params_bytes = gathers ? 4 : 0;
    op.gathers = gathers;
    op.deps = std::move(deps);
    c.graph.ops.push_back(std::move(op));
  };
  add(25, 5, 96, false, {});      // 30 ns: 3 parts
  add(36, 4, 64, true, {0});      // 40 ns: 4 parts, gathering
  add(8, 2, 32, false, {0});      // 10 ns: 1 part
  add(15, 5, 16, false, {1, 2});  // 20 ns: 2 parts
  c.graph.order = {0, 2, 1, 3};
  c.placement = graph::Placement::kDegreeAware;
  c.mp = 4;
  c.dp = 1;
  c.degree = 3;
  c.global_batch = 1;
  c.quantum = 10 * pdes::kNanosecond;
  const LinearDevice device;
  for (const bool degree_aware : {true, false}) {
    if (!degree_aware) {
      c.placement = graph::Placement::kDataParallel;
      c.mp = 1;
    }
    std::vector<DagOp> ops;
    std::vector<Time> durations;
    for (const graph::GraphOp& op : c.graph.ops) {
      ops.push_back({op.deps, op.output_bytes, op.gathers});
      durations.push_back((op.flops + op.bytes) * pdes::kNanosecond);
    }
    const PlacementResult p =
        place(ops, c.graph.order, durations, c.quantum, c.mp, degree_aware ? 2 : 0);
    EXPECT_EQ(p.parts, degree_aware ? (std::vector<std::uint32_t>{3, 4, 1, 2})
                                    : (std::vector<std::uint32_t>{1, 1, 1, 1}));
    EXPECT_EQ(messages(p).empty(), !degree_aware);
    EXPECT_TRUE(p == graph::place_job(c, device)) << degree_aware;
  }
}

}  // namespace
}  // namespace sipsim::workload::mapping
