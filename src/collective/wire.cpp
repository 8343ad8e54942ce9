#include <algorithm>
#include <unordered_map>

#include "sipsim/collective/schedule.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"

namespace sipsim::collective {

// RAMP-x reads the RAMP geometry of fabric/ramp/ (DESIGN.md §1).
namespace ramp = fabric::ramp;
using fabric::ramp::RampShape;

namespace {
template <class Items>
std::vector<WireMessage> group_by_peer(const Items& items) {
  std::vector<WireMessage> out;
  // Few peers: a linear search; a multicast's thousand peers: a map.
  std::unordered_map<std::uint32_t, std::size_t> index;
  const bool many = items.size() > 32;
  for (const auto& item : items) {
    std::size_t at = out.size();
    if (many) {
      at = index.try_emplace(item.peer, out.size()).first->second;
    } else {
      at = static_cast<std::size_t>(
          std::find_if(out.begin(), out.end(),
                       [&](const WireMessage& m) { return m.peer == item.peer; }) -
          out.begin());
    }
    if (at == out.size()) {
      out.push_back({item.peer, item.bytes, 1});
    } else {
      out[at].bytes += item.bytes;
      ++out[at].parts;
    }
  }
  return out;
}
}  // namespace

std::vector<WireMessage> outgoing(const Step& step) {
  return group_by_peer(step.sends);
}
std::vector<WireMessage> incoming(const Step& step) {
  return group_by_peer(step.recvs);
}

namespace {
// RAMP-x all-to-all (RAMP Table 8): at step t (row k of the active rows, in
// order) a member forwards to each of the s_k - 1 members that differ from it
// only in offset k the blocks whose destination digit k is that member's:
// p/s_k blocks of bytes/p each, i.e. bytes/s_k; it receives as much from each,
// and reshapes (copies) what it received.
bool ramp_all_to_all_fast(const Schedule& sched, std::uint32_t i, WireStep& w) {
  const CollectiveSpec& spec = sched.spec();
  if (spec.algorithm != Algorithm::kRampX || spec.op != Op::kAllToAll || spec.p == 0 ||
      spec.bytes % spec.p != 0) {
    return false;
  }
  const RampShape& shape = spec.ramp;
  std::uint32_t row = 4;
  for (std::uint32_t k = 0, t = 0; k < 4; ++k) {
    if (shape.active[k] > 1 && t++ == i) row = k;
  }
  if (row == 4) return false;
  const std::uint32_t s = shape.active[row];
  const std::uint64_t per_peer = spec.bytes / s;
  const ramp::Offsets me = ramp::offsets_of_member(sched.member(), shape);
  for (std::uint32_t j = 1; j < s; ++j) {
    ramp::Offsets to = me, from = me;
    to[row] = (me[row] + j) % s;
    from[row] = (me[row] + s - j) % s;
    w.out.push_back({ramp::member_of_offsets(to, shape), per_peer, 1});
    w.in.push_back({ramp::member_of_offsets(from, shape), per_peer, 1});
  }
  w.local = LocalOp::kCopy;
  w.local_bytes = per_peer * (s - 1);
  return true;
}
}  // namespace

WireStep wire_step(const Schedule& schedule, std::uint32_t i) {
  WireStep w;
  if (ramp_all_to_all_fast(schedule, i, w)) return w;
  const Step step = schedule.step(i);
  w.out = outgoing(step);
  w.in = incoming(step);
  w.multicast = step.multicast;
  w.local = step.local;
  w.sources = step.sources;
  w.local_bytes = step.local_bytes;
  return w;
}

}  // namespace sipsim::collective
