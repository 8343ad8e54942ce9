// The op graph's results: the shared training results with the graph's FLOPs
// and header (the graph, its placement and the MP bytes each GPU sends).
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <ostream>

#include "sipsim/base/units.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/workload/graph/graph.hpp"

namespace sipsim::workload::graph {

namespace {

TrainingShape shape_of(const Config& c) {
  return {c.gpus(),
          c.iterations,
          c.graph.flops() * c.global_batch / c.graph.batch,
          c.graph.flops() * c.global_batch / c.graph.batch,
          "hardware_tflops_per_gpu = model_tflops_per_gpu (nothing is recomputed): (forward + "
          "backward FLOPs of the graph) x global_batch / graph batch, over period_ps "
          "(docs/models.md, Op graphs)",
          {},
          collective::Replay::kNone,
          c.accelerator.busy_w,
          c.accelerator.idle_w,
          c.global_batch};
}

}  // namespace

GraphResults::GraphResults(const Config& config, std::unique_ptr<fabric::Network> network,
                           std::unique_ptr<compute::Device> device)
    : TrainingResults(
          shape_of(config),
          [&config](const compute::Device& d, std::uint32_t nodes) {
            return make_programs(config, d, nodes);
          },
          std::move(network), std::move(device)),
      config_(config) {}

void GraphResults::print_header(std::ostream& out) const {
  const Config& c = config_;
  const Graph& g = c.graph;
  std::size_t sub = 0;
  std::uint64_t sent = 0, most = 0;  // MP bytes sent per iteration, by a GPU
  for (const Program& p : programs().programs) {
    sub += p.size();
    std::uint64_t bytes = 0;
    for (std::uint32_t i = 0; i < p.size(); ++i) {
      if (p.op(i).kind == OpKind::kSend) bytes += p.op(i).bytes;
    }
    sent += bytes;
    most = std::max(most, bytes);
  }
  out << fmt::format(
      "# graph {}: {} ops, {:.3g} GFLOP forward+backward per sample, {} of parameters ({}), "
      "batch {} ({} per {})\n# {}: ",
      g.name, g.ops.size(), g.flops() / g.batch / 1e9, base::format_bytes(g.params_bytes()),
      compute::precision_name(g.precision), c.global_batch, c.group_batch(),
      c.mp > 1 ? "MP group" : "GPU", c.graph_path);
  if (c.placement == Placement::kDataParallel) {
    out << fmt::format("data-parallel on {} GPUs", c.gpus());
  } else {
    out << fmt::format(
        "degree-aware (SiP-ML Alg. 1): mp {} x dp {} = {} GPUs, degree {}, quantum {}; MP sends "
        "per GPU {} (mean), {} (most)",
        c.mp, c.dp, c.gpus(), c.degree, base::format_time_ps(c.quantum),
        base::format_bytes(sent / c.mp), base::format_bytes(most));
  }
  out << fmt::format("; {} program ops; all-reduce {} | {}\n", sub,
                     collective::to_string(c.all_reduce), network().describe());
}

Simulation make_graph(const Config& config, std::unique_ptr<fabric::Network> network) {
  return make_training_simulation(std::make_unique<GraphResults>(
      config, std::move(network), compute::make_device(config.accelerator)));
}

}  // namespace sipsim::workload::graph
