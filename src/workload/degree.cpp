// Peers per node and the degree check (workload/degree.hpp), from one walk of
// the programs' transfers (workload/transfers.hpp).
#include "sipsim/workload/degree.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
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
constexpr std::uint32_t kNoNode = std::numeric_limits<std::uint32_t>::max();

struct Link {
  std::uint32_t peer = 0, source = 0;
  auto operator<=>(const Link&) const = default;
};

// Each node's links as the walk visits it (nodes in increasing order): its
// distinct peers, and its groups for the one node `wanted` picks.
class Collector final : public TransferVisitor {
 public:
  using Wanted = std::function<bool(std::uint32_t node, std::uint32_t peers)>;
  Collector(const ProgramSet& set, Wanted wanted)
      : set_(set), wanted_(std::move(wanted)), counts_(set.bindings.size(), 0) {}

  void point_to_point(std::uint32_t node, const Op& op, std::uint32_t peer, bool) override {
    enter(node);
    if (peer == node) return;
    links_.push_back({peer, kPointToPoint});
    categories_ |= 1u << static_cast<unsigned>(op.category);
  }
  void collective(std::uint32_t node, std::uint32_t comm, const collective::CollectiveCall& call,
                  const MemberMessages& messages) override {
    enter(node);
    // An id belongs to one member, so to this node: its repeats add nothing.
    if (messages.id >= seen_.size()) seen_.resize(std::size_t{messages.id} + 1, false);
    if (seen_[messages.id]) return;
    seen_[messages.id] = true;
    algorithms_.emplace_back(comm, collective::to_string(call.algorithm));
    const std::vector<std::uint32_t>& nodes = set_.comms[comm].nodes;
    for (const auto* list : {&messages.out, &messages.in}) {
      for (const collective::WireMessage& m : *list) {
        if (nodes[m.peer] != node) links_.push_back({nodes[m.peer], comm});
      }
    }
  }
  // After the walk.
  void finish() { flush(); }
  const std::vector<std::uint32_t>& counts() const { return counts_; }
  const std::optional<NodePeers>& detail() const { return detail_; }

 private:
  void enter(std::uint32_t node) {
    if (node == current_) return;
    flush();
    current_ = node;
  }
  void flush() {
    if (current_ == kNoNode) return;
    std::sort(links_.begin(), links_.end());
    links_.erase(std::unique(links_.begin(), links_.end()), links_.end());
    std::uint32_t peers = 0;
    for (std::size_t i = 0; i < links_.size(); ++i) {
      if (i == 0 || links_[i].peer != links_[i - 1].peer) ++peers;
    }
    counts_[current_] = peers;
    if (!detail_ && wanted_(current_, peers)) detail_ = summarize(peers);
    links_.clear();
    algorithms_.clear();
    categories_ = 0;
    current_ = kNoNode;
  }
  NodePeers summarize(std::uint32_t peers) {
    NodePeers out{current_, peers, {}};
    std::map<std::uint32_t, std::uint32_t> per_source;  // point-to-point last
    for (const Link& l : links_) ++per_source[l.source];
    std::sort(algorithms_.begin(), algorithms_.end());
    algorithms_.erase(std::unique(algorithms_.begin(), algorithms_.end()), algorithms_.end());
    for (const auto& [source, count] : per_source) {
      PeerGroup g;
      g.peers = count;
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
  std::uint32_t current_ = kNoNode;
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
  c.finish();
  return c.counts();
}

NodePeers node_peers(const ProgramSet& set, std::uint32_t node) {
  Collector c(set, [node](std::uint32_t n, std::uint32_t) { return n == node; });
  walk_transfers(set, c);
  c.finish();
  return c.detail() ? *c.detail() : NodePeers{node, 0, {}};
}

std::string check_degree(const ProgramSet& set, std::uint32_t degree, std::string_view fabric) {
  Collector c(set, [degree](std::uint32_t, std::uint32_t peers) { return peers > degree; });
  walk_transfers(set, c);
  c.finish();
  if (!c.detail()) return "";
  const NodePeers& p = *c.detail();
  std::vector<std::string> parts, large;
  // What the groups would need as rings (2 peers, 1 in a pair), the
  // point-to-point peers as they are: a bound, peers shared by groups aside.
  std::uint64_t as_rings = 0;
  for (const PeerGroup& g : p.groups) {
    if (g.size == 0) {
      parts.push_back(fmt::format("{} ({}): {}", g.name, g.how, g.peers));
      as_rings += g.peers;
      continue;
    }
    parts.push_back(fmt::format("{} ({} GPUs, {}): {}", g.name, g.size, g.how, g.peers));
    const std::uint32_t ring = std::min<std::uint32_t>(g.size - 1, 2);
    if (g.peers > ring) large.push_back(g.name);
    as_rings += std::min(g.peers, ring);
  }
  std::string out =
      fmt::format("GPU {} needs {} direct peers, but {} gives each GPU at most {} (its degree): {}",
                  p.node, p.peers, fabric, degree, join(parts));
  if (!large.empty() && as_rings <= degree) {
    out += fmt::format("; ring algorithms for {} would need at most {}", join(large), as_rings);
  } else if (!large.empty()) {
    out += fmt::format(
        "; even ring algorithms for {} would need up to {}: use fewer parallel groups per GPU",
        join(large), as_rings);
  } else {
    out +=
        "; its groups already need at most 2 peers each (rings): use fewer parallel groups or "
        "point-to-point peers per GPU";
  }
  return out;
}

}  // namespace sipsim::workload
