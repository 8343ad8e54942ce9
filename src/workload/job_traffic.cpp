// The programs' transfers without running them (workload/transfers.hpp), and
// from them the job's traffic matrix for fabrics that plan circuits for the
// job (SiP-ML §3.3: "compute the total traffic matrix resulting from the
// parallelization algorithm"). One iteration: what the interpreter would put
// on the fabric.
#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "sipsim/collective/schedule.hpp"
#include "sipsim/workload/interpreter.hpp"
#include "sipsim/workload/transfers.hpp"

namespace sipsim::workload {

void walk_transfers(const ProgramSet& set, TransferVisitor& visitor) {
  // A collective's messages per member, once per (communicator, call content,
  // member); nullopt when the call is not valid for its group.
  using CallKey =
      std::tuple<std::uint32_t, int, std::uint16_t, std::uint64_t, std::uint32_t, std::uint32_t>;
  std::map<CallKey, std::optional<MemberMessages>> walked;
  std::uint32_t next_id = 0;
  collective::WireStep w;
  for (std::uint32_t n = 0; n < set.bindings.size(); ++n) {
    if (!set.bindings[n]) continue;
    if (visitor.done()) return;
    const Binding& b = *set.bindings[n];
    const Program& p = set.programs[b.program];
    for (std::uint32_t i = 0; i < p.size(); ++i) {
      const Op& op = p.op(i);
      if (op.kind == OpKind::kSend || op.kind == OpKind::kRecv) {
        visitor.point_to_point(n, op, b.peers[op.slot], op.kind == OpKind::kSend);
      } else if (op.kind == OpKind::kCollective) {
        const Binding::Comm& c = b.comms[op.slot];
        const collective::Communicator& cm = set.comms[c.comm];
        const collective::CollectiveCall& call = p.call(op.call);
        const CallKey key{
            c.comm,  static_cast<int>(call.op), call.algorithm.row(), call.bytes, call.root,
            c.member};
        auto [it, fresh] = walked.try_emplace(key);
        if (fresh) {
          const collective::CollectiveSpec spec = collective::make_spec(
              call.op, call.algorithm, cm.size(), call.bytes, call.root, cm.params);
          if (collective::why_invalid(spec).empty()) {
            MemberMessages& m = it->second.emplace();
            m.id = next_id++;
            const collective::Schedule schedule(spec, c.member);
            for (std::uint32_t s = 0; s < schedule.steps(); ++s) {
              collective::wire_step_into(schedule, s, w);
              m.out.insert(m.out.end(), w.out.begin(), w.out.end());
              m.in.insert(m.in.end(), w.in.begin(), w.in.end());
            }
          }
        }
        if (it->second) visitor.collective(n, c.comm, call, *it->second);
      }
    }
    visitor.node_end(n);
  }
}

std::vector<fabric::PairTraffic> job_traffic(const ProgramSet& set) {
  // Per node (the walk goes in increasing order, so the pairs come out sorted
  // by (src, dst)): its sends' bytes by destination, and how often it runs
  // each distinct collective call, whose messages are then added once times
  // that count rather than once per op (every layer repeats the same calls).
  class Pairs final : public TransferVisitor {
   public:
    explicit Pairs(const ProgramSet& set) : set_(set), bytes_to_(set.bindings.size(), 0) {}
    void point_to_point(std::uint32_t node, const Op& op, std::uint32_t peer,
                        bool outgoing) override {
      if (outgoing) add(node, peer, op.bytes);
    }
    void collective(std::uint32_t, std::uint32_t comm, const collective::CollectiveCall&,
                    const MemberMessages& messages) override {
      if (messages.id >= runs_.size()) runs_.resize(std::size_t{messages.id} + 1, 0);
      if (runs_[messages.id]++ == 0) calls_.push_back({&messages, comm});
    }
    void node_end(std::uint32_t node) override {
      for (const auto& [messages, comm] : calls_) {
        const std::uint64_t runs = runs_[messages->id];
        const collective::Communicator& cm = set_.comms[comm];
        for (const collective::WireMessage& m : messages->out) {
          add(node, cm.nodes[m.peer], runs * m.bytes);
        }
      }
      calls_.clear();
      std::sort(touched_.begin(), touched_.end());
      for (const std::uint32_t dst : touched_) {
        pairs.push_back({node, dst, bytes_to_[dst]});
        bytes_to_[dst] = 0;
      }
      touched_.clear();
    }
    std::vector<fabric::PairTraffic> pairs;

   private:
    void add(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes) {
      if (bytes == 0 || dst == src) return;
      if (bytes_to_[dst] == 0) touched_.push_back(dst);
      bytes_to_[dst] += bytes;
    }
    const ProgramSet& set_;
    std::vector<std::uint64_t> bytes_to_;  // by destination node, this node's
    std::vector<std::uint32_t> touched_;   // destinations with bytes
    std::vector<std::uint64_t> runs_;      // by MemberMessages::id (one node's each)
    std::vector<std::pair<const MemberMessages*, std::uint32_t>> calls_;  // this node's, comm
  };
  Pairs walk(set);
  walk_transfers(set, walk);
  return std::move(walk.pairs);
}

}  // namespace sipsim::workload
