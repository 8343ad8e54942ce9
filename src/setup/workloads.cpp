// The workload registry: one row per `workload: type`. Each reads its
// section with its module's reader, checks it against the fabric and builds
// its simulation. To add a workload: its program generator under workload/,
// a WorkloadSetup here, and one row in workload_registry().
#include <spdlog/fmt/fmt.h>

#include <optional>

#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/pdes/models/phold.hpp"
#include "sipsim/pdes/models/phold_config.hpp"
#include "sipsim/setup/setup.hpp"

namespace sipsim::setup {

namespace {

// PHOLD (pdes/models): no fabric, and it never ends by itself.
class PholdSetup final : public WorkloadSetup {
 public:
  PholdSetup(base::MapReader& w, const WorkloadContext& ctx)
      : config_(pdes::models::read_phold(w)) {
    if (ctx.scenario.simulation.end_time == pdes::kTimeMax) {
      ctx.section.fail(
          "PHOLD never ends by itself: set simulation.end_time (e.g. end_time: 4000us)");
    }
    if (ctx.fabric != nullptr)
      ctx.scenario.fabric->fail("PHOLD has no fabric: remove this section");
  }
  std::string_view type() const override { return "phold"; }
  workload::Simulation build(std::unique_ptr<fabric::Network>) const override {
    workload::Simulation sim;
    sim.model = pdes::models::make_phold(config_);
    sim.results = std::make_unique<workload::Results>();
    return sim;
  }
  // docs/models.md: each event chain advances lookahead + mean per event.
  std::string analysis(const scenario::SimulationSettings& simulation) const override {
    const double per_chain = pdes::to_seconds(simulation.end_time) /
                             pdes::to_seconds(config_.lookahead + config_.mean_increment);
    return fmt::format("phold: about {:.0f} events expected ({} chains x {:.1f} hops)",
                       per_chain * config_.lps * config_.start_events_per_lp,
                       std::uint64_t{config_.lps} * config_.start_events_per_lp, per_chain);
  }

 private:
  pdes::models::PholdConfig config_;
};

// The nccl-tests-like benchmark (workload/bench): its group on the fabric,
// the algorithms' shapes from the fabric (unless workload.dims gives them),
// and the job's placement where the algorithm lets the fabric place it.
class CollectivesSetup final : public WorkloadSetup {
 public:
  CollectivesSetup(base::MapReader& w, const WorkloadContext& ctx) {
    if (ctx.fabric == nullptr) ctx.section.fail("collectives need a fabric: add a fabric section");
    FabricSetup& fabric = *ctx.fabric;
    workload::CollectivesConfig& c = job_.config;
    c = workload::read_collectives(w, job_.auto_algorithm);
    c.accelerator = ctx.accelerator;
    std::vector<std::uint32_t> members;
    try {
      members = workload::group_nodes(c.group, fabric.nodes());
    } catch (const std::invalid_argument& e) {
      (w.has("group") ? w.required("group") : ctx.section).fail(e.what());
    }
    const auto p = static_cast<std::uint32_t>(members.size());
    if (p < 2) ctx.section.fail("a collective needs a group of at least 2 nodes");
    if (c.root >= p) {
      w.required("root").fail("must be below the group size (" + std::to_string(p) + ")");
    }
    if (c.params.hierarchy[0] == 0) {  // no workload.dims: the fabric's hierarchy
      const collective::AlgorithmParams derived = fabric.algorithm_params(p, c.group.stride == 1);
      c.params.hierarchy = derived.hierarchy;
      c.params.torus = derived.torus;
    }
    const bool auto_algorithm = job_.auto_algorithm;
    const bool placed = !auto_algorithm && collective::traits(c.algorithm).fabric_placement;
    std::optional<std::vector<std::uint32_t>> nodes;
    try {
      nodes = fabric.place_job(p, c.params);
    } catch (const std::invalid_argument& e) {
      if (placed) (w.has("group") ? w.required("group") : ctx.section).fail(e.what());
      c.params.ramp = {};  // other algorithms do not need the fabric's job shape
    }
    if (nodes && (placed || auto_algorithm)) {
      if (w.has("group") && (c.group.first != 0 || c.group.stride != 1)) {
        w.required("group").fail(
            "the fabric chooses this job's nodes (RAMP §6.3): give only "
            "group.count");
      }
      c.nodes = std::move(*nodes);
    }
    // Not under `auto`: the one network then also carries other algorithms.
    if (nodes && placed) fabric.serve_job(c.params);
    if (!auto_algorithm) {
      const collective::CollectiveSpec spec = workload::make_spec(c, p, c.min_bytes, c.algorithm);
      const std::string why = collective::why_invalid(spec);
      const bool dims = why.find(" dims ") != std::string::npos && w.has("dims");
      if (!why.empty()) w.required(dims ? "dims" : "algorithm").fail(why);
    }
    job_.members = workload::job_members(c, fabric.nodes());
  }

  std::string_view type() const override { return "collectives"; }
  const CollectiveJob* collective_job() const override { return &job_; }

  workload::Simulation build(std::unique_ptr<fabric::Network> network) const override {
    workload::CollectivesConfig c = job_.config;
    if (job_.auto_algorithm) resolve_auto(c, *network);
    return workload::make_collectives_benchmark(c, std::move(network));
  }

 private:
  // nccl-tests' "auto": the algorithm with the smallest critical-path cost
  // (RAMP §7.4.1: steps with their links' loads), chosen per size, among those
  // valid for this op and group and cheap enough to estimate at this scale.
  void resolve_auto(workload::CollectivesConfig& c, const fabric::Network& network) const {
    const compute::Roofline device(c.accelerator);
    const auto p = static_cast<std::uint32_t>(job_.members.size());
    for (std::uint64_t bytes : workload::sweep_sizes(c)) {
      std::optional<collective::Algorithm> best;
      pdes::Time best_time = pdes::kTimeMax;
      for (const collective::Algorithm algorithm : collective::all_algorithms()) {
        const collective::CollectiveSpec spec = workload::make_spec(c, p, bytes, algorithm);
        if (!collective::why_invalid(spec).empty()) continue;
        analytical::CollectiveEstimate est;
        try {
          est = analytical::estimate_critical_path(spec, job_.members, network, device);
        } catch (const analytical::EstimateTooLarge&) {
          continue;
        }
        if (est.total < best_time) {
          best_time = est.total;
          best = spec.algorithm;
        }
      }
      if (!best) {
        throw base::ScenarioError(
            location, key,
            "no algorithm implements this operation at a size `auto` can estimate; name one");
      }
      c.per_size.push_back(*best);
    }
    c.algorithm = c.per_size.front();
  }

  CollectiveJob job_;
};

template <class T>
std::unique_ptr<WorkloadSetup> read_as(base::MapReader& section, const WorkloadContext& ctx) {
  return std::make_unique<T>(section, ctx);
}

}  // namespace

const std::vector<WorkloadEntry>& workload_registry() {
  static const std::vector<WorkloadEntry> kWorkloads = {
      {"phold", read_as<PholdSetup>},
      {"collectives", read_as<CollectivesSetup>},
  };
  return kWorkloads;
}

}  // namespace sipsim::setup
