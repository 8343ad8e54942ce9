// `workload: chakra`'s plug-in (workload/plugin.hpp): the GPUs (trace g is
// GPU g) on the nodes the fabric's mapper places the job on; `auto`
// algorithms are the fabric's own (mapping/) where valid for every size and
// group size the traces use, else the first valid of ring, direct and
// binomial-tree.
#include "sipsim/workload/chakra/setup.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <stdexcept>

#include "sipsim/base/units.hpp"
#include "sipsim/collective/ramp_x.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/workload/chakra/chakra.hpp"
#include "sipsim/workload/mapping/mapper.hpp"

namespace sipsim::workload::chakra {

namespace {

class ChakraPlugin final : public Plugin {
 public:
  ChakraPlugin(base::MapReader& w, const Context& ctx)
      : config_(read_chakra_workload(w, ctx.scenario_path)) {
    if (ctx.fabric == nullptr) ctx.section.fail("chakra needs a fabric: add a fabric section");
    Config& c = config_;
    c.accelerator = ctx.accelerator;
    fabric::Plugin& fabric = *ctx.fabric;
    if (c.gpus > fabric.nodes()) {
      (w.has("replicate") ? w.required("replicate") : w.required("trace"))
          .fail(fmt::format("{} GPUs, but the fabric has {} nodes", c.gpus, fabric.nodes()));
    }
    c.fabric_nodes = fabric.nodes();
    const std::unique_ptr<mapping::Mapper> mapper = mapping::make_mapper(fabric);
    fabric::Service service = place(*mapper);
    resolve_algorithms(w, ctx, *mapper);
    // The placed job's service (RAMP's extra transceiver groups for its
    // sub-box) only where its collectives run the fabric's own algorithm.
    if (!placed_algorithm_ || std::find(c.algorithms.begin(), c.algorithms.end(),
                                        *placed_algorithm_) == c.algorithms.end()) {
      service = {};
    }
    service.concurrent_collectives = true;
    fabric.serve(service);
    try {
      const auto device = compute::make_device(c.accelerator);
      make_programs(c, *device, fabric.nodes());
    } catch (const std::invalid_argument& e) {
      w.required("trace").fail(e.what());
    }
  }

  std::string_view type() const override { return "chakra"; }
  Simulation build(std::unique_ptr<fabric::Network> network, const BuildOptions&,
                   const Estimators&) const override {
    return make_chakra(config_, std::move(network));
  }
  std::string closed_form(const fabric::Network*, const Estimators&) const override {
    const auto device = compute::make_device(config_.accelerator);
    const ProgramSet set = make_programs(config_, *device, config_.fabric_nodes);
    pdes::Time busiest = 0;
    for (const Program& p : set.programs) busiest = std::max(busiest, p.compute_time());
    return fmt::format(
        "chakra: the busiest GPU computes {} per iteration (a lower bound: no communication; run "
        "simulates it)",
        base::format_time_ps(busiest));
  }
  std::string info() const override {
    std::string out =
        fmt::format("chakra: {} GPUs, {} trace file(s)\n", config_.gpus, config_.traces.size());
    // The first trace, and the last when there are several.
    out += describe(config_.traces.front(), "  ");
    if (config_.traces.size() > 1) out += describe(config_.traces.back(), "  ");
    out += "  communicators:\n" + config_.groups.describe("    ");
    return out;
  }

 private:
  // The largest size of each op the traces run, per family of groups.
  std::vector<std::map<std::uint32_t, std::uint64_t>> largest() const {
    const Config& c = config_;
    std::vector<std::map<std::uint32_t, std::uint64_t>> out(c.algorithms.size());
    for (const Trace& t : c.traces) {
      for (const Node& n : t.nodes) {
        if (n.type != NodeType::kCommColl || n.cpu_op) continue;
        const std::uint32_t family = c.groups.family_of(t, n);
        const Groups::Family& f = c.groups.families[family];
        if (f.size < 2) continue;  // a no-op
        std::uint64_t& m = out[static_cast<std::size_t>(collective_op(n.comm_type))][family];
        m = std::max(m, spec_bytes(n, f.size));
      }
    }
    return out;
  }

  // The job as the fabric's mapper places it, and each family's algorithm
  // parameters. With `dimensions` of two or more, the dimensions are the
  // job's axes (map_axes: on RAMP each axis a factor of RAMP §6.3's sub-box,
  // its groups RAMP-x jobs of their own; on SiP-Ring folded), a family of
  // one involved dimension takes that axis's parameters; else the job of all
  // GPUs is one group (place_group: RAMP's sub-box). The family of all GPUs
  // takes the placed job's; any other the mapper's group parameters.
  // Returns what the fabric serves the placed job.
  fabric::Service place(const mapping::Mapper& mapper) {
    Config& c = config_;
    Groups& g = c.groups;
    c.family_params.assign(g.families.size(), {});
    for (std::uint32_t f = 0; f < g.families.size(); ++f) {
      c.family_params[f] = mapper.group_params(g.families[f].size, g.families[f].consecutive);
    }
    if (c.gpus < 2) return {};
    fabric::Service service;
    try {
      if (c.dimensions.size() >= 2) {
        const mapping::AxesMapping m = mapper.map_axes(c.dimensions);
        c.nodes = m.nodes;
        placed_algorithm_ = m.algorithm;
        service = m.service;
        const auto dims = static_cast<std::uint32_t>(c.dimensions.size());
        for (const auto& [key, f] : g.by_dims) {
          const auto mask = static_cast<std::uint32_t>(key);
          if ((key >> 32) == dims && std::has_single_bit(mask)) {
            c.family_params[f] = m.params[static_cast<std::size_t>(std::countr_zero(mask))];
          }
        }
        if (g.all != Groups::kNone && m.service.job) {
          collective::ramp_x::set_job(c.family_params[g.all], *m.service.job);
        }
      } else if (const auto placed =
                     mapper.place_group(c.gpus, mapper.group_params(c.gpus, true))) {
        c.nodes = placed->nodes;
        placed_algorithm_ = placed->algorithm;
        service = placed->service;
        if (g.all != Groups::kNone) c.family_params[g.all] = placed->params;
      }
    } catch (const std::invalid_argument&) {
    }
    return service;
  }

  // Per op: the algorithm (auto: the fabric's own where valid, else ring,
  // direct, binomial-tree), valid for every family of groups it runs on.
  void resolve_algorithms(base::MapReader& w, const Context& ctx, const mapping::Mapper& mapper) {
    Config& c = config_;
    std::vector<collective::Algorithm> own;
    if (placed_algorithm_) own.push_back(*placed_algorithm_);
    for (std::uint32_t f = 0; f < c.groups.families.size(); ++f) {
      try {
        const Groups::Family& family = c.groups.families[f];
        if (family.size < 2) continue;
        if (const auto placed = mapper.place_group(family.size, c.family_params[f])) {
          if (!collective::traits(placed->algorithm).fabric_placement &&
              std::find(own.begin(), own.end(), placed->algorithm) == own.end())
            own.push_back(placed->algorithm);
        }
      } catch (const std::invalid_argument&) {
      }
    }
    const std::vector<std::map<std::uint32_t, std::uint64_t>> sizes = largest();
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      if (sizes[k].empty()) continue;
      const auto op = static_cast<collective::Op>(k);
      auto why = [&](collective::Algorithm a) {
        for (const auto& [f, bytes] : sizes[k]) {
          const Groups::Family& family = c.groups.families[f];
          std::string e = collective::why_invalid(
              collective::make_spec(op, a, family.size, bytes, 0, c.family_params[f]));
          if (!e.empty()) {
            return sizes[k].size() == 1 ? e : fmt::format("on {}: {}", family.label, e);
          }
        }
        return std::string();
      };
      if (c.auto_algorithm[k]) {
        std::vector<collective::Algorithm> candidates = own;
        for (const char* name : {"ring", "direct", "binomial-tree"}) {
          candidates.push_back(collective::algorithm(name));
        }
        for (const collective::Algorithm a : candidates) {
          if (why(a).empty()) {
            c.algorithms[k] = a;
            break;
          }
        }
      }
      if (const std::string e = why(c.algorithms[k]); !e.empty()) {
        (w.has("algorithms") ? w.required("algorithms") : ctx.section)
            .fail(fmt::format("{}: {}", collective::to_string(op), e));
      }
    }
  }

  Config config_;
  std::optional<collective::Algorithm> placed_algorithm_;  // the fabric's own, for all GPUs
};

}  // namespace

std::unique_ptr<Plugin> plugin(base::MapReader& section, const Context& context) {
  return std::make_unique<ChakraPlugin>(section, context);
}

}  // namespace sipsim::workload::chakra
