#include "sipsim/scenario/scenario.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/fabric/flat/elect_flat.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"
#include "sipsim/fabric/routed/routed_network.hpp"
#include "sipsim/pdes/models/phold_config.hpp"

namespace sipsim::scenario {

using base::Document;
using base::MapReader;
using base::ScenarioError;
using base::Value;

namespace {

std::uint32_t as_u32(const Value& v, std::uint64_t min, std::uint64_t max) {
  const std::uint64_t x = v.as_uint();
  if (x < min || x > max) {
    v.fail("must be between " + std::to_string(min) + " and " + std::to_string(max));
  }
  return static_cast<std::uint32_t>(x);
}

std::uint32_t get_u32(MapReader& m, std::string_view key, std::uint32_t fallback,
                      std::uint64_t min = 0,
                      std::uint64_t max = std::numeric_limits<std::uint32_t>::max()) {
  auto v = m.optional(key);
  return v ? as_u32(*v, min, max) : fallback;
}

std::uint64_t positive_rate(const Value& v) {
  const std::uint64_t r = v.as_bandwidth_bps();
  if (r == 0) v.fail("must be greater than 0");
  return r;
}

// --- fabrics ---------------------------------------------------------------

// RAMP §7.5: DGX-A100 SuperPod scaled to `nodes` GPUs. NVLink 2.4 Tb/s per GPU
// through a 100 ns NVSwitch (20 ns propagation); one NIC per GPU into a
// non-blocking fat-tree of 350 ns QM8790 switches; 10/50/1250 ns between tiers.
// Leaves take 16 NICs (a power of two below the QM8790's 20 down ports), each
// upper tier 16 children, the top tier the rest: 4 tiers at 65,536 GPUs.
void superpod_tiers(fabric::ClusterSpec& c, std::uint32_t endpoints, std::uint64_t rate) {
  static constexpr pdes::Time kProp[] = {10 * pdes::kNanosecond, 10 * pdes::kNanosecond,
                                         50 * pdes::kNanosecond, 1250 * pdes::kNanosecond};
  std::vector<std::uint32_t> downs;
  std::uint32_t rest = endpoints;
  while (downs.size() < 3 && rest > 16 && rest % 16 == 0) {
    downs.push_back(16);
    rest /= 16;
  }
  downs.push_back(rest);
  c.tiers.clear();
  for (std::size_t t = 0; t < downs.size(); ++t) {
    fabric::TierSpec tier;
    tier.down = downs[t];
    tier.oversubscription = 1;
    tier.up_rate_bps = rate;
    tier.switch_latency = 350 * pdes::kNanosecond;
    tier.propagation = kProp[std::min<std::size_t>(t, 3)];
    c.tiers.push_back(tier);
  }
}

void load_cluster(MapReader& f, RoutedConfig& r) {
  fabric::ClusterSpec& c = r.cluster;
  const std::string preset =
      f.has("preset") ? f.required("preset").as_enum({"superpod", "superpod-1to1", "elect-cluster"})
                      : std::string();
  c.server_size = get_u32(f, "server_size", 8, 1);
  if (r.nodes % c.server_size != 0) {
    f.required("server_size").fail("must divide the node count (" + std::to_string(r.nodes) + ")");
  }
  std::uint64_t nic_rate = 0;
  if (preset == "superpod" || preset == "superpod-1to1") {
    // 1:12 = 200 Gb/s NIC per GPU against 2.4 Tb/s NVLink; 1:1 = 2.4 Tb/s NIC (RAMP §7.5, Fig. 21).
    c.intra_rate_bps = 2'400'000'000'000;
    c.intra_switch_latency = 100 * pdes::kNanosecond;
    c.intra_propagation = 20 * pdes::kNanosecond;
    c.nic = fabric::ClusterSpec::Nic::kPerNode;
    nic_rate = preset == "superpod" ? 200'000'000'000 : 2'400'000'000'000;
  } else if (preset == "elect-cluster") {
    // SiP-ML §4.1: 8 GPUs per server on an internal switch, servers at 400 Gb/s.
    c.intra_switch_latency = 100 * pdes::kNanosecond;
    c.intra_propagation = 20 * pdes::kNanosecond;
    c.nic = fabric::ClusterSpec::Nic::kPerServer;
    nic_rate = 400'000'000'000;
  }
  if (auto intra = f.optional("intra")) {
    MapReader m = intra->as_map();
    if (auto b = m.optional("bandwidth")) c.intra_rate_bps = positive_rate(*b);
    c.intra_switch_latency = m.get_time_ps("switch_latency", c.intra_switch_latency);
    c.intra_propagation = m.get_time_ps("propagation", c.intra_propagation);
    m.finish();
  }
  if (c.server_size > 1 && c.intra_rate_bps == 0) {
    f.value().fail("needs intra.bandwidth (the accelerators' bandwidth to their server switch)");
  }
  if (auto nic = f.optional("nic")) {
    MapReader m = nic->as_map();
    if (auto per = m.optional("per")) {
      c.nic = per->as_enum({"node", "server"}) == "node" ? fabric::ClusterSpec::Nic::kPerNode
                                                         : fabric::ClusterSpec::Nic::kPerServer;
    }
    if (auto b = m.optional("bandwidth")) nic_rate = positive_rate(*b);
    m.finish();
  }
  if (nic_rate == 0) f.value().fail("needs nic.bandwidth (or a preset)");
  c.nic_rate_bps = nic_rate;
  const std::uint32_t endpoints =
      c.nic == fabric::ClusterSpec::Nic::kPerNode ? r.nodes : r.nodes / c.server_size;
  if (auto tiers = f.optional("tiers")) {
    c.tiers.clear();
    for (const Value& t : tiers->as_list()) {
      MapReader m = t.as_map();
      fabric::TierSpec tier;
      tier.down = as_u32(m.required("down"), 1, std::numeric_limits<std::uint32_t>::max());
      tier.oversubscription = get_u32(m, "oversubscription", 1, 1);
      tier.up_rate_bps = m.has("uplink") ? positive_rate(m.required("uplink")) : nic_rate;
      tier.switch_latency = m.get_time_ps("switch_latency", 0);
      tier.propagation = m.get_time_ps("propagation", 0);
      m.finish();
      c.tiers.push_back(tier);
    }
    if (c.tiers.empty()) tiers->fail("needs at least one tier");
  } else if (preset == "elect-cluster") {
    fabric::TierSpec tier;  // one non-blocking switch joining every server
    tier.down = endpoints;
    tier.up_rate_bps = nic_rate;
    tier.switch_latency = 350 * pdes::kNanosecond;
    tier.propagation = 10 * pdes::kNanosecond;
    c.tiers = {tier};
  } else if (!preset.empty()) {
    superpod_tiers(c, endpoints, nic_rate);
  } else {
    f.value().fail("needs tiers (or a preset)");
  }
}

FabricConfig load_fabric(const Value& value) {
  MapReader f = value.as_map();
  const std::string type =
      f.required("type").as_enum({"elect-flat", "cluster", "torus2d", "bcube", "topoopt", "ramp"});
  FabricConfig out;
  if (type == "ramp") {
    // Defaults: the 65,536-node reference point (RAMP §4.2, MODELS.md §1).
    RampConfig r;
    fabric::RampSpec& s = r.spec;
    s.x = get_u32(f, "x", s.x, 1, 256);
    s.J = get_u32(f, "J", s.J, 1, 256);
    s.Lambda = get_u32(f, "Lambda", s.Lambda, 1, 65536);
    s.b = get_u32(f, "b", s.b, 1, 255);
    if (auto v = f.optional("line_rate")) s.line_rate_bps = positive_rate(*v);
    if (auto v = f.optional("subnet")) {
      const std::string kind =
          v->as_enum({"broadcast-and-select", "route-and-broadcast", "route-and-switch"});
      r.geometry.kind =
          kind == "route-and-broadcast" ? fabric::ramp::RampGeometry::SubnetKind::kRouteBroadcast
          : kind == "route-and-switch"  ? fabric::ramp::RampGeometry::SubnetKind::kRouteSwitch
                                        : fabric::ramp::RampGeometry::SubnetKind::kBroadcastSelect;
    }
    if (auto phys = f.optional("physical")) {
      // Component values of RAMP §4.2 Fig. 6, Table 3 and Table 4 (defaults: the paper's).
      MapReader m = phys->as_map();
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
    s.permissive = f.get_bool("permissive", false);
    r.ignore_power_budget = f.get_bool("ignore_power_budget", false);
    r.extra_transceivers = f.get_bool("extra_transceivers", true);
    if (s.J > s.x) f.required("J").fail("must not exceed x (" + std::to_string(s.x) + ")");
    if (s.Lambda % s.x != 0 || s.Lambda / s.x > s.x) {
      f.required("Lambda").fail("must be D*x with 1 <= D <= x (RAMP-x needs it; MODELS.md §1)");
    }
    if (s.slot <= s.reconfiguration) {
      f.required("slot").fail("must be longer than the reconfiguration time");
    }
    if (s.io_latency == 0) f.required("io_latency").fail("must be greater than 0");
    if (s.propagation == 0) f.required("propagation").fail("must be greater than 0");
    r.geometry.x = s.x;
    r.geometry.J = s.J;
    r.geometry.Lambda = s.Lambda;
    r.geometry.b = s.b;
    r.geometry.line_rate_bps = s.line_rate_bps;
    if (const auto errors = fabric::ramp::validate(r.geometry); !errors.empty()) {
      value.fail(errors.front());
    }
    // RAMP §4.2: the receiver must see >= -15 dBm and no point may fall below
    // -20 dBm; a geometry that breaks the budget is refused unless overridden.
    const auto budget = fabric::ramp::power_budget(r.geometry, r.optics);
    if (!budget.ok && !r.ignore_power_budget) {
      char msg[256];
      std::snprintf(msg, sizeof msg,
                    "optical power budget fails (RAMP §4.2): %g dBm at the receiver (needs >= "
                    "%g), %g dBm at the weakest point (needs >= %g); set "
                    "ignore_power_budget: true to run anyway",
                    budget.rx_dbm, r.optics.rx_sensitivity_dbm, budget.min_dbm,
                    r.optics.min_path_dbm);
      value.fail(msg);
    }
    out = r;
  } else if (type == "elect-flat") {
    ElectFlatConfig c;
    c.nodes = as_u32(f.required("nodes"), 2, 1u << 24);
    c.bandwidth_bps = positive_rate(f.required("bandwidth"));
    c.latency = f.required("latency").as_time_ps();
    out = c;
  } else {
    RoutedConfig r;
    r.type = type;
    r.chunk_bytes = f.get_bytes("chunk", r.chunk_bytes);
    if (r.chunk_bytes == 0) f.required("chunk").fail("must be greater than 0");
    // RAMP §7.5: "the minimum in-out latency per node" (100 ns there), per message.
    r.io_latency = f.get_time_ps("io_latency", 0);
    if (type == "cluster") {
      r.nodes = as_u32(f.required("nodes"), 2, 1u << 24);
      load_cluster(f, r);
    } else if (type == "torus2d") {
      const Value dims = f.required("dims");
      const auto list = dims.as_list();
      if (list.size() != 2) dims.fail("expected two dimensions, e.g. [128, 512]");
      r.torus.dims[0] = as_u32(list[0], 1, 1u << 16);
      r.torus.dims[1] = as_u32(list[1], 1, 1u << 16);
      r.nodes = r.torus.dims[0] * r.torus.dims[1];
      if (r.nodes < 2) dims.fail("a torus needs at least two nodes");
      r.torus.link_rate_bps = positive_rate(f.required("link_bandwidth"));
      r.torus.hop_latency = f.required("hop_latency").as_time_ps();
    } else if (type == "bcube") {
      r.bcube.ports = as_u32(f.required("ports"), 2, 1024);
      r.bcube.levels = as_u32(f.required("levels"), 1, 8);
      r.bcube.link_rate_bps = positive_rate(f.required("link_bandwidth"));
      r.bcube.switch_latency = f.get_time_ps("switch_latency", 0);
      r.bcube.propagation = f.get_time_ps("propagation", 0);
      std::uint64_t n = 1;
      for (std::uint32_t l = 0; l < r.bcube.levels; ++l) {
        n *= r.bcube.ports;
        if (n > (1u << 24)) f.required("levels").fail("more than 2^24 nodes");
      }
      r.nodes = static_cast<std::uint32_t>(n);
    } else {  // topoopt
      r.nodes = as_u32(f.required("nodes"), 2, 1u << 24);
      r.topoopt.degree = get_u32(f, "degree", 4, 2, 64);
      r.topoopt.link_rate_bps = positive_rate(f.required("link_bandwidth"));
      r.topoopt.link_latency = f.required("latency").as_time_ps();
    }
    out = r;
  }
  f.finish();
  return out;
}

// --- compute ---------------------------------------------------------------

compute::Accelerator load_compute(std::optional<Value> value) {
  compute::Accelerator acc = compute::a100();
  if (!value) return acc;
  MapReader m = value->as_map();
  if (auto preset = m.optional("preset")) preset->as_enum({"a100"});
  compute::Dtype dtype = compute::Dtype::kFloat32;
  if (auto d = m.optional("dtype")) {
    const std::string name = d->as_enum({"float32", "float16", "bfloat16"});
    dtype = name == "float16"    ? compute::Dtype::kFloat16
            : name == "bfloat16" ? compute::Dtype::kBfloat16
                                 : compute::Dtype::kFloat32;
  }
  acc = compute::a100(dtype);
  if (auto bw = m.optional("memory_bandwidth")) {
    acc.memory_bytes_per_s = positive_rate(*bw) / 8;
    acc.name = "custom";
  }
  if (auto tf = m.optional("peak_tflops")) {
    const double t = tf->as_double();
    if (!(t > 0) || t > 1e6) tf->fail("must be a positive number of TFLOP/s");
    acc.peak_flops = static_cast<std::uint64_t>(t * 1e12);
    acc.name = "custom";
  }
  m.finish();
  return acc;
}

// --- collectives -----------------------------------------------------------

workload::CollectivesConfig load_collectives(MapReader& w, bool& auto_algorithm) {
  workload::CollectivesConfig c;
  const std::string op = w.required("op").as_enum(collective::op_names());
  c.op = *collective::parse_op(op);
  std::vector<std::string> algos = collective::algorithm_names();
  algos.push_back("auto");
  const std::string algo = w.required("algorithm").as_enum(algos);
  auto_algorithm = algo == "auto";
  if (!auto_algorithm) c.algorithm = *collective::parse_algorithm(algo);
  c.root = get_u32(w, "root", 0);
  if (auto dims = w.optional("dims")) {
    const auto list = dims->as_list();
    if (list.size() < 2 || list.size() > collective::kMaxLevels) {
      dims->fail("expected 2 to " + std::to_string(collective::kMaxLevels) +
                 " numbers: the level sizes, innermost first (torus2d: [X, Y])");
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      c.params.hierarchy[i] = as_u32(list[i], 1, std::numeric_limits<std::uint32_t>::max());
    }
    c.params.torus = c.params.hierarchy;  // the 2D torus needs exactly two
  }
  if (auto g = w.optional("group")) {
    MapReader m = g->as_map();
    c.group.first = get_u32(m, "first", 0);
    c.group.count = get_u32(m, "count", 0, 1);
    c.group.stride = get_u32(m, "stride", 1, 1);
    m.finish();
  }
  if (w.has("size") && w.has("sizes")) w.required("sizes").fail("give either size or sizes");
  if (auto size = w.optional("size")) {
    c.min_bytes = c.max_bytes = size->as_bytes();
  } else {
    MapReader m = w.required("sizes").as_map();
    c.min_bytes = m.required("min").as_bytes();
    c.max_bytes = m.required("max").as_bytes();
    if (c.max_bytes < c.min_bytes) m.required("max").fail("must not be below min");
    c.factor = get_u32(m, "factor", 2, 2, 1024);
    if (c.min_bytes == 0 && c.max_bytes > 0) m.required("min").fail("must be > 0 for a sweep");
    m.finish();
  }
  if (auto v = w.optional("ramp_broadcast")) {
    c.params.tree_broadcast = v->as_enum({"tree", "scatter-all-gather"}) == "tree";
  }
  c.iterations = get_u32(w, "iterations", 5, 1, 1'000'000);
  c.warmup = get_u32(w, "warmup", 1, 0, 1'000'000);
  return c;
}

// Shapes for the hierarchical algorithms when the scenario gives none.
// torus2d: the torus's dimensions, the cluster's servers, else the most square
// split. hierarchical-ring on a cluster: one level per tier, as RAMP §7.5's
// hierarchical strategies ("the number of active nodes in each dimension of the
// hierarchy"): the server, then each fat-tree tier's share of the group (e.g.
// 8 x 2 x 16 x 16 x 16 for the 65,536-GPU SuperPod); elsewhere as torus2d.
collective::Dims cluster_levels(const fabric::ClusterSpec& spec, std::uint32_t p) {
  collective::Dims d{};
  std::size_t n = 0;
  std::uint64_t below = 1;               // nodes under one group of the levels so far
  auto push = [&](std::uint64_t span) {  // the next level ends at `span` nodes
    span = std::min<std::uint64_t>(span, p);
    if (span <= below || span % below != 0 || p % span != 0 || n == d.size()) return;
    d[n++] = static_cast<std::uint32_t>(span / below);
    below = span;
  };
  const bool per_server = spec.nic == fabric::ClusterSpec::Nic::kPerServer;
  std::uint64_t span = spec.server_size;
  push(span);
  if (!per_server) span = 1;  // tier spans count NICs: one per node
  for (const fabric::TierSpec& t : spec.tiers) {
    span *= t.down;
    push(per_server ? span * spec.server_size : span);
  }
  push(p);
  if (below != p || n < 2) return {};
  return d;
}

collective::Dims two_dims(std::uint32_t a, std::uint32_t b) {
  collective::Dims d{};
  d[0] = a;
  d[1] = b;
  return d;
}

void derive_dims(workload::CollectivesConfig& c, const FabricConfig& fabric, std::uint32_t p) {
  const auto* r = std::get_if<RoutedConfig>(&fabric);
  const bool cluster = r != nullptr && r->type == "cluster" && c.group.stride == 1;
  if (c.params.torus[0] == 0) {
    if (r != nullptr && r->type == "torus2d" && p == r->nodes) {
      c.params.torus = two_dims(r->torus.dims[0], r->torus.dims[1]);
    } else if (cluster && p % r->cluster.server_size == 0 && r->cluster.server_size > 1) {
      c.params.torus = two_dims(r->cluster.server_size, p / r->cluster.server_size);
    } else {
      std::uint32_t a = 1;
      for (std::uint32_t d = 1; std::uint64_t{d} * d <= p; ++d) {
        if (p % d == 0) a = d;
      }
      c.params.torus = two_dims(a, p / a);
    }
  }
  if (c.params.hierarchy[0] == 0) {
    if (cluster) c.params.hierarchy = cluster_levels(r->cluster, p);
    if (c.params.hierarchy[0] == 0) c.params.hierarchy = c.params.torus;
  }
}

std::uint32_t fabric_nodes(const FabricConfig& f) {
  if (const auto* e = std::get_if<ElectFlatConfig>(&f)) return e->nodes;
  if (const auto* r = std::get_if<RampConfig>(&f)) {
    return r->spec.x * r->spec.J * r->spec.Lambda;
  }
  if (const auto* r = std::get_if<RoutedConfig>(&f)) return r->nodes;
  return 0;
}

[[noreturn]] void fail_at(const std::string& location, const std::string& key,
                          const std::string& message) {
  throw ScenarioError(location, key, message);
}

}  // namespace

std::string fabric_type(const FabricConfig& f) {
  if (std::holds_alternative<ElectFlatConfig>(f)) return "elect-flat";
  if (std::holds_alternative<RampConfig>(f)) return "ramp";
  if (const auto* r = std::get_if<RoutedConfig>(&f)) return r->type;
  return "none";
}

std::unique_ptr<fabric::Network> make_network(const FabricConfig& config) {
  if (const auto* e = std::get_if<ElectFlatConfig>(&config)) {
    return fabric::make_elect_flat(e->nodes, e->bandwidth_bps, e->latency);
  }
  if (const auto* r = std::get_if<RampConfig>(&config)) return fabric::make_ramp(r->spec);
  const auto& r = std::get<RoutedConfig>(config);
  std::unique_ptr<fabric::Topology> topo;
  if (r.type == "cluster") topo = fabric::make_cluster(r.cluster, r.nodes);
  if (r.type == "torus2d") topo = fabric::make_torus2d(r.torus);
  if (r.type == "bcube") topo = fabric::make_bcube(r.bcube);
  if (r.type == "topoopt") topo = fabric::make_topoopt(r.topoopt, r.nodes);
  return fabric::make_routed(std::move(topo), r.chunk_bytes, r.io_latency);
}

Scenario load_scenario(const Document& document) {
  Scenario s;
  s.path = document.name();
  s.yaml_text = document.text();
  MapReader root = document.root().as_map();

  s.name = root.get_string("name", std::filesystem::path(document.name()).stem().string());
  s.seed = root.get_uint("seed", s.seed);

  if (auto sim = root.optional("simulation")) {
    MapReader m = sim->as_map();
    s.simulation.end_time = m.get_time_ps("end_time", s.simulation.end_time);
    if (s.simulation.end_time == 0) m.required("end_time").fail("must be greater than 0");
    if (auto engine = m.optional("engine")) {
      const std::string kind = engine->as_enum({"auto", "sequential", "windowed"});
      s.simulation.engine = kind == "sequential" ? pdes::EngineKind::kSequential
                            : kind == "windowed" ? pdes::EngineKind::kWindowed
                                                 : pdes::EngineKind::kAuto;
    }
    if (auto p = m.optional("progress_interval")) {
      s.simulation.progress_interval_s = pdes::to_seconds(p->as_time_ps());
    }
    m.finish();
  }

  std::optional<Value> fabric_value = root.optional("fabric");
  if (fabric_value) {
    s.fabric = load_fabric(*fabric_value);
    s.fabric_location = fabric_value->location();
    s.fabric_key = fabric_value->path();
  }
  const compute::Accelerator accelerator = load_compute(root.optional("compute"));

  Value workload_value = root.required("workload");
  s.workload_location = workload_value.location();
  s.workload_key = workload_value.path();
  MapReader w = workload_value.as_map();
  const std::string type = w.required("type").as_enum({"phold", "collectives"});
  if (type == "phold") {
    s.workload = pdes::models::read_phold(w);
    if (s.simulation.end_time == pdes::kTimeMax) {
      workload_value.fail(
          "PHOLD never ends by itself: set simulation.end_time (e.g. end_time: 4000us)");
    }
    if (fabric_value) fabric_value->fail("PHOLD has no fabric: remove this section");
  } else {
    if (!fabric_value) workload_value.fail("collectives need a fabric: add a fabric section");
    workload::CollectivesConfig c = load_collectives(w, s.auto_algorithm);
    c.accelerator = accelerator;
    std::vector<std::uint32_t> members;
    try {
      members = workload::group_nodes(c.group, fabric_nodes(s.fabric));
    } catch (const std::invalid_argument& e) {
      (w.has("group") ? w.required("group") : workload_value).fail(e.what());
    }
    const auto p = static_cast<std::uint32_t>(members.size());
    if (p < 2) workload_value.fail("a collective needs a group of at least 2 nodes");
    if (c.root >= p) {
      w.required("root").fail("must be below the group size (" + std::to_string(p) + ")");
    }
    derive_dims(c, s.fabric, p);
    if (auto* r = std::get_if<RampConfig>(&s.fabric)) {
      // RAMP §6.3: a job of n nodes takes the sub-box of the network that
      // activates the fewest RAMP-x steps; other algorithms use `group`.
      const std::uint32_t D = r->spec.Lambda / r->spec.x;
      try {
        c.params.ramp = fabric::ramp::shape_for(r->spec.x, r->spec.J, D, p);
        // RAMP §6.1 eq. 1: a stage costs the I/O and propagation latency, and
        // carries its chunk on one transceiver group.
        c.params.tree_alpha_ps = r->spec.io_latency + r->spec.propagation;
        c.params.tree_group_rate_bps =
            fabric::ramp_slot_bytes(r->spec) * 8 * pdes::kSecond / r->spec.slot * r->spec.b;
        const bool placed = collective::traits(c.algorithm).fabric_placement;
        if (placed || s.auto_algorithm) {
          if (w.has("group") && (c.group.first != 0 || c.group.stride != 1)) {
            w.required("group").fail("ramp-x chooses its nodes (RAMP §6.3): give only group.count");
          }
          c.nodes = fabric::ramp::job_nodes(c.params.ramp);
        }
        // RAMP §6.2.2 eq. 3-4: the transcoder gives a ramp-x job's pairs the extra
        // transceiver groups that are safe for its shape. Not under "auto": the one
        // network then also carries other algorithms, for which they are not proven safe.
        if (placed && !s.auto_algorithm && r->extra_transceivers) r->spec.job = c.params.ramp;
      } catch (const std::invalid_argument& e) {
        if (!s.auto_algorithm && collective::traits(c.algorithm).fabric_placement) {
          (w.has("group") ? w.required("group") : workload_value).fail(e.what());
        }
        c.params.ramp = {};  // other algorithms do not need a RAMP shape
      }
    }
    if (!s.auto_algorithm) {
      const collective::CollectiveSpec spec = workload::make_spec(c, p, c.min_bytes, c.algorithm);
      const std::string why = collective::why_invalid(spec);
      const bool dims = why.find(" dims ") != std::string::npos && w.has("dims");
      if (!why.empty()) w.required(dims ? "dims" : "algorithm").fail(why);
    }
    s.workload = c;
  }
  w.finish();
  root.finish();
  return s;
}

std::unique_ptr<fabric::Network> build_network(const Scenario& s) {
  try {
    return make_network(s.fabric);
  } catch (const std::invalid_argument& e) {
    fail_at(s.fabric_location, s.fabric_key, e.what());
  }
}

std::unique_ptr<pdes::Model> make_model(const Scenario& s) {
  if (const auto* phold = std::get_if<pdes::models::PholdConfig>(&s.workload)) {
    return pdes::models::make_phold(*phold);
  }
  workload::CollectivesConfig c = std::get<workload::CollectivesConfig>(s.workload);
  std::unique_ptr<fabric::Network> network = build_network(s);
  if (s.auto_algorithm) {
    // nccl-tests' "auto": the algorithm with the smallest critical-path cost
    // (RAMP §7.4.1: steps with their links' loads), chosen per size, among those
    // valid for this op and group and cheap enough to estimate at this scale.
    const auto members = workload::job_members(c, network->nodes());
    const compute::Roofline roofline(c.accelerator);
    for (std::uint64_t bytes : workload::sweep_sizes(c)) {
      std::optional<collective::Algorithm> best;
      pdes::Time best_time = pdes::kTimeMax;
      for (const collective::Algorithm algorithm : collective::all_algorithms()) {
        const collective::CollectiveSpec spec =
            workload::make_spec(c, static_cast<std::uint32_t>(members.size()), bytes, algorithm);
        if (!collective::why_invalid(spec).empty()) continue;
        analytical::CollectiveEstimate est;
        try {
          est = analytical::estimate_critical_path(spec, members, *network, roofline);
        } catch (const analytical::EstimateTooLarge&) {
          continue;
        }
        if (est.total < best_time) {
          best_time = est.total;
          best = spec.algorithm;
        }
      }
      if (!best)
        fail_at(s.workload_location, s.workload_key,
                "no algorithm implements this operation at a size `auto` can estimate; name one");
      c.per_size.push_back(*best);
    }
    c.algorithm = c.per_size.front();
  }
  try {
    return std::make_unique<workload::CollectivesModel>(c, std::move(network));
  } catch (const std::invalid_argument& e) {
    fail_at(s.workload_location, s.workload_key, e.what());
  }
}

}  // namespace sipsim::scenario
