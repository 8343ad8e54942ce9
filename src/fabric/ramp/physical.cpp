// Physical models of the RAMP optical network: geometry (RAMP §3.1), power budget
// (RAMP §4.2, Fig. 6), cost (RAMP §4.3, Table 3) and power (RAMP §4.3, Table 4).
#include "sipsim/fabric/ramp/physical.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "sipsim/base/units.hpp"

namespace sipsim::fabric::ramp {
namespace {

constexpr double kGbit = 1e9;

__attribute__((format(printf, 1, 2))) std::string Format(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  if (n < 0) return {};
  const auto len = static_cast<std::size_t>(n);
  if (len < sizeof buf) return std::string(buf, len);
  std::string out(len + 1, '\0');
  va_start(args, fmt);
  std::vsnprintf(out.data(), out.size(), fmt, args);
  va_end(args);
  out.resize(len);
  return out;
}

// Loss in dB of an ideal 1:n split (or n:1 combination): 10·log10(n).
double SplitLossDb(std::uint64_t n) {
  return 10.0 * std::log10(static_cast<double>(n));
}

// Builds the stage list: each component applies a gain (negative = loss).
class PathBuilder {
 public:
  PathBuilder(double launch_dbm, double soa_saturation_dbm)
      : power_(launch_dbm), soa_saturation_dbm_(soa_saturation_dbm) {
    stages_.push_back({"Tx launch", 0.0, launch_dbm});
  }
  void Loss(std::string name, double loss_db) { Apply(std::move(name), -loss_db); }
  // SOA: linear gain, compressed so the output never exceeds the saturation power.
  void Soa(std::string name, double gain_db) {
    const double out = std::min(power_ + gain_db, std::max(power_, soa_saturation_dbm_));
    Apply(std::move(name), out - power_);
  }
  std::vector<BudgetStage> Take() { return std::move(stages_); }

 private:
  void Apply(std::string name, double gain_db) {
    power_ += gain_db;
    stages_.push_back({std::move(name), gain_db, power_});
  }
  double power_;
  double soa_saturation_dbm_;
  std::vector<BudgetStage> stages_;
};

void CheckPositive(std::vector<std::string>& errors, const char* name, std::uint64_t v) {
  if (v == 0) errors.push_back(Format("%s must be >= 1 (got 0)", name));
}

// Energy per bit crossing one component: power / throughput, in pJ.
double PicojoulePerBit(double watts, double bps) {
  return watts / bps * 1e12;
}

PowerFigures EpsFigures(const EpsPowerInputs& e, double capacity_bps) {
  const double switch_bps =
      static_cast<double>(e.switch_ports) * static_cast<double>(e.switch_port_rate_bps);
  const double switches_pj = e.switches_per_path * PicojoulePerBit(e.switch_w, switch_bps);
  const double tr_bps = static_cast<double>(e.transceiver_rate_bps);
  PowerFigures f;
  f.name = e.name;
  f.pj_per_bit_path_low =
      switches_pj + e.transceivers_per_path * PicojoulePerBit(e.transceiver_w_low, tr_bps);
  f.pj_per_bit_path_high =
      switches_pj + e.transceivers_per_path * PicojoulePerBit(e.transceiver_w_high, tr_bps);
  f.total_mw_low = f.pj_per_bit_path_low * 1e-12 * capacity_bps / 1e6;
  f.total_mw_high = f.pj_per_bit_path_high * 1e-12 * capacity_bps / 1e6;
  f.w_per_gbps_low = f.total_mw_low * 1e6 / (capacity_bps / kGbit);
  f.w_per_gbps_high = f.total_mw_high * 1e6 / (capacity_bps / kGbit);
  return f;
}

// Transceiver power that makes an EPS path cost `pj_per_bit` (for deviations()).
double FatTreeTransceiverWattsFor(const EpsPowerInputs& e, double pj_per_bit) {
  const double switch_bps =
      static_cast<double>(e.switch_ports) * static_cast<double>(e.switch_port_rate_bps);
  const double rest = pj_per_bit - e.switches_per_path * PicojoulePerBit(e.switch_w, switch_bps);
  return rest / e.transceivers_per_path * 1e-12 * static_cast<double>(e.transceiver_rate_bps);
}

std::string Range(double lo, double hi, const char* fmt) {
  if (lo == hi) return Format(fmt, lo);
  return Format(fmt, lo) + "-" + Format(fmt, hi);
}

}  // namespace

// --- Geometry (RAMP §3.1, Table 2) ------------------------------------------

double RampGeometry::node_capacity_bps() const {
  return static_cast<double>(transceivers_per_node()) * static_cast<double>(line_rate_bps);
}

double RampGeometry::total_node_capacity_bps() const {
  return static_cast<double>(nodes()) * node_capacity_bps();
}

double RampGeometry::system_capacity_bps() const {
  return static_cast<double>(subnets()) * Lambda * static_cast<double>(line_rate_bps);
}

const char* to_string(RampGeometry::SubnetKind kind) {
  switch (kind) {
    case RampGeometry::SubnetKind::kBroadcastSelect:
      return "broadcast-and-select";
    case RampGeometry::SubnetKind::kRouteBroadcast:
      return "route-and-broadcast";
    case RampGeometry::SubnetKind::kRouteSwitch:
      return "route-and-switch";
  }
  return "unknown";
}

LinkCounts link_counts(const RampGeometry& g) {
  using Kind = RampGeometry::SubnetKind;
  LinkCounts c;
  const std::uint64_t x = g.x;
  c.transceivers = g.nodes() * g.transceivers_per_node();
  c.splitters = c.transceivers;
  c.combiners = c.transceivers;
  c.edge_soas = 2 * x * c.transceivers;  // x gated ports per splitter and per combiner
  c.edge_fibres = 2 * x * c.transceivers;
  c.coupler_ports_per_side = g.subnets() * g.subnet_ports();
  // RAMP §3.1: "2Jx² [links], as paths can be grouped by racks and source-destination
  // communication groups": one Tx and one Rx cable per (rack, remote group) pair.
  c.grouped_cables = 2 * std::uint64_t{g.J} * x * x;
  switch (g.kind) {
    case Kind::kBroadcastSelect:
      c.star_couplers = g.subnets();
      break;
    case Kind::kRouteBroadcast:
      c.awgrs = g.subnets() * g.J;
      c.star_couplers = g.subnets() * g.Lambda;
      break;
    case Kind::kRouteSwitch:
      c.awgrs = g.subnets() * g.J;
      c.core_soas = g.subnets() * g.Lambda * std::uint64_t{g.J} * g.J;
      break;
  }
  return c;
}

std::vector<std::string> validate(const RampGeometry& g, std::uint32_t max_wavelengths) {
  std::vector<std::string> errors;
  CheckPositive(errors, "x", g.x);
  CheckPositive(errors, "J", g.J);
  CheckPositive(errors, "Lambda", g.Lambda);
  CheckPositive(errors, "b", g.b);
  CheckPositive(errors, "line_rate_bps", g.line_rate_bps);
  if (g.J > g.x) {
    errors.push_back(Format("J (racks per group, %u) must be <= x (%u): RAMP §3.1", g.J, g.x));
  }
  if (g.Lambda > max_wavelengths) {
    errors.push_back(
        Format("Lambda (%u) exceeds the %u wavelength channels of the tunable "
               "source (RAMP §4.1)",
               g.Lambda, max_wavelengths));
  }
  if (g.nodes() > std::numeric_limits<std::uint32_t>::max()) {
    errors.push_back(Format("x*J*Lambda (%llu nodes) exceeds the 32-bit node id range",
                            static_cast<unsigned long long>(g.nodes())));
  }
  switch (g.kind) {
    case RampGeometry::SubnetKind::kBroadcastSelect:
    case RampGeometry::SubnetKind::kRouteBroadcast:
    case RampGeometry::SubnetKind::kRouteSwitch:
      break;
    default:
      errors.push_back("kind: unknown subnet kind");
  }
  return errors;
}

std::vector<std::string> validate_for_ramp_x(const RampGeometry& g, std::uint32_t max_wavelengths) {
  std::vector<std::string> errors = validate(g, max_wavelengths);
  if (g.x == 0 || g.Lambda == 0) return errors;
  if (g.Lambda % g.x != 0) {
    errors.push_back(
        Format("Lambda (%u) must be a multiple of x (%u): Lambda = D*x for RAMP-x "
               "collectives",
               g.Lambda, g.x));
  } else if (g.Lambda / g.x > g.x) {
    errors.push_back(Format("Lambda (%u) must be <= x*x (%u): D = Lambda/x = %u must be <= x",
                            g.Lambda, g.x * g.x, g.Lambda / g.x));
  }
  return errors;
}

// --- Power budget (RAMP §4.2, Fig. 6) ---------------------------------------

PowerBudget power_budget(const RampGeometry& g, const OpticalParams& p) {
  PowerBudget out;
  if (const auto errors = validate(g); !errors.empty()) {
    out.reason = "invalid geometry: " + errors.front();
    return out;
  }
  using Kind = RampGeometry::SubnetKind;
  PathBuilder path(p.tx_launch_dbm, p.soa_saturation_dbm);
  // Tx -> 1:x SOA-gated splitter (port = destination group) -> SOA gate.
  path.Loss(Format("1:%u splitter", g.x), SplitLossDb(g.x) + p.splitter_excess_db);
  path.Soa("SOA gate (Tx side)", p.soa_gain_db);
  switch (g.kind) {
    case Kind::kBroadcastSelect:
      // One JΛ x JΛ star coupler: every input is split over all JΛ outputs.
      path.Loss(Format("%llux%llu star coupler", static_cast<unsigned long long>(g.subnet_ports()),
                       static_cast<unsigned long long>(g.subnet_ports())),
                SplitLossDb(g.subnet_ports()) + p.coupler_excess_db);
      break;
    case Kind::kRouteBroadcast:
      path.Loss(Format("%ux%u AWGR", g.Lambda, g.Lambda), p.awgr_loss_db);
      path.Loss(Format("%ux%u star coupler", g.J, g.J), SplitLossDb(g.J) + p.coupler_excess_db);
      break;
    case Kind::kRouteSwitch:
      // SOA crossbar realised as 1:J split, SOA gate, J:1 combination (assumption).
      path.Loss(Format("%ux%u AWGR", g.Lambda, g.Lambda), p.awgr_loss_db);
      path.Loss(Format("crossbar 1:%u split", g.J), SplitLossDb(g.J) + p.splitter_excess_db);
      path.Soa("crossbar SOA gate", p.soa_gain_db);
      path.Loss(Format("crossbar %u:1 combine", g.J), SplitLossDb(g.J) + p.combiner_excess_db);
      break;
  }
  // SOA gate -> x:1 combiner (port = source group) -> filter -> receiver.
  path.Soa("SOA gate (Rx side)", p.soa_gain_db);
  path.Loss(Format("%u:1 combiner + filter (Rx)", g.x),
            SplitLossDb(g.x) + p.combiner_excess_db + p.rx_filter_loss_db);
  out.stages = path.Take();

  out.rx_dbm = out.stages.back().power_dbm;
  const auto min_it = std::min_element(
      out.stages.begin(), out.stages.end(),
      [](const BudgetStage& a, const BudgetStage& s) { return a.power_dbm < s.power_dbm; });
  out.min_dbm = min_it->power_dbm;
  out.min_stage = min_it->name;
  const bool rx_ok = out.rx_dbm >= p.rx_sensitivity_dbm;
  const bool min_ok = out.min_dbm >= p.min_path_dbm;
  out.ok = rx_ok && min_ok;
  if (!rx_ok) {
    out.reason = Format("receiver power %.2f dBm < sensitivity %.2f dBm (RAMP §4.2)", out.rx_dbm,
                        p.rx_sensitivity_dbm);
  }
  if (!min_ok) {
    if (!out.reason.empty()) out.reason += "; ";
    out.reason += Format("power after %s %.2f dBm < %.2f dBm minimum along the path (RAMP §4.2)",
                         out.min_stage.c_str(), out.min_dbm, p.min_path_dbm);
  }
  return out;
}

bool budget_ok(const RampGeometry& g, const OpticalParams& p) {
  return power_budget(g, p).ok;
}

// --- Cost (RAMP §4.3, Table 3) ------------------------------------------------

CostReport cost(const RampGeometry& g, const CostInputs& c) {
  CostReport r;
  r.ramp_transceivers = g.nodes() * g.transceivers_per_node();
  r.ramp_couplers = g.subnets();
  const double capacity_gbit = g.total_node_capacity_bps() / kGbit;
  const double transceiver_gbit =
      static_cast<double>(r.ramp_transceivers) * static_cast<double>(g.line_rate_bps) / kGbit;
  // Each subnet's coupler carries Λ channels at B: b·x³·Λ·B port-Gbit/s in all.
  const double coupler_usd = c.coupler_usd_per_port_gbit * g.system_capacity_bps() / kGbit;
  auto ramp = [&](double usd_per_gbit) {
    const double transceiver_usd = usd_per_gbit * transceiver_gbit;
    const double total = transceiver_usd + coupler_usd;
    return CostFigures{total / capacity_gbit, transceiver_usd / total, coupler_usd / total};
  };
  r.ramp_low = ramp(c.ocs_transceiver_usd_per_gbit_low);
  r.ramp_high = ramp(c.ocs_transceiver_usd_per_gbit_high);

  const double port_gbit = static_cast<double>(c.eps_port_rate_bps) / kGbit;
  const double eps_tr_usd =
      c.eps_transceiver_usd_per_gbit * static_cast<double>(c.eps_transceivers) * port_gbit;
  const double eps_sw_usd = c.eps_switch_usd_per_gbit * static_cast<double>(c.eps_switches) *
                            c.eps_switch_ports * port_gbit;
  const double eps_total = eps_tr_usd + eps_sw_usd;
  const double eps_capacity_gbit =
      static_cast<double>(c.eps_nodes) * static_cast<double>(c.eps_node_rate_bps) / kGbit;
  r.eps =
      CostFigures{eps_total / eps_capacity_gbit, eps_tr_usd / eps_total, eps_sw_usd / eps_total};
  r.reduction_low = r.eps.usd_per_gbit / r.ramp_high.usd_per_gbit;
  r.reduction_high = r.eps.usd_per_gbit / r.ramp_low.usd_per_gbit;
  return r;
}

ClosCounts folded_clos_counts(std::uint64_t hosts, std::uint32_t radix, std::uint32_t tiers) {
  ClosCounts c;
  if (radix == 0 || tiers == 0) return c;
  c.switches = (2.0 * tiers - 1.0) * static_cast<double>(hosts) / radix;
  c.switch_ports = c.switches * radix;
  return c;
}

// --- Power (RAMP §4.3, Table 4) -----------------------------------------------

double ramp_pj_per_bit_path(std::uint64_t line_rate_bps, const RampPowerInputs& p) {
  const double rate = static_cast<double>(line_rate_bps);
  // A RAMP path is one hop: one transceiver (Tx + Rx) and its two SOA gates.
  double pj = PicojoulePerBit(p.transceiver_w, rate);
  if (!p.soa_in_transceiver) pj += p.soas_per_path * PicojoulePerBit(p.soa_w, rate);
  return pj;
}

double eps_pj_per_bit_path(const EpsPowerInputs& e, std::uint32_t switches,
                           std::uint32_t transceivers) {
  EpsPowerInputs path = e;
  path.switches_per_path = switches;
  path.transceivers_per_path = transceivers;
  return EpsFigures(path, 1.0).pj_per_bit_path_low;
}

PowerReport power(const RampGeometry& g, const PowerInputs& p) {
  PowerReport r;
  r.capacity_bps = g.total_node_capacity_bps();
  const double pj = ramp_pj_per_bit_path(g.line_rate_bps, p.ramp);
  r.ramp.name = "RAMP";
  r.ramp.pj_per_bit_path_low = r.ramp.pj_per_bit_path_high = pj;
  r.ramp.total_mw_low = r.ramp.total_mw_high = pj * 1e-12 * r.capacity_bps / 1e6;
  r.ramp.w_per_gbps_low = r.ramp.w_per_gbps_high =
      r.ramp.total_mw_low * 1e6 / (r.capacity_bps / kGbit);
  r.superpod = EpsFigures(p.superpod, r.capacity_bps);
  r.fat_tree = EpsFigures(p.fat_tree, r.capacity_bps);
  return r;
}

// --- Report -------------------------------------------------------------------

std::string describe_physical(const RampGeometry& g, const OpticalParams& optics,
                              const CostInputs& costs, const PowerInputs& powers) {
  std::string s = Format("RAMP physical model (%s subnets): x=%u J=%u Lambda=%u b=%u B=%s\n",
                         to_string(g.kind), g.x, g.J, g.Lambda, g.b,
                         base::format_capacity_bps(static_cast<double>(g.line_rate_bps)).c_str());
  if (const auto errors = validate(g); !errors.empty()) {
    for (const auto& e : errors) s += "  INVALID: " + e + "\n";
    return s;
  }
  const LinkCounts links = link_counts(g);
  s += Format("  nodes            %llu (%u groups x %u racks x %u nodes/rack)\n",
              static_cast<unsigned long long>(g.nodes()), g.x, g.J, g.Lambda);
  s += Format("  node capacity    %s (%llu transceivers x %s)\n",
              base::format_capacity_bps(g.node_capacity_bps()).c_str(),
              static_cast<unsigned long long>(g.transceivers_per_node()),
              base::format_capacity_bps(static_cast<double>(g.line_rate_bps)).c_str());
  s += Format("  subnets          %llu (b*x^3), %llu ports per side\n",
              static_cast<unsigned long long>(g.subnets()),
              static_cast<unsigned long long>(g.subnet_ports()));
  s += Format("  system capacity  %s (subnets x Lambda x B)\n",
              base::format_capacity_bps(g.system_capacity_bps()).c_str());
  s += Format("  bisection        %s (half the total node capacity)\n",
              base::format_capacity_bps(g.bisection_bps()).c_str());
  s += Format("  transceivers     %llu; edge SOAs %llu; edge fibres %llu; cables (2Jx^2) %llu\n",
              static_cast<unsigned long long>(links.transceivers),
              static_cast<unsigned long long>(links.edge_soas),
              static_cast<unsigned long long>(links.edge_fibres),
              static_cast<unsigned long long>(links.grouped_cables));

  const PowerBudget budget = power_budget(g, optics);
  s += "  power budget (RAMP §4.2, Fig. 6), power after each component:\n";
  for (const auto& st : budget.stages) {
    s += Format("    %-34s %+7.2f dB  %7.2f dBm\n", st.name.c_str(), st.gain_db, st.power_dbm);
  }
  s += Format("    receiver %.2f dBm (>= %.1f), minimum %.2f dBm (>= %.1f): %s\n", budget.rx_dbm,
              optics.rx_sensitivity_dbm, budget.min_dbm, optics.min_path_dbm,
              budget.ok ? "OK" : "VIOLATED");
  if (!budget.ok) s += "    " + budget.reason + "\n";

  const PowerReport pw = power(g, powers);
  s += Format("  network power    %s MW, %s pJ/bit/path (RAMP §4.3, Table 4)\n",
              Range(pw.ramp.total_mw_low, pw.ramp.total_mw_high, "%.4g").c_str(),
              Range(pw.ramp.pj_per_bit_path_low, pw.ramp.pj_per_bit_path_high, "%.4g").c_str());
  const CostReport cr = cost(g, costs);
  s += Format(
      "  network cost     %.2f-%.2f $/Gbit, transceiver:coupler %.0f:%.0f - %.0f:%.0f "
      "(RAMP §4.3, Table 3)\n",
      cr.ramp_low.usd_per_gbit, cr.ramp_high.usd_per_gbit, 100.0 * cr.ramp_low.transceiver_share,
      100.0 * cr.ramp_low.switch_share, 100.0 * cr.ramp_high.transceiver_share,
      100.0 * cr.ramp_high.switch_share);
  return s;
}

std::vector<std::string> deviations() {
  const RampGeometry ref;
  const CostInputs ci;
  const PowerInputs pi;
  const CostReport cr = cost(ref, ci);
  const PowerReport pw = power(ref, pi);
  PowerInputs with_soa = pi;
  with_soa.ramp.soa_in_transceiver = false;
  const PowerReport pw_soa = power(ref, with_soa);
  const ClosCounts clos = folded_clos_counts(ci.eps_nodes, ci.eps_switch_ports, 3);
  const PowerBudget fig6 = power_budget(ref, OpticalParams{});
  double fig6_err = 0.0;
  const double fig6_paper[] = {8, -7, 15, -18, 4, -11};
  for (std::size_t i = 0; i < fig6.stages.size() && i < std::size(fig6_paper); ++i) {
    fig6_err = std::max(fig6_err, std::fabs(fig6.stages[i].power_dbm - fig6_paper[i]));
  }

  std::vector<std::string> d;
  d.push_back(Format(
      "RAMP §3.1 bisection bandwidth: the paper's 'ΛJx³/2' has no line rate and, read in units of "
      "b·B, gives %s, more than the total capacity; we use half the total node capacity, "
      "x·J·Λ·x·b·B/2 = %s at the reference point.",
      base::format_capacity_bps(static_cast<double>(ref.Lambda) * ref.J * ref.x * ref.x * ref.x /
                                2.0 * static_cast<double>(ref.line_rate_bps))
          .c_str(),
      base::format_capacity_bps(ref.bisection_bps()).c_str()));
  d.push_back(Format(
      "RAMP §3.1 total capacity: the paper's 'bBΛx²' is the capacity of one communication group; "
      "the network's node capacity is x·J·Λ·x·b·B = %s and its subnet capacity b·x³·Λ·B = %s "
      "(the abstract's 0.84 Ebps).",
      base::format_capacity_bps(ref.total_node_capacity_bps()).c_str(),
      base::format_capacity_bps(ref.system_capacity_bps()).c_str()));
  d.push_back(Format(
      "RAMP §4.2, Fig. 6: component losses are ideal split losses (10·log10 n) with zero excess "
      "loss and a 22 dB SOA gain; Fig. 6 shows them rounded to whole dB (max difference %.2f dB). "
      "The SOA saturation power (20 dBm) and the AWGR loss (5 dB, R&B/R&S only) are assumptions "
      "not in the paper.",
      fig6_err));
  d.push_back(Format(
      "RAMP §4.3, Table 3 coupler cost: '$0.12 per port per Gbit' is applied per wavelength "
      "channel a subnet carries (Λ ports x B per coupler), giving the table's +$%.2f/Gbit; "
      "applied to all J·Λ coupler ports it would be %.2f $/Gbit (J times more). With J < x the "
      "coupler share grows by x/J.",
      cr.ramp_low.usd_per_gbit - ci.ocs_transceiver_usd_per_gbit_low,
      ci.coupler_usd_per_port_gbit * ref.J));
  d.push_back(Format(
      "RAMP §4.3, Table 3 EPS counts (%llu transceivers, %llu switches) are inputs: they satisfy "
      "transceivers = switches x 40 ports, but a 3-tier full-bisection folded Clos of 40-port "
      "switches for %llu hosts has %.0f switches and %.0f ports (%.1f%% fewer). EPS cost = "
      "(transceivers + switch ports) x 200 Gb/s x $/Gbit over nodes x 200 Gb/s = %.3f $/Gbit "
      "(table 20.12).",
      static_cast<unsigned long long>(ci.eps_transceivers),
      static_cast<unsigned long long>(ci.eps_switches),
      static_cast<unsigned long long>(ci.eps_nodes), clos.switches, clos.switch_ports,
      100.0 * (1.0 - clos.switches / static_cast<double>(ci.eps_switches)), cr.eps.usd_per_gbit));
  d.push_back(
      "RAMP §4.3, Table 3 layout is garbled (the count header splits into 'EPS', 'HPC Fat-Tree', "
      "'RAMP' over two columns; the ratio cell reads '93:7,98:2'): we read the columns as EPS "
      "HPC fat-tree and RAMP, the RAMP counts being nodes·x·b = 2,097,152 transceivers and "
      "b·x³ = 32,768 couplers, both computed from the geometry, and the two ratios as the low "
      "and high transceiver prices.");
  d.push_back(Format(
      "RAMP §4.3, Table 4 'Comp./path' = 11 for the EPS networks is read as 5 switches + 6 "
      "transceivers of a 3-tier fat-tree path; per-component energy = power / throughput "
      "(QM8790: 404 W / (40 x 200 Gb/s); transceiver 4.35 W / 200 Gb/s) gives %.1f pJ/bit/path "
      "(table 383, text 382).",
      pw.superpod.pj_per_bit_path_low));
  d.push_back(Format(
      "RAMP §4.3, Table 4 RAMP: 8.5 pJ/bit/path and 7.1 MW are the transceiver alone (3.39 W / "
      "400 Gb/s = %.3f pJ/bit, x %llu transceivers = %.3f MW); the SOA power is taken to be inside "
      "the integrated transceiver (§4.3 'with the laser, modulator, SOAs'). Counting the 2 x "
      "0.88 W SOAs per path separately gives %.3f pJ/bit and %.2f MW.",
      pw.ramp.pj_per_bit_path_low, static_cast<unsigned long long>(cr.ramp_transceivers),
      pw.ramp.total_mw_low, pw_soa.ramp.pj_per_bit_path_low, pw_soa.ramp.total_mw_low));
  d.push_back(Format(
      "RAMP §4.3, Table 4 'Power/Gbps' (3.98, 4.04, 0.085 W/Gbps) is 10x total power / total "
      "capacity in every column (334 MW / 838.9 Pb/s = 0.398 W/Gbps, 8.5 pJ/bit = 0.0085 W/Gbps); "
      "we report total / capacity: RAMP %.4f, SuperPod %.3f, fat-tree %.3f-%.3f W/Gbps.",
      pw.ramp.w_per_gbps_low, pw.superpod.w_per_gbps_low, pw.fat_tree.w_per_gbps_low,
      pw.fat_tree.w_per_gbps_high));
  d.push_back(Format(
      "RAMP §4.3, Table 4 totals: total = energy/bit/path x total node capacity. SuperPod gives "
      "%.1f MW (table 334, %.1f%% lower; the table's 334 MW implies 398 pJ/bit, not 383). Table "
      "4's totals and pJ/bit are not mutually consistent for the EPS columns.",
      pw.superpod.total_mw_low, 100.0 * (1.0 - pw.superpod.total_mw_low / 334.0)));
  d.push_back(Format(
      "RAMP §4.3, Table 4 fat-tree: the switch is taken as an Arista 7170-64C (64 x 100 GbE; not "
      "stated in the paper) with 100 Gb/s transceivers of 0.5-3.5 W, giving a range %.1f-%.1f "
      "pJ/bit/path and %.1f-%.1f MW that brackets the table's single 361 pJ/bit and 339 MW "
      "(361 corresponds to %.2f W per transceiver).",
      pw.fat_tree.pj_per_bit_path_low, pw.fat_tree.pj_per_bit_path_high, pw.fat_tree.total_mw_low,
      pw.fat_tree.total_mw_high, FatTreeTransceiverWattsFor(pi.fat_tree, 361.0)));
  return d;
}

}  // namespace sipsim::fabric::ramp
