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
  // A GPU's port on an OCS: {node: N, switch: K}.
  FaultTargets fault_targets() const override {
    const std::uint32_t n = spec_.gpus, q = spec_.switches;
    FaultTargets t;
    t.kinds = {FaultKind::kOcsPort};
    t.read = [n, q](FaultKind, const base::Value& target) {
      const auto [gpu, ocs] = port_of(target, n, q);
      return "port of node " + std::to_string(gpu) + " on OCS " + std::to_string(ocs);
    };
    t.count = [n, q](FaultKind) { return std::uint64_t{n} * q; };
    const std::uint64_t circuit = sip_ocs_circuit_rate_bps(spec_);
    t.capacity = [circuit](FaultKind, const base::Value&) { return 2 * circuit; };  // both sides
    t.nth = [q](FaultKind, std::uint64_t i) {
      return "{node: " + std::to_string(i / q) + ", switch: " + std::to_string(i % q) + "}";
    };
    return t;
  }
  // One-shot, the allocation is made once, at the start: it can plan around
  // ports failed then only.
  void set_faults(std::vector<Fault> faults) override {
    for (const Fault& f : faults) {
      if (!spec_.dynamic && (f.at > 0 || f.until != pdes::kTimeMax)) {
        throw base::ScenarioError(f.location, f.key,
                                  "a one-shot SiP-OCS allocates its circuits once, at the start: "
                                  "a port failing later (or repaired) needs fabric.mode: dynamic");
      }
      const auto [gpu, ocs] = port_of(*f.where, spec_.gpus, spec_.switches);
      spec_.failed.push_back({f.at, f.until, gpu, ocs});
    }
  }

 private:
  static std::pair<std::uint32_t, std::uint32_t> port_of(const base::Value& target, std::uint32_t n,
                                                         std::uint32_t q) {
    base::MapReader m = target.as_map();
    const std::uint32_t gpu = m.required("node").as_u32(0, n - 1);
    const std::uint32_t ocs = m.required("switch").as_u32(0, q - 1);
    m.finish();
    return {gpu, ocs};
  }
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
      return "wavelength " + std::to_string(read_target_index(target, "wavelength", w));
    };
    t.count = [w](FaultKind) { return std::uint64_t{w}; };
    // One wavelength per GPU: what each GPU loses, over the ring.
    const std::uint64_t ring = std::uint64_t{spec_.gpus} * spec_.wavelength_rate_bps;
    t.capacity = [ring](FaultKind, const base::Value&) { return ring; };
    t.nth = [](FaultKind, std::uint64_t i) { return "{wavelength: " + std::to_string(i) + "}"; };
    return t;
  }
  void set_faults(std::vector<Fault> faults) override {
    for (const Fault& f : faults) {
      spec_.lost.push_back(
          {f.at, f.until, read_target_index(*f.where, "wavelength", spec_.wavelengths)});
      // The ring keeps at least one wavelength: count those lost when this one goes.
      std::uint32_t lost = 0;
      for (const LostWavelength& l : spec_.lost) lost += active_at(l, f.at) ? 1 : 0;
      if (lost >= spec_.wavelengths) {
        throw base::ScenarioError(f.location, f.key,
                                  "loses the ring's last wavelength: every one of the " +
                                      std::to_string(spec_.wavelengths) + " is lost then");
      }
    }
  }

 private:
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
