// Cluster fabric: servers on an intra-server switch (NVSwitch) joined by a
// folded-Clos fat-tree; the electrical baseline of RAMP §7.5 (DGX-A100
// SuperPod scaled to 4 tiers, the RAMP paper) and
// SiP-ML's Elect-Cluster. The tree is a k-ary n-tree with per-tier arities
// (Leiserson 1985; Al-Fares et al., SIGCOMM'08): see the header for wiring.
#include "sipsim/fabric/electrical/cluster.hpp"

#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sipsim/base/units.hpp"
#include "sipsim/fabric/ramp/physical.hpp"

namespace sipsim::fabric {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument("cluster: " + what);
}

class Cluster final : public Topology {
 public:
  Cluster(const ClusterSpec& spec, std::uint32_t nodes);

  LinkId next_link(Vertex at, Vertex dst, std::uint64_t flow) const override;
  std::uint32_t group_of(Vertex v) const override;
  std::uint32_t groups() const override { return pods_[0]; }
  std::string describe() const override { return description_; }
  // Tier 0: the intra-server switches (one per server); tiers 1..T: the
  // tree's, leaves first (the header's "tier t").
  std::optional<Vertex> switch_at(std::uint32_t tier, std::uint32_t index) const override {
    if (tier == 0) {
      return has_intra_ && index < servers_ ? std::optional<Vertex>(intra_base_ + index)
                                            : std::nullopt;
    }
    if (tier > tiers_.size() || index >= tiers_[tier - 1].count) return std::nullopt;
    return tiers_[tier - 1].base + index;
  }
  std::optional<std::pair<std::uint32_t, std::uint32_t>> switch_name(Vertex v) const override {
    if (!is_switch(v)) return std::nullopt;
    if (has_intra_ && v < tiers_[0].base) return std::pair(0u, v - intra_base_);
    const std::uint32_t t = tier_index(v);
    return std::pair(t + 1, v - tiers_[t].base);
  }
  std::string tiers() const override {
    std::string out = has_intra_ ? "tier 0: " + std::to_string(servers_) + " server switches" : "";
    for (std::size_t t = 0; t < tiers_.size(); ++t) {
      out += (out.empty() ? "" : ", ") + std::string("tier ") + std::to_string(t + 1) + ": " +
             std::to_string(tiers_[t].count) + " switches";
    }
    return out;
  }
  // The NIC of the node's endpoint (its server's, with a NIC per server).
  std::vector<LinkId> nic_links(Vertex node) const override {
    const std::uint32_t e = endpoint_of(node);
    const LinkId up = endpoint_up_[e];
    const Link& l = link(up);
    for (const LinkId back : out_links(l.to)) {
      if (link(back).to == l.from) return {up, back};
    }
    return {up};
  }
  // Table 4's SuperPod column: QM8790 switches and 200 Gb/s transceivers, on
  // the longest path (2T - 1 switches, 2T links of T tiers; the intra-server
  // switch is not counted, as in the table).
  EnergyPerBit energy_pj_per_bit() const override {
    const ramp::PowerInputs p;
    const auto t = static_cast<std::uint32_t>(tiers_.size());
    return {ramp::eps_pj_per_bit_path(p.superpod, 2 * t - 1, 2 * t),
            "RAMP §4.3 Table 4 SuperPod: " + std::to_string(2 * t - 1) +
                " NVIDIA QM8790 switches (404 W / (40 x 200 Gb/s)) and " + std::to_string(2 * t) +
                " transceivers (4.35 W / 200 Gb/s) per path of " + std::to_string(t) + " tiers"};
  }

 private:
  // Code tiers are 0-based: tier t here is "tier t+1" in the header's prose.
  struct Tier {
    std::uint32_t down = 0;     // down ports per switch = child pods per pod
    std::uint32_t up = 0;       // u: uplinks per switch (0 at the top)
    std::uint64_t span = 0;     // endpoints under one pod of this tier (D_{t+1})
    std::uint32_t per_pod = 0;  // switches per pod (U)
    Vertex base = 0;            // vertex id of the tier's first switch
    std::uint32_t count = 0;    // switches in the tier
    std::size_t up_off = 0;     // into up_links_: switch s's uplink k at up_off + s*up + k
    std::size_t down_off = 0;   // into down_links_: child position c at down_off + s*down + c
  };

  std::uint32_t endpoint_of(Vertex node) const { return per_server_ ? node / server_size_ : node; }
  std::uint32_t server_of(Vertex node) const { return node / server_size_; }
  std::uint32_t tier_index(Vertex sw) const;  // of a tree switch

  // The constructor's parts, in order: link ids follow the order links are added.
  void check_spec(const ClusterSpec& spec, std::uint32_t nodes);
  void check_tiers(const ClusterSpec& spec);
  std::uint64_t size_tiers(std::uint32_t nodes);
  void wire_servers(const ClusterSpec& spec, std::uint32_t nodes);
  void wire_nics(const ClusterSpec& spec);
  void wire_tree(const ClusterSpec& spec);
  std::string make_description(const ClusterSpec& spec, std::uint32_t nodes,
                               std::uint64_t switches) const;

  std::uint32_t server_size_;
  std::uint32_t servers_;
  bool has_intra_;   // server_size > 1: intra-server switches exist
  bool per_server_;  // endpoints are servers (NIC per server and server_size > 1)
  std::uint32_t endpoints_;
  Vertex intra_base_;
  std::vector<Tier> tiers_;
  std::vector<std::uint32_t> pods_;                    // pods per tier; pods_[0] = leaves
  std::vector<LinkId> node_to_intra_, intra_to_node_;  // per node
  std::vector<LinkId> endpoint_up_;                    // endpoint -> its leaf
  std::vector<LinkId> up_links_, down_links_;
  std::string description_;
};

Cluster::Cluster(const ClusterSpec& spec, std::uint32_t nodes)
    : server_size_(spec.server_size),
      servers_(0),
      has_intra_(false),
      per_server_(false),
      endpoints_(0),
      intra_base_(nodes) {
  check_spec(spec, nodes);
  check_tiers(spec);
  const std::uint64_t switches = size_tiers(nodes);
  wire_servers(spec, nodes);
  wire_nics(spec);
  wire_tree(spec);
  finalize();
  description_ = make_description(spec, nodes, switches);
}

// Validation: every message names the parameter and the values.
void Cluster::check_spec(const ClusterSpec& spec, std::uint32_t nodes) {
  if (nodes == 0) fail("nodes must be >= 1 (got 0)");
  if (server_size_ == 0) fail("server_size must be >= 1 (got 0)");
  if (nodes % server_size_ != 0) {
    std::ostringstream m;
    m << "nodes (" << nodes << ") is not a multiple of server_size (" << server_size_ << ")";
    fail(m.str());
  }
  servers_ = nodes / server_size_;
  has_intra_ = server_size_ > 1;
  per_server_ = has_intra_ && spec.nic == ClusterSpec::Nic::kPerServer;
  endpoints_ = per_server_ ? servers_ : nodes;
  if (has_intra_ && spec.intra_rate_bps == 0) {
    fail("intra_rate_bps must be > 0 when server_size > 1 (server_size " +
         std::to_string(server_size_) + ")");
  }
  if (spec.nic_rate_bps == 0) fail("nic_rate_bps must be > 0");
  if (spec.tiers.empty()) fail("tiers must not be empty (need at least the leaf tier)");
}

// Each tier's arities (down, up = down / oversubscription) and span, checked:
// the product of the downs must be the endpoint count.
void Cluster::check_tiers(const ClusterSpec& spec) {
  const auto n_tiers = static_cast<std::uint32_t>(spec.tiers.size());
  tiers_.resize(n_tiers);
  std::uint64_t span = 1;
  for (std::uint32_t t = 0; t < n_tiers; ++t) {
    const TierSpec& ts = spec.tiers[t];
    const std::string name =
        "tiers[" + std::to_string(t) + "] (tier " + std::to_string(t + 1) + ")";
    if (ts.down == 0) fail(name + ".down must be >= 1 (got 0)");
    if (ts.oversubscription == 0) fail(name + ".oversubscription must be >= 1 (got 0)");
    if (t + 1 == n_tiers) {
      if (ts.oversubscription != 1) {
        fail(name + " is the top tier: it has no uplinks, so its oversubscription must be 1 (got " +
             std::to_string(ts.oversubscription) + ")");
      }
    } else {
      if (ts.down % ts.oversubscription != 0) {
        std::ostringstream m;
        m << name << ".down (" << ts.down << ") is not a multiple of " << name
          << ".oversubscription (" << ts.oversubscription << ")";
        fail(m.str());
      }
      if (ts.up_rate_bps == 0) fail(name + ".up_rate_bps must be > 0 (tier below the top)");
      tiers_[t].up = ts.down / ts.oversubscription;
    }
    tiers_[t].down = ts.down;
    span *= ts.down;
    // Stop before the product can overflow: it must equal endpoints_ < 2^32.
    if (span > endpoints_) break;
    tiers_[t].span = span;
  }
  if (span != endpoints_) {
    std::ostringstream m;
    m << "product of tiers[].down (";
    for (std::uint32_t t = 0; t < n_tiers; ++t) m << (t ? "*" : "") << spec.tiers[t].down;
    m << ") must equal the number of endpoints (" << endpoints_ << " "
      << (per_server_ ? "servers, NIC per server" : "nodes, NIC per node") << ")";
    fail(m.str());
  }
}

// Sizes: pods and switches per tier (U_1 = 1, U_{l+1} = U_l * u_l), the
// vertices, each tier's first vertex and offsets into the link tables.
// Returns the switch count.
std::uint64_t Cluster::size_tiers(std::uint32_t nodes) {
  const auto n_tiers = static_cast<std::uint32_t>(tiers_.size());
  pods_.resize(n_tiers);
  std::uint64_t switches = has_intra_ ? servers_ : 0;
  std::uint64_t links = 2ULL * endpoints_ + (has_intra_ ? 2ULL * nodes : 0);
  std::uint64_t per_pod = 1;
  for (std::uint32_t t = 0; t < n_tiers; ++t) {
    Tier& tr = tiers_[t];
    pods_[t] = static_cast<std::uint32_t>(endpoints_ / tr.span);
    tr.per_pod = static_cast<std::uint32_t>(per_pod);  // <= D_t <= endpoints, see header
    const std::uint64_t count = std::uint64_t{pods_[t]} * per_pod;
    if (switches + count > 0xffff'ffffULL) fail("too many switches for 32-bit vertex ids");
    tr.count = static_cast<std::uint32_t>(count);
    switches += count;
    links += 2ULL * count * tr.up;
    per_pod *= tr.up;
  }
  if (links >= kNoLink) fail("too many links for 32-bit link ids");
  set_vertices(nodes, static_cast<std::uint32_t>(switches));
  Vertex next = nodes + (has_intra_ ? servers_ : 0);
  std::size_t up_total = 0;
  std::size_t down_total = 0;
  for (Tier& tr : tiers_) {
    tr.base = next;
    next += tr.count;
    tr.up_off = up_total;
    up_total += std::size_t{tr.count} * tr.up;
    tr.down_off = down_total;
    down_total += std::size_t{tr.count} * tr.down;
  }
  up_links_.assign(up_total, kNoLink);
  down_links_.assign(down_total, kNoLink);
  return switches;
}

// Intra-server links (NVSwitch): latency into the switch includes its
// switching time; into a node only propagation (RAMP §7.5: 100 ns, 20 ns).
void Cluster::wire_servers(const ClusterSpec& spec, std::uint32_t nodes) {
  if (!has_intra_) return;
  node_to_intra_.resize(nodes);
  intra_to_node_.resize(nodes);
  for (Vertex v = 0; v < nodes; ++v) {
    const Vertex sw = intra_base_ + server_of(v);
    node_to_intra_[v] =
        add_link(v, sw, spec.intra_rate_bps, spec.intra_propagation + spec.intra_switch_latency);
    intra_to_node_[v] = add_link(sw, v, spec.intra_rate_bps, spec.intra_propagation);
  }
}

// Endpoint <-> leaf (the NICs).
void Cluster::wire_nics(const ClusterSpec& spec) {
  const TierSpec& leaf_spec = spec.tiers[0];
  endpoint_up_.resize(endpoints_);
  for (std::uint32_t e = 0; e < endpoints_; ++e) {
    const Vertex ep = per_server_ ? intra_base_ + e : e;
    const std::uint32_t leaf = e / tiers_[0].down;
    const Vertex leaf_v = tiers_[0].base + leaf;
    endpoint_up_[e] =
        add_link(ep, leaf_v, spec.nic_rate_bps, leaf_spec.propagation + leaf_spec.switch_latency);
    down_links_[tiers_[0].down_off + std::size_t{leaf} * tiers_[0].down + e % tiers_[0].down] =
        add_link(leaf_v, ep, spec.nic_rate_bps,
                 leaf_spec.propagation + (per_server_ ? spec.intra_switch_latency : 0));
  }
}

// Tree: switch j of a tier-t pod p, uplink k -> switch j*u + k of pod
// p / down_{t+1}; the down port used at the parent is p's position in it.
void Cluster::wire_tree(const ClusterSpec& spec) {
  for (std::uint32_t t = 0; t + 1 < tiers_.size(); ++t) {
    const Tier& lo = tiers_[t];
    const Tier& hi = tiers_[t + 1];
    const TierSpec& hs = spec.tiers[t + 1];
    const std::uint64_t rate = spec.tiers[t].up_rate_bps;
    const pdes::Time up_lat = hs.propagation + hs.switch_latency;
    const pdes::Time down_lat = hs.propagation + spec.tiers[t].switch_latency;
    for (std::uint32_t p = 0; p < pods_[t]; ++p) {
      const std::uint32_t parent = p / hi.down;
      const std::uint32_t pos = p % hi.down;
      for (std::uint32_t j = 0; j < lo.per_pod; ++j) {
        const std::uint32_t s = p * lo.per_pod + j;
        for (std::uint32_t k = 0; k < lo.up; ++k) {
          const std::uint32_t q = parent * hi.per_pod + j * lo.up + k;
          up_links_[lo.up_off + std::size_t{s} * lo.up + k] =
              add_link(lo.base + s, hi.base + q, rate, up_lat);
          down_links_[hi.down_off + std::size_t{q} * hi.down + pos] =
              add_link(hi.base + q, lo.base + s, rate, down_lat);
        }
      }
    }
  }
}

std::string Cluster::make_description(const ClusterSpec& spec, std::uint32_t nodes,
                                      std::uint64_t switches) const {
  const auto n_tiers = static_cast<std::uint32_t>(spec.tiers.size());
  std::ostringstream d;
  d << "cluster: " << nodes << " nodes, " << servers_ << " servers of " << server_size_
    << ", NIC per " << (per_server_ ? "server " : "node ")
    << base::format_bandwidth_bps(spec.nic_rate_bps) << ", " << n_tiers
    << (n_tiers == 1 ? " tier" : " tiers") << " (down ";
  for (std::uint32_t t = 0; t < n_tiers; ++t) d << (t ? "/" : "") << spec.tiers[t].down;
  d << ", oversubscription ";
  for (std::uint32_t t = 0; t < n_tiers; ++t) d << (t ? "/" : "") << spec.tiers[t].oversubscription;
  d << "), " << switches << " switches (" << (has_intra_ ? servers_ : 0) << " intra-server + "
    << switches - (has_intra_ ? servers_ : 0) << " tree)";
  return d.str();
}

std::uint32_t Cluster::tier_index(Vertex sw) const {
  std::uint32_t t = 0;
  while (t + 1 < tiers_.size() && sw >= tiers_[t + 1].base) ++t;
  return t;
}

LinkId Cluster::next_link(Vertex at, Vertex dst, std::uint64_t flow) const {
  if (dst >= nodes() || at >= vertices() || at == dst) return kNoLink;
  if (!is_switch(at)) {
    if (has_intra_ && server_of(at) == server_of(dst)) return node_to_intra_[at];
    return per_server_ ? node_to_intra_[at] : endpoint_up_[at];
  }
  if (has_intra_ && at < tiers_[0].base) {
    const std::uint32_t server = at - intra_base_;
    if (server_of(dst) == server) return intra_to_node_[dst];
    if (per_server_) return endpoint_up_[server];
    // NIC per node: not on any path a node starts; hand the packet to the
    // member on dst's rail, which then uses its own NIC (keeps routing total).
    return intra_to_node_[server * server_size_ + dst % server_size_];
  }
  const std::uint32_t t = tier_index(at);
  const Tier& tr = tiers_[t];
  const std::uint32_t s = at - tr.base;
  const std::uint32_t pod = s / tr.per_pod;
  const std::uint64_t e = endpoint_of(dst);
  if (e / tr.span == pod) {
    // Down: the child pod holding e (or e itself at a leaf). Each child pod
    // has exactly one switch wired to this one, stored at the child's position.
    const std::uint64_t child = t == 0 ? e : e / tiers_[t - 1].span;
    return down_links_[tr.down_off + std::size_t{s} * tr.down + child % tr.down];
  }
  if (tr.up == 0) return kNoLink;  // unreachable: the top pod holds every endpoint
  // Up: any uplink reaches the lowest common ancestor tier (ECMP).
  const auto k = static_cast<std::uint32_t>(ecmp_hash(at, dst, flow) % tr.up);
  return up_links_[tr.up_off + std::size_t{s} * tr.up + k];
}

std::uint32_t Cluster::group_of(Vertex v) const {
  if (v < nodes()) return static_cast<std::uint32_t>(endpoint_of(v) / tiers_[0].down);
  if (has_intra_ && v < tiers_[0].base) {
    const std::uint32_t server = v - intra_base_;
    const std::uint32_t e = per_server_ ? server : server * server_size_;
    return e / tiers_[0].down;
  }
  if (v >= vertices()) return 0;
  const std::uint32_t t = tier_index(v);
  const Tier& tr = tiers_[t];
  const std::uint32_t pod = (v - tr.base) / tr.per_pod;
  // First leaf of the pod: leaves per tier-t pod = span_t / span_0.
  return static_cast<std::uint32_t>(pod * (tr.span / tiers_[0].span));
}

}  // namespace

std::unique_ptr<Topology> make_cluster(const ClusterSpec& spec, std::uint32_t nodes) {
  return std::make_unique<Cluster>(spec, nodes);
}

}  // namespace sipsim::fabric
