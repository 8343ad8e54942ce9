// The fabric registry: one row per `fabric: type`, each reading its section
// with its module's reader and building its network. To add a fabric: its
// folder under fabric/ (transport, cost model, reader, tests), a FabricSetup
// here, and one row in fabric_registry().
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "sipsim/collective/ramp_x.hpp"
#include "sipsim/fabric/circuit/topoopt.hpp"
#include "sipsim/fabric/electrical/bcube.hpp"
#include "sipsim/fabric/electrical/cluster.hpp"
#include "sipsim/fabric/electrical/torus2d.hpp"
#include "sipsim/fabric/flat/elect_flat.hpp"
#include "sipsim/fabric/ramp/config.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"
#include "sipsim/fabric/ramp/placement.hpp"
#include "sipsim/fabric/routed/routed_network.hpp"
#include "sipsim/fabric/sip/sip_ocs.hpp"
#include "sipsim/fabric/sip/sip_ring.hpp"
#include "sipsim/fabric/sip/sipac.hpp"
#include "sipsim/setup/setup.hpp"

namespace sipsim::setup {

namespace {

collective::Dims two_dims(std::uint32_t a, std::uint32_t b) {
  collective::Dims d{};
  d[0] = a;
  d[1] = b;
  return d;
}

// The most square split of p: a x (p / a) with the largest divisor a <= sqrt(p).
collective::Dims most_square(std::uint32_t p) {
  std::uint32_t a = 1;
  for (std::uint32_t d = 1; std::uint64_t{d} * d <= p; ++d) {
    if (p % d == 0) a = d;
  }
  return two_dims(a, p / a);
}

class ElectFlatSetup final : public FabricSetup {
 public:
  explicit ElectFlatSetup(base::MapReader& f) : spec_(fabric::read_elect_flat(f)) {}
  std::string_view type() const override { return "elect-flat"; }
  std::uint32_t nodes() const override { return spec_.nodes; }
  std::uint64_t slowest_rate_bps() const override { return spec_.bandwidth_bps; }
  std::unique_ptr<fabric::Network> build() const override {
    return fabric::make_elect_flat(spec_.nodes, spec_.bandwidth_bps, spec_.latency);
  }

 private:
  fabric::ElectFlatSpec spec_;
};

// The routed fabrics: chunk and io_latency, then their topology's keys.
class RoutedSetup : public FabricSetup {
 public:
  explicit RoutedSetup(base::MapReader& f) : routed_(fabric::read_routed(f)) {}
  std::uint32_t nodes() const override { return nodes_; }
  std::unique_ptr<fabric::Network> build() const override {
    return fabric::make_routed(topology(), routed_.chunk_bytes, routed_.io_latency,
                               routed_.forwarding);
  }

 protected:
  virtual std::unique_ptr<fabric::Topology> topology() const = 0;
  std::uint32_t nodes_ = 0;

 private:
  fabric::RoutedSpec routed_;
};

class ClusterSetup final : public RoutedSetup {
 public:
  explicit ClusterSetup(base::MapReader& f) : RoutedSetup(f) {
    nodes_ = f.required("nodes").as_u32(2, 1u << 24);
    spec_ = fabric::read_cluster(f, nodes_);
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
  // The 2D torus: servers x the rest; the hierarchical ring: one level per
  // tier (fabric::cluster_levels), for a group of consecutive nodes.
  collective::AlgorithmParams algorithm_params(std::uint32_t p, bool contiguous) const override {
    collective::AlgorithmParams params;
    const std::uint32_t server = spec_.server_size;
    params.torus =
        contiguous && p % server == 0 && server > 1 ? two_dims(server, p / server) : most_square(p);
    params.hierarchy = params.torus;
    if (contiguous) {
      const std::vector<std::uint32_t> levels = fabric::cluster_levels(spec_, p);
      if (!levels.empty()) {
        params.hierarchy = {};
        std::copy(levels.begin(), levels.end(), params.hierarchy.begin());
      }
    }
    return params;
  }

 private:
  std::unique_ptr<fabric::Topology> topology() const override {
    return fabric::make_cluster(spec_, nodes_);
  }
  fabric::ClusterSpec spec_;
};

class Torus2dSetup final : public RoutedSetup {
 public:
  explicit Torus2dSetup(base::MapReader& f) : RoutedSetup(f), spec_(fabric::read_torus2d(f)) {
    nodes_ = spec_.dims[0] * spec_.dims[1];
  }
  std::string_view type() const override { return "torus2d"; }
  std::uint64_t slowest_rate_bps() const override { return spec_.link_rate_bps; }
  // The whole torus runs on its own dimensions.
  collective::AlgorithmParams algorithm_params(std::uint32_t p, bool contiguous) const override {
    collective::AlgorithmParams params = FabricSetup::algorithm_params(p, contiguous);
    if (p == nodes_) params.torus = params.hierarchy = two_dims(spec_.dims[0], spec_.dims[1]);
    return params;
  }

 private:
  std::unique_ptr<fabric::Topology> topology() const override {
    return fabric::make_torus2d(spec_);
  }
  fabric::Torus2dSpec spec_;
};

class BcubeSetup final : public RoutedSetup {
 public:
  explicit BcubeSetup(base::MapReader& f) : RoutedSetup(f), spec_(fabric::read_bcube(f)) {
    nodes_ = fabric::bcube_nodes(spec_);
  }
  std::string_view type() const override { return "bcube"; }
  std::uint64_t slowest_rate_bps() const override { return spec_.link_rate_bps; }

 private:
  std::unique_ptr<fabric::Topology> topology() const override { return fabric::make_bcube(spec_); }
  fabric::BcubeSpec spec_;
};

class SipacSetup final : public RoutedSetup {
 public:
  explicit SipacSetup(base::MapReader& f) : RoutedSetup(f), spec_(fabric::read_sipac(f)) {
    nodes_ = fabric::sipac_units(spec_);
  }
  std::string_view type() const override { return "sipac"; }
  std::uint64_t slowest_rate_bps() const override {
    return fabric::sipac_lightpath_rate_bps(spec_);
  }

 private:
  std::unique_ptr<fabric::Topology> topology() const override { return fabric::make_sipac(spec_); }
  fabric::SipacSpec spec_;
};

class TopooptSetup final : public RoutedSetup {
 public:
  explicit TopooptSetup(base::MapReader& f) : RoutedSetup(f) {
    nodes_ = f.required("nodes").as_u32(2, 1u << 24);
    spec_ = fabric::read_topoopt(f, nodes_);
  }
  std::string_view type() const override { return "topoopt"; }
  std::uint64_t slowest_rate_bps() const override { return spec_.link_rate_bps; }

 private:
  std::unique_ptr<fabric::Topology> topology() const override {
    return fabric::make_topoopt(spec_, nodes_);
  }
  fabric::TopooptSpec spec_;
};

// SiP-OCS: circuits planned for the job (or every 5d) over Q switches.
class SipOcsSetup final : public FabricSetup {
 public:
  explicit SipOcsSetup(base::MapReader& f) : spec_(fabric::read_sip_ocs(f)) {}
  std::string_view type() const override { return "sip-ocs"; }
  std::uint32_t nodes() const override { return spec_.gpus; }
  std::uint64_t slowest_rate_bps() const override {
    return fabric::sip_ocs_circuit_rate_bps(spec_);
  }
  std::unique_ptr<fabric::Network> build() const override { return fabric::make_sip_ocs(spec_); }
  std::optional<std::uint32_t> degree_limit() const override { return spec_.switches; }

 private:
  fabric::SipOcsSpec spec_;
};

// SiP-Ring: wavelengths re-planned every period.
class SipRingSetup final : public FabricSetup {
 public:
  explicit SipRingSetup(base::MapReader& f) : spec_(fabric::read_sip_ring(f)) {}
  std::string_view type() const override { return "sip-ring"; }
  std::uint32_t nodes() const override { return spec_.gpus; }
  std::uint64_t slowest_rate_bps() const override { return spec_.wavelength_rate_bps; }
  std::unique_ptr<fabric::Network> build() const override { return fabric::make_sip_ring(spec_); }
  // SiP-ML §5: reach 15 hops, "i.e., the node degree is 16".
  std::optional<std::uint32_t> degree_limit() const override {
    return fabric::sip_ring_reach(spec_) + 1;
  }
  bool ring_embedding() const override { return true; }

 private:
  fabric::SipRingSpec spec_;
};

class RampSetup final : public FabricSetup {
 public:
  explicit RampSetup(base::MapReader& f) : config_(fabric::ramp::read_ramp(f)) {}
  std::string_view type() const override { return "ramp"; }
  std::uint32_t nodes() const override {
    return config_.spec.x * config_.spec.J * config_.spec.Lambda;
  }
  std::unique_ptr<fabric::Network> build() const override {
    return fabric::make_ramp(config_.spec);
  }
  // One transceiver: a slot's data per slot (RAMP §4.1).
  std::uint64_t slowest_rate_bps() const override {
    const fabric::RampSpec& s = config_.spec;
    __extension__ typedef unsigned __int128 U128;
    return static_cast<std::uint64_t>(U128{fabric::ramp_slot_bytes(s)} * 8 * pdes::kSecond /
                                      s.slot);
  }
  // RAMP §6.3: a job of n nodes takes the sub-box of the network that
  // activates the fewest RAMP-x steps. RAMP §6.1 eq. 1: a stage of the tree
  // broadcast costs the I/O and propagation latency, and carries its chunk on
  // one transceiver group.
  std::optional<std::vector<std::uint32_t>> place_job(
      std::uint32_t n, collective::AlgorithmParams& params) const override {
    const fabric::RampSpec& s = config_.spec;
    const fabric::ramp::RampShape shape = fabric::ramp::shape_for(s.x, s.J, s.Lambda / s.x, n);
    std::vector<std::uint32_t> nodes = fabric::ramp::job_nodes(shape);
    // The slot's data at the slot's pace (in 128 bits: at most line_rate x b).
    __extension__ typedef unsigned __int128 U128;
    const U128 rate = U128{fabric::ramp_slot_bytes(s)} * 8 * pdes::kSecond / s.slot * s.b;
    collective::ramp_x::set_job(
        params, shape, s.io_latency + s.propagation,
        static_cast<std::uint64_t>(std::min<U128>(rate, ~std::uint64_t{0})));
    return nodes;
  }
  // A training job: the §6.3 sub-box of all its GPUs, a factor of each step
  // per axis, RAMP-x in every group (fabric/ramp/placement.hpp).
  std::optional<AxesPlacement> place_axes(std::span<const std::uint32_t> sizes) const override {
    const fabric::RampSpec& s = config_.spec;
    const auto placed = fabric::ramp::place_axes(s.x, s.J, s.Lambda / s.x, sizes);
    if (!placed) return std::nullopt;
    AxesPlacement out;
    out.nodes = placed->nodes;
    out.algorithm = collective::algorithm("ramp-x");
    for (std::size_t a = 0; a < sizes.size(); ++a) {
      collective::AlgorithmParams p = FabricSetup::algorithm_params(sizes[a], a == 0);
      collective::ramp_x::set_job(p, placed->axis_shape(a));
      out.params.push_back(p);
    }
    collective::ramp_x::set_job(out.job, placed->job);
    return out;
  }
  void serve_axes(const AxesPlacement& placed) override {
    if (!config_.extra_transceivers) return;
    config_.spec.job = collective::ramp_x::job_params(placed.job).shape;
    if (!placed.params.empty()) {
      const auto& t = collective::ramp_x::job_params(placed.params.front()).shape.active;
      config_.spec.inner = std::array<std::uint32_t, 4>{t[0], t[1], t[2], t[3]};
    }
  }
  void serve_concurrent_collectives() override {
    if (!config_.permissive_given) config_.spec.permissive = true;
  }
  // RAMP §6.2.2 eq. 3-4: the transcoder gives the job's pairs the extra
  // transceiver groups that are safe for its shape (fabric.extra_transceivers).
  void serve_job(const collective::AlgorithmParams& params) override {
    if (config_.extra_transceivers) config_.spec.job = collective::ramp_x::job_params(params).shape;
  }
  std::string physical_report() const override {
    return fabric::ramp::describe_physical(config_.geometry, config_.optics, config_.cost,
                                           config_.power);
  }

 private:
  fabric::ramp::RampConfig config_;
};

template <class T>
std::unique_ptr<FabricSetup> read_as(base::MapReader& section) {
  return std::make_unique<T>(section);
}

}  // namespace

collective::AlgorithmParams FabricSetup::algorithm_params(std::uint32_t p, bool) const {
  collective::AlgorithmParams params;
  params.torus = most_square(p);
  params.hierarchy = params.torus;
  return params;
}

std::optional<std::vector<std::uint32_t>> FabricSetup::place_job(
    std::uint32_t, collective::AlgorithmParams&) const {
  return std::nullopt;
}

const std::vector<FabricEntry>& fabric_registry() {
  static const std::vector<FabricEntry> kFabrics = {
      {"elect-flat", read_as<ElectFlatSetup>}, {"cluster", read_as<ClusterSetup>},
      {"torus2d", read_as<Torus2dSetup>},      {"bcube", read_as<BcubeSetup>},
      {"topoopt", read_as<TopooptSetup>},      {"ramp", read_as<RampSetup>},
      {"sipac", read_as<SipacSetup>},          {"sip-ocs", read_as<SipOcsSetup>},
      {"sip-ring", read_as<SipRingSetup>},
  };
  return kFabrics;
}

}  // namespace sipsim::setup
