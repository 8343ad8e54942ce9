// The Chakra workload's results: the shared training results with a header
// naming the traces, their nodes and collectives.
#include <spdlog/fmt/fmt.h>

#include <ostream>

#include "sipsim/base/units.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/workload/chakra/chakra.hpp"

namespace sipsim::workload::chakra {

namespace {

// FLOPs only where the traces give them (num_ops); PyTorch traces do not.
double flops_of(const Config& c) {
  double total = 0;
  for (std::uint32_t g = 0; g < c.gpus; ++g) {
    for (const Node& n : c.trace_of(g).nodes) {
      if (n.type == NodeType::kComp && !n.cpu_op) total += static_cast<double>(n.num_ops);
    }
  }
  return total;
}

TrainingShape shape_of(const Config& c) {
  const double flops = flops_of(c);
  return {c.gpus,
          c.iterations,
          flops,
          flops,
          "the traces' num_ops attributes of GPU COMP_NODEs, summed over the GPUs (0 where the "
          "traces have none), over period_ps (docs/models.md, Chakra traces)",
          c.nodes,
          collective::Replay::kNone,
          c.accelerator.busy_w,
          c.accelerator.idle_w,
          0};
}

}  // namespace

ChakraResults::ChakraResults(const Config& config, std::unique_ptr<fabric::Network> network,
                             std::unique_ptr<compute::Device> device)
    : TrainingResults(
          shape_of(config),
          [&config](const compute::Device& d, std::uint32_t nodes) {
            return make_programs(config, d, nodes);
          },
          std::move(network), std::move(device)),
      config_(config) {}

void ChakraResults::print_header(std::ostream& out) const {
  const Config& c = config_;
  const TraceStats s = statistics(c.traces[0]);
  std::uint64_t colls = 0, bytes = 0;
  for (int k = 0; k < kCommTypes; ++k) colls += s.collectives[k], bytes += s.collective_bytes[k];
  out << fmt::format(
      "# chakra {}: {} GPUs ({}), {} nodes per trace (GPU 0), {} collectives of {} on GPU 0; "
      "CPU ops {}\n# {}\n",
      c.trace_path, c.gpus,
      c.traces.size() == 1 && c.gpus > 1 ? "one trace replicated" : "one trace each",
      c.traces[0].nodes.size(), colls, base::format_bytes(bytes),
      c.cpu_ops == CpuOps::kTime ? "timed" : "ignored", network().describe());
  // The algorithm of each collective kind the traces run, and where the GPUs are.
  std::string algorithms;
  for (int k = 0; k < kCommTypes; ++k) {
    if (s.collectives[k] == 0) continue;
    const collective::Op op = collective_op(static_cast<CommType>(k));
    const std::string item =
        fmt::format("{} {}", collective::to_string(op),
                    collective::to_string(c.algorithms[static_cast<std::size_t>(op)]));
    if (algorithms.find(item) == std::string::npos) {
      algorithms += (algorithms.empty() ? "" : ", ") + item;
    }
  }
  out << fmt::format("# algorithms: {}; {}\n", algorithms.empty() ? "none" : algorithms,
                     c.nodes.empty() ? "GPU g on fabric node g"
                                     : fmt::format("placed by the fabric: GPU 0 on node {}, GPU "
                                                   "{} on node {}",
                                                   c.nodes.front(), c.gpus - 1, c.nodes.back()));
}

Simulation make_chakra(const Config& config, std::unique_ptr<fabric::Network> network) {
  return make_training_simulation(std::make_unique<ChakraResults>(
      config, std::move(network), compute::make_device(config.accelerator)));
}

}  // namespace sipsim::workload::chakra
