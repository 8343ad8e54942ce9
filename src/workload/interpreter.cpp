#include "sipsim/workload/interpreter.hpp"

#include <algorithm>
#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/collectives/broadcast.hpp>
#include <boost/mpi/operations.hpp>
#include <boost/serialization/string.hpp>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "sipsim/base/fifo.hpp"
#include "sipsim/base/flat_map.hpp"
#include "sipsim/base/units.hpp"

namespace sipsim::workload {

namespace {
enum class OpState : std::uint8_t { kWaiting, kStarted, kDone };

// A point-to-point message's tag: the reserved communicator, and the low 48
// bits of the time its send started, so that the receiver can tell the
// pipeline bubble (before the peer sent) from the transfer (after). 2^48 ps
// is 281 s, far more than any message's time in flight.
constexpr std::uint64_t kSentMask = (std::uint64_t{1} << 48) - 1;
std::uint64_t p2p_tag(pdes::Time sent) {
  return std::uint64_t{collective::Tag::kPointToPoint} << 48 | (sent & kSentMask);
}
pdes::Time sent_time(std::uint64_t tag, pdes::Time now) {
  return now - ((now - tag) & kSentMask);
}
}  // namespace

struct Interpreter::Node {
  std::uint32_t id = 0;  // fabric node
  const Binding* binding = nullptr;
  std::span<const Slowdown> slowdowns;  // this GPU's windows (docs/faults.md), by `at`
  const Program* program = nullptr;
  std::uint32_t iteration = 0;
  pdes::Time iteration_start = 0;
  std::uint32_t done = 0;  // ops done in this iteration
  // The iteration's ops below `lo` are done. Above it, only the ops that have
  // started, or have some dependencies done, have an entry; any other op is
  // waiting with all its dependencies missing. A node's state thus follows its
  // live ops, not its program's length: per-op arrays were 13 bytes per op
  // and node, 43 GB for 32,768 GPUs of a 100,000-op stage program.
  struct Live {
    std::uint32_t missing = 0;  // dependencies not yet done
    OpState state = OpState::kWaiting;
    pdes::Time started = 0;
  };
  std::uint32_t lo = 0;
  base::FlatMap<std::uint32_t, Live> live;
  // The ops started and not done (the lookahead floor's; refresh_floor):
  // few, where `live` can hold thousands done out of order above `lo` (a
  // trace's long collective beside its kernels).
  std::vector<std::uint32_t> started;
  Live& live_op(std::uint32_t i) {
    if (Live* l = live.find(i)) return *l;
    Live& l = live[i];
    l.missing = program->op(i).deps_count;
    return l;
  }
  bool is_done(std::uint32_t i) const {
    if (i < lo) return true;
    const Live* l = live.find(i);
    return l != nullptr && l->state == OpState::kDone;
  }
  base::Fifo<std::uint32_t> ready;  // ops whose dependencies are done, not yet started
  bool draining = false;
  base::Fifo<std::uint32_t> compute_queue;  // the compute stream's backlog
  bool computing = false;
  std::uint32_t computing_op = 0;
  pdes::Time compute_end = 0;           // of computing_op
  std::vector<std::uint32_t> comm_seq;  // per communicator slot: collectives started
  // Point-to-point: per peer node, unmatched arrivals (bytes, when sent) and
  // posted receives (ops), each in order. Created by the node's first
  // point-to-point message: collective-only programs never pay for the maps.
  struct Arrival {
    std::uint64_t bytes;
    pdes::Time sent;
  };
  struct PointToPoint {
    std::unordered_map<std::uint32_t, base::Fifo<Arrival>> arrived;
    std::unordered_map<std::uint32_t, base::Fifo<std::uint32_t>> posted;
  };
  std::unique_ptr<PointToPoint> p2p;
  PointToPoint& point_to_point() {
    if (!p2p) p2p = std::make_unique<PointToPoint>();
    return *p2p;
  }
  // Attribution.
  pdes::Time last = 0;
  std::array<std::uint32_t, kCategories> in_flight{};  // communication ops per category
  // Posted pp-comm recvs (not in in_flight): while one waits and nothing of
  // higher rank runs, the time is the bubble until a message's arrival shows
  // that its peer had sent it, then pp-comm (convert_bubble).
  std::uint32_t pp_waiting = 0;
  struct Span {
    pdes::Time begin, end;
  };
  std::vector<Span> bubble;  // this wait's spans counted as bubble so far, in order
  Breakdown iteration_time{}, total{};
};

struct Interpreter::Floors {
  static constexpr std::uint32_t kNoTable = 0xFFFFFFFF;
  // A node's floor, without its delay to another rank, for a given `from`:
  // min(from + relative, absolute, max(from + both_relative, both_absolute)).
  struct Floor {
    pdes::Time relative = pdes::kTimeMax, absolute = pdes::kTimeMax;
    pdes::Time both_relative = pdes::kTimeMax, both_absolute = pdes::kTimeMax;
    pdes::Time at(pdes::Time from) const {
      const pdes::Time both = std::max(pdes::saturating_add(from, both_relative), both_absolute);
      return std::min({pdes::saturating_add(from, relative), absolute, both});
    }
  };
  std::vector<QuietTime> tables;
  // Per local LP: its table (kNoTable: no program), its floor, its least
  // delay from a send to an event on another rank, and whether it ran an
  // event since its floor was computed.
  std::vector<std::uint32_t> table;
  std::vector<Floor> floor;
  std::vector<pdes::Time> delay;
  std::vector<std::uint8_t> dirty;
  std::vector<std::uint32_t> dirty_list;
  // The local LPs whose program has a crossing op: no other can send across
  // ranks (a fabric's switch ports, a stage whose peers are all local).
  std::vector<std::uint32_t> crossing;
  pdes::Time from = 0;  // of the last remote_floor
  void touch(std::uint32_t local) {
    if (dirty[local] != 0) return;
    dirty[local] = 1;
    dirty_list.push_back(local);
  }
};

Interpreter::Interpreter(ProgramSet set, std::unique_ptr<fabric::Network> network,
                         std::unique_ptr<compute::Device> device)
    : fabric::FabricModel(*network),  // *network lives on in network_
      set_(std::move(set)),
      network_(std::move(network)),
      device_(std::move(device)),
      executor_(*network_, *device_, set_.comms) {
  if (set_.iterations == 0) throw std::invalid_argument("programs need at least one iteration");
  executor_.set_replay(set_.replay_collectives);
  if (set_.bindings.size() > network_->nodes()) {
    throw std::invalid_argument(std::to_string(set_.bindings.size()) +
                                " node bindings for a fabric of " +
                                std::to_string(network_->nodes()) + " nodes");
  }
  for (Program& p : set_.programs) p.finish();
  for (std::uint32_t n = 0; n < set_.bindings.size(); ++n) {
    if (!set_.bindings[n]) continue;
    const Binding& b = *set_.bindings[n];
    const std::string who = "node " + std::to_string(n);
    if (b.program >= set_.programs.size()) {
      throw std::invalid_argument(who + " runs program " + std::to_string(b.program) +
                                  ", but there are " + std::to_string(set_.programs.size()));
    }
    const Program& p = set_.programs[b.program];
    if (b.comms.size() < p.comm_slots() || b.peers.size() < p.peer_slots()) {
      throw std::invalid_argument(
          who + ": program '" + p.name() + "' uses " + std::to_string(p.comm_slots()) +
          " communicator and " + std::to_string(p.peer_slots()) + " peer slots, the node binds " +
          std::to_string(b.comms.size()) + " and " + std::to_string(b.peers.size()));
    }
    for (std::size_t s = 0; s < b.comms.size(); ++s) {
      const auto& c = b.comms[s];
      if (c.comm >= set_.comms.size() || c.member >= set_.comms[c.comm].size() ||
          set_.comms[c.comm].nodes[c.member] != n) {
        throw std::invalid_argument(who + ": communicator slot " + std::to_string(s) +
                                    " is not this node's membership of a communicator");
      }
    }
    for (std::size_t s = 0; s < b.peers.size(); ++s) {
      if (b.peers[s] >= network_->nodes() || b.peers[s] == n) {
        throw std::invalid_argument(who + ": peer slot " + std::to_string(s) + " names node " +
                                    std::to_string(b.peers[s]));
      }
    }
  }
  if (network_->plans_for_job()) network_->plan_for_job(job_traffic(set_));
  // The progress line's work: every op once, plus each collective's steps
  // (member 0's count times the members, an estimate for trees). A program's
  // collective ops are counted per slot and call (its content: each op has
  // its own call index) once, not per node: a 1,536-GPU job has millions of
  // collective ops over its nodes.
  using CallKey = std::tuple<std::uint32_t, int, std::uint16_t, std::uint64_t, std::uint32_t>;
  auto call_key = [](std::uint32_t slot, const collective::CollectiveCall& c) {
    return CallKey{slot, static_cast<int>(c.op), c.algorithm.row(), c.bytes, c.root};
  };
  struct Uses {
    std::uint32_t slot, call;  // a call index with this content
    std::uint64_t count;
  };
  std::vector<std::vector<Uses>> uses(set_.programs.size());
  for (std::size_t q = 0; q < set_.programs.size(); ++q) {
    const Program& p = set_.programs[q];
    std::map<CallKey, Uses> count;
    for (std::uint32_t i = 0; i < p.size(); ++i) {
      const Op& op = p.op(i);
      if (op.kind != OpKind::kCollective) continue;
      auto [it, fresh] =
          count.try_emplace(call_key(op.slot, p.call(op.call)), Uses{op.slot, op.call, 0});
      ++it->second.count;
    }
    for (const auto& [key, u] : count) uses[q].push_back(u);
  }
  std::map<std::pair<std::uint32_t, CallKey>, std::uint64_t> steps;  // by communicator
  for (const auto& b : set_.bindings) {
    if (!b) continue;
    const Program& p = set_.programs[b->program];
    std::uint64_t work = p.size();
    for (const Uses& u : uses[b->program]) {
      const std::uint32_t comm = b->comms[u.slot].comm;
      const collective::CollectiveCall& c = p.call(u.call);
      auto [it, fresh] = steps.try_emplace({comm, call_key(0, c)}, 0);
      if (fresh) {
        const collective::Communicator& cm = set_.comms[comm];
        const collective::CollectiveSpec spec =
            collective::make_spec(c.op, c.algorithm, cm.size(), c.bytes, c.root, cm.params);
        // replay-shapes: which communicators run the call, and their program
        executor_.declare(comm, c, b->program);
        if (collective::why_invalid(spec).empty())
          it->second = collective::Schedule(spec, 0).steps();
      }
      work += u.count * it->second;
    }
    total_work_ += work * set_.iterations;
  }
  executor_.group_shapes();
}

Interpreter::~Interpreter() = default;

void Interpreter::price_shape_contention(const Estimators& estimators) {
  const std::vector<collective::Executor::SharedCall>& calls = executor_.shared_calls();
  for (std::uint32_t i = 0; i < calls.size(); ++i) {
    const collective::CollectiveCall& c = calls[i].call;
    const collective::Communicator& recorder = set_.comms[calls[i].comms.front()];
    const collective::CollectiveSpec spec =
        collective::make_spec(c.op, c.algorithm, recorder.size(), c.bytes, c.root, recorder.params);
    std::vector<std::vector<std::uint32_t>> nodes;
    for (const std::uint32_t comm : calls[i].comms) nodes.push_back(set_.comms[comm].nodes);
    if (auto e = estimators.contention(spec, nodes, *network_, *device_)) {
      executor_.set_contention(i, e->alone, std::move(e->together));
    }
  }
}

// A node's phase is its program (role); nodes that run nothing form one more.
pdes::Partition Interpreter::partition(int ranks) const {
  const auto idle = static_cast<std::uint32_t>(set_.programs.size());
  std::vector<std::uint32_t> phase(network_->nodes(), idle);
  for (std::uint32_t n = 0; n < set_.bindings.size(); ++n) {
    if (set_.bindings[n]) phase[n] = set_.bindings[n]->program;
  }
  return network_->phased_partition(ranks, phase);
}

void Interpreter::setup(const pdes::Partition& partition, int rank) {
  network_->setup(partition, rank);
  ops_done_ = 0;
  executor_.setup(partition, rank);
  const auto lps = partition.lps_of(rank);
  floors_.reset();  // built for this partition at the first remote_floor
  local_lps_.assign(lps.begin(), lps.end());
  nodes_.clear();
  nodes_.resize(lps.size());
  for (std::size_t i = 0; i < lps.size(); ++i) {
    if (lps[i] >= set_.bindings.size() || !set_.bindings[lps[i]]) continue;
    auto node = std::make_unique<Node>();
    node->id = lps[i];
    node->binding = &*set_.bindings[lps[i]];
    node->program = &set_.programs[node->binding->program];
    node->comm_seq.assign(node->binding->comms.size(), 0);
    const auto [lo, hi] =
        std::equal_range(slowdowns_.begin(), slowdowns_.end(), Slowdown{node->id},
                         [](const Slowdown& a, const Slowdown& b) { return a.node < b.node; });
    node->slowdowns = std::span(lo, hi);
    nodes_[i] = std::move(node);
  }
}

void Interpreter::init(pdes::Context& ctx) {
  Node* node = nodes_[ctx.self_index()].get();
  if (node == nullptr) return;
  if (node->program->size() == 0) {  // nothing to do, in every iteration
    node->iteration = set_.iterations;
    return;
  }
  start_iteration(*node, ctx);
}

void Interpreter::start_iteration(Node& node, pdes::Context& ctx) {
  const Program& p = *node.program;
  node.iteration_start = ctx.now();
  node.last = ctx.now();
  node.done = 0;
  node.lo = 0;
  node.live.clear();
  node.started.clear();
  for (const std::uint32_t i : p.roots()) make_ready(node, i);
  drain(node, ctx);
}

void Interpreter::make_ready(Node& node, std::uint32_t op) {
  node.ready.push_back(op);
}

// Starts ready ops in the order they became ready; ops that finish at once
// (waits, receives whose message is there) make others ready in the same loop.
void Interpreter::drain(Node& node, pdes::Context& ctx) {
  if (node.draining) return;
  node.draining = true;
  while (!node.ready.empty()) {
    const std::uint32_t op = node.ready.front();
    node.ready.pop_front();
    start(node, op, ctx);
  }
  node.draining = false;
}

void Interpreter::account(Node& node, pdes::Time now) {
  if (now == node.last) return;
  constexpr auto kPp = static_cast<std::size_t>(Category::kPpComm);
  std::size_t column = kIdleColumn;
  if (node.computing) {
    column = static_cast<std::size_t>(node.program->op(node.computing_op).category);
  } else {
    for (std::size_t c = 0; c < kCategories; ++c) {
      if (node.in_flight[c] > 0) {
        column = c;
        break;
      }
      if (c == kPp && node.pp_waiting > 0) {
        column = kBubbleColumn;
        break;
      }
    }
  }
  node.iteration_time[column] += now - node.last;
  if (column == kBubbleColumn) {
    if (!node.bubble.empty() && node.bubble.back().end == node.last) {
      node.bubble.back().end = now;
    } else {
      node.bubble.push_back({node.last, now});
    }
  }
  node.last = now;
}

// A pp-comm recv's message arrived (now, accounted): of the time counted as
// bubble since `from` (its peer's send, or the post if later) the message was
// on its way, so that time is exposed pp-comm. The spans are in time order
// and `from` .. now is a suffix, so this pops from the back (each span once).
void Interpreter::convert_bubble(Node& node, pdes::Time from) {
  constexpr auto kPp = static_cast<std::size_t>(Category::kPpComm);
  while (!node.bubble.empty() && node.bubble.back().end > from) {
    Node::Span& s = node.bubble.back();
    const pdes::Time lo = std::max(s.begin, from);
    node.iteration_time[kBubbleColumn] -= s.end - lo;
    node.iteration_time[kPp] += s.end - lo;
    if (s.begin < from) {
      s.end = from;
      break;
    }
    node.bubble.pop_back();
  }
  if (node.pp_waiting == 0) node.bubble.clear();  // no later arrival can convert these
}

void Interpreter::start(Node& node, std::uint32_t i, pdes::Context& ctx) {
  const Op& op = node.program->op(i);
  if (check_bounds_ && floors_) check_floor(node, ctx.self_index(), i, ctx.now());
  Node::Live& l = node.live_op(i);
  l.state = OpState::kStarted;
  l.started = ctx.now();
  node.started.push_back(i);
  const auto category = static_cast<std::size_t>(op.category);
  switch (op.kind) {
    case OpKind::kCompute:
      node.compute_queue.push_back(i);
      if (!node.computing) start_compute(node, ctx);
      break;
    case OpKind::kCollective: {
      account(node, ctx.now());
      ++node.in_flight[category];
      const Binding::Comm& c = node.binding->comms[op.slot];
      executor_.start(ctx, c.comm, c.member, node.comm_seq[op.slot]++, node.program->call(op.call),
                      i, *this);
      break;
    }
    case OpKind::kSend: {
      account(node, ctx.now());
      ++node.in_flight[category];
      const std::uint32_t peer = node.binding->peers[op.slot];
      const pdes::Time left = network_->send(ctx, peer, op.bytes, p2p_tag(ctx.now()));
      ctx.send(ctx.self(), left - ctx.now(), kSendDone, {i, 0, 0, 0});
      break;
    }
    case OpKind::kRecv: {
      const std::uint32_t peer = node.binding->peers[op.slot];
      auto& arrived = node.point_to_point().arrived;
      auto it = arrived.find(peer);
      if (it != arrived.end()) {
        const std::uint64_t bytes = it->second.front().bytes;
        it->second.pop_front();
        if (it->second.empty()) arrived.erase(it);
        if (bytes != op.bytes) {
          throw std::runtime_error("node " + std::to_string(node.id) + ": " +
                                   node.program->describe(i) + " expects " +
                                   std::to_string(op.bytes) + " B, node " + std::to_string(peer) +
                                   " sent " + std::to_string(bytes) + " B");
        }
        complete(node, i, ctx);
        break;
      }
      account(node, ctx.now());
      if (op.category == Category::kPpComm) {
        ++node.pp_waiting;
      } else {
        ++node.in_flight[category];
      }
      node.point_to_point().posted[peer].push_back(i);
      break;
    }
    case OpKind::kWait:
      complete(node, i, ctx);
      break;
  }
}

void Interpreter::start_compute(Node& node, pdes::Context& ctx) {
  account(node, ctx.now());
  node.computing_op = node.compute_queue.front();
  node.compute_queue.pop_front();
  node.computing = true;
  const pdes::Time duration = node.program->op(node.computing_op).duration;
  node.compute_end = ctx.now() + duration;
  if (!node.slowdowns.empty()) node.compute_end = slowed_end(ctx.now(), duration, node.slowdowns);
  ctx.send(ctx.self(), node.compute_end - ctx.now(), kComputeDone, {node.computing_op, 0, 0, 0});
}

// Slowdowns only lengthen compute (factor < 1), so the program-derived
// lookahead, which bounds with the nominal durations, stays a lower bound.
void Interpreter::set_slowdowns(std::vector<Slowdown> slowdowns) {
  std::sort(slowdowns.begin(), slowdowns.end(), [](const Slowdown& a, const Slowdown& b) {
    return a.node != b.node ? a.node < b.node : a.at < b.at;
  });
  slowdowns_ = std::move(slowdowns);
}

void Interpreter::complete(Node& node, std::uint32_t i, pdes::Context& ctx,
                           const collective::CollectiveTiming* timing) {
  Node::Live& l = node.live_op(i);
  l.state = OpState::kDone;
  if (auto it = std::find(node.started.begin(), node.started.end(), i); it != node.started.end()) {
    *it = node.started.back();
    node.started.pop_back();
  }
  const pdes::Time started = l.started;
  ++node.done;
  ++ops_done_;
  if (observer_) {
    observer_->op_done({node.id, node.iteration, i, started, ctx.now(), timing});
  }
  for (std::uint32_t u : node.program->users(i)) {
    if (--node.live_op(u).missing == 0) make_ready(node, u);
  }
  // Ops done in order leave the table.
  while (node.lo < node.program->size() && node.is_done(node.lo)) node.live.erase(node.lo++);
  if (node.done == node.program->size()) {
    account(node, ctx.now());
    if (observer_) {
      observer_->iteration_done(node.id, node.iteration, node.iteration_start, ctx.now(),
                                node.iteration_time);
    }
    for (std::size_t c = 0; c < kBreakdownColumns; ++c) node.total[c] += node.iteration_time[c];
    node.iteration_time = {};
    if (++node.iteration < set_.iterations) {
      start_iteration(node, ctx);
      return;
    }
  }
  drain(node, ctx);
}

// Which ops of a node cross ranks: a send whose message leaves the rank; a
// collective with a member elsewhere or a route that leaves the rank, and
// under replay-shapes every collective (a recorder's notices go to other
// communicators' members). One table per program and set of crossing slots.
void Interpreter::build_quiet_times() {
  floors_ = std::make_unique<Floors>();
  Floors& f = *floors_;
  const std::size_t n = nodes_.size();
  f.table.assign(n, Floors::kNoTable);
  f.floor.assign(n, {});
  f.delay.assign(n, pdes::kTimeMax);
  // Marked dirty for good (touch() then skips them): LPs whose floor is never
  // read, those without a program or without a crossing op.
  f.dirty.assign(n, 1);
  f.dirty_list.clear();
  std::map<std::pair<std::uint32_t, std::vector<std::uint8_t>>, std::uint32_t> index;
  for (std::uint32_t li = 0; li < n; ++li) {
    const Node* node = nodes_[li].get();
    if (node == nullptr) continue;
    const Binding& b = *node->binding;
    std::vector<std::uint8_t> slots;  // comm slots, then peer slots
    for (const Binding::Comm& c : b.comms) {
      bool cross = set_.replay_collectives == collective::Replay::kShape;
      for (const std::uint32_t m : set_.comms[c.comm].nodes) {
        if (cross) break;
        cross = m != node->id && !network_->stays_local(node->id, m);
      }
      slots.push_back(cross ? 1 : 0);
    }
    for (const std::uint32_t peer : b.peers) {
      slots.push_back(network_->stays_local(node->id, peer) ? 0 : 1);
    }
    auto [it, fresh] = index.try_emplace({b.program, slots}, 0);
    if (fresh) {
      const Program& p = *node->program;
      std::vector<std::uint8_t> crossing(p.size(), 0);
      for (std::uint32_t i = 0; i < p.size(); ++i) {
        const Op& op = p.op(i);
        if (op.kind == OpKind::kCollective) crossing[i] = slots[op.slot];
        if (op.kind == OpKind::kSend) crossing[i] = slots[b.comms.size() + op.slot];
      }
      it->second = static_cast<std::uint32_t>(f.tables.size());
      f.tables.push_back(quiet_time(p, std::move(crossing)));
    }
    f.table[li] = it->second;
    f.delay[li] = std::min(network_->cut_distance(node->id), executor_.direct_delay());
    const std::vector<std::uint8_t>& c = f.tables[it->second].crossing;
    if (std::find(c.begin(), c.end(), 1) == c.end()) continue;
    f.crossing.push_back(li);
    f.dirty[li] = 0;
    f.touch(li);
  }
}

// A started compute op ends at compute_end (the one running) or one duration
// after it (queued). A collective part's end (then its users) and, crossing,
// its next send are the executor's to bound (Executor::next_send, earliest_end), in the form
// max(from + relative, absolute); several such terms fold into one by taking
// each part's least (a lower bound of their least). Any other started op may
// end as soon as the node receives anything, at `from` at the earliest: a
// send put all its chunks in the fabric when it started, each a pending
// event bounded by its route.
void Interpreter::refresh_floor(std::uint32_t li) {
  Floors& f = *floors_;
  f.dirty[li] = 0;
  const Node* node = nodes_[li].get();
  if (node == nullptr) return;
  Floors::Floor floor;
  if (node->iteration < set_.iterations) {
    const QuietTime& q = f.tables[f.table[li]];
    const Program& p = *node->program;
    for (const std::uint32_t i : node->started) {
      const Op& op = p.op(i);
      const pdes::Time after = q.after[i];
      if (op.kind == OpKind::kCompute) {
        const pdes::Time end = node->computing_op == i
                                   ? node->compute_end
                                   : pdes::saturating_add(node->compute_end, op.duration);
        floor.absolute = std::min(floor.absolute, pdes::saturating_add(end, after));
      } else if (op.kind == OpKind::kCollective) {
        const auto fold = [&](collective::Executor::Bound b, pdes::Time then) {
          floor.both_relative =
              std::min(floor.both_relative, pdes::saturating_add(b.relative, then));
          floor.both_absolute =
              std::min(floor.both_absolute, pdes::saturating_add(b.absolute, then));
        };
        fold(executor_.earliest_end(li, i), after);
        if (q.crossing[i] != 0) fold(executor_.next_send(li, i), 0);
      } else {
        floor.relative = std::min(floor.relative, after);
      }
    }
    if (!node->ready.empty()) floor.relative = 0;  // not between events; kept safe
  }
  f.floor[li] = floor;
}

pdes::Time Interpreter::remote_floor(pdes::Time from) {
  if (!network_->bounds_remote_events()) return pdes::kTimeMax;
  if (!floors_) build_quiet_times();
  Floors& f = *floors_;
  f.from = from;
  for (const std::uint32_t li : f.dirty_list) refresh_floor(li);
  f.dirty_list.clear();
  pdes::Time best = pdes::kTimeMax;
  for (const std::uint32_t li : f.crossing) {
    best = std::min(best, pdes::saturating_add(f.floor[li].at(from), f.delay[li]));
  }
  return best;
}

// The debug mode's check: a crossing op starts no earlier than the floor its
// node promised at the last window's start.
void Interpreter::check_floor(const Node& node, std::uint32_t li, std::uint32_t i,
                              pdes::Time now) const {
  const Floors& f = *floors_;
  if (f.tables[f.table[li]].crossing[i] == 0) return;
  const pdes::Time promised = f.floor[li].at(f.from);
  if (now < promised) {
    throw std::logic_error("bound check: node " + std::to_string(node.id) + " started " +
                           node.program->describe(i) + " at t=" + base::format_time_ps(now) +
                           ", which sends across ranks, but its program promised no such op "
                           "before t=" +
                           base::format_time_ps(promised));
  }
}

// What a node's events lead to is its state's to bound (remote_floor).
pdes::Time Interpreter::remote_bound(const pdes::Event& e) const {
  return e.kind >= fabric::kFabricKindBase ? network_->remote_bound(e) : pdes::kTimeMax;
}

void Interpreter::handle(const pdes::Event& event, pdes::Context& ctx) {
  if (floors_) floors_->touch(ctx.self_index());
  if (event.kind >= fabric::kFabricKindBase) {
    network_->handle(event, ctx, *this);
    return;
  }
  if (collective::Executor::owns(event.kind)) {
    executor_.handle(event, ctx, *this);
    return;
  }
  Node* node = nodes_[ctx.self_index()].get();
  if (node == nullptr) {
    throw std::logic_error("interpreter: event kind " + std::to_string(event.kind) + " at node " +
                           std::to_string(ctx.self()) + ", which has no program");
  }
  const auto op = static_cast<std::uint32_t>(event.data[0]);
  switch (event.kind) {
    case kComputeDone:
      account(*node, ctx.now());
      node->computing = false;
      complete(*node, op, ctx);
      if (!node->computing && !node->compute_queue.empty()) start_compute(*node, ctx);
      break;
    case kSendDone:
      account(*node, ctx.now());
      --node->in_flight[static_cast<std::size_t>(node->program->op(op).category)];
      complete(*node, op, ctx);
      break;
    default:
      throw std::logic_error("interpreter: unknown event kind " + std::to_string(event.kind));
  }
}

void Interpreter::delivered(const fabric::Delivery& d, pdes::Context& ctx) {
  const collective::Tag tag = collective::Tag::unpack(d.tag);
  if (tag.comm != collective::Tag::kPointToPoint) {
    executor_.delivered(d, ctx, *this);
    return;
  }
  Node* node = nodes_[ctx.self_index()].get();
  if (node == nullptr) {
    throw std::logic_error("node " + std::to_string(ctx.self()) + " has no program but node " +
                           std::to_string(d.src_node) + " sent it " + std::to_string(d.bytes) +
                           " B");
  }
  auto& posted = node->point_to_point().posted;
  auto it = posted.find(d.src_node);
  if (it == posted.end()) {
    node->point_to_point().arrived[d.src_node].push_back({d.bytes, sent_time(d.tag, ctx.now())});
    return;
  }
  const std::uint32_t op = it->second.front();
  it->second.pop_front();
  if (it->second.empty()) posted.erase(it);
  const Op& o = node->program->op(op);
  if (o.bytes != d.bytes) {
    throw std::runtime_error("node " + std::to_string(node->id) + ": " +
                             node->program->describe(op) + " expects " + std::to_string(o.bytes) +
                             " B, node " + std::to_string(d.src_node) + " sent " +
                             std::to_string(d.bytes) + " B");
  }
  account(*node, ctx.now());
  if (o.category == Category::kPpComm) {
    --node->pp_waiting;
    convert_bubble(*node, std::max(node->live_op(op).started, sent_time(d.tag, ctx.now())));
  } else {
    --node->in_flight[static_cast<std::size_t>(o.category)];
  }
  complete(*node, op, ctx);
}

void Interpreter::collective_done(pdes::Context& ctx, std::uint64_t handle,
                                  const collective::CollectiveTiming& timing) {
  Node& node = *nodes_[ctx.self_index()];
  const auto op = static_cast<std::uint32_t>(handle);
  account(node, ctx.now());
  --node.in_flight[static_cast<std::size_t>(node.program->op(op).category)];
  complete(node, op, ctx, &timing);
}

void Interpreter::step_done(pdes::Context& ctx, std::uint64_t handle, std::uint32_t step,
                            pdes::Time start) {
  if (!observer_) return;
  const Node& node = *nodes_[ctx.self_index()];
  observer_->step_done(
      {node.id, node.iteration, static_cast<std::uint32_t>(handle), start, ctx.now(), nullptr},
      step);
}

const Breakdown& Interpreter::breakdown(std::uint32_t local_index) const {
  static const Breakdown kNone{};
  const Node* node = nodes_[local_index].get();
  return node ? node->total : kNone;
}

std::string Interpreter::problem(const Node& node, std::uint32_t local_index) const {
  const Program& p = *node.program;
  std::ostringstream o;
  o << "node " << node.id << " (program '" << p.name() << "', iteration " << node.iteration
    << " of " << set_.iterations << "): ";
  // The first op not done: its dependencies are done (they are earlier ops),
  // so it started and is what holds the node up.
  std::uint32_t i = node.lo;
  while (i < p.size() && node.is_done(i)) ++i;
  o << p.describe(i);
  const Op& op = p.op(i);
  switch (op.kind) {
    case OpKind::kRecv:
      o << " never received its message from node " << node.binding->peers[op.slot];
      break;
    case OpKind::kCollective: {
      const std::string why = executor_.unfinished(local_index);
      o << " never completed" << (why.empty() ? "" : ": " + why);
      break;
    }
    default:
      o << " was still running when the simulation ended";
      break;
  }
  if (const auto users = p.users(i); !users.empty()) {
    o << "; " << p.describe(users.front()) << (users.size() > 1 ? " and others wait" : " waits")
      << " for it";
  }
  return o.str();
}

std::string Interpreter::unfinished() const {
  return first_problem().second;
}

// Local LPs are in ascending id order, so the first problem found is this
// rank's lowest-numbered node with one.
std::pair<std::uint32_t, std::string> Interpreter::first_problem() const {
  for (std::uint32_t li = 0; li < nodes_.size(); ++li) {
    const Node* node = nodes_[li].get();
    if (node != nullptr && node->iteration < set_.iterations) {
      return {local_lps_[li], problem(*node, li)};
    }
    if (node != nullptr && node->p2p && !node->p2p->arrived.empty()) {
      const auto& [src, q] = *node->p2p->arrived.begin();
      return {local_lps_[li], "node " + std::to_string(node->id) + " received " +
                                  std::to_string(q.size()) + " message(s) from node " +
                                  std::to_string(src) + " that no recv took"};
    }
    if (!executor_.idle(li)) {
      return {local_lps_[li],
              "node " + std::to_string(local_lps_[li]) + ": " + executor_.unfinished(li)};
    }
  }
  return {~std::uint32_t{0}, ""};
}

std::string Interpreter::unfinished(const boost::mpi::communicator& comm) const {
  // The lowest node with a problem, whichever rank owns it: the same message at
  // any rank count.
  const auto [node, mine] = first_problem();
  const std::uint32_t first =
      boost::mpi::all_reduce(comm, node, boost::mpi::minimum<std::uint32_t>());
  if (first == ~std::uint32_t{0}) return "";
  const int owner = boost::mpi::all_reduce(comm, node == first ? comm.rank() : comm.size(),
                                           boost::mpi::minimum<int>());
  std::string message = mine;
  boost::mpi::broadcast(comm, message, owner);
  return message;
}

}  // namespace sipsim::workload
