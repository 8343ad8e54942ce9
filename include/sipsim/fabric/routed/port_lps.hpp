#pragma once
// The logical processes of a routed fabric. A switch's state is its output
// links' queues, and a chunk at a switch touches only the link it leaves by,
// so every output port of a switch is an LP of its own: it can then run on
// the rank of the traffic it carries (a spine's port down to a pod on the
// pod's rank), and traffic between two places of one rank stays on that rank
// whatever switches it crosses. A node's LP holds its program and its own
// output links.
//
// LP ids: the vertices first ([0, vertices), so a node's LP is its id; a
// switch's own LP receives nothing), then one per switch output link, in
// order of (from vertex, link id). Events into one port from different
// vertices then sort (pdes::event_before: by source LP on ties) as they did when
// the switch was one LP, so results do not depend on the split.
#include <cstdint>
#include <span>
#include <vector>

#include "sipsim/fabric/routed/topology.hpp"
#include "sipsim/pdes/event.hpp"
#include "sipsim/pdes/partition.hpp"
#include "sipsim/pdes/time.hpp"

namespace sipsim::fabric {

class PortLps {
 public:
  explicit PortLps(const Topology& topo);

  pdes::LpId count() const { return static_cast<pdes::LpId>(vertices_ + link_of_.size()); }
  bool is_port(pdes::LpId lp) const { return lp >= vertices_; }
  LinkId link_of(pdes::LpId port) const { return link_of_[port - vertices_]; }
  // The LP that reserves link l: its node, or the switch's port.
  pdes::LpId holder(LinkId l) const { return holder_[l]; }
  // Where a chunk that crossed into vertex `to` is handled on its way to
  // node `dst`: a node (the destination, or a node that forwards), else the
  // switch's port towards dst (the switch itself where it has no route, to
  // report it).
  pdes::LpId next(Vertex to, std::uint32_t dst, std::uint64_t flow) const {
    if (to == dst || !topo_->is_switch(to)) return to;
    const LinkId l = topo_->next_link(to, dst, flow);
    return l == kNoLink ? to : holder_[l];
  }

  // Every LP's rank from the nodes' (the rest of `nodes` is not read). Each
  // vertex has a home: a node's rank, and, level by level away from the
  // nodes, the home most of a switch's neighbours one level closer to the
  // nodes have (the lowest rank on a tie): a leaf's is its servers' rank, a
  // pod switch's the rank most of the pod is on. A switch's own LP, idle,
  // takes its home. A port down towards the nodes goes with the home of the
  // vertex it leads to (a spine's port down to a pod, with the pod), any
  // other port with its switch's (a leaf's uplinks, with the leaf's
  // servers): traffic between places of one rank then stays on it.
  std::vector<std::uint32_t> owners(const pdes::Partition& nodes) const;
  // The least latency of a link whose holder sends to an LP on another rank
  // (kTimeMax: none).
  pdes::Time lookahead(const pdes::Partition& p) const;
  // Per LP, a lower bound on the delay from an event there to the first event
  // it leads to on another rank (kTimeMax: none): the least latency of a
  // walk of links to one whose next holder is elsewhere, that link included.
  std::vector<pdes::Time> cut_distances(std::span<const int> owner) const;

 private:
  const Topology* topo_;
  std::uint32_t vertices_;
  std::vector<pdes::LpId> holder_;  // by link id
  std::vector<LinkId> link_of_;     // by port LP id - vertices_
};

}  // namespace sipsim::fabric
