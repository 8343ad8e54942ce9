#pragma once
// The collective executor (docs/models.md, "Collectives"): the one piece of code that runs a
// collective on a node. A workload's node LPs share one Executor per rank; it
// keeps, per local node, any number of collectives in flight on any of the
// node's communicators, each a state machine over the member's schedule:
//
//   a step posts its sends (Network::send, or one Network::multicast), waits
//   for its receives (messages that arrive before their step wait, keyed by
//   communicator, sequence number and sender), waits until its sends have left
//   the node, then runs the step's local operation (priced by the device
//   model) and moves on; lock-step algorithms (RAMP §6.2.3) also wait for the
//   step's round. collective/step_cost.hpp holds these rules, shared with the
//   estimators.
//
// When a member's part ends, the executor reports its timing to its host (the
// program interpreter) at the member's LP, and nothing else: what to do next
// is the host's business.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "sipsim/base/fifo.hpp"
#include "sipsim/base/flat_map.hpp"
#include "sipsim/collective/communicator.hpp"
#include "sipsim/collective/schedule.hpp"
#include "sipsim/compute/device.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/pdes/model.hpp"

namespace sipsim::collective {

// One member's view of a collective it took part in.
struct CollectiveTiming {
  pdes::Time start = 0, end = 0;
  pdes::Time compute = 0;  // its local operations (device model)
  pdes::Time h2t = 0;      // data transfer (StepTransfer), step by step
};

class ExecutorHost {
 public:
  virtual ~ExecutorHost() = default;
  // At the member's node LP (ctx.self()): its part of the collective started
  // with `handle` has ended now.
  virtual void collective_done(pdes::Context& ctx, std::uint64_t handle,
                               const CollectiveTiming& timing) = 0;
  // At the member's node LP: step `step` of its part of the collective
  // started with `handle` ran from `start` to now. Called only when the
  // executor reports steps (Executor::set_report_steps).
  virtual void step_done(pdes::Context& /*ctx*/, std::uint64_t /*handle*/, std::uint32_t /*step*/,
                         pdes::Time /*start*/) {}
};

// `workload.collectives` (docs/models.md, "Replayed collectives"): simulate
// every collective; replay each communicator's later instances of a call from
// its first (kCommunicator); or replay every instance of a call on the
// communicators of one shape from the first instance on the lowest of them
// (kShape).
enum class Replay : std::uint8_t { kNone, kCommunicator, kShape };
// "simulate", "replay", "replay-shapes": the scenario's values.
constexpr std::string_view to_string(Replay r) {
  return r == Replay::kNone ? "simulate" : r == Replay::kCommunicator ? "replay" : "replay-shapes";
}

// A collective call prepared for one communicator: its spec and, for
// lock-step algorithms, the length of every round (the same for all members).
struct PreparedCollective {
  CollectiveSpec spec;
  std::vector<pdes::Time> rounds;
  // A member's schedule and its runs of more than one step.
  struct Member {
    Schedule schedule;
    std::vector<Schedule::Run> runs;
    // least_rest[j]: the least time steps j.. take (Executor::earliest_end),
    // computed at its first use.
    mutable std::vector<pdes::Time> least_rest;
  };
  // By member index, built at a local member's first start and shared by its
  // later ones (a training job repeats each call thousands of times, and
  // building the plan was most of a small collective's cost). Kept only on
  // communicators of at most kCachedMembers: a plan grows with p, a large
  // communicator's collective is long enough to amortise building it, and a
  // sweep of sizes at 65,536 nodes would otherwise keep every size's plans.
  static constexpr std::uint32_t kCachedMembers = 1024;
  std::vector<std::shared_ptr<const Member>> members;
  // Replay (Executor::set_replay): by member, its first instance of this call:
  // when it ended after the instance's synchronisation point (the last
  // member's start), and its compute and h2t.
  struct Recorded {
    enum class State : std::uint8_t { kNone, kRunning, kRecorded };
    static constexpr pdes::Time kUnknown = ~pdes::Time{0};
    State state = State::kNone;
    std::uint32_t first_seq = 0;  // the communicator's collective number of the first instance
    pdes::Time sync = kUnknown, end = kUnknown;  // of the first instance
    pdes::Time compute = 0, h2t = 0;
    // What the member's part sends, by its schedule (a multicast counts once
    // per peer); computed at its first replayed part.
    static constexpr std::uint64_t kBytesUnknown = ~std::uint64_t{0};
    std::uint64_t bytes = kBytesUnknown;
  };
  std::vector<Recorded> recorded;
  // Replay::kShape: this call's group of communicators of one shape
  // (Executor::declare), or kNoGroup; and whether this communicator records
  // for the group (it is the group's lowest) or is replayed from its record.
  static constexpr std::uint32_t kNoGroup = ~std::uint32_t{0};
  std::uint32_t group = kNoGroup;
  std::uint32_t position = 0;  // this communicator's in the group's
  bool shared = false;         // replayed from another communicator's record
};

class Executor {
 public:
  // The executor's event kinds; hosts use others (below fabric::kFabricKindBase).
  static constexpr std::uint32_t kStepDone = 1;      // a step's local operation has finished
  static constexpr std::uint32_t kRoundsDone = 2;    // lock-step: the collective's last round ends
  static constexpr std::uint32_t kReplayDone = 3;    // a replayed member part ends
  static constexpr std::uint32_t kReplayArrive = 4;  // replay: a member started (at the leader)
  static constexpr std::uint32_t kReplayGo = 5;      // replay: every member has started
  static constexpr std::uint32_t kReplayShare = 6;   // replay-shapes: a recorder member's record
  static bool owns(std::uint32_t kind) { return kind >= kStepDone && kind <= kReplayShare; }

  // The network, device and communicators must outlive the executor.
  Executor(fabric::Network& network, const compute::Device& device,
           const std::vector<Communicator>& comms);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Replay mode (`workload.collectives: replay`, docs/models.md): the first
  // instance of each call on each communicator (same operation, algorithm,
  // bytes and root) is simulated; later ones send nothing through the fabric.
  // Every instance synchronises its members: each tells the communicator's
  // first member (the leader) when it started, and the leader tells all when
  // the last one did (S), each notice taking Network::max_lookahead(). A
  // replayed member part ends at S plus what its part of the first instance
  // took after that instance's S (no earlier than the notice), with the same
  // compute and h2t. Exact when an instance meets the fabric as idle as the
  // first did; the fabric does not carry (or count) replayed bytes.
  //
  // Replay::kShape: communicators of the same shape (size and nodes[i] -
  // nodes[0] for all i) that run the same call share its record. The lowest
  // of them (the recorder) simulates its first instance; when its member m
  // has recorded it, it sends the record to member m of every other one
  // (taking max_lookahead), whose instances are all replayed: each ends at
  // its S + the record's E - S, and not before the record has arrived.
  void set_replay(Replay replay) { replay_ = replay; }
  // After setup(): the least delay of an event the executor sends a node
  // outside the fabric (replay's notices; kTimeMax without replay).
  pdes::Time direct_delay() const {
    return replay_ == Replay::kNone ? pdes::kTimeMax : sync_delay_;
  }
  // Replay::kShape: communicator `comm` runs `call` (the host declares every
  // such pair, the same on every rank, before setup). A call not declared on
  // a communicator is replayed from its own first instance. `role` (the
  // program its members run; the first declared counts) keeps communicators
  // of different roles apart: within a role calls come in the same order, so
  // a recorder never waits on a communicator that waits for its record (a
  // pipeline's first stage receives last).
  void declare(std::uint32_t comm, const CollectiveCall& call, std::uint32_t role = 0);
  // Replay::kShape: a call whose record several communicators share, and what
  // they cost each other when they run it at once (RAMP §7.4.1's critical
  // path of the recorder alone and beside the others, set_contention): every
  // replayed instance of it, the recorder's later ones included, takes the
  // record's E - S times together / alone (docs/models.md, "Replayed by
  // shape"). alone == 0: not priced, the record's own E - S.
  struct SharedCall {
    CollectiveCall call;
    std::vector<std::uint32_t> comms;  // ascending: comms.front() records
    pdes::Time alone = 0;              // the recorder's critical path alone
    std::vector<pdes::Time> together;  // by communicator, as `comms`: beside the others
    // A replayed instance's E - S on comms[position] from the record's.
    pdes::Time stretch(pdes::Time after, std::uint32_t position) const;
  };
  // After every declare(): groups the communicators that share a call's
  // record (setup() does it where the host has not).
  void group_shapes();
  // After group_shapes(): the shared calls, the same on every rank (empty
  // without Replay::kShape).
  const std::vector<SharedCall>& shared_calls() const { return groups_; }
  void set_contention(std::uint32_t index, pdes::Time alone, std::vector<pdes::Time> together);
  // Tell the host when each step of a simulated collective ends
  // (ExecutorHost::step_done; the trace's `steps` level). Replayed
  // collectives have no steps.
  void set_report_steps(bool report) { report_steps_ = report; }

  // Once per rank before the run: per-node state for this rank's LPs.
  void setup(const pdes::Partition& partition, int rank);

  // At node ctx.self(), member `member` of communicator `comm`: starts its part
  // of the communicator's collective number `seq`, `call`. `handle` comes back
  // in ExecutorHost::collective_done.
  void start(pdes::Context& ctx, std::uint32_t comm, std::uint32_t member, std::uint32_t seq,
             const CollectiveCall& call, std::uint64_t handle, ExecutorHost& host);
  // An executor event (owns(event.kind)) at a node LP.
  void handle(const pdes::Event& event, pdes::Context& ctx, ExecutorHost& host);
  // A message whose tag names a communicator arrived at node ctx.self().
  void delivered(const fabric::Delivery& delivery, pdes::Context& ctx, ExecutorHost& host);

  // The spec and rounds of `call` on `comm`, prepared once per rank.
  const PreparedCollective& prepared(std::uint32_t comm, const CollectiveCall& call) {
    return prepare(comm, call);
  }

  // What is left at local node `local_index` at the end of a run: collectives
  // not finished (which step, whose messages they wait for) and messages no
  // step took. Empty when the node is clean.
  std::string unfinished(std::uint32_t local_index) const;
  bool idle(std::uint32_t local_index) const;
  // Lower bounds for the program-derived lookahead, for the member part
  // started with `handle` at local node `local_index`, whatever the node
  // receives at or after a time `from`: max(from + relative, absolute).
  // earliest_end: when the part can end; next_send: when it can next put
  // anything in the fabric or send a notice (kTimeMax: never). A part's step
  // ends no sooner than its sends have left and its local operation has run
  // (step_cost.hpp), and every later step takes at least its longest send's
  // injection plus its local operation; a replayed part whose end is
  // scheduled ends then and sends nothing more.
  struct Bound {
    pdes::Time relative = 0, absolute = 0;
  };
  Bound earliest_end(std::uint32_t local_index, std::uint64_t handle) const;
  Bound next_send(std::uint32_t local_index, std::uint64_t handle) const;
  // Steps this rank's nodes have finished (for progress reports).
  std::uint64_t steps_done() const { return steps_done_; }
  // The bytes the replayed parts of this rank's members would have sent: the
  // fabric carries none of them, but a training job's energy counts them.
  std::uint64_t replayed_bytes() const { return replayed_bytes_; }

 private:
  // A call's key on a communicator, or on a shape (its lowest communicator):
  // (communicator, op, algorithm row, bytes, root).
  using CallKey = std::tuple<std::uint32_t, int, std::uint16_t, std::uint64_t, std::uint32_t>;
  struct Running;
  struct Replaying;
  struct Node;
  // An early message's key: (communicator, sequence number, sender) and the
  // receiving node's local index.
  struct EarlyKey {
    std::uint64_t match = 0;
    std::uint32_t node = 0;
    bool operator==(const EarlyKey&) const = default;
  };
  struct EarlyHash {
    std::uint64_t operator()(const EarlyKey& k) const {
      return k.match ^ (std::uint64_t{k.node} * 0xC2B2AE3D27D4EB4Full);
    }
  };

  PreparedCollective& prepare(std::uint32_t comm, const CollectiveCall& call);
  void start_step(Node& node, Running& r, pdes::Context& ctx, ExecutorHost& host);
  void receives_complete(Node& node, Running& r, pdes::Context& ctx);
  void finish(Node& node, std::size_t index, pdes::Context& ctx, ExecutorHost& host);
  // Replay: starts member `member`'s replayed part, or keeps it until the
  // member's first instance has ended; schedules the kept ones once it has.
  bool start_replay(Node& node, PreparedCollective& prep, std::uint32_t comm, std::uint32_t member,
                    std::uint32_t seq, std::uint64_t handle, pdes::Context& ctx);
  void replay_event(Node& node, const pdes::Event& event, pdes::Context& ctx, ExecutorHost& host);
  // Records the first instance once its end and its S are both known, then
  // schedules the member's replayed parts that know their S.
  void record_first(Node& node, PreparedCollective& prep, std::uint32_t member, pdes::Context& ctx);
  void schedule_replays(Node& node, const PreparedCollective& prep, std::uint32_t member,
                        pdes::Context& ctx);
  // Replay::kShape: sends member `member`'s record of `prep` (its recorder's)
  // to the group's other communicators; takes one at its member.
  void share_record(const PreparedCollective& prep, std::uint32_t member, pdes::Context& ctx);
  void take_record(Node& node, const pdes::Event& event, pdes::Context& ctx);
  // Replay::kShape: groups communicators by shape and declared call.
  void build_groups();
  void assign_group(CallKey key, PreparedCollective& p) const;
  Running* find(Node& node, std::uint32_t comm, std::uint32_t seq);
  std::string describe(const Running& r) const;

  fabric::Network& network_;
  const compute::Device& device_;
  const std::vector<Communicator>& comms_;
  std::map<CallKey, std::unique_ptr<PreparedCollective>> prepared_;
  std::vector<Node> nodes_;  // by local LP index (node LPs only)
  // Messages that arrived before their step (or their collective), for all of
  // this rank's nodes: parts of each, in order. One table per rank instead of
  // a hash map per node: most nodes hold none most of the time.
  base::FlatMap<EarlyKey, base::Fifo<std::uint32_t>, EarlyHash> early_;
  std::uint64_t steps_done_ = 0;
  std::uint64_t replayed_bytes_ = 0;
  Replay replay_ = Replay::kNone;
  bool report_steps_ = false;
  // Replay::kShape.
  std::vector<std::pair<std::uint32_t, CollectiveCall>> declared_;
  std::unordered_map<std::uint32_t, std::uint32_t> role_;  // by communicator
  std::vector<SharedCall> groups_;                         // in key order: the same on every rank
  bool grouped_ = false;                                   // groups_ built from every declare()
  std::map<CallKey, std::uint32_t> group_;                 // by (shape, call)
  std::vector<std::uint32_t> shape_;                       // by communicator: its shape's lowest
  pdes::Time sync_delay_ = 0;                              // Network::max_lookahead()
  // At leaders: per (communicator, collective number), members started so far
  // and the latest start.
  struct Gather {
    std::uint32_t started = 0;
    pdes::Time latest = 0;
  };
  std::map<std::uint64_t, Gather> gathers_;
};

}  // namespace sipsim::collective
