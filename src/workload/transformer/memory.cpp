// The transformer's per-GPU memory (docs/models.md, "Transformer training",
// Memory): model states after Rajbhandari et al. 2020 (ZeRO), activations
// after Korthikanti et al. 2022 (§4: per layer and micro-batch).
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <string>

#include "sipsim/workload/transformer/transformer.hpp"

namespace sipsim::workload::transformer {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Korthikanti et al. 2022, eq. (1)-(2) and Table 2, bytes of one layer's
// activations for one micro-batch at 16-bit activations (1-byte dropout
// masks): s*b*h*(10 + 24/t + 5*a*s/(h*t)) without recomputation; the
// 5as/(ht) term (the attention core's scores, softmax and dropout) goes with
// selective recomputation. Scaled by e/2 for other element sizes.
double layer_activation_bytes(const Config& c, bool keep_attention_core) {
  const ModelShape& m = c.model;
  const double s = m.seq, b = m.micro_batch, h = m.hidden, a = m.heads, t = c.tp;
  const double e = element_bytes(m.precision);
  // The MLP's share (the 4h of 24/t is 2 x 8sbh = 16sbh of it) follows ffn.
  const double f = m.ffn;
  const double sharded = 8 * s * b * h + 4 * s * b * f;  // 24sbh at f = 4h
  // Sequence parallelism splits the other 10sbh too (§4.2.2: sbh*34/t).
  double bytes = (c.sequence_parallel ? 10 * s * b * h / t : 10 * s * b * h) + sharded / t;
  if (keep_attention_core) bytes += 5 * a * s * s * b / t;
  return bytes * e / 2;
}

}  // namespace

double MemoryUse::total() const {
  return weights + gradients + optimizer + activations + logits;
}

std::uint32_t in_flight(const Config& c, std::uint32_t stage) {
  const std::uint32_t m = c.micro_batches();
  if (c.schedule == Schedule::kGpipe) return m;
  if (c.schedule == Schedule::kInterleaved) {
    return std::min(interleaved_warmup(c, stage) + 1, m * c.virtual_stages);
  }
  return std::min(c.pp - stage, m);  // 1F1B: pp - stage - 1 warm-up forwards, then one more
}

MemoryUse memory_use(const Config& c, std::uint32_t stage) {
  const ModelShape& m = c.model;
  MemoryUse u;
  const double params = static_cast<double>(stage_parameters(c, stage));
  const double e = element_bytes(m.precision);
  // Mixed-precision Adam (Rajbhandari et al. 2020, §3.1): weights and
  // gradients at the model's precision, fp32 master weights, momentum and
  // variance (K = 12 B per parameter); in fp32 the weights are the master copy.
  // ZeRO (§5.1-5.3) shards the optimizer state (1), the gradients (2) and the
  // weights (3) over the DP group; ZeRO-3 holds one gathered layer besides.
  const double dp = c.dp;
  const bool gathered = c.zero >= 3 && c.dp > 1;
  u.weights = gathered ? e * (params / dp + static_cast<double>(layer_parameters(c))) : e * params;
  u.gradients = c.zero >= 2 ? e * params / dp : e * params;
  u.optimizer = (e < 4 ? 12 : 8) * (c.zero >= 1 ? params / dp : params);
  u.in_flight = in_flight(c, stage);
  const double layers = static_cast<double>(m.layers / (c.pp * c.virtual_stages)) * u.in_flight;
  const double s = m.seq, b = m.micro_batch, h = m.hidden;
  switch (c.recompute) {
    case Recompute::kNone:
      u.activations = layers * layer_activation_bytes(c, true);
      break;
    case Recompute::kSelective:
      u.activations = layers * layer_activation_bytes(c, false);
      break;
    case Recompute::kFull:
      // Each layer's input (2sbh at 16 bits), and the full activations of the
      // one layer being recomputed for its backward.
      u.activations = layers * s * b * h * e / (c.sequence_parallel ? c.tp : 1) +
                      layer_activation_bytes(c, true);
      break;
  }
  // MoE layers (their share of the stage's layers): the experts' MLP
  // activations (4sbf/t of the count) scale with top_k x capacity, and the
  // dispatched and combined tokens (2 x tokens x h) are kept.
  if (c.moe.experts > 0) {
    const std::uint32_t v = c.schedule == Schedule::kInterleaved ? c.virtual_stages : 1;
    const std::uint32_t per_chunk = m.layers / (c.pp * v);
    std::uint32_t moe = 0;
    for (std::uint32_t k = 0; k < v; ++k) {
      for (std::uint32_t l = 0; l < per_chunk; ++l) {
        moe += is_moe_layer(c, global_layer(c, stage, k, l)) ? 1 : 0;
      }
    }
    if (moe > 0 && c.recompute != Recompute::kFull) {
      const double tokens = static_cast<double>(moe_tokens(c));
      const double extra =
          (tokens / (s * b) - 1) * 4 * s * b * m.ffn / c.tp * e / 2 + 2 * tokens * h * e;
      u.activations += layers * moe / (per_chunk * v) * extra;
    }
  }
  // The last stage's logits in fp32 for the cross-entropy (Korthikanti §4.3:
  // 4sbV/t bytes), per micro-batch in flight.
  if (stage == c.pp - 1) {
    const double vocab = (m.vocab + c.tp - 1) / c.tp;
    // Interleaved: the last chunk's share of the passes in flight.
    const std::uint32_t v = c.virtual_stages;
    u.logits = 4 * s * b * vocab * ((u.in_flight + v - 1) / v);
  }
  return u;
}

std::uint32_t peak_memory_stage(const Config& c) {
  std::uint32_t best = 0;
  double most = -1;
  for (std::uint32_t s = 0; s < c.pp; ++s) {
    const double t = memory_use(c, s).total();
    if (t > most) {
      most = t;
      best = s;
    }
  }
  return best;
}

std::string memory_error(const Config& c) {
  const std::uint32_t stage = peak_memory_stage(c);
  const MemoryUse u = memory_use(c, stage);
  const auto capacity = static_cast<double>(c.accelerator.memory_capacity_bytes);
  if (u.total() <= capacity) return "";
  std::string hint = "more tp or pp";
  if (c.recompute != Recompute::kFull) hint += ", recompute: full";
  if (c.zero < 3 && c.dp > 1) hint += fmt::format(", parallelism.zero: {}", c.zero + 1);
  if (c.model.micro_batch > 1) hint += ", a smaller model.micro_batch";
  return fmt::format(
      "the model does not fit in the accelerator's memory: a GPU of stage {} needs {:.2f} GiB "
      "(weights {:.2f}, gradients {:.2f}, optimizer state {:.2f}, activations {:.2f} for {} "
      "micro-batches in flight, logits {:.2f}) but {} has {:.2f} GiB; try {} (or memory_check: "
      "false to run anyway)",
      stage, u.total() / kGiB, u.weights / kGiB, u.gradients / kGiB, u.optimizer / kGiB,
      u.activations / kGiB, u.in_flight, u.logits / kGiB, c.accelerator.name, capacity / kGiB,
      hint);
}

}  // namespace sipsim::workload::transformer
