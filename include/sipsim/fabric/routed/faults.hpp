#pragma once
// Faults on the routed fabrics (docs/faults.md): failed or degraded links,
// NICs and switches, by the topology's own addressing (a switch by tier and
// index, a NIC by its node, a link by its two ends). A FaultedTopology
// carries the inner topology's links and, while a fault is on, routes
// around the links it took away: hop by hop over the shortest remaining
// paths, ECMP among them by the same hash as the healthy routes. Without a
// link down it routes exactly as the inner topology does.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "sipsim/fabric/faults.hpp"
#include "sipsim/fabric/routed/topology.hpp"

namespace sipsim::fabric {

// One fault resolved to the links it takes away (factor 0) or slows down.
struct LinkFault {
  pdes::Time at = 0, until = pdes::kTimeMax;
  std::vector<LinkId> links;
  double factor = 0.0;  // the rate left; 0: down
  std::string target;   // in words, for messages
};

// The words of a routed fault's target, its form checked (errors at its
// keys): switch {tier, index}; nic {node}; link {ends: [E, E]}, each end
// {node} or {tier, index}.
std::string read_routed_target(FaultKind kind, const base::Value& target);

// Each fault's links on `topology`; a switch, node or link it does not have
// is an error at the fault's target (base::ScenarioError).
std::vector<LinkFault> resolve_faults(const Topology& topology, std::span<const Fault> faults);
// The healthy capacity of a target's links (their rates summed), bit/s.
std::uint64_t routed_capacity(const Topology& topology, FaultKind kind, const base::Value& target);

class FaultedTopology final : public Topology {
 public:
  FaultedTopology(std::unique_ptr<Topology> inner, std::vector<LinkFault> faults);

  pdes::Time next_change(pdes::Time after) const override;
  void apply_changes(pdes::Time t) override;

  LinkId next_link(Vertex at, Vertex dst, std::uint64_t flow) const override;
  std::uint32_t group_of(Vertex v) const override { return inner_->group_of(v); }
  std::uint32_t groups() const override { return inner_->groups(); }
  std::string describe() const override { return inner_->describe(); }
  EnergyPerBit energy_pj_per_bit() const override { return inner_->energy_pj_per_bit(); }
  std::optional<Vertex> switch_at(std::uint32_t tier, std::uint32_t index) const override {
    return inner_->switch_at(tier, index);
  }
  std::string tiers() const override { return inner_->tiers(); }
  std::optional<std::pair<std::uint32_t, std::uint32_t>> switch_name(Vertex v) const override {
    return inner_->switch_name(v);
  }
  std::vector<LinkId> nic_links(Vertex node) const override { return inner_->nic_links(node); }

  bool down(LinkId id) const { return down_[id] != 0; }

 private:
  // Hops from every vertex to node `dst` over the links that are up
  // (kUnreachable where none), computed when first asked since the last change.
  const std::vector<std::uint32_t>& distances(Vertex dst) const;

  static constexpr std::uint32_t kUnreachable = ~std::uint32_t{0};
  std::unique_ptr<Topology> inner_;
  std::vector<LinkFault> faults_;
  FaultTimes changes_;                  // every at and until
  std::vector<std::uint64_t> healthy_;  // per link: its rate without faults
  std::vector<std::uint8_t> down_;      // per link
  bool any_down_ = false;
  std::string cut_by_;                   // the failures on now, in words (for a node cut off)
  std::vector<std::uint32_t> in_start_;  // CSR of the links into each vertex
  std::vector<LinkId> in_;
  mutable std::unordered_map<Vertex, std::vector<std::uint32_t>> distances_;
};

}  // namespace sipsim::fabric
