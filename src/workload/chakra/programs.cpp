// A Chakra trace as a program (docs/models.md, "Chakra traces"): its nodes
// in topological order, each after its dependencies; the GPU's collectives
// on each communicator chained in trace order (one stream per communicator,
// as NCCL runs them, so its members start them in the same order) and
// likewise its messages to and from each peer.
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "sipsim/workload/chakra/chakra.hpp"

namespace sipsim::workload::chakra {

namespace {

class Builder {
 public:
  Builder(const Config& c, const Trace& t, const compute::Device& d, std::uint32_t gpu)
      : c_(c), t_(t), device_(d), gpu_(gpu), index_(t.nodes.size(), ~0u) {}

  Program build() {
    Program p(fmt::format("trace-{}", gpu_));
    post_receives(p);
    for (const std::uint32_t i : t_.order) add(p, i);
    if (p.size() == 0) p.wait({});
    name_ops(p);
    if (p.computes_longer_than(c_.iterations, pdes::Time{1} << 61)) {
      throw std::invalid_argument(
          fmt::format("{}: a GPU computes for more than 2^61 ps (about 27 days) in {} iterations",
                      t_.path, c_.iterations));
    }
    return p;
  }
  // Communicator slot -> its key: a family (replicated trace), else a communicator.
  std::vector<std::uint32_t> comm_keys() const {
    std::vector<std::uint32_t> out(comm_slots_.size());
    for (const auto& [key, s] : comm_slots_) out[s] = key;
    return out;
  }
  // Slot -> peer GPU.
  std::vector<std::uint32_t> peers() const {
    std::vector<std::uint32_t> out(slots_.size());
    for (const auto& [peer, s] : slots_) out[s] = peer;
    return out;
  }

 private:
  std::vector<std::uint32_t> deps_of(const Node& n) const {
    std::vector<std::uint32_t> deps;
    deps.reserve(n.deps_count + 1);
    for (std::uint32_t j = 0; j < n.deps_count; ++j)
      deps.push_back(index_[t_.deps[n.deps_begin + j]]);
    return deps;
  }

  // Each traced op (not the joins, which /trace leaves out) after its node.
  void name_ops(Program& p) const {
    p.set_name_table(std::make_shared<const std::vector<std::string>>(t_.names));
    for (std::uint32_t i = 0; i < index_.size(); ++i) {
      if (index_[i] != ~0u && p.op(index_[i]).kind != OpKind::kWait) {
        p.name_op(index_[i], t_.nodes[i].name);
      }
    }
    // A posted receive after the receive node it serves.
    for (const auto& [op, node] : served_) p.name_op(op, t_.nodes[node].name);
  }

  // A per-GPU trace's receives (match_messages): one recv op per message
  // its peers send it, posted when the iteration starts, in each peer's send
  // order, so that a message of any tag is taken as it arrives (MPI's
  // unexpected messages); the trace's receive node is then a join of its
  // dependencies and its message's op.
  void post_receives(Program& p) {
    if (c_.messages.empty()) return;
    for (const auto& [peer, bytes] : c_.messages[gpu_].inbox) {
      const auto fresh = static_cast<std::uint32_t>(slots_.size());
      const std::uint32_t slot = slots_.emplace(peer, fresh).first->second;
      std::vector<std::uint32_t>& ops = posted_[peer];
      for (const std::uint64_t b : bytes) {
        Op op;
        op.kind = OpKind::kRecv;
        op.category = Category::kCollective;
        op.slot = slot;
        op.bytes = b;
        std::vector<std::uint32_t> deps;
        if (!ops.empty()) deps.push_back(ops.back());
        ops.push_back(p.add(op, deps));
      }
    }
  }

  static pdes::Time micros(std::uint64_t us) {
    return static_cast<pdes::Time>(us) * pdes::kMicrosecond;
  }

  // A compute node's time: its recorded duration, else the device's price of
  // its num_ops and tensor bytes (tensor_size, or its inputs' and outputs'),
  // else 0 (TraceStats::untimed counts those).
  pdes::Time compute_ps(const Node& n) const {
    if (n.has_duration) return micros(n.duration_us);
    if (n.num_ops > 0 || n.tensor_bytes > 0) {
      return device_.op_ps(
          {n.num_ops, n.tensor_bytes, compute::Precision::kFp16,
           n.num_ops > 0 ? compute::OpKind::kMatmul : compute::OpKind::kElementwise, 1});
    }
    return 0;
  }

  std::uint32_t peer_slot(const Node& n, std::int32_t peer, const char* field) {
    if (peer < 0 || static_cast<std::uint32_t>(peer) >= c_.gpus ||
        static_cast<std::uint32_t>(peer) == gpu_) {
      throw std::invalid_argument(fmt::format("{}: attr {}: {} is not another GPU of the {}",
                                              t_.where(n), field, peer, c_.gpus));
    }
    const auto s = static_cast<std::uint32_t>(slots_.size());
    return slots_.emplace(static_cast<std::uint32_t>(peer), s).first->second;
  }

  void add(Program& p, std::uint32_t i) {
    const Node& n = t_.nodes[i];
    std::vector<std::uint32_t> deps = deps_of(n);
    Op op;
    op.category = Category::kCompute;
    if (n.cpu_op) {
      if (c_.cpu_ops == CpuOps::kTime) {
        op.kind = OpKind::kCompute;
        op.duration = micros(n.duration_us);
      }
    } else if (n.type == NodeType::kComp) {
      op.kind = OpKind::kCompute;
      op.duration = compute_ps(n);
    } else if (n.type == NodeType::kMemLoad || n.type == NodeType::kMemStore) {
      op.kind = OpKind::kCompute;
      op.duration = n.tensor_bytes > 0 ? device_.copy_ps(n.tensor_bytes) : compute_ps(n);
    } else if (n.type == NodeType::kCommColl && comm_slot(n) != Groups::kNone) {
      index_[i] = add_collective(p, n, std::move(deps));
      return;
    } else if (n.type == NodeType::kCommSend) {
      op.kind = OpKind::kSend;
      op.category = Category::kCollective;
      op.slot = peer_slot(n, n.comm_dst, "comm_dst");
      op.bytes = n.comm_size;
      // A GPU's sends to one peer leave in trace order.
      if (auto it = last_send_.find(op.slot); it != last_send_.end()) deps.push_back(it->second);
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      index_[i] = last_send_[op.slot] = p.add(op, deps);
      return;
    } else if (n.type == NodeType::kCommRecv) {
      peer_slot(n, n.comm_src, "comm_src");
      const std::uint32_t posted =
          posted_.at(static_cast<std::uint32_t>(n.comm_src))[c_.messages[gpu_].position.at(i)];
      deps.push_back(posted);
      served_.emplace(posted, i);
      op.category = Category::kCollective;
    }
    // Everything else (metadata, ignored CPU ops, a collective on one GPU)
    // is a join: it keeps the dependencies through it.
    index_[i] = p.add(op, deps);
  }

  // The program-local communicator slot of collective n, kNone for a group
  // of one GPU. A replicated trace's slots are families (each GPU's binding
  // resolves them to its own group); a GPU's own trace's are communicators.
  std::uint32_t comm_slot(const Node& n) {
    const std::uint32_t family = c_.groups.family_of(t_, n);
    const Groups::Family& f = c_.groups.families[family];
    if (f.size < 2) return Groups::kNone;
    const std::uint32_t key = c_.traces.size() == 1 ? family : f.comm[gpu_];
    if (key == Groups::kNone) {
      throw std::invalid_argument(
          fmt::format("{}: GPU {} is not in its group on {}", t_.where(n), gpu_, f.label));
    }
    const auto s = static_cast<std::uint32_t>(comm_slots_.size());
    const auto [it, added] = comm_slots_.emplace(key, s);
    if (added) last_collective_.push_back(~0u);
    return it->second;
  }

  // After the previous collective on its communicator (one stream each).
  std::uint32_t add_collective(Program& p, const Node& n, std::vector<std::uint32_t> deps) {
    const std::uint32_t slot = comm_slot(n);
    std::uint32_t& last = last_collective_[slot];
    if (last != ~0u) deps.push_back(last);
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    Op join;
    join.kind = OpKind::kWait;
    join.category = Category::kCollective;
    const std::uint32_t ready = p.add(join, deps);
    const collective::Op kind = collective_op(n.comm_type);
    const auto k = static_cast<std::size_t>(kind);
    const std::uint32_t group = c_.groups.families[c_.groups.family_of(t_, n)].size;
    last = p.collective(Category::kCollective, slot,
                        {kind, c_.algorithms[k], spec_bytes(n, group), 0}, {ready});
    return last;
  }

  const Config& c_;
  const Trace& t_;
  const compute::Device& device_;
  const std::uint32_t gpu_;
  std::vector<std::uint32_t> index_;                            // node -> op
  std::map<std::uint32_t, std::uint32_t> slots_;                // peer GPU -> slot
  std::map<std::uint32_t, std::uint32_t> comm_slots_;           // comm_keys() inverted
  std::map<std::uint32_t, std::uint32_t> last_send_;            // slot -> op
  std::map<std::uint32_t, std::vector<std::uint32_t>> posted_;  // peer GPU -> recv ops
  std::map<std::uint32_t, std::uint32_t> served_;               // recv op -> its node
  std::vector<std::uint32_t> last_collective_;                  // per communicator slot
};

}  // namespace

ProgramSet make_programs(const Config& c, const compute::Device& device,
                         std::uint32_t fabric_nodes) {
  if (c.gpus > fabric_nodes) {
    throw std::invalid_argument(
        fmt::format("{} GPUs, but the fabric has {} nodes", c.gpus, fabric_nodes));
  }
  for (const std::uint32_t node : c.nodes) {
    if (node >= fabric_nodes) {
      throw std::invalid_argument(
          fmt::format("a GPU placed on node {}, but the fabric has {} nodes", node, fabric_nodes));
    }
  }
  ProgramSet set;
  set.iterations = c.iterations;
  const Groups& groups = c.groups;
  // A communicator's parameters: those of the first family that has it.
  std::vector<std::uint32_t> family_of(groups.members.size(), Groups::kNone);
  for (auto f = static_cast<std::uint32_t>(groups.families.size()); f-- > 0;) {
    for (const std::uint32_t comm : groups.families[f].comm)
      if (comm != Groups::kNone) family_of[comm] = f;
  }
  for (std::uint32_t i = 0; i < groups.members.size(); ++i) {
    std::vector<std::uint32_t> members;
    for (const std::uint32_t g : groups.members[i]) members.push_back(c.node_of(g));
    set.comms.push_back({groups.names[i], std::move(members),
                         family_of[i] < c.family_params.size() ? c.family_params[family_of[i]]
                                                               : collective::AlgorithmParams{}});
  }
  set.bindings.resize(fabric_nodes);
  for (std::uint32_t t = 0; t < c.traces.size(); ++t) {
    Builder b(c, c.traces[t], device, t);
    set.programs.push_back(b.build());
    const std::vector<std::uint32_t> peers = b.peers();
    const std::vector<std::uint32_t> keys = b.comm_keys();
    // One trace replicated: every GPU runs program 0.
    const std::uint32_t first = t, last = c.traces.size() == 1 ? c.gpus : t + 1;
    for (std::uint32_t g = first; g < last; ++g) {
      Binding binding;
      binding.program = t;
      for (const std::uint32_t key : keys) {
        const std::uint32_t comm = c.traces.size() == 1 ? groups.families[key].comm[g] : key;
        binding.comms.push_back({comm, groups.member(comm, g)});
      }
      for (const std::uint32_t peer : peers) binding.peers.push_back(c.node_of(peer));
      set.bindings[c.node_of(g)] = std::move(binding);
    }
  }
  return set;
}

}  // namespace sipsim::workload::chakra
