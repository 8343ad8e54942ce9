// The electrical fabrics' plug-ins (fabric/plugin.hpp): the cluster's tiers
// and the torus's dimensions are the hierarchy its groups' algorithms follow.
#include "sipsim/fabric/electrical/plugin.hpp"

#include <algorithm>

#include "sipsim/fabric/electrical/bcube.hpp"
#include "sipsim/fabric/electrical/cluster.hpp"
#include "sipsim/fabric/electrical/torus2d.hpp"
#include "sipsim/fabric/routed/plugin.hpp"

namespace sipsim::fabric {

namespace {

class ClusterPlugin final : public RoutedPlugin {
 public:
  explicit ClusterPlugin(base::MapReader& f) : RoutedPlugin(f) {
    nodes_ = f.required("nodes").as_u32(2, 1u << 24);
    spec_ = read_cluster(f, nodes_);
  }
  std::string_view type() const override { return "cluster"; }
  // The top tier has no uplinks; servers of one node no intra-server switch.
  std::uint64_t slowest_rate_bps() const override {
    std::uint64_t rate = spec_.nic_rate_bps;
    if (spec_.server_size > 1) rate = std::min(rate, spec_.intra_rate_bps);
    for (std::size_t t = 0; t + 1 < spec_.tiers.size(); ++t) {
      rate = std::min(rate, spec_.tiers[t].up_rate_bps);
    }
    return rate;
  }
  // A group of consecutive nodes: the 2D torus is servers x the rest, the
  // hierarchical ring one level per tier (cluster_levels).
  GroupShape group_shape(std::uint32_t p, bool contiguous) const override {
    GroupShape shape;
    if (!contiguous) return shape;
    const std::uint32_t server = spec_.server_size;
    if (p % server == 0 && server > 1) shape.torus = {server, p / server};
    shape.levels = cluster_levels(spec_, p);
    return shape;
  }

 private:
  std::unique_ptr<Topology> topology() const override { return make_cluster(spec_, nodes_); }
  ClusterSpec spec_;
};

class Torus2dPlugin final : public RoutedPlugin {
 public:
  explicit Torus2dPlugin(base::MapReader& f) : RoutedPlugin(f), spec_(read_torus2d(f)) {
    nodes_ = spec_.dims[0] * spec_.dims[1];
  }
  std::string_view type() const override { return "torus2d"; }
  std::uint64_t slowest_rate_bps() const override { return spec_.link_rate_bps; }
  // The whole torus runs on its own dimensions.
  GroupShape group_shape(std::uint32_t p, bool) const override {
    if (p != nodes_) return {};
    return {{spec_.dims[0], spec_.dims[1]}, {spec_.dims[0], spec_.dims[1]}};
  }

 private:
  std::unique_ptr<Topology> topology() const override { return make_torus2d(spec_); }
  Torus2dSpec spec_;
};

class BcubePlugin final : public RoutedPlugin {
 public:
  explicit BcubePlugin(base::MapReader& f) : RoutedPlugin(f), spec_(read_bcube(f)) {
    nodes_ = bcube_nodes(spec_);
  }
  std::string_view type() const override { return "bcube"; }
  std::uint64_t slowest_rate_bps() const override { return spec_.link_rate_bps; }
  // A group's levels are its switches' digit groups.
  GroupShape group_shape(std::uint32_t p, bool contiguous) const override {
    return digit_levels(p, spec_.ports, spec_.levels, contiguous);
  }

 private:
  std::unique_ptr<Topology> topology() const override { return make_bcube(spec_); }
  BcubeSpec spec_;
};

}  // namespace

std::unique_ptr<Plugin> cluster_plugin(base::MapReader& section) {
  return std::make_unique<ClusterPlugin>(section);
}
std::unique_ptr<Plugin> torus2d_plugin(base::MapReader& section) {
  return std::make_unique<Torus2dPlugin>(section);
}
std::unique_ptr<Plugin> bcube_plugin(base::MapReader& section) {
  return std::make_unique<BcubePlugin>(section);
}

}  // namespace sipsim::fabric
