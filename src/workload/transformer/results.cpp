// The transformer's results: the shared training results (per iteration its
// time, period and TFLOP/s per GPU, per iteration and GPU the breakdown) with
// the transformer's FLOPs, header and per-GPU memory.
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <tuple>

#include "sipsim/compute/roofline.hpp"
#include "sipsim/workload/transformer/transformer.hpp"

namespace sipsim::workload::transformer {

namespace {

// The /iterations attribute flops_formula: both counts, at ffn = 4h, with
// this run's recomputation.
std::string flops_formula(const Config& c) {
  const std::string model = "72*B*s*l*h^2*(1 + s/(6h) + V/(12*l*h))";
  std::string hardware;
  switch (c.recompute) {
    case Recompute::kNone:
      hardware = model + " (recompute none: the model FLOPs)";
      break;
    case Recompute::kSelective:
      hardware = model +
                 " + 4*B*s^2*h*l (recompute selective: the attention core's forward again, "
                 "Korthikanti et al. 2022 §5)";
      break;
    case Recompute::kFull:
      hardware =
          "96*B*s*l*h^2*(1 + s/(6h) + V/(16*l*h)) (recompute full: the layers' forward again, "
          "Narayanan et al. 2021 eq. 3)";
      break;
  }
  return "hardware_tflops_per_gpu (the FLOPs the GPUs execute): " + hardware +
         "; model_tflops_per_gpu (3 x forward): " + model +
         "; at ffn = 4h, over period_ps (docs/models.md, Transformer training)";
}

TrainingShape shape_of(const Config& c) {
  return {c.gpus(),
          c.iterations,
          hardware_iteration_flops(c),
          iteration_flops(c),
          flops_formula(c),
          c.nodes,
          c.replay_collectives,
          c.accelerator.busy_w,
          c.accelerator.idle_w,
          c.model.global_batch};
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

void TransformerResults::write(output::h5::File& file) const {
  TrainingResults::write(file);
  // Each GPU's peak memory (its stage's; the same in every iteration).
  constexpr std::size_t kMemoryColumns = 6;
  std::vector<double> memory(std::size_t{config_.gpus()} * kMemoryColumns);
  for (std::uint32_t g = 0; g < config_.gpus(); ++g) {
    const MemoryUse u = memory_use(config_, coord_of(config_, g).pp);
    const double row[kMemoryColumns] = {u.weights,     u.gradients, u.optimizer,
                                        u.activations, u.logits,    u.total()};
    std::copy(row, row + kMemoryColumns, memory.begin() + std::ptrdiff_t(g * kMemoryColumns));
  }
  const hsize_t mdims[2] = {config_.gpus(), kMemoryColumns};
  output::h5::Handle mem = write_rank0(file, "/memory", H5T_NATIVE_DOUBLE, 2, mdims, memory.data());
  output::h5::write_attr(mem.get(), "columns",
                         std::string_view("weights,gradients,optimizer,activations,logits,total"));
  output::h5::write_attr(mem.get(), "units", std::string_view("bytes"));
  output::h5::write_attr(mem.get(), "capacity_bytes", config_.accelerator.memory_capacity_bytes);
}

namespace {

// ", tp ring, dp ramp-x" (with "(auto)" where the scenario said auto).
std::string algorithms_text(const Config& c) {
  std::string out;
  for (const auto& [name, p, algorithm, is_auto] :
       {std::tuple{"tp", c.tp, c.groups[kTpGroup].algorithm, c.groups[kTpGroup].automatic},
        std::tuple{"dp", c.dp, c.groups[kDpGroup].algorithm, c.groups[kDpGroup].automatic}}) {
    if (p < 2) continue;
    out +=
        fmt::format(", {} {}{}", name, collective::to_string(algorithm), is_auto ? " (auto)" : "");
  }
  return out;
}

// ", mapping tp-dp-pp folded" on a ring fabric (folded_nodes), else "".
std::string layout_text(const Config& c) {
  if (!c.folded) return "";
  std::string out = ", mapping ";
  for (std::size_t i = 0; i < 3; ++i) {
    const Axis a = c.order[i];
    out += std::string(i > 0 ? "-" : "") + (a == Axis::kTp ? "tp" : a == Axis::kDp ? "dp" : "pp");
  }
  return out + " folded";
}

}  // namespace

void TransformerResults::print_header(std::ostream& out) const {
  const Config& c = config_;
  const ModelShape& m = c.model;
  out << fmt::format(
      "# transformer: {} layers, hidden {}, heads {}, seq {}, vocab {}, batch {} (micro {}), "
      "{}\n# tp {} x pp {} x dp {} = {} GPUs, {}, {} micro-batches, recompute {}{}{} | {}\n",
      m.layers, m.hidden, m.heads, m.seq, m.vocab, m.global_batch, m.micro_batch,
      compute::precision_name(m.precision), c.tp, c.pp, c.dp, c.gpus(),
      c.schedule == Schedule::kInterleaved
          ? fmt::format("interleaved 1F1B (v {})", c.virtual_stages)
          : std::string(schedule_name(c.schedule)),
      c.micro_batches(), recompute_name(c.recompute), algorithms_text(c), layout_text(c),
      network().describe());
}

void TransformerResults::print_footer(std::ostream& out) const {
  const Config& c = config_;
  const std::uint32_t stage = peak_memory_stage(c);
  const MemoryUse u = memory_use(c, stage);
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  out << fmt::format(
      "# peak memory per GPU {:.2f} GiB of {:.2f} (stage {}: weights {:.2f}, gradients {:.2f}, "
      "optimizer {:.2f}, activations {:.2f}, logits {:.2f})\n",
      u.total() / kGiB, static_cast<double>(c.accelerator.memory_capacity_bytes) / kGiB, stage,
      u.weights / kGiB, u.gradients / kGiB, u.optimizer / kGiB, u.activations / kGiB,
      u.logits / kGiB);
}

Simulation make_transformer(const Config& config, std::unique_ptr<fabric::Network> network) {
  return make_training_simulation(std::make_unique<TransformerResults>(
      config, std::move(network), compute::make_device(config.accelerator)));
}

}  // namespace sipsim::workload::transformer
