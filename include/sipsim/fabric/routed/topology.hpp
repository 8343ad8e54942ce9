#pragma once
// Graph topologies of the routed fabrics (docs/architecture.md): vertices are the
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
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sipsim/fabric/network.hpp"
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

// A straight run of a route (Topology::route_runs): `length` positions of
// one ring of the run space from `first`, wrapping within [base, base + size).
struct RouteRun {
  std::uint32_t base = 0, size = 0, first = 0, length = 0;
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
  // The links next_link takes hop by hop from node a to node b (a != b),
  // appended to `path`; false, with `path` cut back, where there is no route.
  // Topologies override it to walk faster (the estimators walk every message's
  // route); always the same links as next_link's.
  virtual bool route(Vertex a, Vertex b, std::uint64_t flow, std::vector<LinkId>& path) const;
  // route() as runs of links along rings (CostModel::PathRun, rate and latency
  // filled from the links), for topologies whose routes are a few straight
  // runs (the torus): run_link(position) is the link at a position of the
  // run space (run_positions() of them), and a route's runs cover exactly the
  // links route() takes, in order. False (nothing appended) where the
  // topology has no such description (the default) or there is no route.
  virtual std::uint32_t run_positions() const { return 0; }
  virtual LinkId run_link(std::uint32_t /*position*/) const { return kNoLink; }
  virtual bool route_runs(Vertex /*a*/, Vertex /*b*/, std::uint64_t /*flow*/,
                          std::vector<RouteRun>& /*runs*/) const {
    return false;
  }

  // Locality group of each vertex (server, pod, torus row ...), used to
  // partition LPs across ranks so that cut links are the slow ones. Groups
  // are numbered 0..groups()-1 and contiguous node ranges where possible.
  virtual std::uint32_t group_of(Vertex v) const = 0;
  virtual std::uint32_t groups() const = 0;

  // One line for `sipsim info` and logs, e.g. "cluster: 64 nodes, 8 servers ...".
  virtual std::string describe() const = 0;
  // Report::energy_pj_per_bit of the routed fabric over this topology.
  virtual EnergyPerBit energy_pj_per_bit() const { return {}; }

  // Faults' addressing (docs/faults.md): the switch at `index` of `tier`
  // (the topology's own tiers or levels), or nullopt where there is none;
  // `tiers` names them for messages ("" where the topology has no switches).
  virtual std::optional<Vertex> switch_at(std::uint32_t /*tier*/, std::uint32_t /*index*/) const {
    return std::nullopt;
  }
  virtual std::string tiers() const { return ""; }
  // switch_at's inverse: the {tier, index} of switch vertex v (for random
  // draws: the i-th switch is vertex nodes() + i).
  virtual std::optional<std::pair<std::uint32_t, std::uint32_t>> switch_name(Vertex /*v*/) const {
    return std::nullopt;
  }
  // Every link out of v and every link into it (faults: a switch's links).
  std::vector<LinkId> links_at(Vertex v) const;
  // A node's NIC: the links that join it (or its server) to the network, both
  // ways. By default links_at(node).
  virtual std::vector<LinkId> nic_links(Vertex node) const { return links_at(node); }
  // Faults' state changes, as epochs of the routed network: the first time
  // after `after` at which the topology changes (kTimeMax: never), and the
  // change at `t` (FaultedTopology; a healthy topology never changes).
  virtual pdes::Time next_change(pdes::Time /*after*/) const { return pdes::kTimeMax; }
  virtual void apply_changes(pdes::Time /*t*/) {}

 protected:
  // Subclasses build the graph in their constructor with these.
  // (A decorating topology also changes a link's rate: faults.)
  void set_rate(LinkId id, std::uint64_t rate_bps) { links_[id].rate_bps = rate_bps; }
  void set_vertices(std::uint32_t nodes, std::uint32_t switches);
  LinkId add_link(Vertex from, Vertex to, std::uint64_t rate_bps, pdes::Time latency);
  // Adds from->to and to->from with the same rate and latency; returns the first.
  LinkId add_duplex(Vertex a, Vertex b, std::uint64_t rate_bps, pdes::Time latency);
  // Builds out_links(); call once after the last add_link.
  void finalize();

 private:
  std::uint32_t nodes_ = 0;
  std::uint32_t switches_ = 0;
  std::vector<Link> links_;
  std::vector<std::uint32_t> out_start_;  // CSR offsets
  std::vector<LinkId> out_;
};

// Deterministic 64-bit mix for ECMP choices (same on every platform).
std::uint64_t ecmp_hash(std::uint64_t a, std::uint64_t b, std::uint64_t c);

}  // namespace sipsim::fabric
