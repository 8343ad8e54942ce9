// `fabric: ramp` (fabric/plugin.hpp): RAMP places its jobs on sub-boxes
// itself (RAMP §6.3) and serves the only job with extra transceiver groups
// (§6.2.2 eq. 3-4).
#include "sipsim/fabric/ramp/plugin.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>

#include "sipsim/fabric/ramp/config.hpp"
#include "sipsim/fabric/ramp/physical.hpp"
#include "sipsim/fabric/ramp/transport.hpp"

namespace sipsim::fabric::ramp {

namespace {

__extension__ typedef unsigned __int128 U128;

class RampPlugin final : public Plugin {
 public:
  explicit RampPlugin(base::MapReader& f) : config_(read_ramp(f)) {}
  std::string_view type() const override { return "ramp"; }
  std::uint32_t nodes() const override {
    return config_.spec.x * config_.spec.J * config_.spec.Lambda;
  }
  std::unique_ptr<Network> build() const override { return make_ramp(config_.spec); }
  // One transceiver: a slot's data per slot (RAMP §4.1).
  std::uint64_t slowest_rate_bps() const override {
    const RampSpec& s = config_.spec;
    return static_cast<std::uint64_t>(U128{ramp_slot_bytes(s)} * 8 * pdes::kSecond / s.slot);
  }
  // RAMP §6.1 eq. 1: a stage of the tree broadcast costs the I/O and
  // propagation latency, and carries its chunk on one transceiver group (b
  // transceivers at the slot's pace; in 128 bits: at most line_rate x b).
  Facts facts() const override {
    const RampSpec& s = config_.spec;
    const U128 rate = U128{ramp_slot_bytes(s)} * 8 * pdes::kSecond / s.slot * s.b;
    Facts f;
    f.sub_boxes = SubBoxes{s.x, s.J, s.Lambda / s.x, s.io_latency + s.propagation,
                           static_cast<std::uint64_t>(std::min<U128>(rate, ~std::uint64_t{0}))};
    return f;
  }
  void serve(const Service& service) override {
    if (service.concurrent_collectives && !config_.permissive_given) config_.spec.permissive = true;
    if (!config_.extra_transceivers) return;
    if (service.job) config_.spec.job = service.job;
    if (service.inner) config_.spec.inner = service.inner;
  }
  // A failed transceiver {node, transceiver} (0 <= transceiver < x*b: group
  // transceiver / b) or subnet {subnet: {from, to, transceiver}} (kind
  // switch: the passive star of (g_src, g_dst, t)), routed around by the
  // transport (docs/faults.md).
  FaultTargets fault_targets() const override {
    const RampSpec s = config_.spec;
    const std::uint64_t trx = std::uint64_t{s.x} * s.b;
    const std::uint64_t nodes = std::uint64_t{s.x} * s.J * s.Lambda;
    FaultTargets t;
    t.kinds = {FaultKind::kTransceiver, FaultKind::kSwitch};
    t.read = [s](FaultKind kind, const base::Value& target) {
      return read_target(s, kind, target);
    };
    // A transceiver transmits and receives at the line rate; a subnet
    // carries one transceiver of each of the J x Lambda nodes of its group.
    t.capacity = [=](FaultKind kind, const base::Value&) {
      return kind == FaultKind::kTransceiver ? 2 * s.line_rate_bps
                                             : std::uint64_t{s.J} * s.Lambda * s.line_rate_bps;
    };
    t.count = [=](FaultKind kind) {
      return kind == FaultKind::kTransceiver ? nodes * trx : std::uint64_t{s.x} * s.x * trx;
    };
    t.nth = [=](FaultKind kind, std::uint64_t i) {
      if (kind == FaultKind::kTransceiver) {
        return fmt::format("{{node: {}, transceiver: {}}}", i / trx, i % trx);
      }
      return fmt::format("{{subnet: {{from: {}, to: {}, transceiver: {}}}}}", i / trx / s.x,
                         i / trx % s.x, i % trx);
    };
    return t;
  }
  void set_faults(std::vector<Fault> faults) override {
    RampSpec& s = config_.spec;
    for (const Fault& f : faults) {
      if (config_.permissive_given && !s.permissive) {
        throw base::ScenarioError(f.location, f.key,
                                  "a RAMP with faults serialises the transfers rerouted around "
                                  "them when they meet others: remove fabric.permissive: false");
      }
      RampFault r = parse(s, f.kind, *f.where);
      r.at = f.at;
      r.until = f.until;
      r.target = f.target;
      s.faults.push_back(r);
    }
  }
  std::string physical_report() const override {
    return describe_physical(config_.geometry, config_.optics, config_.cost, config_.power);
  }

 private:
  static RampFault parse(const RampSpec& s, FaultKind kind, const base::Value& target) {
    base::MapReader m = target.as_map();
    RampFault r;
    const std::uint32_t nodes = s.x * s.J * s.Lambda, trx = s.x * s.b;
    if (kind == FaultKind::kTransceiver) {
      r.node = m.required("node").as_u32(0, nodes - 1);
      r.t = m.required("transceiver").as_u32(0, trx - 1);
    } else {
      r.subnet = true;
      base::MapReader n = m.required("subnet").as_map();
      r.g_src = n.required("from").as_u32(0, s.x - 1);
      r.g_dst = n.required("to").as_u32(0, s.x - 1);
      r.t = n.required("transceiver").as_u32(0, trx - 1);
      n.finish();
    }
    m.finish();
    return r;
  }
  static std::string read_target(const RampSpec& s, FaultKind kind, const base::Value& target) {
    const RampFault r = parse(s, kind, target);
    return r.subnet ? fmt::format("subnet ({}, {}, {})", r.g_src, r.g_dst, r.t)
                    : fmt::format("transceiver {} of node {}", r.t, r.node);
  }
  RampConfig config_;
};

}  // namespace

std::unique_ptr<Plugin> plugin(base::MapReader& section) {
  return std::make_unique<RampPlugin>(section);
}

}  // namespace sipsim::fabric::ramp
