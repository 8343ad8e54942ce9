// BCube(n, k) (Guo et al., SIGCOMM'09): server-centric recursive topology;
// nodes relay between the single-level switches. Routing fixes the highest
// differing digit first (the paper's BCubeRouting corrects digits in a fixed
// permutation order), giving paths of 2 * Hamming(src, dst) hops.
#include "sipsim/fabric/electrical/bcube.hpp"

#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sipsim/base/units.hpp"

namespace sipsim::fabric {
namespace {

class Bcube final : public Topology {
 public:
  explicit Bcube(const BcubeSpec& spec);

  LinkId next_link(Vertex at, Vertex dst, std::uint64_t flow) const override;
  std::uint32_t group_of(Vertex v) const override;
  std::uint32_t groups() const override { return n_; }
  std::string describe() const override { return description_; }
  // Tier l: the level-l switches, n^(levels - 1) of them.
  std::optional<Vertex> switch_at(std::uint32_t tier, std::uint32_t index) const override {
    if (tier >= levels_ || index >= per_level_) return std::nullopt;
    return nodes() + tier * per_level_ + index;
  }
  std::optional<std::pair<std::uint32_t, std::uint32_t>> switch_name(Vertex v) const override {
    if (!is_switch(v)) return std::nullopt;
    return std::pair((v - nodes()) / per_level_, (v - nodes()) % per_level_);
  }
  std::string tiers() const override {
    return "tiers 0-" + std::to_string(levels_ - 1) + " (levels): " + std::to_string(per_level_) +
           " switches each";
  }

 private:
  std::uint32_t digit(Vertex v, std::uint32_t l) const { return v / pow_[l] % n_; }
  // Link ids are arithmetic: for node v and level l, v -> switch is
  // 2 * (v * levels + l) and switch -> v the next id.
  LinkId up_link(Vertex v, std::uint32_t l) const { return 2 * (v * levels_ + l); }
  LinkId down_link(Vertex v, std::uint32_t l) const { return 2 * (v * levels_ + l) + 1; }

  std::uint32_t n_;
  std::uint32_t levels_;
  std::uint32_t per_level_;         // switches per level = n^(levels-1)
  std::vector<std::uint32_t> pow_;  // n^0 .. n^levels
  std::string description_;
};

Bcube::Bcube(const BcubeSpec& spec) : n_(spec.ports), levels_(spec.levels), per_level_(0) {
  if (n_ < 2) {
    throw std::invalid_argument("bcube: ports (n) must be >= 2 (got " + std::to_string(n_) + ")");
  }
  if (levels_ < 1) throw std::invalid_argument("bcube: levels (k + 1) must be >= 1 (got 0)");
  if (spec.link_rate_bps == 0) throw std::invalid_argument("bcube: link_rate_bps must be > 0");
  // n^levels nodes, levels * n^(levels-1) switches, 2 * levels * n^levels links: all < 2^32.
  pow_.assign(1, 1);
  std::uint64_t p = 1;
  for (std::uint32_t l = 0; l < levels_; ++l) {
    p *= n_;
    if (2 * p * levels_ >= 0xffff'ffffULL) {
      std::ostringstream m;
      m << "bcube: ports " << n_ << " and levels " << levels_
        << " give too many vertices/links for 32-bit ids";
      throw std::invalid_argument(m.str());
    }
    pow_.push_back(static_cast<std::uint32_t>(p));
  }
  const std::uint32_t nodes = pow_[levels_];
  per_level_ = pow_[levels_ - 1];
  set_vertices(nodes, levels_ * per_level_);
  for (Vertex v = 0; v < nodes; ++v) {
    for (std::uint32_t l = 0; l < levels_; ++l) {
      // v's digits without digit l, as a base-n number.
      const std::uint32_t idx = v / pow_[l + 1] * pow_[l] + v % pow_[l];
      const Vertex sw = nodes + l * per_level_ + idx;
      add_link(v, sw, spec.link_rate_bps, spec.propagation + spec.switch_latency);
      add_link(sw, v, spec.link_rate_bps, spec.propagation);
    }
  }
  finalize();
  std::ostringstream d;
  d << "bcube: BCube(" << n_ << "," << levels_ - 1 << "), " << nodes << " nodes, " << switches()
    << " switches of " << n_ << " ports in " << levels_ << (levels_ == 1 ? " level, " : " levels, ")
    << base::format_bandwidth_bps(spec.link_rate_bps) << " links";
  description_ = d.str();
}

LinkId Bcube::next_link(Vertex at, Vertex dst, std::uint64_t /*flow*/) const {
  // Single shortest-path choice per hop, so the flow id is not needed.
  if (at >= vertices() || dst >= nodes() || at == dst) return kNoLink;
  if (!is_switch(at)) {
    std::uint32_t l = levels_;
    while (digit(at, l - 1) == digit(dst, l - 1)) --l;  // at != dst: stops at l >= 1
    return up_link(at, l - 1);
  }
  const std::uint32_t s = at - nodes();
  const std::uint32_t l = s / per_level_;
  const std::uint32_t idx = s % per_level_;
  // Member whose digit l is dst's: re-insert that digit into idx.
  const Vertex member = idx / pow_[l] * pow_[l + 1] + digit(dst, l) * pow_[l] + idx % pow_[l];
  return down_link(member, l);
}

std::uint32_t Bcube::group_of(Vertex v) const {
  if (v >= vertices()) return 0;
  if (!is_switch(v)) return v / per_level_;
  const std::uint32_t s = v - nodes();
  const std::uint32_t l = s / per_level_;
  const std::uint32_t idx = s % per_level_;
  const Vertex lowest = idx / pow_[l] * pow_[l + 1] + idx % pow_[l];  // digit l = 0
  return lowest / per_level_;
}

}  // namespace

std::unique_ptr<Topology> make_bcube(const BcubeSpec& spec) {
  return std::make_unique<Bcube>(spec);
}

}  // namespace sipsim::fabric
