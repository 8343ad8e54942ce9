#pragma once
// Physical models of the RAMP optical network (the RAMP paper; docs/models.md, "RAMP physical
// models"): geometry and derived counts (RAMP §3.1, Table 2), the optical power budget along the
// worst path (RAMP §4.2, Fig. 6), network cost (RAMP §4.3, Table 3) and power consumption (RAMP
// §4.3, Table 4). Every figure is computed from per-component inputs; the paper's totals are never
// stored, only used by the tests as targets. Where the paper's tables are garbled or inconsistent,
// deviations() lists what this model does instead and why.
#include <cstdint>
#include <string>
#include <vector>

namespace sipsim::fabric::ramp {

// Wavelength channels of the time-interleaved tunable source (RAMP §4.1: "122
// wavelength channels"); Λ (nodes per rack = wavelengths) may not exceed it.
inline constexpr std::uint32_t kMaxWavelengthChannels = 122;

// RAMP §3.1: x communication groups of J racks of Λ nodes; each node has x
// transceiver groups of b transceivers at line rate B.
struct RampGeometry {
  // Subnet between a (source group, destination group, transceiver) triple.
  enum class SubnetKind {
    kBroadcastSelect,  // one JΛ x JΛ star coupler (B&S, fixed receivers)
    kRouteBroadcast,   // J parallel Λ x Λ AWGRs, then Λ parallel J x J star couplers
    kRouteSwitch,      // the same AWGRs, then Λ SOA-gated J x J crossbars
  };

  std::uint32_t x = 32;       // communication groups (= transceiver groups per node)
  std::uint32_t J = 32;       // racks per group, J <= x
  std::uint32_t Lambda = 64;  // nodes per rack = wavelength channels
  std::uint32_t b = 1;        // transceivers per transceiver group (spatial planes)
  std::uint64_t line_rate_bps = 400'000'000'000;  // B, per transceiver
  SubnetKind kind = SubnetKind::kBroadcastSelect;

  // --- Derived quantities (RAMP §3.1, Table 2). Counts are exact integers;
  // capacities are doubles because b·B·Λ·x³ can exceed 2^64 for large b.
  // Nodes: x·J·Λ (at most Λx² since J <= x).
  std::uint64_t nodes() const { return std::uint64_t{x} * J * Lambda; }
  // Transceivers per node: x groups of b.
  std::uint64_t transceivers_per_node() const { return std::uint64_t{x} * b; }
  // Node capacity x·b·B (12.8 Tb/s at the reference point).
  double node_capacity_bps() const;
  // Sum of all node capacities: nodes · x·b·B.
  double total_node_capacity_bps() const;
  // Subnets: one per (source group, destination group, transceiver): b·x³.
  std::uint64_t subnets() const { return std::uint64_t{b} * x * x * x; }
  // Ports on each side of one subnet: the J·Λ nodes of a group.
  std::uint64_t subnet_ports() const { return std::uint64_t{J} * Lambda; }
  // Subnet (core) capacity: each subnet carries at most Λ concurrent channels
  // (one transmitter per wavelength, rule (c)), so b·x³·Λ·B (0.84 Eb/s at the
  // reference point, the paper's "system capacity"). >= total node capacity.
  double system_capacity_bps() const;
  // Bisection bandwidth, defined here as half the total node capacity: the
  // network is non-blocking (re-arrangeably, when scheduled), so any half of
  // the nodes can send at full capacity to the other half. See deviations().
  double bisection_bps() const { return total_node_capacity_bps() / 2.0; }
};

const char* to_string(RampGeometry::SubnetKind kind);

// Physical link and component counts of a geometry (RAMP §3.1, Fig. 3).
struct LinkCounts {
  std::uint64_t transceivers = 0;  // nodes · x·b (each = one Tx + one Rx)
  std::uint64_t splitters = 0;     // one 1:x SOA-gated splitter per transmitter
  std::uint64_t combiners = 0;     // one x:1 SOA-gated combiner per receiver
  std::uint64_t edge_soas = 0;     // SOA gate per splitter/combiner port: 2x per transceiver
  std::uint64_t core_soas = 0;     // crossbar SOAs (R&S only): b·x³ · Λ · J²
  std::uint64_t edge_fibres = 0;   // splitter/combiner port <-> subnet port, both directions
  std::uint64_t coupler_ports_per_side = 0;  // all subnets: b·x³ · JΛ (= nodes·x·b·x)
  std::uint64_t grouped_cables = 0;          // paper's "2Jx²": per (rack, group) pair, Tx and Rx
  std::uint64_t star_couplers = 0;           // B&S: b·x³; R&B: b·x³·Λ (J x J); R&S: 0
  std::uint64_t awgrs = 0;                   // R&B / R&S: b·x³·J (Λ x Λ)
};
LinkCounts link_counts(const RampGeometry& g);

// All violations of RAMP §3.1 (J <= x, positive parameters), §4.1 (Λ <=
// max_wavelengths) and of the 32-bit node id range; each message starts with the
// parameter's name. Empty = valid.
std::vector<std::string> validate(const RampGeometry& g,
                                  std::uint32_t max_wavelengths = kMaxWavelengthChannels);
// validate() plus the RAMP-x collective construction (docs/models.md, "RAMP-x collectives"): Λ =
// D·x with D <= x.
std::vector<std::string> validate_for_ramp_x(
    const RampGeometry& g, std::uint32_t max_wavelengths = kMaxWavelengthChannels);

// ---------------------------------------------------------------------------
// Power budget (RAMP §4.2, Fig. 6).
//
// Losses are physical: an ideal 1:n split or n:1 combination costs 10·log10(n)
// dB, plus a per-device excess loss. Fig. 6's values at the reference point
// (15 dB per 1:32 split, 33 dB for the 2048-port coupler, 22 dB per SOA) are
// reproduced with zero excess losses and a 22 dB SOA gain (max error 0.21 dB).
struct OpticalParams {
  double tx_launch_dbm = 8.0;  // Fig. 6: 8 dBm
  double soa_gain_db = 22.0;   // Fig. 6: -7 -> 15 and -18 -> 4 dBm
  // SOA saturated output power: the gain compresses so the output never exceeds
  // it. Not in the paper (assumption); inactive at the reference point (15 dBm).
  double soa_saturation_dbm = 20.0;
  double splitter_excess_db = 0.0;    // 1:x splitter, above 10·log10(x)
  double combiner_excess_db = 0.0;    // x:1 combiner, above 10·log10(x)
  double coupler_excess_db = 0.0;     // star coupler, above 10·log10(ports)
  double awgr_loss_db = 5.0;          // R&B / R&S only; not in the paper (assumption)
  double rx_filter_loss_db = 0.0;     // fixed wavelength filter before the receiver
  double rx_sensitivity_dbm = -15.0;  // §4.2: receiver must see >= -15 dBm
  double min_path_dbm = -20.0;        // §4.2: no point on the path below -20 dBm
};

struct BudgetStage {
  std::string name;  // component, e.g. "1:32 splitter"
  double gain_db;    // gain (> 0) or minus the loss of this component
  double power_dbm;  // optical power after it
};

struct PowerBudget {
  std::vector<BudgetStage> stages;  // first = Tx launch, last = receiver input
  double rx_dbm = 0.0;              // power at the receiver (last stage)
  double min_dbm = 0.0;             // minimum over all stages
  std::string min_stage;            // where the minimum occurs
  bool ok = false;                  // rx >= sensitivity and min >= min_path_dbm
  std::string reason;               // why not ok (empty if ok)
};

// Worst (lossiest) path of the geometry's subnet kind. An invalid geometry gives
// ok = false, no stages and the first validation error as reason.
PowerBudget power_budget(const RampGeometry& g, const OpticalParams& p = {});
// power_budget(g, p).ok: lets the caller refuse a configuration.
bool budget_ok(const RampGeometry& g, const OpticalParams& p = {});

// ---------------------------------------------------------------------------
// Cost (RAMP §4.3, Table 3). Costs are $ per Gbit/s of component capacity; a
// network's cost per Gbit is its total cost over its total node capacity.
struct CostInputs {
  // RAMP (OCS): integrated transceivers cost 1.5-6x the EPS transceivers.
  double ocs_transceiver_usd_per_gbit_low = 1.50;
  double ocs_transceiver_usd_per_gbit_high = 6.00;
  // Star coupler, "normalised to per-port per-Gbit" (§4.3); a port here is one of
  // the Λ wavelength channels a subnet carries concurrently (see deviations()).
  double coupler_usd_per_port_gbit = 0.12;
  // EPS fat-tree reference (1:12 oversubscribed, QM8790 40 x 200 Gb/s switches).
  double eps_transceiver_usd_per_gbit = 1.00;
  double eps_switch_usd_per_gbit = 2.96;  // per Gbit/s of switch port capacity
  std::uint64_t eps_nodes = 65'536;
  std::uint64_t eps_node_rate_bps = 200'000'000'000;  // per node into the fat-tree
  std::uint64_t eps_transceivers = 332'800;           // Table 3 count (input)
  std::uint64_t eps_switches = 8'320;                 // Table 3 count (input)
  std::uint32_t eps_switch_ports = 40;
  std::uint64_t eps_port_rate_bps = 200'000'000'000;
};

struct CostFigures {
  double usd_per_gbit = 0.0;
  double transceiver_share = 0.0;  // fraction of the cost, in [0, 1]
  double switch_share = 0.0;       // switches (EPS) or couplers (RAMP)
};

struct CostReport {
  std::uint64_t ramp_transceivers = 0;
  std::uint64_t ramp_couplers = 0;  // one per subnet
  CostFigures ramp_low;             // with ocs_transceiver_usd_per_gbit_low
  CostFigures ramp_high;
  CostFigures eps;
  double reduction_low = 0.0;   // eps / ramp_high
  double reduction_high = 0.0;  // eps / ramp_low
};
CostReport cost(const RampGeometry& g, const CostInputs& c = {});

// Switches and switch ports (= transceivers, one per port) of a full-bisection
// folded Clos with `tiers` tiers of `radix`-port switches and `hosts` host ports:
// (2·tiers − 1)·hosts/radix switches. 3 tiers, radix 40, 65,536 hosts: 8,192 and
// 327,680, vs Table 3's 8,320 and 332,800 (see deviations()).
struct ClosCounts {
  double switches = 0.0;
  double switch_ports = 0.0;
};
ClosCounts folded_clos_counts(std::uint64_t hosts, std::uint32_t radix, std::uint32_t tiers);

// ---------------------------------------------------------------------------
// Power (RAMP §4.3, Table 4). Energy per bit per path = sum over the components a
// bit crosses of (component power / component throughput). Total power = energy
// per bit per path x total node capacity of the compared (same-scale) network.
struct RampPowerInputs {
  double soa_w = 0.88;              // per SOA gate [27]
  std::uint32_t soas_per_path = 2;  // Tx-side and Rx-side gate
  double transceiver_w = 3.39;      // per transceiver [14]
  // §4.3 prices RAMP transceivers as integrated devices "with the laser,
  // modulator, SOAs"; Table 4's 8.5 pJ/bit and 7.1 MW only hold if the SOA power
  // is inside the 3.39 W. false adds 2 x 0.88 W per active path (see deviations()).
  bool soa_in_transceiver = true;
};

struct EpsPowerInputs {
  std::string name;
  std::string switch_model;
  double switch_w = 0.0;
  std::uint32_t switch_ports = 0;
  std::uint64_t switch_port_rate_bps = 0;
  std::uint32_t switches_per_path = 0;      // 5 on a 3-tier fat-tree path
  std::uint32_t transceivers_per_path = 0;  // 6 links -> 6 transceivers
  double transceiver_w_low = 0.0;
  double transceiver_w_high = 0.0;
  std::uint64_t transceiver_rate_bps = 0;
};

struct PowerInputs {
  RampPowerInputs ramp;
  EpsPowerInputs superpod{"SuperPod", "NVidia QM8790", 404.0, 40, 200'000'000'000, 5, 6, 4.35,
                          4.35,       200'000'000'000};
  // Arista 7170-64C: 64 x 100 GbE (port count and rate not in the paper).
  EpsPowerInputs fat_tree{"Fat-tree", "Arista 7170", 271.0,          64, 100'000'000'000, 5, 6,
                          0.5,        3.5,           100'000'000'000};
};

struct PowerFigures {
  std::string name;
  double pj_per_bit_path_low = 0.0;
  double pj_per_bit_path_high = 0.0;
  double w_per_gbps_low = 0.0;  // total power / total node capacity in Gb/s
  double w_per_gbps_high = 0.0;
  double total_mw_low = 0.0;
  double total_mw_high = 0.0;
};

struct PowerReport {
  double capacity_bps = 0.0;  // total node capacity all three networks are sized for
  PowerFigures ramp;
  PowerFigures superpod;
  PowerFigures fat_tree;
};
PowerReport power(const RampGeometry& g, const PowerInputs& p = {});
// Table 4's energy per bit of one path, in pJ (what power() reports), for
// Report::energy_pj_per_bit: RAMP's one hop at `line_rate_bps`, and an EPS
// path through `switches` switches and `transceivers` transceivers (5 and 6 on
// Table 4's 3-tier fat-tree) with the low transceiver power.
double ramp_pj_per_bit_path(std::uint64_t line_rate_bps, const RampPowerInputs& p = {});
double eps_pj_per_bit_path(const EpsPowerInputs& e, std::uint32_t switches,
                           std::uint32_t transceivers);

// ---------------------------------------------------------------------------
// Multi-line block for `sipsim info`: geometry, counts, power budget stage by
// stage with OK / VIOLATED, total power, energy per bit and cost per Gbit.
std::string describe_physical(const RampGeometry& g, const OpticalParams& optics = {},
                              const CostInputs& costs = {}, const PowerInputs& powers = {});

// Where this model departs from the paper's text or tables, with the numbers
// computed from the default inputs (for docs/models.md).
std::vector<std::string> deviations();

}  // namespace sipsim::fabric::ramp
