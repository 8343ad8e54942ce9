#pragma once
// A copy of a topology's graph and routing without its runs
// (Topology::route_runs): a routed network over it quotes by walking routes
// and the estimators load resource by resource, the reference the run-based
// paths must equal exactly.
#include <memory>
#include <string>
#include <vector>

#include "sipsim/fabric/routed/topology.hpp"

namespace sipsim::fabric::testing {

class WithoutRuns final : public Topology {
 public:
  explicit WithoutRuns(std::shared_ptr<const Topology> inner) : inner_(std::move(inner)) {
    set_vertices(inner_->nodes(), inner_->switches());
    for (const Link& l : inner_->links()) add_link(l.from, l.to, l.rate_bps, l.latency);
    finalize();
  }
  LinkId next_link(Vertex at, Vertex dst, std::uint64_t flow) const override {
    return inner_->next_link(at, dst, flow);
  }
  bool route(Vertex a, Vertex b, std::uint64_t flow, std::vector<LinkId>& path) const override {
    return inner_->route(a, b, flow, path);
  }
  std::uint32_t group_of(Vertex v) const override { return inner_->group_of(v); }
  std::uint32_t groups() const override { return inner_->groups(); }
  std::string describe() const override { return inner_->describe(); }

 private:
  std::shared_ptr<const Topology> inner_;
};

}  // namespace sipsim::fabric::testing
