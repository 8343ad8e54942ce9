#pragma once
// Graph topologies of the routed fabrics (DESIGN.md §3): vertices are the
// accelerators ("nodes", ids [0, nodes)) followed by switches (ids
// [nodes, nodes + switches)); directed links carry a rate and a latency.
// Forwarding is hop by hop: next_link(at, dst, flow) is a pure function, so
// every LP can route locally and every rank routes identically. Among
// equal-cost next hops the choice is a deterministic hash of (at, dst, flow)
// (ECMP).
//
// Latency of a link = propagation + the switching latency of the vertex it
// enters (zero when it enters a node): the whole delay between a chunk's last
// bit leaving `from` and the chunk being ready to leave `to`.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sipsim/pdes/time.hpp"

namespace sipsim::fabric {

using Vertex = std::uint32_t;
using LinkId = std::uint32_t;
inline constexpr LinkId kNoLink = ~LinkId{0};

struct Link {
  Vertex from;
  Vertex to;
  std::uint64_t rate_bps;
  pdes::Time latency;
};

class Topology {
 public:
  virtual ~Topology() = default;

  std::uint32_t nodes() const { return nodes_; }
  std::uint32_t switches() const { return switches_; }
  std::uint32_t vertices() const { return nodes_ + switches_; }
  bool is_switch(Vertex v) const { return v >= nodes_; }
  const std::vector<Link>& links() const { return links_; }
  const Link& link(LinkId id) const { return links_[id]; }
  // Outgoing links of v, in increasing link id (i.e. construction) order.
  std::span<const LinkId> out_links(Vertex v) const;

  // The link to take at `at` towards node `dst` (at != dst); kNoLink if dst
  // is unreachable (also for at == dst, dst not a node or at out of range).
  // Deterministic; `flow` only selects among equal-cost hops.
  virtual LinkId next_link(Vertex at, Vertex dst, std::uint64_t flow) const = 0;

  // Locality group of each vertex (server, pod, torus row ...), used to
  // partition LPs across ranks so that cut links are the slow ones. Groups
  // are numbered 0..groups()-1 and contiguous node ranges where possible.
  virtual std::uint32_t group_of(Vertex v) const = 0;
  virtual std::uint32_t groups() const = 0;

  // One line for `sipsim info` and logs, e.g. "cluster: 64 nodes, 8 servers ...".
  virtual std::string describe() const = 0;

 protected:
  // Subclasses build the graph in their constructor with these.
  void set_vertices(std::uint32_t nodes, std::uint32_t switches);
  LinkId add_link(Vertex from, Vertex to, std::uint64_t rate_bps, pdes::Time latency);
  // Adds from->to and to->from with the same rate and latency; returns the first.
  LinkId add_duplex(Vertex a, Vertex b, std::uint64_t rate_bps, pdes::Time latency);
  // Builds out_links(); call once after the last add_link.
  void finalize();
  // Exact human-readable units for describe(): "200Gbps", "350ns", "1250ns".
  static std::string rate_str(std::uint64_t bps);
  static std::string time_str(pdes::Time t);

 private:
  std::uint32_t nodes_ = 0;
  std::uint32_t switches_ = 0;
  std::vector<Link> links_;
  std::vector<std::uint32_t> out_start_;  // CSR offsets
  std::vector<LinkId> out_;
};

// Deterministic 64-bit mix for ECMP choices (same on every platform).
std::uint64_t ecmp_hash(std::uint64_t a, std::uint64_t b, std::uint64_t c);

// ---------------------------------------------------------------------------
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

// 2D torus of dims[0] x dims[1] nodes, node (x, y) = y*dims[0] + x, four
// duplex links per node (to x±1 and y±1, wrapping), dimension-order routing
// (x first) in the shorter direction (ties: ECMP hash). A dimension of size 2
// has one duplex link per node pair (the + and - neighbours coincide), one of
// size 1 has no links. groups(): one per row y.
struct Torus2dSpec {
  std::uint32_t dims[2] = {0, 0};
  std::uint64_t link_rate_bps = 0;  // per direction per link
  pdes::Time hop_latency = 0;
};
std::unique_ptr<Topology> make_torus2d(const Torus2dSpec& spec);

// BCube(n, k) (Guo et al., SIGCOMM 2009) with levels = k + 1: n^levels nodes,
// levels * n^(levels-1) switches of n ports; node digits (a_{k}..a_0) in base
// n; the level-l switch of a node joins the n nodes that differ only in digit
// l. Nodes relay; routing corrects the highest differing digit first.
// Switch ids follow the nodes: level-l switch of node v = nodes +
// l * n^(levels-1) + (v's digits without digit l, as a base-n number).
// groups(): n, by the top digit; a switch takes its lowest member's group.
struct BcubeSpec {
  std::uint32_t ports = 0;   // n
  std::uint32_t levels = 0;  // k + 1
  std::uint64_t link_rate_bps = 0;
  pdes::Time switch_latency = 0;
  pdes::Time propagation = 0;
};
std::unique_ptr<Topology> make_bcube(const BcubeSpec& spec);

// TopoOpt-style direct-connect circuits fixed for the job (Wang et al.,
// NSDI'23; RAMP §7.5): degree d = 2m links per node forming m bidirectional
// ring permutations with offsets s_1 = 1 < s_2 < ... < s_m, each offset the
// smallest integer > the previous one that is coprime with the node count
// (TotientPerms); every link carries link_rate_bps. Nodes relay; shortest
// paths in this circulant graph (ties broken by the ECMP hash). Offsets are
// taken from [1, nodes/2] only, since s and nodes - s give the same ring; a
// degree needing more offsets than exist is rejected. groups(): blocks of 64
// consecutive nodes.
struct TopooptSpec {
  std::uint32_t degree = 2;
  std::uint64_t link_rate_bps = 0;
  pdes::Time link_latency = 0;
};
std::unique_ptr<Topology> make_topoopt(const TopooptSpec& spec, std::uint32_t nodes);

}  // namespace sipsim::fabric
