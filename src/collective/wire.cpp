#include <algorithm>
#include <unordered_map>

#include "sipsim/collective/schedule.hpp"

namespace sipsim::collective {

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

}  // namespace sipsim::collective
