// SiPAC (paper 004 §2, Fig. 1): a BCube-like recursive topology in which the
// servers are single compute units and the electrical packet switches are
// passive micro-ring wavelength-selective switches. Fig. 1b: the WSS drops a
// subgroup of each input's wavelengths at each output ("3 wavelengths are
// dropped at each ring"), so every ordered pair on one WSS has its own
// wavelengths and a port's bandwidth is split per neighbour, not shared:
// "direct ... arbitration-free high-bandwidth light paths with (l+1)(r-1)
// other CUs with no output port blocking". The per-unit bandwidth is the sum
// over its ports (§4's normalisation), spread over the (l+1)(r-1) lightpaths.
#include "sipsim/fabric/sip/sipac.hpp"

#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sipsim/base/units.hpp"

namespace sipsim::fabric {
namespace {

class Sipac final : public Topology {
 public:
  explicit Sipac(const SipacSpec& spec);

  LinkId next_link(Vertex at, Vertex dst, std::uint64_t flow) const override;
  std::uint32_t group_of(Vertex v) const override;
  std::uint32_t groups() const override { return r_; }
  std::string describe() const override { return description_; }

 private:
  std::uint32_t digit(Vertex v, std::uint32_t k) const { return v / pow_[k] % r_; }
  // The lightpath from v on level k to the unit whose digit k is d.
  LinkId lightpath(Vertex v, std::uint32_t k, std::uint32_t d) const {
    const std::uint32_t own = digit(v, k);
    return v * degree_ + k * (r_ - 1) + (d < own ? d : d - 1);
  }

  std::uint32_t r_;
  std::uint32_t ports_;             // l + 1: one per level
  std::uint32_t degree_;            // (l + 1)(r - 1)
  std::vector<std::uint32_t> pow_;  // r^0 .. r^(l+1)
  std::string description_;
};

Sipac::Sipac(const SipacSpec& spec) : r_(spec.ports), ports_(spec.level + 1), degree_(0) {
  if (r_ < 2) {
    throw std::invalid_argument("sipac: ports (r) must be >= 2 (got " + std::to_string(r_) + ")");
  }
  if (spec.level < 1) throw std::invalid_argument("sipac: level (l) must be >= 1 (got 0)");
  degree_ = ports_ * (r_ - 1);
  const std::uint64_t rate = spec.bandwidth_bps / degree_;
  if (rate == 0) throw std::invalid_argument("sipac: bandwidth must give > 0 bps per lightpath");
  // r^(l+1) units, (l+1)(r-1) lightpaths each: all ids < 2^32.
  pow_.assign(1, 1);
  std::uint64_t p = 1;
  for (std::uint32_t k = 0; k < ports_; ++k) {
    p *= r_;
    if (p * degree_ >= 0xffff'ffffULL) {
      std::ostringstream m;
      m << "sipac: ports " << r_ << " and level " << spec.level
        << " give too many units/lightpaths for 32-bit ids";
      throw std::invalid_argument(m.str());
    }
    pow_.push_back(static_cast<std::uint32_t>(p));
  }
  const std::uint32_t units = pow_[ports_];
  set_vertices(units, 0);
  const pdes::Time latency = spec.propagation + spec.wss_latency;
  for (Vertex v = 0; v < units; ++v) {
    for (std::uint32_t k = 0; k < ports_; ++k) {
      const std::uint32_t own = digit(v, k);
      for (std::uint32_t d = 0; d < r_; ++d) {
        if (d == own) continue;
        const Vertex to = v + (d - own) * pow_[k];  // wraps correctly for d < own
        add_link(v, to, rate, latency);
      }
    }
  }
  finalize();
  std::ostringstream s;
  s << "sipac: SiPAC_" << spec.level << "(r=" << r_ << "), " << units << " units with " << ports_
    << " ports, " << ports_ << " x " << pow_[spec.level] << " WSS of " << r_ << " ports, "
    << degree_ << " direct neighbours per unit, " << base::format_bandwidth_bps(rate)
    << " per lightpath (" << base::format_bandwidth_bps(spec.bandwidth_bps) << " per unit)";
  description_ = s.str();
}

LinkId Sipac::next_link(Vertex at, Vertex dst, std::uint64_t /*flow*/) const {
  // One route per pair (digit correction), so the flow id is not needed.
  if (at >= nodes() || dst >= nodes() || at == dst) return kNoLink;
  std::uint32_t k = ports_;
  while (digit(at, k - 1) == digit(dst, k - 1)) --k;  // at != dst: stops at k >= 1
  return lightpath(at, k - 1, digit(dst, k - 1));
}

std::uint32_t Sipac::group_of(Vertex v) const {
  return v >= nodes() ? 0 : v / pow_[ports_ - 1];
}

}  // namespace

std::unique_ptr<Topology> make_sipac(const SipacSpec& spec) {
  return std::make_unique<Sipac>(spec);
}

}  // namespace sipsim::fabric
