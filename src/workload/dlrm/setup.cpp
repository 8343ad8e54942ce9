// `workload: dlrm`'s plug-in (workload/plugin.hpp): its GPUs are the
// fabric's first `gpus` nodes, or the nodes the fabric places the job on
// (RAMP §6.3, workload/mapping/) when a collective runs RAMP-x.
#include "sipsim/workload/dlrm/setup.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "sipsim/base/units.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/workload/degree.hpp"
#include "sipsim/workload/dlrm/dlrm.hpp"
#include "sipsim/workload/mapping/mapper.hpp"

namespace sipsim::workload::dlrm {

namespace {

// DLRM training (workload/dlrm): its GPUs are the fabric's first `gpus`
// nodes, or the nodes the fabric places the job on (RAMP §6.3) when a
// collective runs RAMP-x. `auto` is RAMP-x where the fabric places jobs and
// RAMP-x is valid, else direct (all-to-all) and ring (all-reduce).
class DlrmPlugin final : public Plugin {
 public:
  DlrmPlugin(base::MapReader& w, const Context& ctx) : config_(read_dlrm(w)) {
    if (ctx.fabric == nullptr) ctx.section.fail("training needs a fabric: add a fabric section");
    fabric::Plugin& fabric = *ctx.fabric;
    Config& c = config_;
    c.accelerator = ctx.accelerator;
    // The shards must fit the device, not only the partitioner's bound.
    if (c.memory_share > c.accelerator.memory_capacity_bytes) {
      w.required("memory_share")
          .fail(fmt::format("{} exceeds the {}'s {} of memory", base::format_bytes(c.memory_share),
                            c.accelerator.name,
                            base::format_bytes(c.accelerator.memory_capacity_bytes)));
    }
    if (c.gpus > fabric.nodes()) {
      w.required("gpus").fail(
          fmt::format("{} GPUs, but the fabric has {} nodes", c.gpus, fabric.nodes()));
    }
    Partition x;
    try {
      x = partition(c);
    } catch (const std::invalid_argument& e) {
      (w.has("memory_share") ? w.required("memory_share") : w.required("model")).fail(e.what());
    }
    if (c.gpus < 2) return;
    const std::uint64_t a2a = all_to_all_bytes(c, x);
    const std::uint64_t grads = mlp_parameters(c.model) * compute::element_bytes(c.model.precision);
    const std::unique_ptr<mapping::Mapper> mapper = mapping::make_mapper(fabric);
    c.params = mapper->group_params(c.gpus, true);
    std::optional<mapping::GroupPlacement> placed;
    try {
      placed = mapper->place_group(c.gpus, c.params);
    } catch (const std::invalid_argument&) {
    }
    auto valid = [&](collective::Op op, collective::Algorithm a, std::uint64_t bytes,
                     const collective::AlgorithmParams& params) {
      return collective::why_invalid(collective::make_spec(op, a, c.gpus, bytes, 0, params));
    };
    if (placed) {  // `auto`: the fabric's algorithm (RAMP-x) where it is valid
      const collective::Algorithm own = placed->algorithm;
      if (c.auto_all_to_all && valid(collective::Op::kAllToAll, own, a2a, placed->params).empty())
        c.all_to_all = own;
      if (c.auto_all_reduce &&
          valid(collective::Op::kAllReduce, own, grads, placed->params).empty())
        c.all_reduce = own;
    }
    const bool a2a_placed = collective::traits(c.all_to_all).fabric_placement;
    const bool ar_placed = collective::traits(c.all_reduce).fabric_placement;
    if (a2a_placed || ar_placed) {
      if (!placed) {
        fail_algorithm(w, ctx, a2a_placed ? "all_to_all" : "all_reduce",
                       "the fabric does not place jobs: this algorithm cannot run here");
      }
      c.params = placed->params;
      c.nodes = placed->nodes;
      // The fabric's transcoder serves the job when it is the only traffic.
      if (a2a_placed && ar_placed) fabric.serve(placed->service);
    }
    for (const auto& [name, op, algorithm, bytes] :
         {std::tuple{"all_to_all", collective::Op::kAllToAll, c.all_to_all, a2a},
          std::tuple{"all_reduce", collective::Op::kAllReduce, c.all_reduce, grads}}) {
      const std::string why = valid(op, algorithm, bytes, c.params);
      if (!why.empty()) fail_algorithm(w, ctx, name, why);
    }
    check_degree_at_load(ctx, c.accelerator, [&c](const compute::Device& d, std::uint32_t nodes) {
      return make_programs(c, d, nodes);
    });
  }
  std::string_view type() const override { return "dlrm"; }
  Simulation build(std::unique_ptr<fabric::Network> network, const BuildOptions&,
                   const Estimators&) const override {
    return make_dlrm(config_, std::move(network));
  }
  // The busiest GPU's computation, a lower bound of the iteration time.
  std::string closed_form(const fabric::Network*, const Estimators&) const override {
    const auto device = compute::make_device(config_.accelerator);
    ProgramSet set;
    try {
      std::uint32_t nodes = config_.gpus;
      for (const std::uint32_t n : config_.nodes) nodes = std::max(nodes, n + 1);
      set = make_programs(config_, *device, nodes);
    } catch (const std::invalid_argument& e) {
      return std::string("dlrm: ") + e.what();
    }
    pdes::Time busiest = 0;
    for (const Program& p : set.programs) busiest = std::max(busiest, p.compute_time());
    return fmt::format(
        "dlrm: the busiest GPU computes {} per iteration (a lower bound: no communication; run "
        "simulates it)",
        base::format_time_ps(busiest));
  }

 private:
  [[noreturn]] static void fail_algorithm(base::MapReader& w, const Context& ctx, const char* key,
                                          const std::string& why) {
    if (!w.has("algorithms")) ctx.section.fail(why);
    base::MapReader a = w.required("algorithms").as_map();
    (a.has(key) ? a.required(key) : w.required("algorithms")).fail(why);
  }

  Config config_;
};

}  // namespace

std::unique_ptr<Plugin> plugin(base::MapReader& section, const Context& context) {
  return std::make_unique<DlrmPlugin>(section, context);
}

}  // namespace sipsim::workload::dlrm
