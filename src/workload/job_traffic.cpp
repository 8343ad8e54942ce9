// The job's traffic matrix from its programs, for fabrics that plan circuits
// for the job (SiP-ML §3.3: "compute the total traffic matrix resulting from
// the parallelization algorithm"). One iteration: what the interpreter would
// put on the fabric, without running it.
#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "sipsim/collective/schedule.hpp"
#include "sipsim/workload/interpreter.hpp"

namespace sipsim::workload {

std::vector<fabric::PairTraffic> job_traffic(const ProgramSet& set) {
  std::vector<fabric::PairTraffic> pairs;
  auto add = [&](std::uint32_t src, std::uint32_t dst, std::uint64_t bytes) {
    if (bytes > 0 && src != dst) pairs.push_back({src, dst, bytes});
  };
  // A collective's messages per member, once per (communicator, call content,
  // member): a 1,024-GPU job repeats the same all-reduce in every layer.
  using CallKey =
      std::tuple<std::uint32_t, int, std::uint16_t, std::uint64_t, std::uint32_t, std::uint32_t>;
  std::map<CallKey, std::vector<collective::WireMessage>> walked;
  collective::WireStep w;
  for (std::uint32_t n = 0; n < set.bindings.size(); ++n) {
    if (!set.bindings[n]) continue;
    const Binding& b = *set.bindings[n];
    const Program& p = set.programs[b.program];
    for (std::uint32_t i = 0; i < p.size(); ++i) {
      const Op& op = p.op(i);
      if (op.kind == OpKind::kSend) {
        add(n, b.peers[op.slot], op.bytes);
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
          if (!collective::why_invalid(spec).empty()) continue;  // the executor reports it
          const collective::Schedule schedule(spec, c.member);
          for (std::uint32_t s = 0; s < schedule.steps(); ++s) {
            collective::wire_step_into(schedule, s, w);
            it->second.insert(it->second.end(), w.out.begin(), w.out.end());
          }
        }
        for (const collective::WireMessage& m : it->second) add(n, cm.nodes[m.peer], m.bytes);
      }
    }
  }
  std::sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
    return std::tie(a.src, a.dst) < std::tie(b.src, b.dst);
  });
  std::vector<fabric::PairTraffic> merged;
  for (const fabric::PairTraffic& t : pairs) {
    if (!merged.empty() && merged.back().src == t.src && merged.back().dst == t.dst) {
      merged.back().bytes += t.bytes;
    } else {
      merged.push_back(t);
    }
  }
  return merged;
}

}  // namespace sipsim::workload
