#pragma once
// Cluster: the fat-tree of the SuperPod and Elect-Cluster baselines (a routed topology).
#include <cstdint>
#include <memory>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/routed/topology.hpp"

namespace sipsim::fabric {

// Cluster: servers of `server_size` accelerators on an intra-server switch,
// joined by a folded-Clos fat-tree (RAMP §7.5 DGX-A100 SuperPod baseline;
// SiP-ML §4.1 Elect-Cluster).
//
// The tree is a k-ary n-tree generalised to per-tier arities (Leiserson 1985;
// Al-Fares et al., SIGCOMM'08). tiers[i] describes tier i + 1 (tiers[0] =
// leaves). A tier-1 pod is one leaf with tiers[0].down endpoints; a tier-l pod
// groups tiers[l-1].down tier-(l-1) pods. Every tier-l switch below the top
// has u_l = tiers[l-1].down / tiers[l-1].oversubscription uplinks (exact
// division required); a tier-l pod holds u_1 * ... * u_{l-1} switches, and
// switch j of a tier-(l-1) pod connects its uplink k to switch
// j * u_{l-1} + k of the enclosing tier-l pod. The top tier has no uplinks and
// its oversubscription must be 1; the product of all `down` must equal the
// endpoint count (nodes with Nic::kPerNode, servers with Nic::kPerServer).
// Vertex ids: nodes, then one intra-server switch per server (only when
// server_size > 1), then the tier-1 switches pod by pod, tier 2, ...
struct TierSpec {
  std::uint32_t down = 0;              // children per pod at this tier (tier 1: endpoints per leaf)
  std::uint32_t oversubscription = 1;  // down : up port count of a switch (1 = full)
  // Rate of each uplink from this tier to the next: tiers[i].up_rate_bps is
  // the rate of every tier-(i+1) <-> tier-(i+2) link (both directions).
  // Ignored for the top tier. Endpoint <-> leaf links use nic_rate_bps.
  std::uint64_t up_rate_bps = 0;
  pdes::Time switch_latency = 0;  // of this tier's switches (added to links entering them)
  pdes::Time propagation = 0;     // of the links between the tier below and this tier
};

struct ClusterSpec {
  std::uint32_t server_size = 8;
  std::uint64_t intra_rate_bps = 0;     // node <-> intra-server switch, per node
  pdes::Time intra_switch_latency = 0;  // NVSwitch
  pdes::Time intra_propagation = 0;
  enum class Nic { kPerNode, kPerServer } nic = Nic::kPerNode;
  std::uint64_t nic_rate_bps = 0;  // each NIC's link to its leaf switch
  std::vector<TierSpec> tiers;     // tiers[0] = leaves; product of down = endpoints
};
// groups(): one per leaf (tier-1 pod); nodes, intra-server switches and leaves
// take their leaf's group, higher-tier switches the group of their pod's first
// leaf. Throws std::invalid_argument on an inconsistent spec.
std::unique_ptr<Topology> make_cluster(const ClusterSpec& spec, std::uint32_t nodes);

// The keys of a `fabric: {type: cluster}` section for `nodes` accelerators
// (docs/scenarios.md): preset (superpod, superpod-1to1, elect-cluster),
// server_size, intra, nic, tiers. Errors are base::ScenarioErrors at the key.
ClusterSpec read_cluster(base::MapReader& section, std::uint32_t nodes);

// The levels of the cluster's hierarchy that a group of p consecutive nodes
// spans, innermost first (RAMP §7.5's hierarchical strategies: the server,
// then each tier's share of the group), or empty when the group does not
// follow the hierarchy (fewer than 2 levels).
std::vector<std::uint32_t> cluster_levels(const ClusterSpec& spec, std::uint32_t p);

}  // namespace sipsim::fabric
