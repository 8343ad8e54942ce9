// The op graph's programs (docs/models.md, "Op graphs and SiP-ML placement"):
// one per MP position, shared by the l DP groups; each runs its sub-ops'
// forward, sends and receives the activations that cross GPUs, the backward
// in reverse with the gradients back over the same pairs, the DP all-reduce
// of the parameters it holds and the optimizer step.
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "sipsim/compute/roofline.hpp"
#include "sipsim/workload/graph/graph.hpp"

namespace sipsim::workload::graph {

namespace {

__extension__ typedef unsigned __int128 U128;

constexpr std::uint64_t kMaxCost = std::uint64_t{1} << 62;

std::uint64_t checked(U128 x, const GraphOp& op) {
  if (x > kMaxCost) {
    throw std::invalid_argument(fmt::format(
        "op {}: its costs at this batch exceed 2^62 FLOPs or bytes (too large to price)", op.name));
  }
  return static_cast<std::uint64_t>(x);
}

// An op's costs for `batch` samples (the graph gives them for graph.batch):
// FLOPs, activations and output scale with the batch, the weights' bytes do not.
struct Scaled {
  std::uint64_t flops = 0, backward_flops = 0, bytes = 0, output_bytes = 0;
};
Scaled scale(const GraphOp& op, std::uint32_t batch, std::uint32_t graph_batch) {
  auto s = [&](std::uint64_t x) { return checked(U128{x} * batch / graph_batch, op); };
  Scaled out;
  out.flops = s(op.flops);
  out.backward_flops = s(op.backward_flops);
  out.output_bytes = s(op.output_bytes);
  const std::uint64_t weights = std::min(op.params_bytes, op.bytes);
  out.bytes = checked(U128{weights} + s(op.bytes - weights), op);
  return out;
}

// One part (of `parts`) of an op, forward or backward (2 x the forward's bytes).
pdes::Time part_ps(const compute::Device& d, const Config& c, const GraphOp& op, const Scaled& x,
                   std::uint32_t parts, bool backward) {
  const std::uint64_t flops = (backward ? x.backward_flops : x.flops) / parts;
  const std::uint64_t bytes = (backward ? 2 * x.bytes : x.bytes) / parts;
  return d.op_ps({flops, bytes, c.graph.precision, op.kind, c.group_batch()});
}

// The optimizer step on `count` parameters. Adam as the transformer's:
// mixed precision, fp32 master weights, first and second moments read and
// written (24 B), the gradient read and the weight written at the graph's
// precision, about 12 FLOPs per parameter. SGD: the weight and its gradient
// read, the weight written, a multiply-add per parameter.
pdes::Time optimizer_ps(const Config& c, const compute::Device& d, std::uint64_t count) {
  const std::uint64_t p = compute::element_bytes(c.graph.precision);
  if (c.optimizer == Optimizer::kAdam) {
    return d.op_ps({12 * count, count * (24 + 2 * p), compute::Precision::kFp32,
                    compute::OpKind::kElementwise, 1});
  }
  return d.op_ps({2 * count, 3 * count * p, c.graph.precision, compute::OpKind::kElementwise, 1});
}

// The samples one op instance runs: an MP group's share of the batch (a
// whole GPU's under data-parallel, where mp = 1).
std::vector<Scaled> scaled_ops(const Config& c) {
  std::vector<Scaled> out;
  for (const GraphOp& op : c.graph.ops) out.push_back(scale(op, c.group_batch(), c.graph.batch));
  return out;
}

// An op of a role's program before it is added: ordered by `key` so that
// every dependency comes first and each pair's sends and receives are issued
// in one order on both sides (docs/models.md: no deadlock, messages matched in order).
struct Item {
  std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t> key;
  Op op;
  std::vector<std::uint32_t> deps;  // item indices, resolved to op indices when added
};

// What every role's program is built from: the placement, the ops' costs at
// the group's batch, each sub-op's edges and the messages that cross GPUs.
// `in` and `out` point into `pl.edges`: not copied.
struct Job {
  Job(const Config& config, const compute::Device& dev)
      : c(config),
        device(dev),
        pl(place_job(config, dev)),
        x(scaled_ops(config)),
        n(static_cast<std::uint32_t>(pl.subops.size())),
        in(n),
        out(n),
        msgs(messages(pl)),
        sent_by(n) {
    for (const SubEdge& e : pl.edges) {
      in[e.to].push_back(&e);
      out[e.from].push_back(&e);
    }
    for (std::uint32_t m = 0; m < msgs.size(); ++m) sent_by[msgs[m].from].push_back(m);
  }
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  const Config& c;
  const compute::Device& device;
  const PlacementResult pl;
  const std::vector<Scaled> x;
  const std::uint32_t n;  // sub-ops
  std::vector<std::vector<const SubEdge*>> in, out;
  const std::vector<Message> msgs;
  std::vector<std::vector<std::uint32_t>> sent_by;  // the messages a sub-op sends
};

// The program of MP position r: its items (receives, forward, backward with
// the gradients' sends) keyed, ordered and added, then the DP all-reduce and
// the optimizer step.
class RoleBuilder {
 public:
  RoleBuilder(const Job& job, std::uint32_t r)
      : job_(job),
        r_(r),
        fwd_(job.n, ~0u),
        bwd_(job.n, ~0u),
        recv_of_(job.msgs.size(), ~0u),
        grad_recv_of_(job.msgs.size(), ~0u) {}

  Program build() {
    add_receives();
    add_forward();
    add_backward();
    Program p(fmt::format("mp-{}", r_));
    const std::vector<std::uint32_t> backward_ops = add_items(p);
    if (!backward_ops.empty()) add_gradient_steps(p, backward_ops);
    if (p.size() == 0) p.wait({});
    const std::uint32_t iterations = job_.c.iterations;
    if (p.computes_longer_than(iterations, pdes::Time{1} << 61)) {
      throw std::invalid_argument(fmt::format(
          "a GPU computes for more than 2^61 ps (about 27 days) in {} iterations: the run could "
          "not reach its end",
          iterations));
    }
    return p;
  }

  // Slot -> peer MP position, for the bindings.
  std::vector<std::uint32_t> peers() const {
    std::vector<std::uint32_t> out(slot_.size());
    for (const auto& [peer, sl] : slot_) out[sl] = peer;
    return out;
  }
  // The parameters' bytes this position holds.
  std::uint64_t params() const { return params_; }

 private:
  // Peers in first-use order; slot = index.
  std::uint32_t peer_slot(std::uint32_t peer) {
    return slot_.emplace(peer, static_cast<std::uint32_t>(slot_.size())).first->second;
  }

  void p2p(bool send, std::uint32_t peer, std::uint64_t bytes, std::uint32_t phase, std::uint32_t a,
           std::uint32_t b, std::vector<std::uint32_t> deps) {
    Op op;
    op.kind = send ? OpKind::kSend : OpKind::kRecv;
    op.category = Category::kPpComm;  // bubble while the peer has not sent (docs/models.md)
    op.slot = peer_slot(peer);
    op.bytes = std::max<std::uint64_t>(bytes, 1);
    items_.push_back({{phase, a, send ? 1u : 2u, b}, op, std::move(deps)});
  }

  std::uint32_t compute_item(Category cat, pdes::Time t, std::uint32_t phase, std::uint32_t a,
                             std::vector<std::uint32_t> deps) {
    Op op;
    op.kind = OpKind::kCompute;
    op.category = cat;
    op.duration = t;
    items_.push_back({{phase, a, 0u, 0u}, op, std::move(deps)});
    return static_cast<std::uint32_t>(items_.size() - 1);
  }

  // The message of producer `from` to GPU r, if any.
  std::uint32_t message_to_r(std::uint32_t from) const {
    for (const std::uint32_t m : job_.sent_by[from]) {
      if (job_.msgs[m].to_device == r_) return m;
    }
    return ~0u;
  }

  // Items are created before their keys sort them; deps name items. Keys
  // (phase, position, kind, tie): a message's forward is keyed by its
  // producer's position, its gradient by its first consumer's backward
  // position (n - 1 - c: the last of its consumers' backward on that GPU).
  void add_receives() {
    const std::uint32_t n = job_.n;
    for (std::uint32_t m = 0; m < job_.msgs.size(); ++m) {
      const Message& msg = job_.msgs[m];
      const std::uint32_t from = job_.pl.subops[msg.from].device;
      if (msg.to_device == r_) {
        p2p(false, from, msg.bytes, 0, msg.from, 0, {});
        recv_of_[m] = static_cast<std::uint32_t>(items_.size() - 1);
      } else if (from == r_) {
        p2p(false, msg.to_device, msg.bytes, 1, n - 1 - msg.consumers.front(), n - 1 - msg.from,
            {});
        grad_recv_of_[m] = static_cast<std::uint32_t>(items_.size() - 1);
      }
    }
  }

  // Forward in order: after its producers here or their messages, then its
  // activations' sends.
  void add_forward() {
    const PlacementResult& pl = job_.pl;
    for (std::uint32_t s = 0; s < job_.n; ++s) {
      const SubOp& so = pl.subops[s];
      if (so.device != r_) continue;
      const GraphOp& op = job_.c.graph.ops[so.op];
      const std::uint32_t parts = pl.parts[so.op];
      std::vector<std::uint32_t> deps;
      for (const SubEdge* e : job_.in[s]) {
        deps.push_back(pl.subops[e->from].device == r_ ? fwd_[e->from]
                                                       : recv_of_[message_to_r(e->from)]);
      }
      fwd_[s] = compute_item(Category::kForward,
                             part_ps(job_.device, job_.c, op, job_.x[so.op], parts, false), 0, s,
                             std::move(deps));
      for (const std::uint32_t m : job_.sent_by[s]) {
        p2p(true, job_.msgs[m].to_device, job_.msgs[m].bytes, 0, s, 0, {fwd_[s]});
      }
      params_ += op.params_bytes / parts;
    }
  }

  // Backward in reverse: after its own forward and its consumers' gradients.
  void add_backward() {
    const PlacementResult& pl = job_.pl;
    const std::uint32_t n = job_.n;
    for (std::uint32_t s = n; s-- > 0;) {
      const SubOp& so = pl.subops[s];
      if (so.device != r_) continue;
      const GraphOp& op = job_.c.graph.ops[so.op];
      std::vector<std::uint32_t> deps{fwd_[s]};
      for (const SubEdge* e : job_.out[s]) {
        if (pl.subops[e->to].device == r_) deps.push_back(bwd_[e->to]);
      }
      for (const std::uint32_t m : job_.sent_by[s]) deps.push_back(grad_recv_of_[m]);
      bwd_[s] = compute_item(Category::kBackward,
                             part_ps(job_.device, job_.c, op, job_.x[so.op], pl.parts[so.op], true),
                             1, n - 1 - s, std::move(deps));
      // A producer's gradient leaves after the last of its consumers here.
      for (const SubEdge* e : job_.in[s]) {
        if (pl.subops[e->from].device == r_) continue;
        const Message& msg = job_.msgs[message_to_r(e->from)];
        if (msg.consumers.front() != s) continue;
        std::vector<std::uint32_t> after;
        for (const std::uint32_t consumer : msg.consumers) after.push_back(bwd_[consumer]);
        p2p(true, pl.subops[e->from].device, msg.bytes, 1, n - 1 - s, n - 1 - e->from,
            std::move(after));
      }
    }
  }

  // Adds the items to `p` sorted by key, each pair's sends and receives
  // chained in that order; returns the backward ops.
  std::vector<std::uint32_t> add_items(Program& p) {
    std::vector<std::uint32_t> sorted(items_.size());
    for (std::uint32_t i = 0; i < sorted.size(); ++i) sorted[i] = i;
    std::stable_sort(sorted.begin(), sorted.end(), [&](std::uint32_t a, std::uint32_t b) {
      return items_[a].key < items_[b].key;
    });
    std::map<std::pair<std::uint32_t, bool>, std::uint32_t> last;  // (peer, send): last op
    index_.assign(items_.size(), ~0u);
    std::vector<std::uint32_t> backward_ops;
    for (const std::uint32_t i : sorted) {
      Item& it = items_[i];
      std::vector<std::uint32_t> deps;
      for (const std::uint32_t d : it.deps) deps.push_back(index_[d]);
      if (it.op.kind == OpKind::kSend || it.op.kind == OpKind::kRecv) {
        const auto chain = std::pair{it.op.slot, it.op.kind == OpKind::kSend};
        if (auto l = last.find(chain); l != last.end()) deps.push_back(l->second);
      }
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      index_[i] = p.add(it.op, deps);
      if (it.op.kind == OpKind::kSend || it.op.kind == OpKind::kRecv) {
        last[{it.op.slot, it.op.kind == OpKind::kSend}] = index_[i];
      }
      if (it.op.kind == OpKind::kCompute && it.op.category == Category::kBackward) {
        backward_ops.push_back(index_[i]);
      }
    }
    return backward_ops;
  }

  // After the whole backward (a wait on `backward_ops`): the DP all-reduce,
  // then the optimizer step.
  void add_gradient_steps(Program& p, const std::vector<std::uint32_t>& backward_ops) {
    const Config& c = job_.c;
    Op join;
    join.kind = OpKind::kWait;
    join.category = Category::kCompute;
    std::uint32_t grads = p.add(join, backward_ops);
    if (c.dp > 1 && params_ > 0) grads = add_all_reduce(p, join, grads);
    if (params_ > 0) {
      const std::uint64_t count = params_ / compute::element_bytes(c.graph.precision);
      p.compute(Category::kOptimizer, optimizer_ps(c, job_.device, count), {grads});
    }
  }

  // The DP all-reduce of this position's parameters in buckets of
  // dp_bucket_bytes, each started when the backward of its sub-ops is done
  // (in backward order, one after the other: PyTorch DDP), or in one after
  // the whole backward (`grads`; dp_overlap false). Returns the last one.
  std::uint32_t add_all_reduce(Program& p, const Op& join, std::uint32_t grads) {
    const Config& c = job_.c;
    const PlacementResult& pl = job_.pl;
    std::vector<std::uint32_t> bucket;  // its backward ops, then the previous bucket
    std::uint64_t bytes = 0;
    std::optional<std::uint32_t> previous;
    auto close = [&](std::vector<std::uint32_t> deps) {
      if (previous) deps.push_back(*previous);
      std::sort(deps.begin(), deps.end());
      const std::uint32_t ready = p.add(join, deps);
      previous = p.collective(Category::kDpComm, 0,
                              {collective::Op::kAllReduce, c.all_reduce, bytes, 0}, {ready});
      bytes = 0;
    };
    if (c.dp_overlap) {
      for (std::uint32_t s = job_.n; s-- > 0;) {
        const SubOp& so = pl.subops[s];
        const std::uint64_t share = c.graph.ops[so.op].params_bytes / pl.parts[so.op];
        if (so.device != r_ || share == 0) continue;
        bucket.push_back(index_[bwd_[s]]);
        bytes += share;
        if (bytes >= c.dp_bucket_bytes) close(std::move(bucket)), bucket.clear();
      }
      if (bytes > 0) close(std::move(bucket));
    } else {
      bytes = params_;
      close({grads});
    }
    return *previous;
  }

  const Job& job_;
  const std::uint32_t r_;
  std::map<std::uint32_t, std::uint32_t> slot_;  // peer MP position -> slot
  std::vector<Item> items_;
  std::vector<std::uint32_t> fwd_, bwd_;               // sub-op -> its item
  std::vector<std::uint32_t> recv_of_, grad_recv_of_;  // message -> its receive's item
  std::vector<std::uint32_t> index_;                   // item -> op index in the program
  std::uint64_t params_ = 0;
};

// The DP communicators and every GPU's binding. GPU g * k + r (DP group g,
// MP position r) is fabric node g * k + r: the MP group innermost (folded on
// a ring fabric). DP communicator r: the l GPUs at position r.
void bind_roles(const Config& c, const std::vector<std::vector<std::uint32_t>>& role_peers,
                const std::vector<std::uint64_t>& role_params, std::uint32_t fabric_nodes,
                ProgramSet& set) {
  const std::uint32_t k = c.mp;
  std::vector<std::uint32_t> comm_of(k, ~0u);
  auto node = [&](std::uint32_t g, std::uint32_t r) {
    return g * k + (c.fold_groups ? mapping::folded_slot(r, k) : r);
  };
  for (std::uint32_t r = 0; r < k; ++r) {
    if (c.dp < 2 || role_params[r] == 0) continue;
    std::vector<std::uint32_t> members(c.dp);
    for (std::uint32_t g = 0; g < c.dp; ++g) members[g] = node(g, r);
    comm_of[r] = static_cast<std::uint32_t>(set.comms.size());
    set.comms.push_back({fmt::format("dp-{}", r), std::move(members), c.dp_params});
  }
  set.bindings.resize(fabric_nodes);
  for (std::uint32_t g = 0; g < c.dp; ++g) {
    for (std::uint32_t r = 0; r < k; ++r) {
      Binding b;
      b.program = r;
      if (comm_of[r] != ~0u) b.comms = {{comm_of[r], g}};
      for (const std::uint32_t peer : role_peers[r]) b.peers.push_back(node(g, peer));
      set.bindings[node(g, r)] = std::move(b);
    }
  }
}

}  // namespace

PlacementResult place_job(const Config& c, const compute::Device& device) {
  const std::vector<Scaled> x = scaled_ops(c);
  std::vector<pdes::Time> durations;
  // Algorithm 1's view of the graph (spans into its dependencies): the edges
  // carry the producers' outputs at the group's batch.
  std::vector<mapping::DagOp> ops;
  ops.reserve(c.graph.ops.size());
  durations.reserve(c.graph.ops.size());
  for (std::size_t i = 0; i < c.graph.ops.size(); ++i) {
    const GraphOp& op = c.graph.ops[i];
    durations.push_back(part_ps(device, c, op, x[i], 1, false));
    ops.push_back({op.deps, x[i].output_bytes, op.gathers});
  }
  // Data-parallel: every op whole on the one device (k = 1).
  const std::uint32_t delta = c.placement == Placement::kDegreeAware ? c.degree - 1 : 0;
  return mapping::place(ops, c.graph.order, durations, c.quantum, c.mp, delta);
}

ProgramSet make_programs(const Config& c, const compute::Device& device,
                         std::uint32_t fabric_nodes) {
  if (c.gpus() > fabric_nodes) {
    throw std::invalid_argument(
        fmt::format("{} GPUs, but the fabric has {} nodes", c.gpus(), fabric_nodes));
  }
  const Job job(c, device);
  ProgramSet set;
  set.iterations = c.iterations;
  std::vector<std::vector<std::uint32_t>> role_peers;
  std::vector<std::uint64_t> role_params;
  for (std::uint32_t r = 0; r < c.mp; ++r) {
    RoleBuilder role(job, r);
    set.programs.push_back(role.build());
    role_peers.push_back(role.peers());
    role_params.push_back(role.params());
  }
  bind_roles(c, role_peers, role_params, fabric_nodes, set);
  return set;
}

}  // namespace sipsim::workload::graph
