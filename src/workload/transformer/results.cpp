// The transformer's results: the shared training results (per iteration its
// time and TFLOP/s per GPU, per iteration and GPU the breakdown) with the
// transformer's FLOPs and header.
#include <spdlog/fmt/fmt.h>

#include <ostream>

#include "sipsim/compute/roofline.hpp"
#include "sipsim/workload/transformer/transformer.hpp"

namespace sipsim::workload::transformer {

namespace {

TrainingShape shape_of(const Config& c) {
  return {c.gpus(),
          c.iterations,
          iteration_flops(c),
          "72*B*s*l*h^2*(1 + s/(6h) + V/(12*l*h)) at ffn = 4h (docs/models.md, Transformer "
          "training)",
          {},
          c.replay_collectives};
}

}  // namespace

TransformerResults::TransformerResults(const Config& config,
                                       std::unique_ptr<fabric::Network> network,
                                       std::unique_ptr<compute::Device> device)
    : TrainingResults(
          shape_of(config),
          [&config](const compute::Device& d, std::uint32_t nodes) {
            return make_programs(config, d, nodes);
          },
          std::move(network), std::move(device)),
      config_(config) {}

void TransformerResults::print_header(std::ostream& out) const {
  const Config& c = config_;
  const ModelShape& m = c.model;
  out << fmt::format(
      "# transformer: {} layers, hidden {}, heads {}, seq {}, vocab {}, batch {} (micro {}), "
      "{}\n# tp {} x pp {} x dp {} = {} GPUs, {}, {} micro-batches | {}\n",
      m.layers, m.hidden, m.heads, m.seq, m.vocab, m.global_batch, m.micro_batch,
      compute::precision_name(m.precision), c.tp, c.pp, c.dp, c.gpus(),
      c.schedule == Schedule::kGpipe ? "GPipe" : "1F1B", c.micro_batches(), network().describe());
}

Simulation make_transformer(const Config& config, std::unique_ptr<fabric::Network> network) {
  return make_training_simulation(std::make_unique<TransformerResults>(
      config, std::move(network), compute::make_device(config.accelerator)));
}

}  // namespace sipsim::workload::transformer
