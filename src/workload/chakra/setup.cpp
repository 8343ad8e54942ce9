// `workload: chakra`'s plug-in (workload/plugin.hpp): the GPUs (trace g is
// GPU g) on the nodes the fabric's mapper places the job on; `auto`
// algorithms are the fabric's own (mapping/) where valid for every size and
// group size the traces use, else the first valid of ring, direct and
// binomial-tree.
#include "sipsim/workload/chakra/setup.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>

#include "sipsim/base/units.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/workload/chakra/chakra.hpp"
#include "sipsim/workload/mapping/mapper.hpp"

namespace sipsim::workload::chakra {

namespace {

using Shape = std::pair<std::uint32_t, bool>;  // Groups::shape

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
  // The largest size of each op the traces run, by the shape of its groups.
  std::vector<std::map<Shape, std::uint64_t>> largest() const {
    const Config& c = config_;
    std::vector<std::map<Shape, std::uint64_t>> out(c.algorithms.size());
    for (const Trace& t : c.traces) {
      for (const Node& n : t.nodes) {
        if (n.type != NodeType::kCommColl || n.cpu_op) continue;
        const Groups::Family& f = c.groups.families[c.groups.family_of(t, n)];
        if (f.size < 2) continue;  // a no-op
        std::uint64_t& m =
            out[static_cast<std::size_t>(collective_op(n.comm_type))][{f.size, f.consecutive}];
        m = std::max(m, spec_bytes(n, f.size));
      }
    }
    return out;
  }

  // Per op: the algorithm (auto: the fabric's own for its groups where valid,
  // else ring, direct, binomial-tree), valid for every group size it runs on.
  // The job of all GPUs as the fabric's mapper places it (on RAMP the
  // sub-box of RAMP §6.3; elsewhere GPU g on node g): its nodes, and the
  // fabric's own algorithm with its parameters for the communicator of all
  // GPUs (sub-groups take the mapper's group parameters).
  fabric::Service place(const mapping::Mapper& mapper) {
    Config& c = config_;
    if (c.gpus < 2) return {};
    std::optional<mapping::GroupPlacement> placed;
    try {
      placed = mapper.place_group(c.gpus, mapper.group_params(c.gpus, true));
    } catch (const std::invalid_argument&) {
    }
    if (!placed) return {};
    c.nodes = placed->nodes;
    c.params[Shape{c.gpus, true}] = placed->params;
    placed_algorithm_ = placed->algorithm;
    return placed->service;
  }

  void resolve_algorithms(base::MapReader& w, const Context& ctx, const mapping::Mapper& mapper) {
    Config& c = config_;
    std::vector<collective::Algorithm> own;
    if (placed_algorithm_) own.push_back(*placed_algorithm_);
    for (const std::vector<std::uint32_t>& m : c.groups.members) {
      const Shape shape = Groups::shape(m);
      if (c.params.contains(shape)) continue;
      const collective::AlgorithmParams& params = c.params[shape] =
          mapper.group_params(shape.first, shape.second);
      try {
        if (const auto placed = mapper.place_group(shape.first, params)) {
          if (!collective::traits(placed->algorithm).fabric_placement &&
              std::find(own.begin(), own.end(), placed->algorithm) == own.end())
            own.push_back(placed->algorithm);
        }
      } catch (const std::invalid_argument&) {
      }
    }
    const std::vector<std::map<Shape, std::uint64_t>> sizes = largest();
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      if (sizes[k].empty()) continue;
      const auto op = static_cast<collective::Op>(k);
      auto why = [&](collective::Algorithm a) {
        for (const auto& [shape, bytes] : sizes[k]) {
          std::string e = collective::why_invalid(
              collective::make_spec(op, a, shape.first, bytes, 0, c.params.at(shape)));
          if (!e.empty()) {
            return sizes[k].size() == 1 ? e
                                        : fmt::format("on groups of {} GPUs: {}", shape.first, e);
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
