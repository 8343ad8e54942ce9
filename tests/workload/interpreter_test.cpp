// The program interpreter on elect-flat, with times computed by hand from the
// fabric's rules (docs/architecture.md: a message holds the sender's transmit port for
// bytes/B from when it starts, reaches the receiver's port `latency` after it
// starts, holds that port for bytes/B and is delivered when its last byte is
// in) and a device whose local operations cost fixed times. Runs at 1 and 3
// ranks (ctest): the same times at every rank count.
#include "sipsim/workload/interpreter.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <boost/mpi/communicator.hpp>

#include "sipsim/fabric/flat/elect_flat.hpp"
#include "sipsim/pdes/engine.hpp"

namespace sipsim::workload {
namespace {

using collective::algorithm;
using pdes::kNanosecond;
using pdes::Time;

constexpr std::uint64_t k100G = 100'000'000'000;  // 1250 B take 100 ns
constexpr Time kLatency = 1000 * kNanosecond;
constexpr Time kReduce = 10 * kNanosecond;

// Local operations at fixed costs, so that expected times are plain sums.
class FixedDevice final : public compute::Device {
 public:
  Time reduce_ps(std::uint32_t sources, std::uint64_t) const override {
    return sources >= 2 ? kReduce : 0;
  }
  Time copy_ps(std::uint64_t) const override { return 0; }
};

// Every node's iterations and op ends, combined over ranks.
class Recorder final : public ProgramObserver {
 public:
  explicit Recorder(std::uint32_t nodes) : iteration_end_(nodes * 4, 0), column_(nodes) {}
  void op_done(const OpRecord& r) override {
    if (r.collective) collective_end_.push_back({r.node, r.op, r.collective->end});
  }
  void iteration_done(std::uint32_t node, std::uint32_t iteration, Time, Time end,
                      const Breakdown& b) override {
    iteration_end_[node * 4 + iteration] = end;
    if (iteration == 0) column_[node] = b;
  }
  // After the run, on every rank.
  void combine(const boost::mpi::communicator& comm) {
    std::vector<std::uint64_t> ends(iteration_end_.begin(), iteration_end_.end());
    MPI_Allreduce(MPI_IN_PLACE, ends.data(), static_cast<int>(ends.size()), MPI_UINT64_T, MPI_MAX,
                  comm);
    iteration_end_.assign(ends.begin(), ends.end());
    std::uint64_t n = collective_end_.size();
    MPI_Allreduce(&n, &collectives_, 1, MPI_UINT64_T, MPI_SUM, comm);
    for (auto& b : column_) {
      MPI_Allreduce(MPI_IN_PLACE, b.data(), static_cast<int>(b.size()), MPI_UINT64_T, MPI_MAX,
                    comm);
    }
  }
  Time end(std::uint32_t node, std::uint32_t iteration = 0) const {
    return iteration_end_[node * 4 + iteration];
  }
  Time column(std::uint32_t node, Category c) const {
    return column_[node][static_cast<std::size_t>(c)];
  }
  Time idle(std::uint32_t node) const { return column_[node][kIdleColumn]; }
  Time bubble(std::uint32_t node) const { return column_[node][kBubbleColumn]; }
  // Collective ops finished, over all ranks.
  std::uint64_t collectives() const { return collectives_; }
  struct CollectiveEnd {
    std::uint32_t node, op;
    Time end;
  };
  std::vector<CollectiveEnd> collective_end_;  // this rank's

 private:
  std::vector<Time> iteration_end_;
  std::vector<Breakdown> column_;
  std::uint64_t collectives_ = 0;
};

struct Outcome {
  std::string unfinished;
  pdes::RunResult result;
};

Outcome run(ProgramSet set, std::uint32_t nodes, Recorder& recorder) {
  const boost::mpi::communicator world;
  Interpreter model(std::move(set), fabric::make_elect_flat(nodes, k100G, kLatency),
                    std::make_unique<FixedDevice>());
  model.set_observer(&recorder);
  pdes::EngineOptions o;
  o.progress_interval_s = 0;
  Outcome r;
  r.result = pdes::run(model, model.partition(world.size()), world, o);
  r.unfinished = model.unfinished(world);
  recorder.combine(world);
  return r;
}

Binding bind(std::uint32_t program, std::vector<Binding::Comm> comms,
             std::vector<std::uint32_t> peers = {}) {
  Binding b;
  b.program = program;
  b.comms = std::move(comms);
  b.peers = std::move(peers);
  return b;
}

collective::CollectiveCall all_reduce(std::uint64_t bytes) {
  return {collective::Op::kAllReduce, algorithm("ring"), bytes, 0};
}

// A forward pass and a backward pass on the compute stream while the DP
// all-reduce runs: the all-reduce is hidden behind compute until compute ends,
// then exposed. Ring all-reduce of 2000 B on 2 nodes: chunks of 1000 B (80 ns).
// Step 0: send [0, 80], the peer's chunk arrives at 1000 and is in at 1080,
// reduce -> 1090; step 1: send [1090, 1170], in at 2170: done at 2170 ns.
// Compute: forward [0, 500], backward [500, 1500]; dp exposed 2170 - 1500.
TEST(Interpreter, ComputeOverlapsDataParallelAllReduce) {
  ProgramSet set;
  set.comms.push_back({"dp", {0, 1}, {}});
  Program p("train");
  const auto fwd = p.compute(Category::kForward, 500 * kNanosecond);
  const auto ar = p.collective(Category::kDpComm, 0, all_reduce(2000));
  const auto bwd = p.compute(Category::kBackward, 1000 * kNanosecond, {fwd});
  p.wait({ar, bwd});
  set.programs.push_back(std::move(p));
  set.bindings = {bind(0, {{0, 0}}), bind(0, {{0, 1}})};
  set.iterations = 2;
  Recorder rec(2);
  const Outcome r = run(std::move(set), 2, rec);
  EXPECT_EQ(r.unfinished, "");
  for (std::uint32_t n = 0; n < 2; ++n) {
    EXPECT_EQ(rec.end(n, 0), 2170 * kNanosecond) << n;
    EXPECT_EQ(rec.end(n, 1), 2 * 2170 * kNanosecond) << n;  // iteration 1 starts at 2170
    EXPECT_EQ(rec.column(n, Category::kForward), 500 * kNanosecond);
    EXPECT_EQ(rec.column(n, Category::kBackward), 1000 * kNanosecond);
    EXPECT_EQ(rec.column(n, Category::kDpComm), 670 * kNanosecond);
    EXPECT_EQ(rec.idle(n), 0u);
  }
  EXPECT_EQ(rec.collectives(), 4u);  // 2 nodes x 2 iterations
  for (const auto& c : rec.collective_end_) {
    EXPECT_EQ(c.end % (2170 * kNanosecond), 0u) << "node " << c.node;
  }
}

// TP rings of 4 ({0..3}, {4..7}) and DP pairs across them ({0,4}, ...) start
// their all-reduces at once and share every node's ports. TP: 5000 B, chunks
// of 1250 B (100 ns); DP: 1000 B, chunks of 500 B (40 ns). All nodes are alike:
//   t=0: TP step 0 sends [0,100], DP step 0 sends [100,140];
//   TP chunk in at 1000+100 = 1100, reduce -> 1110; DP chunk reaches the port
//   at 1100 + 0 (sent at 100), in at 1140, reduce -> 1150;
//   TP step 1 sends [1110,1210]; DP step 1 waits for the port: [1210,1250];
//   TP step 1's chunk in at 2110+100 = 2210 -> 2220; DP's arrives at 2210,
//   in at 2250: the DP all-reduce ends at 2250 (alone it would end at 2090);
//   TP steps 2..5 (port free): in at 3320 (+10) = 3330, 4430, 5530, 6630.
TEST(Interpreter, TensorAndDataParallelCollectivesRunConcurrently) {
  ProgramSet set;
  set.comms.push_back({"tp-0", {0, 1, 2, 3}, {}});
  set.comms.push_back({"tp-1", {4, 5, 6, 7}, {}});
  for (std::uint32_t i = 0; i < 4; ++i) set.comms.push_back({"dp", {i, i + 4}, {}});
  Program p("layer");
  p.collective(Category::kTpComm, 0, all_reduce(5000));
  p.collective(Category::kDpComm, 1, all_reduce(1000));
  set.programs.push_back(std::move(p));
  for (std::uint32_t n = 0; n < 8; ++n)
    set.bindings.push_back(bind(0, {{n / 4, n % 4}, {2 + n % 4, n / 4}}));
  Recorder rec(8);
  const Outcome r = run(std::move(set), 8, rec);
  EXPECT_EQ(r.unfinished, "");
  EXPECT_EQ(rec.collectives(), 16u);
  for (const auto& c : rec.collective_end_) {
    EXPECT_EQ(c.end, (c.op == 0 ? 6630 : 2250) * kNanosecond)
        << "node " << c.node << " op " << c.op;
  }
  for (std::uint32_t n = 0; n < 8; ++n) {
    EXPECT_EQ(rec.end(n), 6630 * kNanosecond);
    // TP comes first in Category order: every exposed picosecond is TP's.
    EXPECT_EQ(rec.column(n, Category::kTpComm), 6630 * kNanosecond);
    EXPECT_EQ(rec.column(n, Category::kDpComm), 0u);
  }
}

// A pipeline of 4 stages: each receives 1250 B (100 ns) from the previous
// stage, computes 100 ns and sends to the next. Stage 0 computes [0,100] and
// sends [100,200]; stage 1's data is in at 100+1000+100 = 1200, it computes to
// 1300, sends [1300,1400]; stage 2: in 2400, computes to 2500; stage 3: in
// 3600, computes to 3700.
TEST(Interpreter, SendRecvChainAcrossFourNodes) {
  ProgramSet set;
  Program first("first"), middle("middle"), last("last");
  first.send(Category::kPpComm, 0, 1250, {first.compute(Category::kForward, 100 * kNanosecond)});
  middle.send(Category::kPpComm, 1, 1250,
              {middle.compute(Category::kForward, 100 * kNanosecond,
                              {middle.recv(Category::kPpComm, 0, 1250)})});
  last.compute(Category::kForward, 100 * kNanosecond, {last.recv(Category::kPpComm, 0, 1250)});
  set.programs = {std::move(first), std::move(middle), std::move(last)};
  set.bindings = {bind(0, {}, {1}), bind(1, {}, {0, 2}), bind(1, {}, {1, 3}), bind(2, {}, {2})};
  Recorder rec(4);
  const Outcome r = run(std::move(set), 4, rec);
  EXPECT_EQ(r.unfinished, "");
  EXPECT_EQ(rec.end(0), 200 * kNanosecond);
  EXPECT_EQ(rec.end(1), 1400 * kNanosecond);
  EXPECT_EQ(rec.end(2), 2600 * kNanosecond);
  EXPECT_EQ(rec.end(3), 3700 * kNanosecond);
  // Stage 1 waits for its input: the bubble until stage 0 sends (100), then
  // pp-comm (the transfer, 1100); computes, then its send is in flight (pp).
  EXPECT_EQ(rec.bubble(1), 100 * kNanosecond);
  EXPECT_EQ(rec.column(1, Category::kPpComm), (1100 + 100) * kNanosecond);
  EXPECT_EQ(rec.column(1, Category::kForward), 100 * kNanosecond);
  EXPECT_EQ(rec.bubble(3), 2500 * kNanosecond);  // stage 2 sends at 2500
  EXPECT_EQ(rec.column(3, Category::kPpComm), 1100 * kNanosecond);
  EXPECT_EQ(rec.idle(3), 0u);
  EXPECT_EQ(rec.bubble(0), 0u);
}

// A receive nobody sends: the run ends (no hang) and the error names the node,
// the op that cannot start, and what it waits for.
TEST(Interpreter, UnmeetableDependencyIsAnError) {
  ProgramSet set;
  Program waits("waits"), idle("idle");
  waits.compute(Category::kForward, 100, {waits.recv(Category::kPpComm, 0, 64)});
  idle.compute(Category::kForward, 100);
  set.programs = {std::move(waits), std::move(idle)};
  set.bindings = {bind(1, {}), bind(0, {}, {0})};
  Recorder rec(2);
  const Outcome r = run(std::move(set), 2, rec);
  EXPECT_EQ(r.unfinished,
            "node 1 (program 'waits', iteration 0 of 1): op 0 (recv, pp-comm, 64 B from peer slot "
            "0) never received its message from node 0; op 1 (compute, forward, 100 ps) waits for "
            "it");
}

// Two nodes that each wait for the other's message before sending theirs, and
// a collective one member never joins.
TEST(Interpreter, DeadlocksAreErrorsNamingTheNodeAndOp) {
  {
    ProgramSet set;
    Program p("swap");
    p.send(Category::kPpComm, 0, 64, {p.recv(Category::kPpComm, 0, 64)});
    set.programs.push_back(std::move(p));
    set.bindings = {bind(0, {}, {1}), bind(0, {}, {0})};
    Recorder rec(2);
    EXPECT_EQ(run(std::move(set), 2, rec).unfinished,
              "node 0 (program 'swap', iteration 0 of 1): op 0 (recv, pp-comm, 64 B from peer "
              "slot 0) never received its message from node 1; op 1 (send, pp-comm, 64 B to peer "
              "slot 0) waits for it");
  }
  {
    ProgramSet set;
    set.comms.push_back({"dp", {0, 1}, {}});
    Program joins("joins"), stuck("stuck");
    joins.collective(Category::kDpComm, 0, all_reduce(2000));
    stuck.collective(Category::kDpComm, 0, all_reduce(2000), {stuck.recv(Category::kPpComm, 0, 8)});
    set.programs = {std::move(joins), std::move(stuck)};
    set.bindings = {bind(0, {{0, 0}}), bind(1, {{0, 1}}, {0})};
    Recorder rec(2);
    EXPECT_EQ(run(std::move(set), 2, rec).unfinished,
              "node 0 (program 'joins', iteration 0 of 1): op 0 (collective, dp-comm, all-reduce "
              "of 2000 B with ring on communicator slot 0) never completed: all-reduce "
              "(ring, 2000 B) on communicator 'dp' (its collective #0, member 0 of 2) stopped at "
              "step 0 of 2, waiting for a message from node 1");
  }
  {
    // Node 0 never starts the collective: node 1's message waits at node 0 as an
    // early message (the executor's per-rank table) until the end.
    ProgramSet set;
    set.comms.push_back({"dp", {0, 1}, {}});
    Program idle("idle"), joins("joins");
    joins.collective(Category::kDpComm, 0, all_reduce(2000));
    set.programs = {std::move(idle), std::move(joins)};
    set.bindings = {bind(0, {{0, 0}}), bind(1, {{0, 1}})};
    Recorder rec(2);
    EXPECT_EQ(run(std::move(set), 2, rec).unfinished,
              "node 0: 1 message(s) no step took, e.g. from node 1 for collective #0 of "
              "communicator 'dp'");
  }
}

// A node whose program is empty has nothing to wait for: the run ends clean.
TEST(Interpreter, EmptyProgramsFinishAtOnce) {
  ProgramSet set;
  set.programs.push_back(Program("empty"));
  set.bindings = {bind(0, {}), bind(0, {})};
  set.iterations = 3;
  Recorder rec(2);
  EXPECT_EQ(run(std::move(set), 2, rec).unfinished, "");
}

TEST(Interpreter, ProgramsAreCheckedWhenBuilt) {
  Program p("p");
  const std::uint32_t deps[] = {0};
  EXPECT_THROW(p.add(workload::Op{}, deps), std::invalid_argument);  // op 0 cannot wait for itself
  ProgramSet set;
  Program q("q");
  q.send(Category::kPpComm, 0, 8);
  set.programs.push_back(std::move(q));
  set.bindings = {bind(0, {}, {})};  // no peer for slot 0
  EXPECT_THROW(Interpreter(std::move(set), fabric::make_elect_flat(2, k100G, kLatency),
                           std::make_unique<FixedDevice>()),
               std::invalid_argument);
}

}  // namespace
}  // namespace sipsim::workload
