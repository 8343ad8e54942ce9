// The silicon-photonic fabrics' plug-ins (fabric/plugin.hpp): SiPAC routes
// over its wavelength-switched BCube; SiP-OCS and SiP-Ring give each GPU a
// limited number of circuits (SiP-ML §3.2), and SiP-Ring orders its nodes on
// a ring.
#include "sipsim/fabric/sip/plugin.hpp"

#include "sipsim/fabric/routed/plugin.hpp"
#include "sipsim/fabric/sip/sip_ocs.hpp"
#include "sipsim/fabric/sip/sip_ring.hpp"
#include "sipsim/fabric/sip/sipac.hpp"

namespace sipsim::fabric {

namespace {

class SipacPlugin final : public RoutedPlugin {
 public:
  explicit SipacPlugin(base::MapReader& f) : RoutedPlugin(f), spec_(read_sipac(f)) {
    nodes_ = sipac_units(spec_);
  }
  std::string_view type() const override { return "sipac"; }
  std::uint64_t slowest_rate_bps() const override { return sipac_lightpath_rate_bps(spec_); }
  // A group's levels are its WSS digit groups (§2), as the multicast trees want.
  GroupShape group_shape(std::uint32_t p, bool contiguous) const override {
    return digit_levels(p, spec_.ports, spec_.level + 1, contiguous);
  }

 private:
  std::unique_ptr<Topology> topology() const override { return make_sipac(spec_); }
  SipacSpec spec_;
};

// SiP-OCS: circuits planned for the job (or every 5d) over Q switches.
class SipOcsPlugin final : public Plugin {
 public:
  explicit SipOcsPlugin(base::MapReader& f) : spec_(read_sip_ocs(f)) {}
  std::string_view type() const override { return "sip-ocs"; }
  std::uint32_t nodes() const override { return spec_.gpus; }
  std::uint64_t slowest_rate_bps() const override { return sip_ocs_circuit_rate_bps(spec_); }
  std::unique_ptr<Network> build() const override { return make_sip_ocs(spec_); }
  Facts facts() const override {
    Facts f;
    f.degree_limit = spec_.switches;  // one circuit per switch (SiP-ML §3.3)
    return f;
  }

 private:
  SipOcsSpec spec_;
};

// SiP-Ring: wavelengths re-planned every period.
class SipRingPlugin final : public Plugin {
 public:
  explicit SipRingPlugin(base::MapReader& f) : spec_(read_sip_ring(f)) {}
  std::string_view type() const override { return "sip-ring"; }
  std::uint32_t nodes() const override { return spec_.gpus; }
  std::uint64_t slowest_rate_bps() const override { return spec_.wavelength_rate_bps; }
  std::unique_ptr<Network> build() const override { return make_sip_ring(spec_); }
  Facts facts() const override {
    Facts f;
    f.degree_limit = sip_ring_reach(spec_) + 1;  // SiP-ML §5: reach 15, "the node degree is 16"
    f.ring_order = true;
    return f;
  }
  // A wavelength lost on the whole ring: {wavelength: w}, 0 <= w < W.
  FaultTargets fault_targets() const override {
    const std::uint32_t w = spec_.wavelengths;
    FaultTargets t;
    t.kinds = {FaultKind::kWavelength};
    t.read = [w](FaultKind, const base::Value& target) {
      return "wavelength " + std::to_string(wavelength_of(target, w));
    };
    t.count = [w](FaultKind) { return std::uint64_t{w}; };
    t.nth = [](FaultKind, std::uint64_t i) { return "{wavelength: " + std::to_string(i) + "}"; };
    return t;
  }
  void set_faults(std::vector<Fault> faults) override {
    for (const Fault& f : faults) {
      spec_.lost.push_back({f.at, f.until, wavelength_of(*f.where, spec_.wavelengths)});
    }
  }

 private:
  static std::uint32_t wavelength_of(const base::Value& target, std::uint32_t w) {
    base::MapReader m = target.as_map();
    const std::uint32_t i = m.required("wavelength").as_u32(0, w - 1);
    m.finish();
    return i;
  }
  SipRingSpec spec_;
};

}  // namespace

std::unique_ptr<Plugin> sipac_plugin(base::MapReader& section) {
  return std::make_unique<SipacPlugin>(section);
}
std::unique_ptr<Plugin> sip_ocs_plugin(base::MapReader& section) {
  return std::make_unique<SipOcsPlugin>(section);
}
std::unique_ptr<Plugin> sip_ring_plugin(base::MapReader& section) {
  return std::make_unique<SipRingPlugin>(section);
}

}  // namespace sipsim::fabric
