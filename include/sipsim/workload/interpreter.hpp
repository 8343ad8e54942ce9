#pragma once
// The program interpreter (docs/architecture.md): the pdes::Model every workload that
// runs programs on a fabric uses. Each node LP with a Binding runs its program
// `iterations` times back to back (iteration i + 1 starts when all of
// iteration i's ops are done on that node):
//  - an op starts as soon as its dependencies are done;
//  - compute ops run one at a time on the node's compute stream, in the order
//    they became ready (lowest index first among ops ready at once);
//  - collectives run on the collective executor, concurrently with compute and
//    with each other, each on its communicator;
//  - a send is done when its data has left the node; a recv when the peer's
//    message has arrived (a pair's messages are matched in order);
//  - a wait is done when its dependencies are.
// Every picosecond of a node's iteration is attributed to one breakdown
// column: the category of the compute op running, else the category of the
// exposed communication in flight (the first in Category order, so that
// overlapped communication is hidden behind compute), else idle. A posted
// pp-comm recv splits its wait: until the peer started the matching send
// (the message carries that time) it is the pipeline bubble (the peer was not
// ready), from then until the arrival exposed pp-comm (the transfer); while
// several wait, pp-comm once any of their messages is on its way.
//
// After the run, unfinished() names the first node whose program could not
// finish (deadlock, a recv without a send, a collective that never completed)
// with the op and what it waits for, so that a broken program is an error,
// never a hang or a silent early end.
#include <array>
#include <boost/mpi/communicator.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sipsim/collective/executor.hpp"
#include "sipsim/compute/device.hpp"
#include "sipsim/fabric/fabric_model.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/pdes/model.hpp"
#include "sipsim/workload/estimators.hpp"
#include "sipsim/workload/program.hpp"
#include "sipsim/workload/quiet_time.hpp"
#include "sipsim/workload/slowdown.hpp"

namespace sipsim::workload {

using Breakdown = std::array<pdes::Time, kBreakdownColumns>;

// An op that has finished, as the interpreter reports it to its observer.
struct OpRecord {
  std::uint32_t node = 0;
  std::uint32_t iteration = 0;
  std::uint32_t op = 0;
  pdes::Time start = 0, end = 0;
  const collective::CollectiveTiming* collective = nullptr;  // collective ops only
};

// What a workload learns while its programs run (at the node's LP).
class ProgramObserver {
 public:
  virtual ~ProgramObserver() = default;
  virtual void op_done(const OpRecord& /*record*/) {}
  // One wire step of a collective op (Interpreter::set_report_steps):
  // record.op is the collective op, record.collective is null.
  virtual void step_done(const OpRecord& /*record*/, std::uint32_t /*step*/) {}
  virtual void iteration_done(std::uint32_t /*node*/, std::uint32_t /*iteration*/,
                              pdes::Time /*start*/, pdes::Time /*end*/,
                              const Breakdown& /*breakdown*/) {}
};

struct ProgramSet;
// The bytes each ordered pair of fabric nodes exchanges in one iteration of
// the programs: their sends, and the wire messages of their collectives'
// schedules (collective::wire_step), sorted by (src, dst).
std::vector<fabric::PairTraffic> job_traffic(const ProgramSet& set);

struct ProgramSet {
  std::vector<collective::Communicator> comms;
  std::vector<Program> programs;
  // Per fabric node: its binding, or none (the node runs nothing).
  std::vector<std::optional<Binding>> bindings;
  std::uint32_t iterations = 1;
  // `workload.collectives: replay | replay-shapes` (collective::Executor::set_replay).
  collective::Replay replay_collectives = collective::Replay::kNone;
};

class Interpreter final : public fabric::FabricModel,
                          public fabric::MessageSink,
                          public collective::ExecutorHost {
 public:
  // Event kinds of the interpreter (the executor's are 1 and 2).
  static constexpr std::uint32_t kComputeDone = 16;
  static constexpr std::uint32_t kSendDone = 17;

  // Checks the programs against the bindings and communicators (slots,
  // memberships) and throws std::invalid_argument naming the node and slot.
  Interpreter(ProgramSet set, std::unique_ptr<fabric::Network> network,
              std::unique_ptr<compute::Device> device);
  ~Interpreter() override;

  void set_observer(ProgramObserver* observer) { observer_ = observer; }
  // Before setup(): the GPUs' slowdown windows (docs/faults.md), any order.
  void set_slowdowns(std::vector<Slowdown> slowdowns);
  // Report every wire step of the simulated collectives to the observer.
  void set_report_steps(bool report) { executor_.set_report_steps(report); }
  // collective::Executor::replayed_bytes of this rank.
  std::uint64_t replayed_bytes() const { return executor_.replayed_bytes(); }
  // `replay-shapes`: prices, once before the run, what the communicators
  // sharing each call's record cost each other when they run it at once
  // (Estimators::contention; collective::Executor::SharedCall). Unpriced
  // (too much work for the estimator): the record's own time.
  void price_shape_contention(const Estimators& estimators);
  const std::vector<collective::Executor::SharedCall>& shared_calls() const {
    return executor_.shared_calls();
  }

  // lp_count, lookahead and the epochs are the fabric's (fabric::FabricModel).
  // The fabric's partition, told which nodes run the same program (a pipeline
  // stage's GPUs work at the same time, so each stage is spread over the ranks).
  pdes::Partition partition(int ranks) const override;
  void setup(const pdes::Partition& partition, int rank) override;
  void init(pdes::Context& ctx) override;
  void handle(const pdes::Event& event, pdes::Context& ctx) override;
  void delivered(const fabric::Delivery& delivery, pdes::Context& ctx) override;
  void collective_done(pdes::Context& ctx, std::uint64_t handle,
                       const collective::CollectiveTiming& timing) override;
  void step_done(pdes::Context& ctx, std::uint64_t handle, std::uint32_t step,
                 pdes::Time start) override;
  // Work for the progress line: every node's ops over all iterations, plus
  // the steps of its collectives.
  std::uint64_t progress_total() const override { return total_work_; }
  std::uint64_t progress_done() const override { return ops_done_ + executor_.steps_done(); }
  // Program-derived lookahead (quiet_time.hpp): a fabric event's bound is
  // its route's first cut link (the fabric's); what a node does, on its own
  // events or on a message's arrival, is bounded by its state: the crossing
  // ops it is running, else the compute ahead of its next one.
  bool bounds_remote_events() const override { return network_->bounds_remote_events(); }
  pdes::Time remote_bound(const pdes::Event& e) const override;
  pdes::Time remote_floor(pdes::Time from) override;
  // Debug: every crossing op's start is checked against the floor its node
  // promised at the window's start (a std::logic_error otherwise).
  void check_bounds(bool on) override { check_bounds_ = on; }

  const fabric::Network& network() const { return *network_; }
  const compute::Device& device() const { return *device_; }
  const ProgramSet& programs() const { return set_; }

  // This rank's first problem (lowest node id) at the end of a run, or "".
  std::string unfinished() const;
  // The same for the whole job: identical on every rank ("" when every
  // program finished).
  std::string unfinished(const boost::mpi::communicator& comm) const;
  // Time per breakdown column of a local node, over all its iterations.
  const Breakdown& breakdown(std::uint32_t local_index) const;

 private:
  struct Node;
  void start_iteration(Node& node, pdes::Context& ctx);
  void make_ready(Node& node, std::uint32_t op);
  void drain(Node& node, pdes::Context& ctx);
  void start(Node& node, std::uint32_t op, pdes::Context& ctx);
  void start_compute(Node& node, pdes::Context& ctx);
  void complete(Node& node, std::uint32_t op, pdes::Context& ctx,
                const collective::CollectiveTiming* timing = nullptr);
  void account(Node& node, pdes::Time now);
  void convert_bubble(Node& node, pdes::Time from);
  std::string problem(const Node& node, std::uint32_t local_index) const;
  std::pair<std::uint32_t, std::string> first_problem() const;
  // remote_floor's parts (interpreter.cpp).
  void build_quiet_times();
  void refresh_floor(std::uint32_t local_index);
  void check_floor(const Node& node, std::uint32_t local_index, std::uint32_t op,
                   pdes::Time now) const;

  ProgramSet set_;
  std::unique_ptr<fabric::Network> network_;
  std::unique_ptr<compute::Device> device_;
  collective::Executor executor_;
  ProgramObserver* observer_ = nullptr;
  std::vector<Slowdown> slowdowns_;  // sorted by (node, at); empty: none
  std::uint64_t total_work_ = 0;     // over every node and iteration
  std::uint64_t ops_done_ = 0;       // by this rank's nodes
  std::vector<std::uint32_t> local_lps_;
  std::vector<std::unique_ptr<Node>> nodes_;  // by local LP index; null: no program
  // remote_floor: one QuietTime per program and set of crossing slots, built
  // at the first call; per local LP, its floor relative to `from` and
  // absolute (each plus the node's least delay to another rank), refreshed
  // when the LP ran an event since (dirty).
  struct Floors;
  std::unique_ptr<Floors> floors_;
  bool check_bounds_ = false;
};

}  // namespace sipsim::workload
