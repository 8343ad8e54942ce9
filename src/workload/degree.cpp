// Peers per node and the degree check (workload/degree.hpp), from one walk of
// the programs' transfers (workload/transfers.hpp).
#include "sipsim/workload/degree.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <utility>

#include "sipsim/collective/algorithm.hpp"
#include "sipsim/workload/interpreter.hpp"
#include "sipsim/workload/transfers.hpp"

namespace sipsim::workload {

namespace {

// The source of a link: a communicator's index, or point-to-point (last).
constexpr std::uint32_t kPointToPoint = std::numeric_limits<std::uint32_t>::max();

// Sorted by direction (out first), then peer: distinct peers per direction.
struct Link {
  std::uint32_t in = 0;  // 0: the node sends to peer; 1: receives from it
  std::uint32_t peer = 0, source = 0;
  auto operator<=>(const Link&) const = default;
};

// Each node's links as the walk visits it: its distinct peers each way, and
// its groups for the first node `wanted` picks.
class Collector final : public TransferVisitor {
 public:
  using Wanted = std::function<bool(std::uint32_t node, std::uint32_t peers)>;  // NodePeers::peers
  Collector(const ProgramSet& set, Wanted wanted)
      : set_(set), wanted_(std::move(wanted)), counts_(set.bindings.size(), 0) {}

  void point_to_point(std::uint32_t node, const Op& op, std::uint32_t peer,
                      bool outgoing) override {
    if (peer == node) return;
    links_.push_back({outgoing ? 0u : 1u, peer, kPointToPoint});
    categories_ |= 1u << static_cast<unsigned>(op.category);
  }
  void collective(std::uint32_t node, std::uint32_t comm, const collective::CollectiveCall& call,
                  const MemberMessages& messages) override {
    // An id belongs to one member, so to this node: its repeats add nothing.
    if (messages.id >= seen_.size()) seen_.resize(std::size_t{messages.id} + 1, false);
    if (seen_[messages.id]) return;
    seen_[messages.id] = true;
    algorithms_.emplace_back(comm, collective::to_string(call.algorithm));
    const std::vector<std::uint32_t>& nodes = set_.comms[comm].nodes;
    for (const std::uint32_t in : {0u, 1u}) {
      for (const collective::WireMessage& m : in == 0 ? messages.out : messages.in) {
        if (nodes[m.peer] != node) links_.push_back({in, nodes[m.peer], comm});
      }
    }
  }
  void node_end(std::uint32_t node) override {
    std::sort(links_.begin(), links_.end());
    links_.erase(std::unique(links_.begin(), links_.end()), links_.end());
    std::uint32_t each_way[2] = {0, 0};
    for (std::size_t i = 0; i < links_.size(); ++i) {
      const Link& l = links_[i];
      if (i == 0 || l.in != links_[i - 1].in || l.peer != links_[i - 1].peer) ++each_way[l.in];
    }
    const std::uint32_t peers = std::max(each_way[0], each_way[1]);
    counts_[node] = peers;
    if (!detail_ && wanted_(node, peers)) detail_ = summarize(node, each_way[0], each_way[1]);
    links_.clear();
    algorithms_.clear();
    categories_ = 0;
  }
  // The wanted node's groups are known: the rest of the walk adds nothing
  // to them (check_degree and node_peers stop there; peer_counts wants none).
  bool done() const override { return detail_.has_value(); }
  const std::vector<std::uint32_t>& counts() const { return counts_; }
  const std::optional<NodePeers>& detail() const { return detail_; }

 private:
  NodePeers summarize(std::uint32_t node, std::uint32_t out_peers, std::uint32_t in_peers) {
    NodePeers out{node, out_peers, in_peers, {}};
    // Per source (point-to-point last): distinct peers out and in.
    std::map<std::uint32_t, std::array<std::uint32_t, 2>> per_source;
    for (const Link& l : links_) ++per_source[l.source][l.in];
    std::sort(algorithms_.begin(), algorithms_.end());
    algorithms_.erase(std::unique(algorithms_.begin(), algorithms_.end()), algorithms_.end());
    for (const auto& [source, count] : per_source) {
      PeerGroup g;
      g.out = count[0];
      g.in = count[1];
      if (source == kPointToPoint) {
        g.name = "point-to-point";
        for (std::size_t c = 0; c < kCategories; ++c) {
          if ((categories_ >> c & 1u) == 0) continue;
          if (!g.how.empty()) g.how += ", ";
          g.how += to_string(static_cast<Category>(c));
        }
      } else {
        const collective::Communicator& cm = set_.comms[source];
        g.name = cm.name;
        g.size = cm.size();
        for (const auto& [comm, name] : algorithms_) {
          if (comm != source) continue;
          if (!g.how.empty()) g.how += ", ";
          g.how += name;
        }
      }
      out.groups.push_back(std::move(g));
    }
    return out;
  }

  const ProgramSet& set_;
  Wanted wanted_;
  std::vector<std::uint32_t> counts_;
  std::optional<NodePeers> detail_;
  std::vector<bool> seen_;  // by MemberMessages::id
  std::vector<Link> links_;
  std::vector<std::pair<std::uint32_t, std::string_view>> algorithms_;  // (comm, name)
  std::uint32_t categories_ = 0;                                        // bit per Category
};

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

std::vector<std::uint32_t> peer_counts(const ProgramSet& set) {
  Collector c(set, [](std::uint32_t, std::uint32_t) { return false; });
  walk_transfers(set, c);
  return c.counts();
}

NodePeers node_peers(const ProgramSet& set, std::uint32_t node) {
  Collector c(set, [node](std::uint32_t n, std::uint32_t) { return n == node; });
  walk_transfers(set, c);
  return c.detail() ? *c.detail() : NodePeers{node, 0, 0, {}};
}

std::string check_degree(const ProgramSet& set, std::uint32_t degree, std::string_view fabric) {
  Collector c(set, [degree](std::uint32_t, std::uint32_t peers) { return peers > degree; });
  walk_transfers(set, c);
  if (!c.detail()) return "";
  const NodePeers& p = *c.detail();
  std::vector<std::string> parts, large;
  // What the groups would need as rings (one peer each way), the
  // point-to-point peers as they are: a bound (peers shared by groups aside).
  std::uint64_t as_rings = 0;
  for (const PeerGroup& g : p.groups) {
    if (g.size == 0) {
      parts.push_back(fmt::format("{} ({}): {}", g.name, g.how, g.peers()));
      as_rings += g.peers();
      continue;
    }
    parts.push_back(fmt::format("{} ({} GPUs, {}): {}", g.name, g.size, g.how, g.peers()));
    if (g.peers() > 1) large.push_back(g.name);
    as_rings += std::min<std::uint32_t>(g.peers(), 1);
  }
  std::string out = fmt::format(
      "GPU {} needs {} direct peers (sends to {}, receives from {}), but {} gives each GPU at "
      "most {} each way (its degree): {}",
      p.node, p.peers(), p.out, p.in, fabric, degree, join(parts));
  if (!large.empty() && as_rings <= degree) {
    out += fmt::format("; ring algorithms for {} would need at most {}", join(large), as_rings);
  } else if (!large.empty()) {
    out += fmt::format(
        "; even ring algorithms for {} would need up to {}: use fewer parallel groups per GPU",
        join(large), as_rings);
  } else {
    out +=
        "; its groups already need one peer each way (rings): use fewer parallel groups or "
        "point-to-point peers per GPU";
  }
  return out;
}

}  // namespace sipsim::workload
