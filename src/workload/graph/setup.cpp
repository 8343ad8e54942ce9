// `workload: graph`'s plug-in (workload/plugin.hpp): GPU g * mp + r is
// fabric node g * mp + r (MP groups innermost, folded on a ring fabric); the
// DP groups' algorithm follows the fabric's shape (workload/mapping/).
#include "sipsim/workload/graph/setup.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "sipsim/base/units.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/workload/degree.hpp"
#include "sipsim/workload/graph/graph.hpp"
#include "sipsim/workload/mapping/mapper.hpp"

namespace sipsim::workload::graph {

namespace {

// Op-graph training (workload/graph): GPU g * mp + r is fabric node g * mp + r
// (MP groups innermost); the DP groups' algorithm follows the fabric's shape.
class GraphPlugin final : public Plugin {
 public:
  GraphPlugin(base::MapReader& w, const Context& ctx)
      : config_(read_graph_workload(w, ctx.scenario_path)) {
    if (ctx.fabric == nullptr) ctx.section.fail("training needs a fabric: add a fabric section");
    Config& c = config_;
    c.accelerator = ctx.accelerator;
    const bool dp = c.placement == Placement::kDataParallel;
    const std::optional<DegreeLimit> limit = degree_limit(*ctx.fabric);
    if (!dp) place_within(w, limit);
    if (c.gpus() > ctx.fabric->nodes()) {
      w.required(dp ? "gpus" : "dp")
          .fail(fmt::format("{} GPUs, but the fabric has {} nodes", c.gpus(), ctx.fabric->nodes()));
    }
    c.dp_params = mapping::make_mapper(*ctx.fabric)->group_params(c.dp, c.mp == 1);
    c.fold_groups = ctx.fabric->facts().ring_order;
    // Model-parallel messages and the DP buckets run at once: RAMP serialises
    // colliding transfers (as for the transformer) unless the scenario says.
    fabric::Service service;
    service.concurrent_collectives = true;
    ctx.fabric->serve(service);
    if (c.dp > 1) {
      const std::string why = collective::why_invalid(collective::make_spec(
          collective::Op::kAllReduce, c.all_reduce, c.dp, 1 << 20, 0, c.dp_params));
      if (!why.empty()) {
        (w.has("algorithms") ? w.required("algorithms") : ctx.section).fail(why);
      }
    }
    // The placement (and the costs' bounds) now, so that its errors are located.
    std::string why;
    try {
      const auto device = compute::make_device(c.accelerator);
      const ProgramSet set = make_programs(c, *device, ctx.fabric->nodes());
      if (limit) why = check_degree(set, limit->degree, limit->fabric);
    } catch (const std::invalid_argument& e) {
      (dp                ? w.required("graph")
       : w.has("degree") ? w.required("degree")
                         : ctx.section)
          .fail(e.what());
    }
    if (!why.empty()) ctx.section.fail(why);
  }
  // Degree-aware placement's D: the scenario's `degree`, at most the
  // fabric's degree limit, which is also its default (else it is required).
  void place_within(base::MapReader& w, const std::optional<DegreeLimit>& limit) {
    std::uint32_t& degree = config_.degree;
    if (degree == 0) {
      degree = limit ? std::clamp<std::uint32_t>(limit->degree, 2, 1u << 12)
                     : w.required("degree").as_u32(2, 1u << 12);  // missing: the reader's error
    } else if (limit && degree > limit->degree) {
      w.required("degree").fail(fmt::format(
          "{} is more than {} gives each GPU ({}, its degree): give at most {} or leave it out",
          degree, limit->fabric, limit->degree, limit->degree));
    }
  }
  std::string_view type() const override { return "graph"; }
  Simulation build(std::unique_ptr<fabric::Network> network, const BuildOptions&,
                   const Estimators&) const override {
    return make_graph(config_, std::move(network));
  }
  // The busiest GPU's computation (a lower bound of the iteration) and, under
  // degree-aware placement, Algorithm 1's own figures.
  std::string closed_form(const fabric::Network*, const Estimators&) const override {
    const auto device = compute::make_device(config_.accelerator);
    const ProgramSet set = make_programs(config_, *device, config_.gpus());
    pdes::Time busiest = 0;
    for (const Program& p : set.programs) busiest = std::max(busiest, p.compute_time());
    std::string out = fmt::format(
        "graph: the busiest GPU computes {} per iteration (a lower bound: no communication; run "
        "simulates it)",
        base::format_time_ps(busiest));
    if (config_.placement == Placement::kDegreeAware) {
      const PlacementResult p = place_job(config_, *device);
      const std::vector<std::uint64_t> m = traffic_matrix(p, config_.mp);
      std::uint64_t total = 0, most = 0;
      for (const std::uint64_t b : m) total += b, most = std::max(most, b);
      out += fmt::format(
          "\ngraph: Algorithm 1 placed {} sub-ops, forward estimate {} (no communication), {} "
          "relocations, {} compressions; an MP group sends {} per iteration, {} on its busiest "
          "pair",
          p.subops.size(), base::format_time_ps(p.makespan), p.relocations, p.fallbacks,
          base::format_bytes(total), base::format_bytes(most));
    }
    return out;
  }

 private:
  Config config_;
};

}  // namespace

std::unique_ptr<Plugin> plugin(base::MapReader& section, const Context& context) {
  return std::make_unique<GraphPlugin>(section, context);
}

}  // namespace sipsim::workload::graph
