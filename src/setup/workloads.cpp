// The workload registry: one row per `workload: type`. Each reads its
// section with its module's reader, checks it against the fabric and builds
// its simulation. To add a workload: its program generator under workload/,
// a WorkloadSetup here, and one row in workload_registry().
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <array>
#include <optional>
#include <tuple>

#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/base/units.hpp"
#include "sipsim/pdes/models/phold.hpp"
#include "sipsim/pdes/models/phold_config.hpp"
#include "sipsim/setup/setup.hpp"
#include "sipsim/workload/degree.hpp"
#include "sipsim/workload/dlrm/dlrm.hpp"
#include "sipsim/workload/graph/graph.hpp"
#include "sipsim/workload/transformer/transformer.hpp"

namespace sipsim::setup {

namespace {

// On a fabric whose GPUs each reach a limited number of peers (SiP-OCS,
// SiP-Ring: FabricSetup::degree_limit, SiP-ML §3.2), every GPU of a training
// job must exchange data with at most that many (workload/degree.hpp).
struct DegreeLimit {
  std::uint32_t degree = 0;
  std::string fabric;       // "fabric sip-ocs", for the message
  std::uint32_t nodes = 0;  // the fabric's
  // "" when every GPU's peers fit; building the programs may throw
  // std::invalid_argument.
  template <class MakePrograms>
  std::string error(const compute::Accelerator& accelerator, MakePrograms make_programs) const {
    const auto device = compute::make_device(accelerator);
    return workload::check_degree(make_programs(*device, nodes), degree, fabric);
  }
};
std::optional<DegreeLimit> degree_limit(const FabricSetup& fabric) {
  const std::optional<std::uint32_t> d = fabric.degree_limit();
  if (!d) return std::nullopt;
  return DegreeLimit{*d, fmt::format("fabric {}", fabric.type()), fabric.nodes()};
}

// The check from a training workload's reader, located at the section. The
// programs are built only on such a fabric.
template <class MakePrograms>
void check_degree_at_load(const WorkloadContext& ctx, const compute::Accelerator& accelerator,
                          MakePrograms make_programs) {
  const std::optional<DegreeLimit> limit = degree_limit(*ctx.fabric);
  if (!limit) return;
  std::string why;
  try {
    why = limit->error(accelerator, make_programs);
  } catch (const std::invalid_argument& e) {
    why = e.what();  // what building the model would say, at the same place
  }
  if (!why.empty()) ctx.section.fail(why);
}

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
  workload::Simulation build(std::unique_ptr<fabric::Network>, const BuildOptions&) const override {
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
    check_time_bound(w, fabric.slowest_rate_bps());
  }

  std::string_view type() const override { return "collectives"; }
  const CollectiveJob* collective_job() const override { return &job_; }

  workload::Simulation build(std::unique_ptr<fabric::Network> network,
                             const BuildOptions& options) const override {
    workload::CollectivesConfig c = job_.config;
    if (job_.auto_algorithm) {
      if (options.resolve_auto) {
        resolve_auto(c, *network);
      } else {
        check_auto(c);
      }
    }
    return workload::make_collectives_benchmark(c, std::move(network));
  }

 private:
  // The specs at `bytes` of the algorithms `auto` chooses among (those valid
  // for the op and group), or of the named algorithm if it is valid.
  std::vector<collective::CollectiveSpec> valid_specs(const workload::CollectivesConfig& c,
                                                      std::uint64_t bytes) const {
    const auto p = static_cast<std::uint32_t>(job_.members.size());
    std::vector<collective::CollectiveSpec> out;
    for (const collective::Algorithm algorithm : collective::all_algorithms()) {
      if (!job_.auto_algorithm && algorithm != c.algorithm) continue;
      collective::CollectiveSpec spec = workload::make_spec(c, p, bytes, algorithm);
      if (collective::why_invalid(spec).empty()) out.push_back(std::move(spec));
    }
    return out;
  }

  [[noreturn]] void no_auto_algorithm() const {
    throw base::ScenarioError(
        location, key,
        "no algorithm implements this operation at a size `auto` can estimate; name one");
  }

  // `auto` without the estimates (BuildOptions::resolve_auto false): it
  // fails only when a size has no valid algorithm within the estimator's
  // work limit; otherwise build with one. The estimator's count is at most 4x
  // its lower bound (analytical::critical_path_work_lower_bound), which is at
  // most p x the steps of three members; so the cheapest test goes first and
  // the exact count (every member's schedule, seconds at 10^6 nodes) is
  // needed only when no algorithm is clearly within the limit.
  void check_auto(workload::CollectivesConfig& c) const {
    constexpr std::uint64_t kSure = analytical::kDefaultMaxWork / 4;
    for (std::uint64_t bytes : workload::sweep_sizes(c)) {
      const std::vector<collective::CollectiveSpec> specs = valid_specs(c, bytes);
      auto pick = [&]() -> std::optional<collective::Algorithm> {
        for (const collective::CollectiveSpec& spec : specs) {
          if (std::uint64_t{spec.p} * most_steps(spec) <= kSure) return spec.algorithm;
        }
        std::vector<const collective::CollectiveSpec*> near;
        for (const collective::CollectiveSpec& spec : specs) {
          const std::uint64_t lower = analytical::critical_path_work_lower_bound(spec);
          if (lower <= kSure) return spec.algorithm;
          if (lower <= analytical::kDefaultMaxWork) near.push_back(&spec);
        }
        for (const collective::CollectiveSpec* spec : near) {
          if (analytical::critical_path_work(*spec) <= analytical::kDefaultMaxWork) {
            return spec->algorithm;
          }
        }
        return std::nullopt;
      };
      const std::optional<collective::Algorithm> algorithm = pick();
      if (!algorithm) no_auto_algorithm();
      c.per_size.push_back(*algorithm);
    }
    c.algorithm = c.per_size.front();
  }

  // The most steps of members 0, root and p - 1 (members differ: trees).
  static std::uint32_t most_steps(const collective::CollectiveSpec& spec) {
    std::uint32_t steps = 0;
    for (const std::uint32_t m : {0u, spec.root, spec.p - 1}) {
      steps = std::max(steps, collective::Schedule(spec, m).steps());
    }
    return steps;
  }

  // docs/scenarios.md, "Size bound": the simulated time of the sweep must fit
  // pdes::Time. Each step of a collective moves at most the size per member,
  // so (warmup + iterations) x steps x the size's time over the fabric's
  // slowest link, summed over the sizes, bounds the time the collectives need
  // on an idle fabric; it must stay below 2^63 ps, which leaves a factor of 2
  // for latencies, computation and contention.
  void check_time_bound(base::MapReader& w, std::uint64_t slowest_bps) const {
    if (slowest_bps == 0) return;
    __extension__ typedef unsigned __int128 U128;
    const workload::CollectivesConfig& c = job_.config;
    const U128 limit = U128{1} << 63;
    const U128 runs = U128{c.warmup} + c.iterations;
    U128 total = 0;
    for (std::uint64_t bytes : workload::sweep_sizes(c)) {
      std::uint32_t steps = 1;
      for (const collective::CollectiveSpec& spec : valid_specs(c, bytes)) {
        steps = std::max(steps, most_steps(spec));
      }
      const U128 once = (U128{bytes} * 8 * pdes::kSecond + slowest_bps - 1) / slowest_bps;
      const U128 term = once >= limit ? limit : runs * steps * once;  // < 2^(63 + 21 + 32)
      if (total + term < limit) {
        total += term;
        continue;
      }
      // The largest size that fits beside the smaller ones, about (linear in the size).
      const long double fits =
          static_cast<long double>(bytes) * static_cast<long double>(limit - total) /
          (static_cast<long double>(runs) * steps * static_cast<long double>(once));
      const base::Value at = w.has("size") ? w.required("size") : w.required("sizes");
      at.fail(fmt::format(
          "the sweep may need more simulated time than a run can reach (2^63 ps, about 106 "
          "days): at {}, {} runs x {} steps x {:.4g} s (the size over the fabric's slowest "
          "link, {}) exceed it; sizes up to about {} fit (docs/scenarios.md, \"Size bound\")",
          base::format_bytes(bytes), c.warmup + c.iterations, steps,
          static_cast<double>(once) / static_cast<double>(pdes::kSecond),
          base::format_bandwidth_bps(slowest_bps),
          base::format_bytes(static_cast<std::uint64_t>(fits))));
    }
  }

  // nccl-tests' "auto": the algorithm with the smallest critical-path cost
  // (RAMP §7.4.1: steps with their links' loads), chosen per size, among those
  // valid for this op and group and cheap enough to estimate at this scale.
  void resolve_auto(workload::CollectivesConfig& c, const fabric::Network& network) const {
    const compute::Roofline device(c.accelerator);
    for (std::uint64_t bytes : workload::sweep_sizes(c)) {
      std::optional<collective::Algorithm> best;
      pdes::Time best_time = pdes::kTimeMax;
      for (const collective::CollectiveSpec& spec : valid_specs(c, bytes)) {
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
      if (!best) no_auto_algorithm();
      c.per_size.push_back(*best);
    }
    c.algorithm = c.per_size.front();
  }

  CollectiveJob job_;
};

// Transformer training (workload/transformer): its GPUs are the fabric's first
// tp x pp x dp nodes; the TP and DP groups' algorithms follow the fabric's
// hierarchy, as the benchmark's do.
class TransformerSetup final : public WorkloadSetup {
 public:
  TransformerSetup(base::MapReader& w, const WorkloadContext& ctx)
      : config_(workload::transformer::read_transformer(w)) {
    if (ctx.fabric == nullptr) ctx.section.fail("training needs a fabric: add a fabric section");
    config_.accelerator = ctx.accelerator;
    const std::uint32_t nodes = ctx.fabric->nodes();
    if (config_.gpus() > nodes) {
      w.required("parallelism")
          .fail(fmt::format("tp x pp x dp = {} GPUs, but the fabric has {} nodes", config_.gpus(),
                            nodes));
    }
    using workload::transformer::Axis;
    config_.tp_params = ctx.fabric->algorithm_params(config_.tp, config_.order[0] == Axis::kTp);
    config_.dp_params = ctx.fabric->algorithm_params(config_.dp, config_.order[0] == Axis::kDp);
    place_on_fabric(*ctx.fabric);
    // On a ring fabric each axis is folded, its rings' neighbours close on
    // the fibre (SiP-ML §3.2, §5), but one whose groups span the whole ring.
    if (config_.nodes.empty() && ctx.fabric->ring_embedding()) {
      config_.nodes = workload::transformer::folded_nodes(config_, nodes);
      config_.folded = true;
    }
    if (config_.moe.experts > 0) {
      const std::uint32_t ep = config_.moe.ep, edp = config_.dp / ep;
      config_.ep_params = ctx.fabric->algorithm_params(ep, config_.order[0] == Axis::kDp);
      config_.edp_params = ctx.fabric->algorithm_params(edp, false);
    }
    // Every collective the groups use (all-reduce; reduce-scatter and
    // all-gather with sequence parallelism or ZeRO) at 1 MiB.
    if (const auto bad = workload::transformer::invalid_collective(config_, 1 << 20)) {
      if (!w.has("algorithms")) ctx.section.fail(bad->why);
      base::MapReader a = w.required("algorithms").as_map();
      (a.has(bad->group) ? a.required(bad->group) : w.required("algorithms")).fail(bad->why);
    }
    // After the job fits the fabric: does each GPU's memory fit the accelerator?
    if (config_.memory_check) {
      const std::string why = workload::transformer::memory_error(config_);
      if (!why.empty()) w.required("parallelism").fail(why);
    }
    // The groups' peers within the fabric's degree; with `auto`, once the
    // algorithms are chosen (build).
    degree_limit_ = degree_limit(*ctx.fabric);
    if (!config_.tp_auto && !config_.dp_auto) {
      check_degree_at_load(ctx, config_.accelerator,
                           [this](const compute::Device& d, std::uint32_t fabric_nodes) {
                             return workload::transformer::make_programs(config_, d, fabric_nodes);
                           });
    }
  }
  std::string_view type() const override { return "transformer"; }

  // A fabric that places jobs itself (RAMP §6.3) gives every GPU its node and
  // every TP and DP group its shape and algorithm (RAMP-x), unless the
  // scenario names the algorithm.
  void place_on_fabric(FabricSetup& fabric) {
    using workload::transformer::Axis;
    std::array<std::uint32_t, 3> sizes{};
    for (std::size_t i = 0; i < 3; ++i) {
      const Axis a = config_.order[i];
      sizes[i] = a == Axis::kTp ? config_.tp : a == Axis::kDp ? config_.dp : config_.pp;
    }
    const std::optional<FabricSetup::AxesPlacement> placed = fabric.place_axes(sizes);
    if (!placed) return;
    fabric.serve_concurrent_collectives();
    config_.nodes = placed->nodes;
    bool served = false;
    for (std::size_t i = 0; i < 3; ++i) {
      const Axis a = config_.order[i];
      if (a == Axis::kPp || sizes[i] < 2) continue;
      const bool tp = a == Axis::kTp;
      (tp ? config_.tp_params : config_.dp_params) = placed->params[i];
      collective::Algorithm& algorithm = tp ? config_.tp_algorithm : config_.dp_algorithm;
      if (!(tp ? config_.tp_algorithm_given : config_.dp_algorithm_given)) {
        algorithm = placed->algorithm;
      }
      served = served || algorithm == placed->algorithm;
    }
    if (!served) return;
    // The innermost groups' pairs get the extra transceivers of their own
    // size (RampSpec::inner) when they are TP or DP groups, not pipeline pairs.
    FabricSetup::AxesPlacement serve = *placed;
    if (config_.order[0] == Axis::kPp) serve.params.clear();
    fabric.serve_axes(serve);
  }
  workload::Simulation build(std::unique_ptr<fabric::Network> network,
                             const BuildOptions& options) const override {
    workload::transformer::Config c = config_;
    if (options.resolve_auto) resolve_auto(c, *network, degree_limit_);
    return workload::transformer::make_transformer(c, std::move(network));
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
  static std::vector<Candidate> ranked(const workload::transformer::Config& c,
                                       const fabric::Network& network, bool tp) {
    using workload::transformer::Coord;
    const std::uint32_t p = tp ? c.tp : c.dp;
    if (!(tp ? c.tp_auto : c.dp_auto) || p < 2) {
      return {{tp ? c.tp_algorithm : c.dp_algorithm, 0}};
    }
    const compute::Roofline device(c.accelerator);
    const std::uint64_t p_bytes = compute::element_bytes(c.model.precision);
    std::vector<std::uint32_t> members;
    for (std::uint32_t i = 0; i < p; ++i) {
      members.push_back(workload::transformer::node_of(c, tp ? Coord{i, 0, 0} : Coord{0, i, 0}));
    }
    const std::uint64_t bytes =
        tp ? std::uint64_t{c.model.micro_batch} * c.model.seq * c.model.hidden * p_bytes
           : workload::transformer::stage_parameters(c, 0) * p_bytes;
    const collective::AlgorithmParams& params = tp ? c.tp_params : c.dp_params;
    std::vector<Candidate> out;
    for (const std::string& name : collective::algorithm_names()) {
      const collective::Algorithm a = *collective::parse_algorithm(name);
      pdes::Time total = 0;
      bool usable = true;
      for (const collective::Op op : workload::transformer::group_ops(c, tp)) {
        const collective::CollectiveSpec spec = collective::make_spec(op, a, p, bytes, 0, params);
        if (!collective::why_invalid(spec).empty()) {
          usable = false;
          break;
        }
        try {
          total += analytical::estimate_critical_path(spec, members, network, device).total;
        } catch (const analytical::EstimateTooLarge&) {
          usable = false;
          break;
        }
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
  static void resolve_auto(workload::transformer::Config& c, const fabric::Network& network,
                           const std::optional<DegreeLimit>& limit) {
    if (!c.tp_auto && !c.dp_auto) return;
    const std::vector<Candidate> tps = ranked(c, network, true);
    const std::vector<Candidate> dps = ranked(c, network, false);
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t i = 0; i < tps.size(); ++i) {
      for (std::size_t j = 0; j < dps.size(); ++j) pairs.emplace_back(i, j);
    }
    std::stable_sort(pairs.begin(), pairs.end(), [&](const auto& x, const auto& y) {
      return tps[x.first].time + dps[x.second].time < tps[y.first].time + dps[y.second].time;
    });
    std::string first_why;
    for (const auto& [i, j] : pairs) {
      c.tp_algorithm = tps[i].algorithm;
      c.dp_algorithm = dps[j].algorithm;
      if (!limit) return;
      std::string why;
      try {
        why = limit->error(c.accelerator, [&c](const compute::Device& d, std::uint32_t nodes) {
          return workload::transformer::make_programs(c, d, nodes);
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
  // `analyze` evaluates AMPeD for transformers (analytical/amped.hpp).

 private:
  workload::transformer::Config config_;
  std::optional<DegreeLimit> degree_limit_;  // for `auto`, checked once chosen
};

// DLRM training (workload/dlrm): its GPUs are the fabric's first `gpus`
// nodes, or the nodes the fabric places the job on (RAMP §6.3) when a
// collective runs RAMP-x. `auto` is RAMP-x where the fabric places jobs and
// RAMP-x is valid, else direct (all-to-all) and ring (all-reduce).
class DlrmSetup final : public WorkloadSetup {
 public:
  DlrmSetup(base::MapReader& w, const WorkloadContext& ctx)
      : config_(workload::dlrm::read_dlrm(w)) {
    if (ctx.fabric == nullptr) ctx.section.fail("training needs a fabric: add a fabric section");
    FabricSetup& fabric = *ctx.fabric;
    workload::dlrm::Config& c = config_;
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
    workload::dlrm::Partition x;
    try {
      x = workload::dlrm::partition(c);
    } catch (const std::invalid_argument& e) {
      (w.has("memory_share") ? w.required("memory_share") : w.required("model")).fail(e.what());
    }
    if (c.gpus < 2) return;
    const std::uint64_t a2a = workload::dlrm::all_to_all_bytes(c, x);
    const std::uint64_t grads =
        workload::dlrm::mlp_parameters(c.model) * compute::element_bytes(c.model.precision);
    c.params = fabric.algorithm_params(c.gpus, true);
    collective::AlgorithmParams placed_params = c.params;
    std::optional<std::vector<std::uint32_t>> placed;
    try {
      placed = fabric.place_job(c.gpus, placed_params);
    } catch (const std::invalid_argument&) {
    }
    const collective::Algorithm ramp_x = collective::algorithm("ramp-x");
    auto valid = [&](collective::Op op, collective::Algorithm a, std::uint64_t bytes,
                     const collective::AlgorithmParams& params) {
      return collective::why_invalid(collective::make_spec(op, a, c.gpus, bytes, 0, params));
    };
    if (placed) {
      if (c.auto_all_to_all && valid(collective::Op::kAllToAll, ramp_x, a2a, placed_params).empty())
        c.all_to_all = ramp_x;
      if (c.auto_all_reduce &&
          valid(collective::Op::kAllReduce, ramp_x, grads, placed_params).empty())
        c.all_reduce = ramp_x;
    }
    const bool a2a_placed = collective::traits(c.all_to_all).fabric_placement;
    const bool ar_placed = collective::traits(c.all_reduce).fabric_placement;
    if (a2a_placed || ar_placed) {
      if (!placed) {
        fail_algorithm(w, ctx, a2a_placed ? "all_to_all" : "all_reduce",
                       "the fabric does not place jobs: this algorithm cannot run here");
      }
      c.params = placed_params;
      c.nodes = std::move(*placed);
      // The fabric's transcoder serves the job when it is the only traffic.
      if (a2a_placed && ar_placed) fabric.serve_job(c.params);
    }
    for (const auto& [name, op, algorithm, bytes] :
         {std::tuple{"all_to_all", collective::Op::kAllToAll, c.all_to_all, a2a},
          std::tuple{"all_reduce", collective::Op::kAllReduce, c.all_reduce, grads}}) {
      const std::string why = valid(op, algorithm, bytes, c.params);
      if (!why.empty()) fail_algorithm(w, ctx, name, why);
    }
    check_degree_at_load(ctx, c.accelerator, [&c](const compute::Device& d, std::uint32_t nodes) {
      return workload::dlrm::make_programs(c, d, nodes);
    });
  }
  std::string_view type() const override { return "dlrm"; }
  workload::Simulation build(std::unique_ptr<fabric::Network> network,
                             const BuildOptions&) const override {
    return workload::dlrm::make_dlrm(config_, std::move(network));
  }
  // The busiest GPU's computation, a lower bound of the iteration time.
  std::string analysis(const scenario::SimulationSettings&) const override {
    const auto device = compute::make_device(config_.accelerator);
    workload::ProgramSet set;
    try {
      std::uint32_t nodes = config_.gpus;
      for (const std::uint32_t n : config_.nodes) nodes = std::max(nodes, n + 1);
      set = workload::dlrm::make_programs(config_, *device, nodes);
    } catch (const std::invalid_argument& e) {
      return std::string("dlrm: ") + e.what();
    }
    pdes::Time busiest = 0;
    for (const workload::Program& p : set.programs) {
      pdes::Time busy = 0;
      for (std::uint32_t i = 0; i < p.size(); ++i) busy += p.op(i).duration;
      busiest = std::max(busiest, busy);
    }
    return fmt::format(
        "dlrm: the busiest GPU computes {} per iteration (a lower bound: no communication; run "
        "simulates it)",
        base::format_time_ps(busiest));
  }

 private:
  [[noreturn]] static void fail_algorithm(base::MapReader& w, const WorkloadContext& ctx,
                                          const char* key, const std::string& why) {
    if (!w.has("algorithms")) ctx.section.fail(why);
    base::MapReader a = w.required("algorithms").as_map();
    (a.has(key) ? a.required(key) : w.required("algorithms")).fail(why);
  }

  workload::dlrm::Config config_;
};

// Op-graph training (workload/graph): GPU g * mp + r is fabric node g * mp + r
// (MP groups innermost); the DP groups' algorithm follows the fabric's shape.
class GraphSetup final : public WorkloadSetup {
 public:
  GraphSetup(base::MapReader& w, const WorkloadContext& ctx)
      : config_(workload::graph::read_graph_workload(w, ctx.scenario.path)) {
    if (ctx.fabric == nullptr) ctx.section.fail("training needs a fabric: add a fabric section");
    workload::graph::Config& c = config_;
    c.accelerator = ctx.accelerator;
    const bool dp = c.placement == workload::graph::Placement::kDataParallel;
    const std::optional<DegreeLimit> limit = degree_limit(*ctx.fabric);
    if (!dp) place_within(w, limit);
    if (c.gpus() > ctx.fabric->nodes()) {
      w.required(dp ? "gpus" : "dp")
          .fail(fmt::format("{} GPUs, but the fabric has {} nodes", c.gpus(), ctx.fabric->nodes()));
    }
    c.dp_params = ctx.fabric->algorithm_params(c.dp, c.mp == 1);
    c.fold_groups = ctx.fabric->ring_embedding();
    // Model-parallel messages and the DP buckets run at once: RAMP serialises
    // colliding transfers (as for the transformer) unless the scenario says.
    ctx.fabric->serve_concurrent_collectives();
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
      const workload::ProgramSet set =
          workload::graph::make_programs(c, *device, ctx.fabric->nodes());
      if (limit) why = workload::check_degree(set, limit->degree, limit->fabric);
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
  workload::Simulation build(std::unique_ptr<fabric::Network> network,
                             const BuildOptions&) const override {
    return workload::graph::make_graph(config_, std::move(network));
  }
  // The busiest GPU's computation (a lower bound of the iteration) and, under
  // degree-aware placement, Algorithm 1's own figures.
  std::string analysis(const scenario::SimulationSettings&) const override {
    namespace graph = workload::graph;
    const auto device = compute::make_device(config_.accelerator);
    const workload::ProgramSet set = graph::make_programs(config_, *device, config_.gpus());
    pdes::Time busiest = 0;
    for (const workload::Program& p : set.programs) {
      pdes::Time busy = 0;
      for (std::uint32_t i = 0; i < p.size(); ++i) busy += p.op(i).duration;
      busiest = std::max(busiest, busy);
    }
    std::string out = fmt::format(
        "graph: the busiest GPU computes {} per iteration (a lower bound: no communication; run "
        "simulates it)",
        base::format_time_ps(busiest));
    if (config_.placement == graph::Placement::kDegreeAware) {
      const graph::PlacementResult p = graph::place_job(config_, *device);
      const std::vector<std::uint64_t> m = graph::traffic_matrix(p, config_.mp);
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
  workload::graph::Config config_;
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
      {"transformer", read_as<TransformerSetup>},
      {"dlrm", read_as<DlrmSetup>},
      {"graph", read_as<GraphSetup>},
  };
  return kWorkloads;
}

}  // namespace sipsim::setup
