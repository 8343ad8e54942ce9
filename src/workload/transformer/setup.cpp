// `workload: transformer`'s plug-in (workload/plugin.hpp): its GPUs mapped
// onto the fabric (workload/mapping/), the TP and DP groups' algorithms
// following the fabric's hierarchy as the benchmark's do, and `auto` chosen
// by the critical-path estimate within the fabric's degree.
#include "sipsim/workload/transformer/setup.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>
#include <utility>

#include "sipsim/compute/roofline.hpp"
#include "sipsim/workload/degree.hpp"
#include "sipsim/workload/mapping/mapper.hpp"
#include "sipsim/workload/transformer/transformer.hpp"

namespace sipsim::workload::transformer {

namespace {

// Transformer training (workload/transformer): its GPUs are the fabric's first
// tp x pp x dp nodes; the TP and DP groups' algorithms follow the fabric's
// hierarchy, as the benchmark's do.
class TransformerPlugin final : public Plugin {
 public:
  TransformerPlugin(base::MapReader& w, const Context& ctx) : config_(read_transformer(w)) {
    if (ctx.fabric == nullptr) ctx.section.fail("training needs a fabric: add a fabric section");
    config_.accelerator = ctx.accelerator;
    as_read_ = config_;
    const std::uint32_t nodes = ctx.fabric->nodes();
    if (config_.gpus() > nodes) {
      w.required("parallelism")
          .fail(fmt::format("tp x pp x dp = {} GPUs, but the fabric has {} nodes", config_.gpus(),
                            nodes));
    }
    const std::unique_ptr<mapping::Mapper> mapper = mapping::make_mapper(*ctx.fabric);
    config_.groups[kTpGroup].params =
        mapper->group_params(config_.tp, config_.order[0] == Axis::kTp);
    config_.groups[kDpGroup].params =
        mapper->group_params(config_.dp, config_.order[0] == Axis::kDp);
    map_on_fabric(*mapper, *ctx.fabric);
    if (config_.moe.experts > 0) {
      const std::uint32_t ep = config_.moe.ep, edp = config_.dp / ep;
      config_.groups[kEpGroup].params = mapper->group_params(ep, config_.order[0] == Axis::kDp);
      config_.groups[kEdpGroup].params = mapper->group_params(edp, false);
    }
    // Every collective the groups use (all-reduce; reduce-scatter and
    // all-gather with sequence parallelism or ZeRO) at 1 MiB.
    if (const auto bad = invalid_collective(config_, 1 << 20)) {
      if (!w.has("algorithms")) ctx.section.fail(bad->why);
      base::MapReader a = w.required("algorithms").as_map();
      (a.has(bad->group) ? a.required(bad->group) : w.required("algorithms")).fail(bad->why);
    }
    // After the job fits the fabric: does each GPU's memory fit the accelerator?
    if (config_.memory_check) {
      const std::string why = memory_error(config_);
      if (!why.empty()) w.required("parallelism").fail(why);
    }
    // The groups' peers within the fabric's degree; with `auto`, once the
    // algorithms are chosen (build).
    degree_limit_ = degree_limit(*ctx.fabric);
    if (!config_.groups[kTpGroup].automatic && !config_.groups[kDpGroup].automatic) {
      check_degree_at_load(ctx, config_.accelerator,
                           [this](const compute::Device& d, std::uint32_t fabric_nodes) {
                             return make_programs(config_, d, fabric_nodes);
                           });
    }
  }
  std::string_view type() const override { return "transformer"; }

  // The mapping (workload/mapping/) gives every GPU its node: on a ring
  // fabric each axis folded, its rings' neighbours close on the fibre
  // (SiP-ML §3.2, §5); on a fabric that places jobs itself (RAMP §6.3) the
  // job's sub-box, and every TP and DP group its shape and the fabric's
  // algorithm (RAMP-x), unless the scenario names the algorithm.
  void map_on_fabric(const mapping::Mapper& mapper, fabric::Plugin& fabric) {
    const std::array<std::uint32_t, 3> sizes = axis_sizes(config_);
    mapping::AxesMapping m = mapper.map_axes(sizes);
    config_.nodes = m.nodes;
    config_.folded = m.folded;
    if (!m.algorithm) return;
    bool served = false;
    for (std::size_t i = 0; i < 3; ++i) {
      const Axis a = config_.order[i];
      if (a == Axis::kPp || sizes[i] < 2) continue;
      const bool tp = a == Axis::kTp;
      Group& group = config_.groups[tp ? kTpGroup : kDpGroup];
      group.params = m.params[i];
      if (!group.given) group.algorithm = *m.algorithm;
      served = served || group.algorithm == *m.algorithm;
    }
    // The groups run several collectives at once; the job's sub-box is
    // served when its groups run the fabric's algorithm, and the innermost
    // groups' pairs get the extra transceivers of their own size when they
    // are TP or DP groups, not pipeline pairs.
    fabric::Service service = m.service;
    service.concurrent_collectives = true;
    if (!served) service.job.reset();
    if (!served || config_.order[0] == Axis::kPp) service.inner.reset();
    fabric.serve(service);
  }
  Simulation build(std::unique_ptr<fabric::Network> network, const BuildOptions& options,
                   const Estimators& estimators) const override {
    Config c = config_;
    if (options.resolve_auto) resolve_auto(c, *network, estimators, degree_limit_);
    return make_transformer(c, std::move(network));
  }
  // One group kind's usable algorithms, fastest first by the critical-path
  // estimate of its ops (all-reduce, or reduce-scatter + all-gather; RAMP
  // §7.4.1, as the benchmark's `auto`) on the first group's nodes at the
  // job's message size; ties keep name order. Not `auto` (or a group of one):
  // just its algorithm.
  struct Candidate {
    collective::Algorithm algorithm;
    pdes::Time time = 0;
  };
  static std::vector<Candidate> ranked(const Config& c, const fabric::Network& network,
                                       const Estimators& estimators, bool tp) {
    const std::uint32_t p = tp ? c.tp : c.dp;
    const Group& group = c.groups[tp ? kTpGroup : kDpGroup];
    if (!group.automatic || p < 2) {
      return {{group.algorithm, 0}};
    }
    const compute::Roofline device(c.accelerator);
    const std::uint64_t p_bytes = compute::element_bytes(c.model.precision);
    std::vector<std::uint32_t> members;
    for (std::uint32_t i = 0; i < p; ++i) {
      members.push_back(node_of(c, tp ? Coord{i, 0, 0} : Coord{0, i, 0}));
    }
    const std::uint64_t bytes =
        tp ? std::uint64_t{c.model.micro_batch} * c.model.seq * c.model.hidden * p_bytes
           : stage_parameters(c, 0) * p_bytes;
    const collective::AlgorithmParams& params = group.params;
    std::vector<Candidate> out;
    for (const std::string& name : collective::algorithm_names()) {
      const collective::Algorithm a = *collective::parse_algorithm(name);
      if (!collective::auto_candidate(collective::traits(a), network.refuses_incast())) continue;
      pdes::Time total = 0;
      bool usable = true;
      for (const collective::Op op : group_ops(c, tp)) {
        const collective::CollectiveSpec spec = collective::make_spec(op, a, p, bytes, 0, params);
        if (!collective::why_invalid(spec).empty()) {
          usable = false;
          break;
        }
        const std::optional<pdes::Time> t =
            estimators.critical_path(spec, members, network, device);
        if (!t) {
          usable = false;
          break;
        }
        total += *t;
      }
      if (usable) out.push_back({a, total});
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Candidate& x, const Candidate& y) { return x.time < y.time; });
    if (out.empty()) {
      throw std::invalid_argument(std::string("algorithms.") + (tp ? "tp" : "dp") +
                                  ": auto found no algorithm valid for the group that the "
                                  "estimator can price; name one");
    }
    return out;
  }
  // `algorithms.tp` / `.dp: auto`: the pair of the kinds' ranked candidates
  // with the smallest summed estimate (ties: the faster TP, then DP choice)
  // whose programs fit the fabric's degree, if it has one (SiP-ML §3.2): the
  // fastest algorithm may need more peers (direct: p - 1) than a GPU has.
  // None fits: the fastest pair's degree error. The same on every rank.
  static void resolve_auto(Config& c, const fabric::Network& network, const Estimators& estimators,
                           const std::optional<DegreeLimit>& limit) {
    if (!c.groups[kTpGroup].automatic && !c.groups[kDpGroup].automatic) return;
    const std::vector<Candidate> tps = ranked(c, network, estimators, true);
    const std::vector<Candidate> dps = ranked(c, network, estimators, false);
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t i = 0; i < tps.size(); ++i) {
      for (std::size_t j = 0; j < dps.size(); ++j) pairs.emplace_back(i, j);
    }
    std::stable_sort(pairs.begin(), pairs.end(), [&](const auto& x, const auto& y) {
      return tps[x.first].time + dps[x.second].time < tps[y.first].time + dps[y.second].time;
    });
    std::string first_why;
    for (const auto& [i, j] : pairs) {
      c.groups[kTpGroup].algorithm = tps[i].algorithm;
      c.groups[kDpGroup].algorithm = dps[j].algorithm;
      if (!limit) return;
      std::string why;
      try {
        why = limit->error(c.accelerator, [&c](const compute::Device& d, std::uint32_t nodes) {
          return make_programs(c, d, nodes);
        });
      } catch (const std::invalid_argument& e) {
        why = e.what();
      }
      if (why.empty()) return;
      if (first_why.empty()) first_why = why;
    }
    throw std::invalid_argument(fmt::format(
        "{} (with the fastest pair `auto` found, tp {}, dp {}; none of the {} pairs of valid "
        "algorithms fits)",
        first_why, collective::to_string(tps[0].algorithm), collective::to_string(dps[0].algorithm),
        pairs.size()));
  }
  // `analyze`: AMPeD (eq. 1-12) on the scenario's fabric and device, for the
  // section as written (AMPeD prices rings whatever the mapping chose).
  bool closed_form_needs_network() const override { return true; }
  std::string closed_form(const fabric::Network* network,
                          const Estimators& estimators) const override {
    return estimators.amped_report(as_read_, *network);
  }

 private:
  Config config_;
  Config as_read_;                           // before the mapping: what `analyze` prices
  std::optional<DegreeLimit> degree_limit_;  // for `auto`, checked once chosen
};

}  // namespace

std::unique_ptr<Plugin> plugin(base::MapReader& section, const Context& context) {
  return std::make_unique<TransformerPlugin>(section, context);
}

}  // namespace sipsim::workload::transformer
