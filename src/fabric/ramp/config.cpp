#include "sipsim/fabric/ramp/config.hpp"

#include <cstdio>
#include <string>

#include "sipsim/base/units.hpp"

namespace sipsim::fabric::ramp {

RampConfig read_ramp(base::MapReader& f) {
  // Defaults: the 65,536-node reference point (RAMP §4.2, docs/models.md, "RAMP-x collectives").
  RampConfig r;
  RampSpec& s = r.spec;
  s.x = f.get_u32("x", s.x, 1, 256);
  s.J = f.get_u32("J", s.J, 1, 256);
  s.Lambda = f.get_u32("Lambda", s.Lambda, 1, 65536);
  s.b = f.get_u32("b", s.b, 1, 255);
  if (auto v = f.optional("line_rate")) s.line_rate_bps = v->as_positive_bandwidth_bps();
  if (auto v = f.optional("subnet")) {
    const std::string kind =
        v->as_enum({"broadcast-and-select", "route-and-broadcast", "route-and-switch"});
    r.geometry.kind =
        kind == "route-and-broadcast" ? ramp::RampGeometry::SubnetKind::kRouteBroadcast
        : kind == "route-and-switch"  ? ramp::RampGeometry::SubnetKind::kRouteSwitch
                                      : ramp::RampGeometry::SubnetKind::kBroadcastSelect;
  }
  if (auto phys = f.optional("physical")) {
    // Component values of RAMP §4.2 Fig. 6, Table 3 and Table 4 (defaults: the paper's).
    base::MapReader m = phys->as_map();
    auto& o = r.optics;
    o.tx_launch_dbm = m.get_double("tx_launch_dbm", o.tx_launch_dbm);
    o.soa_gain_db = m.get_double("soa_gain_db", o.soa_gain_db);
    o.splitter_excess_db = m.get_double("splitter_excess_db", o.splitter_excess_db);
    o.combiner_excess_db = m.get_double("combiner_excess_db", o.combiner_excess_db);
    o.coupler_excess_db = m.get_double("coupler_excess_db", o.coupler_excess_db);
    o.rx_sensitivity_dbm = m.get_double("rx_sensitivity_dbm", o.rx_sensitivity_dbm);
    o.min_path_dbm = m.get_double("min_path_dbm", o.min_path_dbm);
    auto& c = r.cost;
    c.ocs_transceiver_usd_per_gbit_low =
        m.get_double("transceiver_usd_per_gbit_low", c.ocs_transceiver_usd_per_gbit_low);
    c.ocs_transceiver_usd_per_gbit_high =
        m.get_double("transceiver_usd_per_gbit_high", c.ocs_transceiver_usd_per_gbit_high);
    c.coupler_usd_per_port_gbit =
        m.get_double("coupler_usd_per_port_gbit", c.coupler_usd_per_port_gbit);
    auto& pw = r.power.ramp;
    pw.transceiver_w = m.get_double("transceiver_w", pw.transceiver_w);
    pw.soa_w = m.get_double("soa_w", pw.soa_w);
    pw.soa_in_transceiver = m.get_bool("soa_in_transceiver", pw.soa_in_transceiver);
    m.finish();
  }
  s.slot = f.get_time_ps("slot", s.slot);
  s.reconfiguration = f.get_time_ps("reconfiguration", s.reconfiguration);
  s.propagation = f.get_time_ps("propagation", s.propagation);
  s.io_latency = f.get_time_ps("io_latency", s.io_latency);
  r.permissive_given = f.has("permissive");
  s.permissive = f.get_bool("permissive", false);
  r.ignore_power_budget = f.get_bool("ignore_power_budget", false);
  r.extra_transceivers = f.get_bool("extra_transceivers", true);
  if (s.J > s.x) f.required("J").fail("must not exceed x (" + std::to_string(s.x) + ")");
  if (s.Lambda % s.x != 0 || s.Lambda / s.x > s.x) {
    f.required("Lambda").fail(
        "must be D*x with 1 <= D <= x (RAMP-x needs it; docs/models.md, \"RAMP-x collectives\")");
  }
  if (s.Lambda > ramp::kMaxWavelengthChannels) {
    f.required("Lambda").fail("exceeds the " + std::to_string(ramp::kMaxWavelengthChannels) +
                              " wavelength channels of the tunable source (RAMP §4.1)");
  }
  if (s.slot <= s.reconfiguration) {
    f.required("slot").fail("must be longer than the reconfiguration time");
  }
  if (ramp_slot_bytes(s) == 0) {
    // RAMP §4.1: a transfer takes whole slots, each carrying (slot - reconfiguration) x line_rate.
    const std::string why = "a slot must carry at least one byte, but " +
                            base::format_time_ps(s.slot - s.reconfiguration) + " of data at " +
                            base::format_bandwidth_bps(s.line_rate_bps) + " is less than 8 bits";
    // Blame the line rate if the default slot would not help either.
    RampSpec defaults;
    defaults.line_rate_bps = s.line_rate_bps;
    const bool rate = ramp_slot_bytes(defaults) == 0;
    f.required(rate ? "line_rate" : f.has("slot") ? "slot" : "reconfiguration").fail(why);
  }
  if (s.io_latency == 0) f.required("io_latency").fail("must be greater than 0");
  if (s.propagation == 0) f.required("propagation").fail("must be greater than 0");
  r.geometry.x = s.x;
  r.geometry.J = s.J;
  r.geometry.Lambda = s.Lambda;
  r.geometry.b = s.b;
  r.geometry.line_rate_bps = s.line_rate_bps;
  if (const auto errors = ramp::validate(r.geometry); !errors.empty()) {
    f.value().fail(errors.front());
  }
  // RAMP §4.2: the receiver must see >= -15 dBm and no point may fall below
  // -20 dBm; a geometry that breaks the budget is refused unless overridden.
  const auto budget = ramp::power_budget(r.geometry, r.optics);
  if (!budget.ok && !r.ignore_power_budget) {
    char msg[256];
    std::snprintf(msg, sizeof msg,
                  "optical power budget fails (RAMP §4.2): %g dBm at the receiver (needs >= "
                  "%g), %g dBm at the weakest point (needs >= %g); set "
                  "ignore_power_budget: true to run anyway",
                  budget.rx_dbm, r.optics.rx_sensitivity_dbm, budget.min_dbm,
                  r.optics.min_path_dbm);
    f.value().fail(msg);
  }
  return r;
}

}  // namespace sipsim::fabric::ramp
