#include <algorithm>

#include "sipsim/collective/schedule.hpp"

namespace sipsim::collective {

namespace {
template <class Items>
std::vector<WireMessage> group_by_peer(const Items& items) {
  std::vector<WireMessage> out;
  for (const auto& item : items) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const WireMessage& m) { return m.peer == item.peer; });
    if (it == out.end()) {
      out.push_back({item.peer, item.bytes, 1});
    } else {
      it->bytes += item.bytes;
      ++it->parts;
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

}  // namespace sipsim::collective
