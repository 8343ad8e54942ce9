#include "sipsim/collective/executor.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "sipsim/base/fifo.hpp"
#include "sipsim/collective/step_cost.hpp"

namespace sipsim::collective {

namespace {

// Messages are matched by (communicator, sequence number, sender): a sender's
// messages of one collective arrive in the order of its steps (the fabric keeps
// a pair's messages in order), so one queue per key suffices.
std::uint64_t match_key(std::uint32_t comm, std::uint32_t seq, std::uint32_t src_node) {
  return std::uint64_t{comm} << 48 | std::uint64_t{seq & Tag::kMaxSeq} << 24 | src_node;
}

// The sender joined `sent` of its Sends into this message; the receiver must
// have joined as many Recvs, or the two schedules disagree.
void check_parts(std::uint32_t sent, std::uint32_t expected, std::uint32_t src_node,
                 std::uint32_t self_node) {
  if (sent != expected) {
    throw std::logic_error("collective schedule mismatch: node " + std::to_string(src_node) +
                           " sent " + std::to_string(sent) + " part(s) in one message, node " +
                           std::to_string(self_node) + " expects " + std::to_string(expected));
  }
}

// Replay::kShape: the algorithms see the same parameters on both: the same
// hierarchy and torus, and a family's payload equal by the family's own ==
// (AlgorithmParams::operator==).
bool same_params(const AlgorithmParams& a, const AlgorithmParams& b) {
  return a == b;
}

// Same size and the same offsets nodes[i] - nodes[0] (a translate).
bool same_shape(const Communicator& a, const Communicator& b) {
  if (a.size() != b.size() || !same_params(a.params, b.params)) return false;
  for (std::size_t i = 1; i < a.nodes.size(); ++i) {
    if (std::int64_t{a.nodes[i]} - a.nodes[0] != std::int64_t{b.nodes[i]} - b.nodes[0]) {
      return false;
    }
  }
  return true;
}

std::uint64_t shape_hash(const Communicator& c) {
  std::uint64_t h = c.size() * 0x9E3779B97F4A7C15ull;
  for (std::uint32_t n : c.nodes) {
    h = (h ^ static_cast<std::uint32_t>(n - c.nodes[0])) * 0x100000001B3ull;
  }
  return h;
}

// kReplayShare's first word: communicator (16 bits), member (24), group (24).
constexpr std::uint32_t kMaxGroup = (1u << 24) - 1;

}  // namespace

struct Executor::Running {
  explicit Running(std::shared_ptr<const PreparedCollective::Member> p) : plan(std::move(p)) {}
  const Schedule& schedule() const { return plan->schedule; }
  // A receive of the current step not yet arrived: its sender and parts.
  struct Expected {
    std::uint32_t src = 0, parts = 0;
  };
  static constexpr std::uint32_t kNoStep = ~std::uint32_t{0};

  std::uint64_t handle = 0;
  std::uint32_t comm = 0, seq = 0, member = 0;
  PreparedCollective* prepared = nullptr;
  std::shared_ptr<const PreparedCollective::Member> plan;
  std::uint32_t step = 0;
  std::vector<Expected> expected;  // sorted by sender; the step waits while not empty
  pdes::Time round_start = 0;      // lock-step: when the current round started
  pdes::Time sends_done = 0;       // when the current step's sends have left
  bool ending = false;             // the current step's receives are in; it ends at step_end
  pdes::Time step_end = 0;
  pdes::Time step_start = 0;  // when the current step started
  // The wire view, h2t and local operation of step `cached`: consecutive steps
  // of one run (Schedule::runs, e.g. a ring phase) are identical on the wire,
  // so they are computed once per run.
  std::uint32_t cached = kNoStep;
  WireStep wire;
  pdes::Time step_h2t = 0, step_compute = 0;
  CollectiveTiming timing;

  bool same_run(std::uint32_t a, std::uint32_t b) const {
    for (const Schedule::Run& run : plan->runs) {
      if (run.first <= a && a < run.first + run.count)
        return run.first <= b && b < run.first + run.count;
    }
    return false;
  }
};

// A member part in replay mode waiting for its instance's S (kReplayGo): the
// first instance's (first: it is simulated meanwhile), or a replayed part's,
// which then ends at S + the first instance's end - its S.
struct Executor::Replaying {
  std::uint64_t handle = 0;
  std::uint32_t comm = 0, seq = 0, member = 0;
  PreparedCollective* prepared = nullptr;
  pdes::Time start = 0;
  pdes::Time sync = PreparedCollective::Recorded::kUnknown;
  bool first = false;
  bool scheduled = false;  // its kReplayDone is on its way, for `end`
  pdes::Time end = 0;
};

struct Executor::Node {
  std::vector<Running> running;
  std::vector<Replaying> replaying;
  std::uint32_t early = 0;  // entries of Executor::early_ for this node
};

Executor::Executor(fabric::Network& network, const compute::Device& device,
                   const std::vector<Communicator>& comms)
    : network_(network), device_(device), comms_(comms) {
  if (network.nodes() > (1u << 24)) {
    throw std::invalid_argument("the collective executor supports at most 2^24 fabric nodes");
  }
  if (comms.size() > Tag::kMaxComm + 1u) {
    throw std::invalid_argument("at most " + std::to_string(Tag::kMaxComm + 1u) + " communicators");
  }
  for (const Communicator& c : comms) {
    for (std::uint32_t n : c.nodes) {
      if (n >= network.nodes()) {
        throw std::invalid_argument("communicator '" + c.name + "' names node " +
                                    std::to_string(n) + " but the fabric has " +
                                    std::to_string(network.nodes()) + " nodes");
      }
    }
  }
}

Executor::~Executor() = default;

void Executor::setup(const pdes::Partition& partition, int rank) {
  steps_done_ = 0;
  replayed_bytes_ = 0;
  sync_delay_ = network_.max_lookahead();
  gathers_.clear();
  nodes_.clear();
  nodes_.resize(partition.lps_of(rank).size());
  early_.clear();
  group_shapes();
}

void Executor::group_shapes() {
  if (replay_ == Replay::kShape && !grouped_) build_groups();
}

void Executor::set_contention(std::uint32_t index, pdes::Time alone,
                              std::vector<pdes::Time> together) {
  SharedCall& g = groups_.at(index);
  if (together.size() != g.comms.size()) {
    throw std::logic_error("set_contention: one time per communicator of the shared call");
  }
  g.alone = alone;
  g.together = std::move(together);
}

// The record's E - S scaled by together / alone, never below the record's:
// the recorder's instance met the fabric alone, and an estimate that finds a
// communicator faster together (another route) keeps the record.
pdes::Time Executor::SharedCall::stretch(pdes::Time after, std::uint32_t position) const {
  if (alone == 0 || position >= together.size() || together[position] <= alone) return after;
  __extension__ typedef unsigned __int128 Wide;  // after * together passes 2^64 past ~4 ms each
  return static_cast<pdes::Time>(Wide{after} * together[position] / alone);
}

void Executor::declare(std::uint32_t comm, const CollectiveCall& call, std::uint32_t role) {
  if (replay_ != Replay::kShape) return;
  grouped_ = false;
  declared_.emplace_back(comm, call);
  role_.try_emplace(comm, role);
}

void Executor::build_groups() {
  shape_.assign(comms_.size(), 0);
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> lowest;  // by hash
  const auto role = [&](std::uint32_t k) {
    const auto r = role_.find(k);
    return r == role_.end() ? 0u : r->second;
  };
  for (std::uint32_t c = 0; c < comms_.size(); ++c) {
    std::vector<std::uint32_t>& seen = lowest[shape_hash(comms_[c])];
    auto it = std::find_if(seen.begin(), seen.end(), [&](std::uint32_t s) {
      return role(s) == role(c) && same_shape(comms_[s], comms_[c]);
    });
    shape_[c] = it == seen.end() ? c : *it;
    if (it == seen.end()) seen.push_back(c);
  }
  std::map<CallKey, SharedCall> groups;
  for (const auto& [comm, call] : declared_) {
    SharedCall& g = groups[{shape_.at(comm), static_cast<int>(call.op), call.algorithm.row(),
                            call.bytes, call.root}];
    g.call = call;
    g.comms.push_back(comm);
  }
  groups_.clear();
  group_.clear();
  for (auto& [key, g] : groups) {
    std::sort(g.comms.begin(), g.comms.end());
    g.comms.erase(std::unique(g.comms.begin(), g.comms.end()), g.comms.end());
    if (g.comms.size() < 2) continue;  // nothing to share
    if (groups_.size() > kMaxGroup) {
      throw std::runtime_error("replay-shapes: more than " + std::to_string(kMaxGroup) +
                               " shared calls");
    }
    group_.emplace(key, static_cast<std::uint32_t>(groups_.size()));
    groups_.push_back(std::move(g));
  }
  for (auto& [key, p] : prepared_) assign_group(key, *p);
  grouped_ = true;
}

void Executor::assign_group(CallKey key, PreparedCollective& p) const {
  p.group = PreparedCollective::kNoGroup;
  p.shared = false;
  if (replay_ != Replay::kShape || shape_.empty()) return;
  const std::uint32_t comm = std::get<0>(key);
  std::get<0>(key) = shape_[comm];
  auto it = group_.find(key);
  if (it == group_.end()) return;
  const std::vector<std::uint32_t>& members = groups_[it->second].comms;
  if (!std::binary_search(members.begin(), members.end(), comm)) return;  // not declared
  p.group = it->second;
  p.position = static_cast<std::uint32_t>(std::lower_bound(members.begin(), members.end(), comm) -
                                          members.begin());
  p.shared = members.front() != comm;
}

PreparedCollective& Executor::prepare(std::uint32_t comm, const CollectiveCall& call) {
  const CallKey key{comm, static_cast<int>(call.op), call.algorithm.row(), call.bytes, call.root};
  auto it = prepared_.find(key);
  if (it != prepared_.end()) return *it->second;
  const Communicator& c = comms_.at(comm);
  auto p = std::make_unique<PreparedCollective>();
  p->spec = make_spec(call.op, call.algorithm, c.size(), call.bytes, call.root, c.params);
  if (const std::string why = why_invalid(p->spec); !why.empty()) {
    throw InvalidCollective("communicator '" + c.name + "': " + why);
  }
  p->rounds = lockstep_rounds(p->spec, c.nodes, network_, device_);
  if (c.size() <= PreparedCollective::kCachedMembers) p->members.resize(c.size());
  assign_group(key, *p);
  return *prepared_.emplace(key, std::move(p)).first->second;
}

void Executor::start(pdes::Context& ctx, std::uint32_t comm, std::uint32_t member,
                     std::uint32_t seq, const CollectiveCall& call, std::uint64_t handle,
                     ExecutorHost& host) {
  PreparedCollective& prep = prepare(comm, call);
  if (seq > Tag::kMaxSeq) {
    throw std::runtime_error("communicator '" + comms_[comm].name + "' ran more than " +
                             std::to_string(Tag::kMaxSeq) + " collectives");
  }
  Node& node = nodes_[ctx.self_index()];
  if (replay_ != Replay::kNone && start_replay(node, prep, comm, member, seq, handle, ctx)) return;
  std::shared_ptr<const PreparedCollective::Member> plan =
      prep.members.empty() ? nullptr : prep.members.at(member);
  if (!plan) {
    Schedule schedule(prep.spec, member);
    std::vector<Schedule::Run> runs;
    for (const Schedule::Run& run : schedule.runs()) {
      if (run.count > 1) runs.push_back(run);
    }
    plan = std::make_shared<const PreparedCollective::Member>(
        PreparedCollective::Member{std::move(schedule), std::move(runs), {}});
    if (!prep.members.empty()) prep.members[member] = plan;
  }
  Running r(std::move(plan));
  r.handle = handle;
  r.comm = comm;
  r.seq = seq;
  r.member = member;
  r.prepared = &prep;
  r.timing.start = ctx.now();
  r.round_start = ctx.now();
  node.running.push_back(std::move(r));
  start_step(node, node.running.back(), ctx, host);
}

Executor::Running* Executor::find(Node& node, std::uint32_t comm, std::uint32_t seq) {
  for (Running& r : node.running) {
    if (r.comm == comm && r.seq == seq) return &r;
  }
  return nullptr;
}

void Executor::handle(const pdes::Event& event, pdes::Context& ctx, ExecutorHost& host) {
  Node& node = nodes_[ctx.self_index()];
  const auto comm = static_cast<std::uint32_t>(event.data[0] >> 32);
  const auto seq = static_cast<std::uint32_t>(event.data[0]);
  if (event.kind == kReplayShare) {
    take_record(node, event, ctx);
    return;
  }
  if (event.kind >= kReplayDone) {
    replay_event(node, event, ctx, host);
    return;
  }
  Running* r = find(node, comm, seq);
  if (r == nullptr) {
    throw std::logic_error("executor: event for a collective that is not running at node " +
                           std::to_string(ctx.self()));
  }
  if (event.kind == kRoundsDone) {
    finish(node, static_cast<std::size_t>(r - node.running.data()), ctx, host);
    return;
  }
  if (report_steps_) host.step_done(ctx, r->handle, r->step, r->step_start);
  ++r->step;
  ++steps_done_;
  start_step(node, *r, ctx, host);
}

void Executor::start_step(Node& node, Running& r, pdes::Context& ctx, ExecutorHost& host) {
  const std::vector<pdes::Time>& rounds = r.prepared->rounds;
  if (r.step == r.schedule().steps()) {
    // In lock-step a member that is done early still ends with the others.
    const pdes::Time end = r.round_start + remaining_rounds(rounds, r.step);
    if (end > ctx.now()) {
      r.step = static_cast<std::uint32_t>(std::max<std::size_t>(r.step, rounds.size()));
      ctx.send(ctx.self(), end - ctx.now(), kRoundsDone,
               {std::uint64_t{r.comm} << 32 | r.seq, 0, 0, 0});
      return;
    }
    finish(node, static_cast<std::size_t>(&r - node.running.data()), ctx, host);
    return;
  }
  const Communicator& comm = comms_[r.comm];
  const std::uint32_t self = ctx.self();
  const bool reuse =
      r.cached != Running::kNoStep && r.cached + 1 == r.step && r.same_run(r.cached, r.step);
  if (!reuse) r.wire = wire_step(r.schedule(), r.step);
  r.cached = r.step;
  const WireStep& step = r.wire;
  r.sends_done = ctx.now();
  r.step_start = ctx.now();
  r.ending = false;
  if (step.multicast && !step.out.empty()) {
    // One multicast (RAMP §6.1): the same data to every peer.
    std::vector<std::uint32_t> peers;
    for (const WireMessage& s : step.out) {
      if (s.bytes != step.out[0].bytes || s.parts != 1) {
        throw std::logic_error("a multicast step must send the same data to every peer");
      }
      peers.push_back(comm.nodes[s.peer]);
    }
    const std::uint64_t tag = Tag{r.comm, r.seq, 1}.pack();
    r.sends_done = std::max(r.sends_done, network_.multicast(ctx, peers, step.out[0].bytes, tag));
  } else {
    for (const WireMessage& s : step.out) {
      if (s.parts > Tag::kMaxParts) throw std::logic_error("a message joins too many sends");
      const std::uint64_t tag = Tag{r.comm, r.seq, s.parts}.pack();
      r.sends_done = std::max(r.sends_done, network_.send(ctx, comm.nodes[s.peer], s.bytes, tag));
    }
  }
  if (!reuse) {
    StepTransfer transfer(network_.concurrent_sends());
    if (step.multicast && !step.out.empty()) {
      transfer.send(transfer_ps(network_, self, comm.nodes[step.out[0].peer], step.out[0].bytes));
    } else {
      for (const WireMessage& s : step.out) {
        transfer.send(transfer_ps(network_, self, comm.nodes[s.peer], s.bytes));
      }
    }
    for (const WireMessage& in : step.in) {
      transfer.receive(transfer_ps(network_, comm.nodes[in.peer], self, in.bytes));
    }
    r.step_h2t = transfer.h2t();
    r.step_compute = local_ps(step, device_);
  }
  r.expected.clear();
  const std::uint32_t index = ctx.self_index();
  for (const WireMessage& in : step.in) {
    const std::uint32_t peer = comm.nodes[in.peer];
    const EarlyKey key{match_key(r.comm, r.seq, peer), index};
    if (base::Fifo<std::uint32_t>* early = early_.find(key)) {
      check_parts(early->front(), in.parts, peer, self);
      early->pop_front();
      if (early->empty()) {
        early_.erase(key);
        --node.early;
      }
      continue;
    }
    r.expected.push_back({peer, in.parts});
  }
  std::sort(r.expected.begin(), r.expected.end(),
            [](const auto& x, const auto& y) { return x.src < y.src; });
  for (std::size_t i = 1; i < r.expected.size(); ++i) {
    if (r.expected[i].src == r.expected[i - 1].src) {
      throw std::logic_error("collective schedule lists node " + std::to_string(r.expected[i].src) +
                             " twice among a step's receives");
    }
  }
  if (!r.same_run(r.step, r.step + 1)) {
    // Not reused: free the wire view now rather than hold ~1 KB per node (a
    // 31-peer RAMP-x step) while the step's messages are in flight.
    r.wire = WireStep{};
    r.cached = Running::kNoStep;
  }
  if (r.expected.empty()) receives_complete(node, r, ctx);
}

void Executor::receives_complete(Node& /*node*/, Running& r, pdes::Context& ctx) {
  // The step ends when its data is in and its sends have left; then the
  // local operation runs.
  const pdes::Time end = step_end(std::max(ctx.now(), r.sends_done), r.step_compute, r.round_start,
                                  r.prepared->rounds, r.step);
  r.round_start = end;
  r.ending = true;
  r.step_end = end;
  r.timing.compute += r.step_compute;
  r.timing.h2t += r.step_h2t;
  ctx.send(ctx.self(), end - ctx.now(), kStepDone, {std::uint64_t{r.comm} << 32 | r.seq, 0, 0, 0});
}

void Executor::delivered(const fabric::Delivery& d, pdes::Context& ctx, ExecutorHost& /*host*/) {
  Node& node = nodes_[ctx.self_index()];
  const Tag tag = Tag::unpack(d.tag);
  if (Running* r = find(node, tag.comm, tag.seq)) {
    auto it =
        std::lower_bound(r->expected.begin(), r->expected.end(), d.src_node,
                         [](const Running::Expected& e, std::uint32_t src) { return e.src < src; });
    if (it != r->expected.end() && it->src == d.src_node) {
      check_parts(tag.parts, it->parts, d.src_node, ctx.self());
      r->expected.erase(it);
      if (r->expected.empty()) receives_complete(node, *r, ctx);
      return;
    }
  }
  // For a later step or a later collective.
  base::Fifo<std::uint32_t>& early =
      early_[{match_key(tag.comm, tag.seq, d.src_node), ctx.self_index()}];
  if (early.empty()) ++node.early;
  early.push_back(tag.parts);
}

void Executor::finish(Node& node, std::size_t index, pdes::Context& ctx, ExecutorHost& host) {
  const Running& r = node.running[index];
  CollectiveTiming timing = r.timing;
  timing.end = ctx.now();
  const std::uint64_t handle = r.handle;
  if (replay_ != Replay::kNone) {
    PreparedCollective& prep = *r.prepared;
    PreparedCollective::Recorded& rec = prep.recorded[r.member];
    if (rec.state == PreparedCollective::Recorded::State::kRunning && rec.first_seq == r.seq) {
      rec.end = timing.end;
      rec.compute = timing.compute;
      rec.h2t = timing.h2t;
      record_first(node, prep, r.member, ctx);
    }
  }
  node.running.erase(node.running.begin() + static_cast<std::ptrdiff_t>(index));
  host.collective_done(ctx, handle, timing);  // may start the node's next collective
}

bool Executor::start_replay(Node& node, PreparedCollective& prep, std::uint32_t comm,
                            std::uint32_t member, std::uint32_t seq, std::uint64_t handle,
                            pdes::Context& ctx) {
  using State = PreparedCollective::Recorded::State;
  if (prep.recorded.empty()) prep.recorded.resize(prep.spec.p);
  PreparedCollective::Recorded& rec = prep.recorded[member];
  ctx.send(comms_[comm].nodes[0], sync_delay_, kReplayArrive,
           {std::uint64_t{comm} << 32 | seq, ctx.now(), 0, 0});
  // Shared: every instance waits for the recorder's record (take_record).
  const bool first = rec.state == State::kNone && !prep.shared;
  node.replaying.push_back({handle, comm, seq, member, &prep, ctx.now(),
                            PreparedCollective::Recorded::kUnknown, first, false});
  if (first) {  // simulated, and recorded when it has ended and knows its S
    rec.state = State::kRunning;
    rec.first_seq = seq;
    return false;
  }
  return true;
}

void Executor::replay_event(Node& node, const pdes::Event& event, pdes::Context& ctx,
                            ExecutorHost& host) {
  const std::uint64_t key = event.data[0];
  const auto comm = static_cast<std::uint32_t>(key >> 32);
  const auto seq = static_cast<std::uint32_t>(key);
  if (event.kind == kReplayArrive) {  // at the leader
    Gather& g = gathers_[key];
    g.latest = std::max(g.latest, event.data[1]);
    const Communicator& c = comms_[comm];
    if (++g.started < c.size()) return;
    for (std::uint32_t m = 0; m < c.size(); ++m) {
      ctx.send(c.nodes[m], sync_delay_, kReplayGo, {key, g.latest, m, 0});
    }
    gathers_.erase(key);
    return;
  }
  const auto member = static_cast<std::uint32_t>(event.data[2]);
  auto it = std::find_if(node.replaying.begin(), node.replaying.end(), [&](const Replaying& x) {
    return x.comm == comm && x.seq == seq && x.member == member &&
           (event.kind == kReplayGo ? x.sync == PreparedCollective::Recorded::kUnknown
                                    : x.scheduled);
  });
  if (it == node.replaying.end()) {
    throw std::logic_error("executor: replay event for no collective in replay at node " +
                           std::to_string(ctx.self()));
  }
  PreparedCollective& prep = *it->prepared;
  PreparedCollective::Recorded& rec = prep.recorded[member];
  if (event.kind == kReplayGo) {
    it->sync = event.data[1];
    if (it->first) {
      rec.sync = it->sync;
      node.replaying.erase(it);
      record_first(node, prep, member, ctx);
    } else {
      schedule_replays(node, prep, member, ctx);
    }
    return;
  }
  // kReplayDone
  if (rec.bytes == PreparedCollective::Recorded::kBytesUnknown) {
    const Schedule schedule(prep.spec, member);
    rec.bytes = 0;
    for (std::uint32_t s = 0; s < schedule.steps(); ++s) {
      for (const WireMessage& m : wire_step(schedule, s).out) rec.bytes += m.bytes;
    }
  }
  replayed_bytes_ += rec.bytes;
  const CollectiveTiming timing{it->start, ctx.now(), rec.compute, rec.h2t};
  const std::uint64_t handle = it->handle;
  node.replaying.erase(it);
  host.collective_done(ctx, handle, timing);
}

void Executor::record_first(Node& node, PreparedCollective& prep, std::uint32_t member,
                            pdes::Context& ctx) {
  using Recorded = PreparedCollective::Recorded;
  Recorded& rec = prep.recorded[member];
  if (rec.state != Recorded::State::kRunning || rec.sync == Recorded::kUnknown ||
      rec.end == Recorded::kUnknown) {
    return;
  }
  rec.state = Recorded::State::kRecorded;
  share_record(prep, member, ctx);
  schedule_replays(node, prep, member, ctx);
}

void Executor::share_record(const PreparedCollective& prep, std::uint32_t member,
                            pdes::Context& ctx) {
  if (prep.group == PreparedCollective::kNoGroup || prep.shared) return;
  const PreparedCollective::Recorded& rec = prep.recorded[member];
  const pdes::Time after = rec.end > rec.sync ? rec.end - rec.sync : 0;
  const std::vector<std::uint32_t>& comms = groups_[prep.group].comms;
  for (std::size_t i = 1; i < comms.size(); ++i) {
    ctx.send(comms_[comms[i]].nodes[member], sync_delay_, kReplayShare,
             {std::uint64_t{comms[i]} << 48 | std::uint64_t{member} << 24 | prep.group, after,
              rec.compute, rec.h2t});
  }
}

void Executor::take_record(Node& node, const pdes::Event& event, pdes::Context& ctx) {
  const auto comm = static_cast<std::uint32_t>(event.data[0] >> 48);
  const auto member = static_cast<std::uint32_t>(event.data[0] >> 24 & 0xFFFFFF);
  const auto group = static_cast<std::uint32_t>(event.data[0] & kMaxGroup);
  PreparedCollective& prep = prepare(comm, groups_.at(group).call);
  if (prep.recorded.empty()) prep.recorded.resize(prep.spec.p);
  PreparedCollective::Recorded& rec = prep.recorded.at(member);
  rec.state = PreparedCollective::Recorded::State::kRecorded;
  rec.sync = 0;
  rec.end = event.data[1];
  rec.compute = event.data[2];
  rec.h2t = event.data[3];
  schedule_replays(node, prep, member, ctx);
}

// A replayed part ends at S + (end - S) of the first instance, and not before
// its S is known here (now).
void Executor::schedule_replays(Node& node, const PreparedCollective& prep, std::uint32_t member,
                                pdes::Context& ctx) {
  const PreparedCollective::Recorded& rec = prep.recorded[member];
  if (rec.state != PreparedCollective::Recorded::State::kRecorded) return;
  for (Replaying& x : node.replaying) {
    if (x.first || x.scheduled || x.prepared != &prep || x.member != member ||
        x.sync == PreparedCollective::Recorded::kUnknown) {
      continue;
    }
    x.scheduled = true;
    pdes::Time after = rec.end > rec.sync ? rec.end - rec.sync : 0;
    if (prep.group != PreparedCollective::kNoGroup)
      after = groups_[prep.group].stretch(after, prep.position);
    const pdes::Time end = std::max(ctx.now(), x.sync + after);
    x.end = end;
    ctx.send(ctx.self(), end - ctx.now(), kReplayDone,
             {std::uint64_t{x.comm} << 32 | x.seq, 0, x.member, 0});
  }
}

namespace {

// The least time each step of a member's schedule takes, summed from each
// step to the last (least_rest[steps] = 0).
const std::vector<pdes::Time>& least_rest(const PreparedCollective::Member& plan,
                                          const Communicator& comm, std::uint32_t self,
                                          const fabric::Network& network,
                                          const compute::Device& device) {
  if (!plan.least_rest.empty()) return plan.least_rest;
  const std::uint32_t steps = plan.schedule.steps();
  std::vector<pdes::Time> rest(steps + 1, 0);
  for (std::uint32_t j = steps; j-- > 0;) {
    const WireStep w = wire_step(plan.schedule, j);
    pdes::Time least = 0;
    for (const WireMessage& m : w.out) {
      least = std::max(least, network.injection_ps(self, comm.nodes[m.peer], m.bytes));
    }
    rest[j] = pdes::saturating_add(rest[j + 1], pdes::saturating_add(least, local_ps(w, device)));
  }
  plan.least_rest = std::move(rest);
  return plan.least_rest;
}

}  // namespace

// The current step ends at its scheduled end once its receives are in, else
// no sooner than its local operation after both `from` and its sends' end;
// the next step sends then, and the last step's end may send the part's
// record (replay-shapes). A replayed part sends its notice when it starts;
// only the leader (member 0) sends again, when the last member has arrived.
Executor::Bound Executor::next_send(std::uint32_t local_index, std::uint64_t handle) const {
  for (const Replaying& x : nodes_[local_index].replaying) {
    if (x.handle != handle) continue;
    // A leader sends kReplayGo until it knows S; a first instance is
    // simulated, and its Running part says.
    if (x.member == 0 && x.sync == PreparedCollective::Recorded::kUnknown) return {};
    if (!x.first) return {pdes::kTimeMax, pdes::kTimeMax};
  }
  for (const Running& r : nodes_[local_index].running) {
    if (r.handle != handle) continue;
    if (r.step >= r.schedule().steps()) return {};  // ending with the rounds
    if (r.ending) return {0, r.step_end};
    return {r.step_compute, pdes::saturating_add(r.sends_done, r.step_compute)};
  }
  return {};
}

Executor::Bound Executor::earliest_end(std::uint32_t local_index, std::uint64_t handle) const {
  for (const Replaying& x : nodes_[local_index].replaying) {
    // A first instance is simulated: its Running part says.
    if (x.handle == handle && !x.first) return x.scheduled ? Bound{0, x.end} : Bound{};
  }
  for (const Running& r : nodes_[local_index].running) {
    if (r.handle != handle) continue;
    if (r.step >= r.schedule().steps()) return {};  // ending with the rounds
    const Communicator& comm = comms_[r.comm];
    const pdes::Time rest =
        least_rest(*r.plan, comm, comm.nodes[r.member], network_, device_)[r.step + 1];
    if (r.ending) return {rest, pdes::saturating_add(r.step_end, rest)};
    const pdes::Time step = pdes::saturating_add(r.step_compute, rest);
    return {step, pdes::saturating_add(r.sends_done, step)};
  }
  return {};
}

bool Executor::idle(std::uint32_t local_index) const {
  const Node& node = nodes_[local_index];
  return node.running.empty() && node.replaying.empty() && node.early == 0;
}

std::string Executor::describe(const Running& r) const {
  const CollectiveSpec& s = r.prepared->spec;
  std::ostringstream o;
  o << to_string(s.op) << " (" << to_string(s.algorithm) << ", " << s.bytes
    << " B) on communicator '" << comms_[r.comm].name << "' (its collective #" << r.seq
    << ", member " << r.member << " of " << s.p << ")";
  return o.str();
}

std::string Executor::unfinished(std::uint32_t local_index) const {
  const Node& node = nodes_[local_index];
  std::ostringstream o;
  for (const Running& r : node.running) {
    o << describe(r) << " stopped at step " << r.step << " of " << r.schedule().steps();
    std::vector<std::uint32_t> from;
    for (const Running::Expected& e : r.expected) from.push_back(e.src);
    if (!from.empty()) {
      o << ", waiting for a message from node";
      for (std::size_t i = 0; i < from.size() && i < 8; ++i) o << (i ? ", " : " ") << from[i];
      if (from.size() > 8) o << " and " << from.size() - 8 << " more";
    }
    o << "; ";
  }
  for (const Replaying& x : node.replaying) {
    o << "replayed " << to_string(x.prepared->spec.op) << " on communicator '"
      << comms_[x.comm].name << "' (its collective #" << x.seq << ") not ended; ";
  }
  if (node.early != 0) {
    std::vector<std::uint64_t> keys;
    early_.for_each([&](const EarlyKey& key, const base::Fifo<std::uint32_t>&) {
      if (key.node == local_index) keys.push_back(key.match);
    });
    std::sort(keys.begin(), keys.end());
    const auto comm = static_cast<std::uint32_t>(keys[0] >> 48);
    o << keys.size() << " message(s) no step took, e.g. from node " << (keys[0] & 0xFFFFFF)
      << " for collective #" << (keys[0] >> 24 & Tag::kMaxSeq) << " of communicator '"
      << (comm < comms_.size() ? comms_[comm].name : std::to_string(comm)) << "'; ";
  }
  std::string out = o.str();
  if (out.size() >= 2) out.resize(out.size() - 2);
  return out;
}

}  // namespace sipsim::collective
