// The benchmarks' plug-ins (workload/plugin.hpp): `workload: collectives`,
// the nccl-tests-like benchmark, and `workload: phold`, the PDES kernel's.
#include "sipsim/workload/bench/setup.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "sipsim/base/units.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/pdes/models/phold.hpp"
#include "sipsim/pdes/models/phold_config.hpp"
#include "sipsim/workload/mapping/mapper.hpp"

namespace sipsim::workload {

namespace {

// PHOLD (pdes/models): no fabric, and it never ends by itself.
class PholdPlugin final : public Plugin {
 public:
  PholdPlugin(base::MapReader& w, const Context& ctx)
      : config_(pdes::models::read_phold(w)), end_time_(ctx.end_time) {
    if (ctx.end_time == pdes::kTimeMax) {
      ctx.section.fail(
          "PHOLD never ends by itself: set simulation.end_time (e.g. end_time: 4000us)");
    }
    if (ctx.fabric != nullptr) ctx.fabric_section->fail("PHOLD has no fabric: remove this section");
  }
  std::string_view type() const override { return "phold"; }
  Simulation build(std::unique_ptr<fabric::Network>, const BuildOptions&,
                   const Estimators&) const override {
    Simulation sim;
    sim.model = pdes::models::make_phold(config_);
    sim.results = std::make_unique<Results>();
    return sim;
  }
  // docs/models.md: each event chain advances lookahead + mean per event.
  std::string closed_form(const fabric::Network*, const Estimators&) const override {
    const double per_chain =
        pdes::to_seconds(end_time_) / pdes::to_seconds(config_.lookahead + config_.mean_increment);
    return fmt::format("phold: about {:.0f} events expected ({} chains x {:.1f} hops)",
                       per_chain * config_.lps * config_.start_events_per_lp,
                       std::uint64_t{config_.lps} * config_.start_events_per_lp, per_chain);
  }

 private:
  pdes::models::PholdConfig config_;
  pdes::Time end_time_;
};

// The nccl-tests-like benchmark (workload/bench): its group on the fabric,
// the algorithms' shapes from the fabric (unless workload.dims gives them),
// and the job's placement where the algorithm lets the fabric place it.
class CollectivesPlugin final : public Plugin {
 public:
  CollectivesPlugin(base::MapReader& w, const Context& ctx) {
    if (ctx.fabric == nullptr) ctx.section.fail("collectives need a fabric: add a fabric section");
    fabric::Plugin& fabric = *ctx.fabric;
    const std::unique_ptr<mapping::Mapper> mapper = mapping::make_mapper(fabric);
    CollectivesConfig& c = job_.config;
    c = read_collectives(w, job_.auto_algorithm);
    c.accelerator = ctx.accelerator;
    std::vector<std::uint32_t> members;
    try {
      members = group_nodes(c.group, fabric.nodes());
    } catch (const std::invalid_argument& e) {
      (w.has("group") ? w.required("group") : ctx.section).fail(e.what());
    }
    const auto p = static_cast<std::uint32_t>(members.size());
    if (p < 2) ctx.section.fail("a collective needs a group of at least 2 nodes");
    if (c.root >= p) {
      w.required("root").fail("must be below the group size (" + std::to_string(p) + ")");
    }
    if (c.params.hierarchy[0] == 0) {  // no workload.dims: the fabric's hierarchy
      const collective::AlgorithmParams derived = mapper->group_params(p, c.group.stride == 1);
      c.params.hierarchy = derived.hierarchy;
      c.params.torus = derived.torus;
    }
    const bool auto_algorithm = job_.auto_algorithm;
    const bool placed = !auto_algorithm && collective::traits(c.algorithm).fabric_placement;
    std::optional<mapping::GroupPlacement> placement;
    try {
      placement = mapper->place_group(p, c.params);
    } catch (const std::invalid_argument& e) {
      if (placed) (w.has("group") ? w.required("group") : ctx.section).fail(e.what());
    }
    if (placement) c.params = placement->params;
    if (placement && (placed || auto_algorithm)) {
      if (w.has("group") && (c.group.first != 0 || c.group.stride != 1)) {
        w.required("group").fail(
            "the fabric chooses this job's nodes (RAMP §6.3): give only "
            "group.count");
      }
      c.nodes = placement->nodes;
    }
    // Not under `auto`: the one network then also carries other algorithms.
    if (placement && placed) fabric.serve(placement->service);
    if (!auto_algorithm) {
      const collective::CollectiveSpec spec = make_spec(c, p, c.min_bytes, c.algorithm);
      const std::string why = collective::why_invalid(spec);
      const bool dims = why.find(" dims ") != std::string::npos && w.has("dims");
      if (!why.empty()) w.required(dims ? "dims" : "algorithm").fail(why);
    }
    job_.members = job_members(c, fabric.nodes());
    check_time_bound(w, fabric.slowest_rate_bps());
  }

  std::string_view type() const override { return "collectives"; }
  const CollectiveJob* collective_job() const override { return &job_; }

  Simulation build(std::unique_ptr<fabric::Network> network, const BuildOptions& options,
                   const Estimators& estimators) const override {
    CollectivesConfig c = job_.config;
    if (job_.auto_algorithm) {
      if (options.resolve_auto) {
        resolve_auto(c, *network, estimators);
      } else {
        check_auto(c, *network, estimators);
      }
    }
    return make_collectives_benchmark(c, std::move(network));
  }

 private:
  // The specs at `bytes` of the algorithms `auto` chooses among (those valid
  // for the op and group), or of the named algorithm if it is valid.
  std::vector<collective::CollectiveSpec> valid_specs(const CollectivesConfig& c,
                                                      std::uint64_t bytes,
                                                      bool refuses_incast = false) const {
    const auto p = static_cast<std::uint32_t>(job_.members.size());
    std::vector<collective::CollectiveSpec> out;
    for (const collective::Algorithm algorithm : collective::all_algorithms()) {
      if (!job_.auto_algorithm && algorithm != c.algorithm) continue;
      if (job_.auto_algorithm &&
          (!collective::auto_candidate(collective::traits(algorithm), refuses_incast,
                                       !c.auto_among.empty()) ||
           !auto_may_choose(c, algorithm))) {
        continue;
      }
      collective::CollectiveSpec spec = make_spec(c, p, bytes, algorithm);
      if (collective::why_invalid(spec).empty()) out.push_back(std::move(spec));
    }
    return out;
  }

  [[noreturn]] void no_auto_algorithm() const {
    throw std::invalid_argument(
        "no algorithm implements this operation at a size `auto` can estimate; name one");
  }

  // `auto` without the estimates (BuildOptions::resolve_auto false): it
  // fails only when a size has no valid algorithm within the estimator's
  // work limit; otherwise build with one. The estimator's count is at most 4x
  // its lower bound (Estimators::work_lower_bound), which is at
  // most p x the steps of three members; so the cheapest test goes first and
  // the exact count (every member's schedule, seconds at 10^6 nodes) is
  // needed only when no algorithm is clearly within the limit.
  void check_auto(CollectivesConfig& c, const fabric::Network& network,
                  const Estimators& estimators) const {
    const std::uint64_t limit = estimators.work_limit(), sure = limit / 4;
    for (std::uint64_t bytes : sweep_sizes(c)) {
      const std::vector<collective::CollectiveSpec> specs =
          valid_specs(c, bytes, network.refuses_incast());
      auto pick = [&]() -> std::optional<collective::Algorithm> {
        for (const collective::CollectiveSpec& spec : specs) {
          if (std::uint64_t{spec.p} * most_steps(spec) <= sure) return spec.algorithm;
        }
        std::vector<const collective::CollectiveSpec*> near;
        for (const collective::CollectiveSpec& spec : specs) {
          const std::uint64_t lower = estimators.work_lower_bound(spec);
          if (lower <= sure) return spec.algorithm;
          if (lower <= limit) near.push_back(&spec);
        }
        for (const collective::CollectiveSpec* spec : near) {
          if (estimators.work(*spec) <= limit) {
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
    const CollectivesConfig& c = job_.config;
    const U128 limit = U128{1} << 63;
    const U128 runs = U128{c.warmup} + c.iterations;
    U128 total = 0;
    for (std::uint64_t bytes : sweep_sizes(c)) {
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
  void resolve_auto(CollectivesConfig& c, const fabric::Network& network,
                    const Estimators& estimators) const {
    const compute::Roofline device(c.accelerator);
    for (std::uint64_t bytes : sweep_sizes(c)) {
      std::optional<collective::Algorithm> best;
      pdes::Time best_time = pdes::kTimeMax;
      for (const collective::CollectiveSpec& spec :
           valid_specs(c, bytes, network.refuses_incast())) {
        const std::optional<pdes::Time> t =
            estimators.critical_path(spec, job_.members, network, device);
        if (t && *t < best_time) {
          best_time = *t;
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

}  // namespace

std::unique_ptr<Plugin> phold_plugin(base::MapReader& section, const Context& context) {
  return std::make_unique<PholdPlugin>(section, context);
}
std::unique_ptr<Plugin> collectives_plugin(base::MapReader& section, const Context& context) {
  return std::make_unique<CollectivesPlugin>(section, context);
}

}  // namespace sipsim::workload
