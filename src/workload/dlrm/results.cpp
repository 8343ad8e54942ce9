// DLRM's results: the shared training results with DLRM's FLOPs and header.
#include <spdlog/fmt/fmt.h>

#include <ostream>

#include "sipsim/base/units.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/workload/dlrm/dlrm.hpp"

namespace sipsim::workload::dlrm {

namespace {

TrainingShape shape_of(const Config& c) {
  return {c.gpus,
          c.iterations,
          iteration_flops(c),
          iteration_flops(c),
          "hardware_tflops_per_gpu = model_tflops_per_gpu (nothing is recomputed): "
          "3*B*(bottom MLP + 2*(T+1)^2*d + top MLP forward FLOPs per sample), over period_ps; "
          "embeddings are memory traffic (docs/models.md, DLRM)",
          c.nodes,
          c.replay_collectives,
          c.accelerator.busy_w,
          c.accelerator.idle_w,
          c.model.global_batch};
}

}  // namespace

DlrmResults::DlrmResults(const Config& config, std::unique_ptr<fabric::Network> network,
                         std::unique_ptr<compute::Device> device)
    : TrainingResults(
          shape_of(config),
          [&config](const compute::Device& d, std::uint32_t nodes) {
            return make_programs(config, d, nodes);
          },
          std::move(network), std::move(device)),
      config_(config) {}

void DlrmResults::print_header(std::ostream& out) const {
  const Config& c = config_;
  const ModelShape& m = c.model;
  const Partition x = partition(c);
  out << fmt::format(
      "# dlrm: {} tables x {} rows x dim {} (pooling {}), {} dense, {} + {} MLP layers, batch {} "
      "({} per GPU), {}\n# {} GPUs: {} column shards per table ({} columns, {} each), {} to {} "
      "per GPU; all-to-all {} ({}), MLP all-reduce {} ({}) | {}\n",
      m.tables, m.rows, m.dim, m.pooling, m.dense, m.bottom.size(), m.top.size(), m.global_batch,
      c.local_batch(), compute::precision_name(m.precision), c.gpus, x.split, x.shard_cols,
      base::format_bytes(x.shard_bytes), x.least, x.most,
      base::format_bytes(c.gpus > 1 ? all_to_all_bytes(c, x) : 0),
      collective::to_string(c.all_to_all),
      base::format_bytes(mlp_parameters(m) * element_bytes(m.precision)),
      collective::to_string(c.all_reduce), network().describe());
}

Simulation make_dlrm(const Config& config, std::unique_ptr<fabric::Network> network) {
  return make_training_simulation(std::make_unique<DlrmResults>(
      config, std::move(network), compute::make_device(config.accelerator)));
}

}  // namespace sipsim::workload::dlrm
