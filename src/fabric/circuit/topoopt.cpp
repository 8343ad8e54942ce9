// TopoOpt direct-connect fabric (Wang et al., NSDI'23; the optical-circuit
// baseline of RAMP §7.5, the RAMP paper): the
// circuits form m rings with offsets coprime with N (TotientPerms), i.e. a
// circulant graph C_N(s_1..s_m). Being vertex-transitive, one BFS from node 0
// gives shortest paths between every pair by relative distance.
#include "sipsim/fabric/circuit/topoopt.hpp"

#include <cstdint>
#include <memory>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sipsim/base/units.hpp"

namespace sipsim::fabric {
namespace {

constexpr std::uint32_t kGroupSize = 64;  // consecutive nodes per locality group

class Topoopt final : public Topology {
 public:
  Topoopt(const TopooptSpec& spec, std::uint32_t nodes);

  LinkId next_link(Vertex at, Vertex dst, std::uint64_t flow) const override;
  std::uint32_t group_of(Vertex v) const override { return v < nodes() ? v / kGroupSize : 0; }
  std::uint32_t groups() const override { return (nodes() + kGroupSize - 1) / kGroupSize; }
  std::string describe() const override { return description_; }

 private:
  std::uint32_t n_;
  std::vector<std::uint32_t> offsets_;
  // plus_[k * n + i]: link i -> i + s_k; minus_[k * n + i]: link i -> i - s_k.
  std::vector<LinkId> plus_, minus_;
  // First hops on shortest paths for relative distance delta = dst - at
  // (mod n): moves_[move_start_[delta] .. move_start_[delta + 1]), each
  // 2 * k + (0 for +s_k, 1 for -s_k).
  std::vector<std::uint32_t> move_start_;
  std::vector<std::uint32_t> moves_;
  std::string description_;
};

Topoopt::Topoopt(const TopooptSpec& spec, std::uint32_t nodes) : n_(nodes) {
  if (n_ < 2) {
    throw std::invalid_argument("topoopt: nodes must be >= 2 (got " + std::to_string(n_) + ")");
  }
  if (const std::string why = topoopt_degree_problem(n_, spec.degree); !why.empty()) {
    throw std::invalid_argument("topoopt: degree: " + why);
  }
  if (spec.link_rate_bps == 0) throw std::invalid_argument("topoopt: link_rate_bps must be > 0");
  const std::uint32_t m = spec.degree / 2;
  offsets_ = topoopt_offsets(n_, spec.degree);
  if (2ULL * n_ * m >= kNoLink) throw std::invalid_argument("topoopt: too many links");

  set_vertices(n_, 0);
  plus_.resize(std::size_t{n_} * m);
  minus_.resize(std::size_t{n_} * m);
  for (std::uint32_t k = 0; k < m; ++k) {
    const std::uint32_t s = offsets_[k];
    const bool self_inverse = 2 * s == n_;  // only n = 2, s = 1: +s and -s coincide
    for (std::uint32_t i = 0; i < n_; ++i) {
      const std::uint32_t j = (i + s) % n_;
      if (self_inverse && i >= j) continue;  // add the one duplex link once
      const LinkId l = add_duplex(i, j, spec.link_rate_bps, spec.link_latency);
      plus_[std::size_t{k} * n_ + i] = l;
      minus_[std::size_t{k} * n_ + j] = l + 1;
      if (self_inverse) {
        minus_[std::size_t{k} * n_ + i] = l;
        plus_[std::size_t{k} * n_ + j] = l + 1;
      }
    }
  }
  finalize();

  // BFS over relative distances from node 0.
  constexpr std::uint32_t kUnseen = ~std::uint32_t{0};
  std::vector<std::uint32_t> dist(n_, kUnseen);
  std::vector<std::uint32_t> queue;
  queue.reserve(n_);
  dist[0] = 0;
  queue.push_back(0);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::uint32_t d = queue[head];
    for (const std::uint32_t s : offsets_) {
      for (const std::uint32_t e : {(d + s) % n_, (d + n_ - s) % n_}) {
        if (dist[e] == kUnseen) {
          dist[e] = dist[d] + 1;
          queue.push_back(e);
        }
      }
    }
  }
  // s_1 = 1 makes the graph connected, so every delta was reached.
  move_start_.assign(std::size_t{n_} + 1, 0);
  moves_.reserve(std::size_t{n_} * m);
  for (std::uint32_t delta = 1; delta < n_; ++delta) {
    move_start_[delta] = static_cast<std::uint32_t>(moves_.size());
    for (std::uint32_t k = 0; k < m; ++k) {
      const std::uint32_t s = offsets_[k];
      // Taking +s leaves delta - s to go; taking -s leaves delta + s.
      if (dist[(delta + n_ - s) % n_] + 1 == dist[delta]) moves_.push_back(2 * k);
      if (2 * s != n_ && dist[(delta + s) % n_] + 1 == dist[delta]) moves_.push_back(2 * k + 1);
    }
  }
  move_start_[n_] = static_cast<std::uint32_t>(moves_.size());
  move_start_[0] = move_start_[1];  // delta 0 is never routed: empty range

  std::ostringstream d;
  d << "topoopt: " << n_ << " nodes, degree " << spec.degree << " (offsets ";
  for (std::size_t k = 0; k < offsets_.size(); ++k) d << (k ? "," : "") << offsets_[k];
  d << "), " << base::format_bandwidth_bps(spec.link_rate_bps) << " links, latency "
    << base::format_time_ps(spec.link_latency);
  description_ = d.str();
}

LinkId Topoopt::next_link(Vertex at, Vertex dst, std::uint64_t flow) const {
  if (at >= n_ || dst >= n_ || at == dst) return kNoLink;
  const std::uint32_t delta = dst >= at ? dst - at : dst + n_ - at;
  const std::uint32_t first = move_start_[delta];
  const std::uint32_t count = move_start_[delta + 1] - first;
  const std::uint32_t pick =
      count == 1 ? 0 : static_cast<std::uint32_t>(ecmp_hash(at, dst, flow) % count);
  const std::uint32_t move = moves_[first + pick];
  const std::size_t k = move / 2;
  return (move % 2 == 0 ? plus_ : minus_)[k * n_ + at];
}

}  // namespace

std::vector<std::uint32_t> topoopt_offsets(std::uint32_t nodes, std::uint32_t degree) {
  // Offsets beyond n/2 would repeat a ring already present (s and n - s give
  // the same links), so only [1, n/2] is usable.
  std::vector<std::uint32_t> offsets;
  for (std::uint32_t s = 1; s <= nodes / 2 && offsets.size() < degree / 2; ++s) {
    if (std::gcd(s, nodes) == 1) offsets.push_back(s);
  }
  return offsets;
}

std::string topoopt_degree_problem(std::uint32_t nodes, std::uint32_t degree) {
  if (degree < 2 || degree % 2 != 0) {
    return "must be even and at least 2 (got " + std::to_string(degree) +
           "): a node's links form degree / 2 bidirectional rings";
  }
  const std::vector<std::uint32_t> offsets = topoopt_offsets(nodes, degree);
  if (offsets.size() == degree / 2) return "";
  std::ostringstream msg;
  msg << "degree " << degree << " needs " << degree / 2 << " ring offsets coprime with " << nodes
      << " in [1, " << nodes / 2 << "], but only " << offsets.size() << " exist (";
  for (std::size_t k = 0; k < offsets.size(); ++k) msg << (k ? ", " : "") << offsets[k];
  msg << "); the largest degree for " << nodes << " nodes is " << 2 * offsets.size();
  return msg.str();
}

std::unique_ptr<Topology> make_topoopt(const TopooptSpec& spec, std::uint32_t nodes) {
  return std::make_unique<Topoopt>(spec, nodes);
}

}  // namespace sipsim::fabric
