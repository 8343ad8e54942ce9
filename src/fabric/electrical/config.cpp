// The electrical fabrics' scenario keys (docs/scenarios.md, fabric types
// cluster, torus2d and bcube): the cluster's presets (RAMP §7.5's DGX-A100
// SuperPod, SiP-ML §4.1's Elect-Cluster) and the hierarchy it offers the
// collective algorithms, the 2D torus's dimensions, BCube's ports and levels.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sipsim/fabric/electrical/bcube.hpp"
#include "sipsim/fabric/electrical/cluster.hpp"
#include "sipsim/fabric/electrical/torus2d.hpp"

namespace sipsim::fabric {

namespace {

constexpr std::size_t kMaxLevels = 8;  // collective::kMaxLevels

// RAMP §7.5: DGX-A100 SuperPod scaled to `nodes` GPUs. NVLink 2.4 Tb/s per GPU
// through a 100 ns NVSwitch (20 ns propagation); one NIC per GPU into a
// non-blocking fat-tree of 350 ns QM8790 switches; 10/50/1250 ns between tiers.
// Leaves take 16 NICs (a power of two below the QM8790's 20 down ports), each
// upper tier 16 children, the top tier the rest: 4 tiers at 65,536 GPUs.
void superpod_tiers(ClusterSpec& c, std::uint32_t endpoints, std::uint64_t rate) {
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
    TierSpec tier;
    tier.down = downs[t];
    tier.oversubscription = 1;
    tier.up_rate_bps = rate;
    tier.switch_latency = 350 * pdes::kNanosecond;
    tier.propagation = kProp[std::min<std::size_t>(t, 3)];
    c.tiers.push_back(tier);
  }
}

// SiP-ML §4.1's Elect-Cluster: one non-blocking switch joining every server.
void one_switch_tier(ClusterSpec& c, std::uint32_t endpoints, std::uint64_t rate) {
  TierSpec tier;
  tier.down = endpoints;
  tier.up_rate_bps = rate;
  tier.switch_latency = 350 * pdes::kNanosecond;
  tier.propagation = 10 * pdes::kNanosecond;
  c.tiers = {tier};
}

// The presets (`preset`), in the order errors list them. Each server's
// switch: 100 ns, 20 ns of propagation.
struct ClusterPreset {
  const char* name;
  std::uint64_t intra_rate_bps;  // 0: the scenario's intra.bandwidth
  ClusterSpec::Nic nic;
  std::uint64_t nic_rate_bps;
  void (*tiers)(ClusterSpec& c, std::uint32_t endpoints, std::uint64_t nic_rate_bps);
};
const ClusterPreset kPresets[] = {
    // RAMP §7.5, Fig. 21: NVLink 2.4 Tb/s per GPU; 1:12 = a 200 Gb/s NIC per
    // GPU, 1:1 = a 2.4 Tb/s one.
    {"superpod", 2'400'000'000'000, ClusterSpec::Nic::kPerNode, 200'000'000'000, superpod_tiers},
    {"superpod-1to1", 2'400'000'000'000, ClusterSpec::Nic::kPerNode, 2'400'000'000'000,
     superpod_tiers},
    // SiP-ML §4.1: 8 GPUs per server on an internal switch, servers at 400 Gb/s.
    {"elect-cluster", 0, ClusterSpec::Nic::kPerServer, 400'000'000'000, one_switch_tier},
};

const ClusterPreset* read_preset(base::MapReader& f) {
  if (!f.has("preset")) return nullptr;
  std::vector<std::string> names;
  for (const ClusterPreset& p : kPresets) names.emplace_back(p.name);
  const std::string name = f.required("preset").as_enum(names);
  for (const ClusterPreset& p : kPresets) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

}  // namespace

ClusterSpec read_cluster(base::MapReader& f, std::uint32_t nodes) {
  ClusterSpec c;
  const ClusterPreset* preset = read_preset(f);
  c.server_size = f.get_u32("server_size", 8, 1);
  if (nodes % c.server_size != 0) {
    if (f.has("server_size")) {
      f.required("server_size").fail("must divide the node count (" + std::to_string(nodes) + ")");
    }
    f.required("nodes").fail("must be a multiple of the server size (" +
                             std::to_string(c.server_size) + ", the default server_size)");
  }
  std::uint64_t nic_rate = 0;
  if (preset != nullptr) {
    if (preset->intra_rate_bps != 0) c.intra_rate_bps = preset->intra_rate_bps;
    c.intra_switch_latency = 100 * pdes::kNanosecond;
    c.intra_propagation = 20 * pdes::kNanosecond;
    c.nic = preset->nic;
    nic_rate = preset->nic_rate_bps;
  }
  if (auto intra = f.optional("intra")) {
    base::MapReader m = intra->as_map();
    if (auto b = m.optional("bandwidth")) c.intra_rate_bps = b->as_positive_bandwidth_bps();
    c.intra_switch_latency = m.get_time_ps("switch_latency", c.intra_switch_latency);
    c.intra_propagation = m.get_time_ps("propagation", c.intra_propagation);
    m.finish();
  }
  if (c.server_size > 1 && c.intra_rate_bps == 0) {
    f.value().fail("needs intra.bandwidth (the accelerators' bandwidth to their server switch)");
  }
  if (auto nic = f.optional("nic")) {
    base::MapReader m = nic->as_map();
    if (auto per = m.optional("per")) {
      c.nic = per->as_enum({"node", "server"}) == "node" ? ClusterSpec::Nic::kPerNode
                                                         : ClusterSpec::Nic::kPerServer;
    }
    if (auto b = m.optional("bandwidth")) nic_rate = b->as_positive_bandwidth_bps();
    m.finish();
  }
  if (nic_rate == 0) f.value().fail("needs nic.bandwidth (or a preset)");
  c.nic_rate_bps = nic_rate;
  const std::uint32_t endpoints =
      c.nic == ClusterSpec::Nic::kPerNode ? nodes : nodes / c.server_size;
  if (auto tiers = f.optional("tiers")) {
    c.tiers.clear();
    const std::vector<base::Value> list = tiers->as_list();
    if (list.empty()) tiers->fail("needs at least one tier");
    if (list.size() > kMaxLevels) {
      tiers->fail("has " + std::to_string(list.size()) + " tiers; at most " +
                  std::to_string(kMaxLevels));
    }
    std::uint64_t product = 1;
    std::string factors;
    for (std::size_t i = 0; i < list.size(); ++i) {
      base::MapReader m = list[i].as_map();
      TierSpec tier;
      tier.down = m.required("down").as_u32(1);
      tier.oversubscription = m.get_u32("oversubscription", 1, 1);
      if (i + 1 == list.size() && tier.oversubscription != 1) {
        m.required("oversubscription")
            .fail("must be 1 at the top tier, which has no uplinks (got " +
                  std::to_string(tier.oversubscription) + ")");
      }
      if (tier.down % tier.oversubscription != 0) {
        m.required("oversubscription")
            .fail("must divide down (" + std::to_string(tier.down) +
                  "): each switch has down / oversubscription uplinks");
      }
      tier.up_rate_bps =
          m.has("uplink") ? m.required("uplink").as_positive_bandwidth_bps() : nic_rate;
      tier.switch_latency = m.get_time_ps("switch_latency", 0);
      tier.propagation = m.get_time_ps("propagation", 0);
      m.finish();
      c.tiers.push_back(tier);
      if (product <= endpoints) product *= tier.down;  // < 2^56: stays above once above
      factors += (i > 0 ? " x " : "") + std::to_string(tier.down);
    }
    if (product != endpoints) {
      const bool per_server = c.nic == ClusterSpec::Nic::kPerServer && c.server_size > 1;
      tiers->fail("the product of the tiers' down (" + factors + ") must equal the number of " +
                  (per_server ? "servers (" + std::to_string(endpoints) + ", one NIC per server)"
                              : "nodes (" + std::to_string(endpoints) + ", one NIC per node)"));
    }
  } else if (preset != nullptr) {
    preset->tiers(c, endpoints, nic_rate);
  } else {
    f.value().fail("needs tiers (or a preset)");
  }
  return c;
}

// RAMP §7.5's hierarchical strategies take "the number of active nodes in each
// dimension of the hierarchy": on a cluster, the server, then each fat-tree
// tier's share of the group (e.g. 8 x 2 x 16 x 16 x 16 for the 65,536-GPU
// SuperPod).
std::vector<std::uint32_t> cluster_levels(const ClusterSpec& spec, std::uint32_t p) {
  std::vector<std::uint32_t> d;
  std::size_t n = 0;
  std::uint64_t below = 1;               // nodes under one group of the levels so far
  auto push = [&](std::uint64_t span) {  // the next level ends at `span` nodes
    span = std::min<std::uint64_t>(span, p);
    if (span <= below || span % below != 0 || p % span != 0 || n == kMaxLevels) return;
    d.push_back(static_cast<std::uint32_t>(span / below));
    ++n;
    below = span;
  };
  const bool per_server = spec.nic == ClusterSpec::Nic::kPerServer;
  std::uint64_t span = spec.server_size;
  push(span);
  if (!per_server) span = 1;  // tier spans count NICs: one per node
  for (const TierSpec& t : spec.tiers) {
    span *= t.down;
    push(per_server ? span * spec.server_size : span);
  }
  push(p);
  if (below != p || n < 2) return {};
  return d;
}

Torus2dSpec read_torus2d(base::MapReader& f) {
  Torus2dSpec t;
  const base::Value dims = f.required("dims");
  const auto list = dims.as_list();
  if (list.size() != 2) dims.fail("expected two dimensions, e.g. [128, 512]");
  t.dims[0] = list[0].as_u32(1, 1u << 16);
  t.dims[1] = list[1].as_u32(1, 1u << 16);
  const std::uint64_t nodes = std::uint64_t{t.dims[0]} * t.dims[1];
  if (nodes < 2) dims.fail("a torus needs at least two nodes");
  if (nodes > (1u << 24)) {
    dims.fail(std::to_string(t.dims[0]) + " x " + std::to_string(t.dims[1]) + " = " +
              std::to_string(nodes) + " nodes; at most 2^24 = 16777216");
  }
  t.link_rate_bps = f.required("link_bandwidth").as_positive_bandwidth_bps();
  t.hop_latency = f.required("hop_latency").as_time_ps();
  return t;
}

std::uint32_t bcube_nodes(const BcubeSpec& spec) {
  std::uint64_t n = 1;
  for (std::uint32_t l = 0; l < spec.levels; ++l) n *= spec.ports;
  return static_cast<std::uint32_t>(n);
}

BcubeSpec read_bcube(base::MapReader& f) {
  BcubeSpec b;
  b.ports = f.required("ports").as_u32(2, 1024);
  b.levels = f.required("levels").as_u32(1, 8);
  b.link_rate_bps = f.required("link_bandwidth").as_positive_bandwidth_bps();
  b.switch_latency = f.get_time_ps("switch_latency", 0);
  b.propagation = f.get_time_ps("propagation", 0);
  std::uint64_t n = 1;
  for (std::uint32_t l = 0; l < b.levels; ++l) {
    n *= b.ports;
    if (n > (1u << 24)) f.required("levels").fail("more than 2^24 nodes");
  }
  return b;
}

}  // namespace sipsim::fabric
