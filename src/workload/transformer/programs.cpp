// The transformer's program generator (docs/models.md, "Transformer
// training"): one program per pipeline stage, shared by the stage's tp x dp
// GPUs, with Megatron-LM's communication pattern (RAMP §7.2-7.3).
#include <spdlog/fmt/fmt.h>

#include <array>
#include <stdexcept>
#include <vector>

#include "sipsim/workload/transformer/op_costs.hpp"
#include "sipsim/workload/transformer/transformer.hpp"

namespace sipsim::workload::transformer {

namespace {

std::uint32_t axis_size(const Config& c, Axis a) {
  return a == Axis::kTp ? c.tp : a == Axis::kDp ? c.dp : c.pp;
}

std::uint32_t& axis_of(Coord& x, Axis a) {
  return a == Axis::kTp ? x.tp : a == Axis::kDp ? x.dp : x.pp;
}

}  // namespace

Coord coord_of(const Config& c, std::uint32_t gpu) {
  Coord x;
  for (const Axis a : c.order) {
    axis_of(x, a) = gpu % axis_size(c, a);
    gpu /= axis_size(c, a);
  }
  return x;
}

std::uint32_t gpu_of(const Config& c, const Coord& x) {
  std::uint32_t gpu = 0;
  for (std::size_t i = 3; i-- > 0;) {
    const Axis a = c.order[i];
    gpu = gpu * axis_size(c, a) + (a == Axis::kTp ? x.tp : a == Axis::kDp ? x.dp : x.pp);
  }
  return gpu;
}

std::array<std::uint32_t, 3> axis_sizes(const Config& c) {
  return {axis_size(c, c.order[0]), axis_size(c, c.order[1]), axis_size(c, c.order[2])};
}

std::uint64_t layer_forward_flops(const ModelShape& m) {
  const std::uint64_t b = m.micro_batch, s = m.seq, h = m.hidden;
  return 2 * b * s * (4 * h * h + 2 * h * m.ffn) + 4 * b * s * s * h;
}

std::uint64_t logit_forward_flops(const ModelShape& m) {
  return 2ull * m.micro_batch * m.seq * m.hidden * m.vocab;
}

bool is_moe_layer(const Config& c, std::uint32_t layer) {
  return c.moe.experts > 0 && (layer + 1) % c.moe.every == 0;
}

std::uint64_t moe_tokens(const Config& c) {
  const std::uint64_t routed = std::uint64_t{c.model.micro_batch} * c.model.seq * c.moe.top_k;
  return (routed * c.moe.capacity_permille + 999) / 1000;
}

std::uint64_t moe_layer_forward_flops(const Config& c) {
  const ModelShape& m = c.model;
  const std::uint64_t b = m.micro_batch, s = m.seq, h = m.hidden;
  return 2 * b * s * (4 * h * h + 2 * h * m.ffn * c.moe.top_k) + 4 * b * s * s * h +
         2 * b * s * h * c.moe.experts;
}

namespace {

// Layers' forward FLOPs of one micro-batch, over the whole model.
double layers_forward_flops(const Config& c) {
  std::uint32_t moe = 0;
  for (std::uint32_t l = 0; l < c.model.layers; ++l) moe += is_moe_layer(c, l) ? 1 : 0;
  return static_cast<double>(layer_forward_flops(c.model)) * (c.model.layers - moe) +
         static_cast<double>(moe_layer_forward_flops(c)) * moe;
}

// Parameters of one layer, whole (before TP): attention and layer norms
// 4h^2 + 8h, the MLP 2hf + f + h (Megatron: 12h^2 + 13h at f = 4h); an MoE
// layer's dense part has the router (h*E) instead of the MLP, its expert part
// E/ep MLPs.
std::uint64_t attention_raw(const ModelShape& m) {
  const std::uint64_t h = m.hidden;
  return 4 * h * h + 8 * h;
}
std::uint64_t mlp_raw(const ModelShape& m) {
  const std::uint64_t h = m.hidden;
  return 2 * h * m.ffn + m.ffn + h;
}
std::uint64_t dense_raw(const Config& c, bool moe) {
  return attention_raw(c.model) +
         (moe ? std::uint64_t{c.model.hidden} * c.moe.experts : mlp_raw(c.model));
}
std::uint64_t expert_raw(const Config& c, bool moe) {
  return moe ? std::uint64_t{c.moe.experts / c.moe.ep} * mlp_raw(c.model) : 0;
}
std::uint32_t stage_chunks(const Config& c) {
  return c.schedule == Schedule::kInterleaved ? c.virtual_stages : 1;
}

}  // namespace

std::uint32_t global_layer(const Config& c, std::uint32_t stage, std::uint32_t chunk,
                           std::uint32_t l) {
  const std::uint32_t per_chunk = c.model.layers / (c.pp * stage_chunks(c));
  return (chunk * c.pp + stage) * per_chunk + l;
}

double iteration_flops(const Config& c) {
  const double sequences = c.model.global_batch;
  const double per_sequence =
      layers_forward_flops(c) + static_cast<double>(logit_forward_flops(c.model));
  return 3.0 * sequences * per_sequence / c.model.micro_batch;
}

// The model FLOPs plus the forward work `recompute` reruns in backward:
// full, every layer's forward (4x the layers, 3x the logits: Narayanan et al.
// 2021, eq. 3's 96*B*s*l*h^2*(...) at ffn = 4h); selective, the attention
// core's 4*b*s^2*h per layer (Korthikanti et al. 2022, §5); none, nothing.
double hardware_iteration_flops(const Config& c) {
  const ModelShape& m = c.model;
  double recomputed = 0;  // per micro-batch
  switch (c.recompute) {
    case Recompute::kNone:
      break;
    case Recompute::kSelective:
      recomputed = 4.0 * m.micro_batch * m.seq * m.seq * m.hidden * m.layers;
      break;
    case Recompute::kFull:
      recomputed = layers_forward_flops(c);
      break;
  }
  return iteration_flops(c) + recomputed * m.global_batch / m.micro_batch;
}

std::uint64_t stage_parameters(const Config& c, std::uint32_t stage) {
  const ModelShape& m = c.model;
  const std::uint64_t h = m.hidden;
  const std::uint32_t v = stage_chunks(c), per_chunk = m.layers / (c.pp * v);
  std::uint64_t total = 0;
  for (std::uint32_t k = 0; k < v; ++k) {
    for (std::uint32_t l = 0; l < per_chunk; ++l) {
      const bool moe = is_moe_layer(c, global_layer(c, stage, k, l));
      total += dense_raw(c, moe) + expert_raw(c, moe);
    }
  }
  if (stage == 0) total += (std::uint64_t{m.vocab} + m.seq) * h;  // word + position embeddings
  if (stage == c.pp - 1) total += 2 * h;                          // final layer norm
  return (total + c.tp - 1) / c.tp;
}

std::uint64_t stage_expert_parameters(const Config& c, std::uint32_t stage) {
  const std::uint32_t v = stage_chunks(c), per_chunk = c.model.layers / (c.pp * v);
  std::uint64_t total = 0;
  for (std::uint32_t k = 0; k < v; ++k) {
    for (std::uint32_t l = 0; l < per_chunk; ++l) {
      total += expert_raw(c, is_moe_layer(c, global_layer(c, stage, k, l)));
    }
  }
  return (total + c.tp - 1) / c.tp;
}

std::uint64_t layer_parameters(const Config& c) {
  const std::uint64_t h = c.model.hidden;
  return (4 * h * h + 2 * h * c.model.ffn + 9 * h + c.model.ffn + c.tp - 1) / c.tp;
}

std::uint64_t optimizer_parameters(const Config& c, std::uint32_t stage) {
  const std::uint64_t params = stage_parameters(c, stage);
  return c.zero == 0 ? params : (params + c.dp - 1) / c.dp;
}

namespace {

// Mixed-precision Adam on the GPU's parameters: fp32 master weights, first
// and second moments read and written (24 B), the gradient read and the
// weight written at the model's precision; about 12 FLOPs per parameter.
pdes::Time optimizer_ps(const Config& c, const compute::Device& d, std::uint32_t stage) {
  const std::uint64_t params = optimizer_parameters(c, stage);
  const std::uint64_t p = element_bytes(c.model.precision);
  return d.op_ps({12 * params, params * (24 + 2 * p), compute::Precision::kFp32,
                  compute::OpKind::kElementwise, 1});
}

// One stage's program, built as a chain: every compute, TP all-reduce and
// recv waits for the previous one in schedule order (one compute stream,
// Megatron's synchronous TP); sends leave asynchronously.
class StageBuilder {
 public:
  StageBuilder(const Config& c, const OpCosts& k, std::uint32_t stage, Program& p)
      : c_(c), k_(k), stage_(stage), p_(p), first_(stage == 0), last_(stage == c.pp - 1) {
    // Communicator slots in binding order: TP, DP, EP, expert DP.
    std::uint32_t n = 0;
    tp_slot_ = c.tp > 1 ? n++ : 0;
    dp_slot_ = c.dp > 1 ? n++ : 0;
    ep_slot_ = c.moe.experts > 0 && c.moe.ep > 1 ? n++ : 0;
    edp_slot_ = c.moe.experts > 0 && c.dp / c.moe.ep > 1 ? n++ : 0;
    v_ = c.schedule == Schedule::kInterleaved ? c.virtual_stages : 1;
    chunk_layers_ = c.model.layers / (c.pp * v_);
    backwards_.assign(v_, 0);
  }

  // One micro-batch's forward pass through model chunk `chunk` (0 unless
  // interleaved): the model's input enters at chunk 0 of stage 0, its
  // output leaves at the last chunk of the last stage; otherwise activations
  // come from the previous stage (the last stage for stage 0's chunks > 0).
  void forward(std::uint32_t chunk = 0) {
    const bool entry = first_ && chunk == 0, exit = last_ && chunk + 1 == v_;
    if (!entry) pp_receive(kPrev);
    for (std::uint32_t l = 0; l < chunk_layers_; ++l) {
      if (c_.zero == 3) dp_collective(collective::Op::kAllGather, layer_bytes());
      layer_forward(Category::kForward, is_moe_layer(c_, global_layer(c_, stage_, chunk, l)));
    }
    if (exit && c_.model.vocab > 0) compute(Category::kForward, k_.logit.forward);
    if (!exit) p_.add(pp_op(OpKind::kSend, kNext), deps());
  }

  void backward(std::uint32_t chunk = 0) {
    const bool entry = first_ && chunk == 0, exit = last_ && chunk + 1 == v_;
    // A chunk's last micro-batch produces its final gradients; the stage's
    // very last backward pass holds its last layer for the last bucket.
    final_backward_ = ++backwards_[chunk] == c_.micro_batches();
    last_pass_ = ++all_backwards_ == c_.micro_batches() * v_;
    if (!exit) pp_receive(kNext);
    if (exit && c_.model.vocab > 0) compute(Category::kBackward, k_.logit.backward);
    for (std::uint32_t l = 0; l < chunk_layers_; ++l) {
      // Layers in reverse order.
      const bool moe = is_moe_layer(c_, global_layer(c_, stage_, chunk, chunk_layers_ - 1 - l));
      // Full recomputation reruns the layer's forward from its checkpointed
      // input, TP all-reduces included (Megatron-LM's checkpointed layer);
      // its compute counts as backward. Selective recomputes the attention
      // core just before the attention block's backward.
      if (c_.zero == 3) dp_collective(collective::Op::kAllGather, layer_bytes());
      if (c_.recompute == Recompute::kFull) layer_forward(Category::kBackward, moe);
      // Megatron's conjugates: the backward of the block's closing
      // reduce-scatter is an all-gather, of its opening all-gather a
      // reduce-scatter (an all-reduce each without sequence parallelism).
      // An MoE layer's backward: the combine's all-to-all, the experts, the dispatch's.
      tp_enter();
      if (moe) {
        ep_all_to_all();
        compute(Category::kBackward, k_.moe.backward);
        ep_all_to_all();
        tp_exit();
      } else {
        block_backward(k_.mlp);
      }
      tp_enter();
      if (c_.recompute == Recompute::kSelective) compute(Category::kBackward, k_.attn_core);
      block_backward(k_.attn);
      if (c_.zero == 3) dp_collective(collective::Op::kReduceScatter, layer_bytes());
      // The stage's last layer goes into the last bucket (finish()).
      if (final_backward_ && overlap()) {
        pending_ += dense_layer_bytes(moe);
        if (pending_ >= c_.dp_bucket_bytes && !(last_pass_ && l + 1 == chunk_layers_)) flush();
      }
    }
    if (!entry) p_.add(pp_op(OpKind::kSend, kPrev), deps());
  }

  // One bucket: the stage's whole gradient, after the last backward op. With
  // ZeRO a reduce-scatter leaves each GPU 1/dp of it, the optimizer updates
  // that share, and an all-gather returns the parameters to every GPU; ZeRO-3
  // did so per layer already, and does it here for the stage's other
  // parameters (embeddings, final layer norm) only.
  //
  // With dp_overlap (ZeRO 0-2), the final backward pass has already started
  // the layers' buckets as they filled (dp_bucket_bytes); the last bucket
  // takes what is left with the stage's other parameters, and the optimizer
  // waits for it (buckets run one after the other, as on one NCCL stream).
  void finish(pdes::Time optimizer) {
    const std::uint64_t e = element_bytes(c_.model.precision);
    const std::uint64_t experts = stage_expert_parameters(c_, stage_) * e;
    const std::uint64_t all = stage_parameters(c_, stage_) * e - experts;  // dense
    if (overlap()) {
      std::uint64_t layers = 0;
      for (std::uint32_t k = 0; k < v_; ++k) {
        for (std::uint32_t l = 0; l < chunk_layers_; ++l) {
          layers += dense_layer_bytes(is_moe_layer(c_, global_layer(c_, stage_, k, l)));
        }
      }
      pending_ += all > layers ? all - layers : 0;  // ceilings may make layers exceed all
      flush();
      chain(last_bucket_);
      expert_all_reduce(experts);
      compute(Category::kOptimizer, optimizer);
      if (c_.zero > 0) dp_collective(collective::Op::kAllGather, all);
      return;
    }
    std::uint64_t bytes = all;
    if (c_.zero == 3) {
      const std::uint64_t layers = std::uint64_t{c_.model.layers / c_.pp} * layer_bytes();
      bytes = bytes > layers ? bytes - layers : 0;
    }
    const bool gather = c_.zero > 0 && bytes > 0;
    if (c_.zero == 0) {
      dp_collective(collective::Op::kAllReduce, bytes);
    } else if (gather) {
      dp_collective(collective::Op::kReduceScatter, bytes);
    }
    expert_all_reduce(experts);
    compute(Category::kOptimizer, optimizer);
    if (gather) dp_collective(collective::Op::kAllGather, bytes);
  }

 private:
  static constexpr std::uint32_t kPrev = 0, kNext = 1;  // peer slots

  // A layer's forward pass: Megatron's f and g around each block (Shoeybi et
  // al. 2019: identity, then an all-reduce; with sequence parallelism,
  // Korthikanti et al. 2022 §4.2.2: an all-gather, then a reduce-scatter).
  // An MoE layer's MLP is the dispatch all-to-all, the router and experts,
  // and the combine all-to-all, on the EP group.
  void layer_forward(Category category, bool moe) {
    tp_enter();
    compute(category, k_.attn.forward);
    tp_exit();
    tp_enter();
    if (moe) ep_all_to_all();
    compute(category, moe ? k_.moe.forward : k_.mlp.forward);
    if (moe) ep_all_to_all();
    tp_exit();
  }
  // A block's backward compute, then its closing TP collective. With
  // tp_overlap, the weight gradient of the block's first (column-parallel)
  // linear runs while that collective carries the input gradient (Megatron-LM's
  // asynchronous tensor-parallel all-reduce); the next op waits for both.
  void block_backward(const BlockCost& k) {
    if (!c_.tp_overlap || c_.tp < 2) {
      compute(Category::kBackward, k.backward);
      tp_exit();
      return;
    }
    compute(Category::kBackward, k.early);
    const std::uint32_t input_grad = last_op_;
    tp_exit();
    const std::uint32_t comm = last_op_;
    Op op;
    op.kind = OpKind::kCompute;
    op.category = Category::kWeightGradient;
    op.duration = k.wgrad;
    const std::uint32_t weight_grad = p_.add(op, std::vector<std::uint32_t>{input_grad});
    chain(p_.wait({comm, weight_grad}));
  }
  // A pipeline message in. With pp_scatter_gather each GPU of the TP group
  // received 1/tp of it, and the group all-gathers the whole (Narayanan et
  // al. 2021, §4.1's scatter/gather optimisation).
  void pp_receive(std::uint32_t peer) {
    chain(p_.add(pp_op(OpKind::kRecv, peer), deps()));
    if (!scatter_gather(c_)) return;
    chain_collective(
        Category::kPpComm, tp_slot_,
        {collective::Op::kAllGather, c_.groups[kTpGroup].algorithm, k_.activation_bytes, 0});
  }
  void ep_all_to_all() {
    if (c_.moe.ep < 2) return;
    chain_collective(Category::kEpComm, ep_slot_,
                     {collective::Op::kAllToAll, c_.groups[kEpGroup].algorithm, k_.a2a_bytes, 0});
  }
  // The expert gradients' all-reduce over the GPUs holding the same experts
  // (dp / ep of them), before the optimizer.
  void expert_all_reduce(std::uint64_t bytes) {
    if (bytes == 0 || c_.dp / c_.moe.ep < 2) return;
    chain_collective(Category::kDpComm, edp_slot_,
                     {collective::Op::kAllReduce, c_.groups[kDpGroup].algorithm, bytes, 0});
  }
  // A layer's dense parameters (not experts) on one GPU at the model's precision.
  std::uint64_t dense_layer_bytes(bool moe) const {
    return (dense_raw(c_, moe) + c_.tp - 1) / c_.tp * element_bytes(c_.model.precision);
  }
  // Before a block: an all-gather with sequence parallelism, else nothing.
  void tp_enter() {
    if (c_.sequence_parallel) tp_collective(collective::Op::kAllGather);
  }
  // After a block: a reduce-scatter with sequence parallelism, else an all-reduce.
  void tp_exit() {
    tp_collective(c_.sequence_parallel ? collective::Op::kReduceScatter
                                       : collective::Op::kAllReduce);
  }

  std::vector<std::uint32_t> deps() const {
    return has_last_ ? std::vector<std::uint32_t>{last_op_} : std::vector<std::uint32_t>{};
  }
  void chain(std::uint32_t op) {
    last_op_ = op;
    has_last_ = true;
  }
  Op pp_op(OpKind kind, std::uint32_t peer) const {
    Op op;
    op.kind = kind;
    op.category = Category::kPpComm;
    op.slot = peer;
    op.bytes = k_.pp_bytes;
    return op;
  }
  void compute(Category category, pdes::Time duration) {
    Op op;
    op.kind = OpKind::kCompute;
    op.category = category;
    op.duration = duration;
    chain(p_.add(op, deps()));
  }
  // Gradient buckets overlap the final backward pass (not with ZeRO-3,
  // whose per-layer reduce-scatters take their place).
  bool overlap() const { return c_.dp > 1 && c_.dp_overlap && c_.zero < 3; }
  // The pending gradients' all-reduce (reduce-scatter with ZeRO 1-2), after
  // the op that produced them and the previous bucket; the compute chain
  // does not wait for it.
  void flush() {
    if (pending_ == 0 && has_bucket_) return;
    const collective::Op kind =
        c_.zero == 0 ? collective::Op::kAllReduce : collective::Op::kReduceScatter;
    const collective::CollectiveCall call{kind, c_.groups[kDpGroup].algorithm, pending_, 0};
    last_bucket_ = has_bucket_
                       ? p_.collective(Category::kDpComm, dp_slot_, call, {last_op_, last_bucket_})
                       : p_.collective(Category::kDpComm, dp_slot_, call, {last_op_});
    has_bucket_ = true;
    pending_ = 0;
  }
  // A layer's parameters on one GPU at the model's precision (ZeRO-3's gathers).
  std::uint64_t layer_bytes() const {
    return layer_parameters(c_) * element_bytes(c_.model.precision);
  }
  void dp_collective(collective::Op kind, std::uint64_t bytes) {
    if (c_.dp < 2) return;
    chain_collective(Category::kDpComm, dp_slot_, {kind, c_.groups[kDpGroup].algorithm, bytes, 0});
  }
  // Reduce-scatter input and all-gather output are the whole b*s*h.
  void tp_collective(collective::Op kind) {
    if (c_.tp < 2) return;
    chain_collective(Category::kTpComm, tp_slot_,
                     {kind, c_.groups[kTpGroup].algorithm, k_.activation_bytes, 0});
  }
  // A collective on communicator `slot` after the previous op, next in the chain.
  void chain_collective(Category category, std::uint32_t slot,
                        const collective::CollectiveCall& call) {
    chain(has_last_ ? p_.collective(category, slot, call, {last_op_})
                    : p_.collective(category, slot, call));
  }

  const Config& c_;
  const OpCosts& k_;
  std::uint32_t stage_;
  Program& p_;
  bool first_, last_;
  std::uint32_t tp_slot_ = 0, dp_slot_ = 0, ep_slot_ = 0, edp_slot_ = 0;
  std::uint32_t last_op_ = 0;
  bool has_last_ = false;
  std::uint32_t v_ = 1, chunk_layers_ = 0;  // chunks per GPU, layers per chunk
  std::vector<std::uint32_t> backwards_;    // backward passes so far, per chunk
  std::uint32_t all_backwards_ = 0;
  bool final_backward_ = false, last_pass_ = false;
  std::uint64_t pending_ = 0;  // gradient bytes not yet in a bucket
  std::uint32_t last_bucket_ = 0;
  bool has_bucket_ = false;
};

}  // namespace

std::uint32_t interleaved_warmup(const Config& c, std::uint32_t stage) {
  const std::uint32_t total = c.micro_batches() * c.virtual_stages;
  // Megatron-LM: all forward passes first when m = pp.
  if (c.micro_batches() == c.pp) return total;
  return std::min((c.pp - stage - 1) * 2 + (c.virtual_stages - 1) * c.pp, total);
}

namespace {

Program stage_program(const Config& c, const OpCosts& k, std::uint32_t stage,
                      pdes::Time optimizer) {
  Program p(fmt::format("stage-{}", stage));
  StageBuilder b(c, k, stage, p);
  const std::uint32_t m = c.micro_batches();
  if (c.schedule == Schedule::kGpipe) {
    for (std::uint32_t j = 0; j < m; ++j) b.forward();
    for (std::uint32_t j = 0; j < m; ++j) b.backward();
  } else if (c.schedule == Schedule::kOneFOneB) {
    // 1F1B (PipeDream-Flush): warm-up forwards, then one forward, one backward
    const std::uint32_t warmup = std::min(c.pp - stage - 1, m);
    for (std::uint32_t j = 0; j < warmup; ++j) b.forward();
    for (std::uint32_t j = 0; j < m - warmup; ++j) {
      b.forward();
      b.backward();
    }
    for (std::uint32_t j = 0; j < warmup; ++j) b.backward();
  } else {  // interleaved 1F1B: Megatron-LM's order of chunk passes
    const std::uint32_t v = c.virtual_stages, total = m * v, group = c.pp * v;
    const std::uint32_t warmup = interleaved_warmup(c, stage);
    const auto forward_chunk = [&](std::uint32_t pass) { return (pass % group) / c.pp; };
    const auto backward_chunk = [&](std::uint32_t pass) { return v - 1 - (pass % group) / c.pp; };
    for (std::uint32_t i = 0; i < warmup; ++i) b.forward(forward_chunk(i));
    for (std::uint32_t i = 0; i < total - warmup; ++i) {
      b.forward(forward_chunk(warmup + i));
      b.backward(backward_chunk(i));
    }
    for (std::uint32_t i = total - warmup; i < total; ++i) b.backward(backward_chunk(i));
  }
  b.finish(optimizer);
  return p;
}

void check_collective(const Config& c, const collective::Communicator& comm,
                      collective::Algorithm algorithm, std::uint64_t bytes, bool tp) {
  for (const collective::Op op : group_ops(c, tp)) {
    const std::string why = collective::why_invalid(
        collective::make_spec(op, algorithm, comm.size(), bytes, 0, comm.params));
    if (!why.empty()) {
      throw std::invalid_argument(
          fmt::format("the {} {}: {}", tp ? "TP" : "DP", collective::to_string(op), why));
    }
  }
}

}  // namespace

bool scatter_gather(const Config& c) {
  return c.pp_scatter_gather && c.tp > 1 && c.pp > 1 && !c.sequence_parallel;
}

std::vector<collective::Op> group_ops(const Config& c, bool tp) {
  if (tp ? c.sequence_parallel : c.zero > 0) {
    return {collective::Op::kReduceScatter, collective::Op::kAllGather};
  }
  if (tp && scatter_gather(c)) return {collective::Op::kAllReduce, collective::Op::kAllGather};
  return {collective::Op::kAllReduce};
}

std::optional<CollectiveProblem> invalid_collective(const Config& c, std::uint64_t bytes) {
  for (const bool tp : {true, false}) {
    const std::uint32_t p = tp ? c.tp : c.dp;
    if (p < 2) continue;
    const Group& group = c.groups[tp ? kTpGroup : kDpGroup];
    for (const collective::Op op : group_ops(c, tp)) {
      const std::string why = collective::why_invalid(
          collective::make_spec(op, group.algorithm, p, bytes, 0, group.params));
      if (!why.empty()) return CollectiveProblem{tp ? "tp" : "dp", why};
    }
  }
  if (c.moe.experts > 0 && c.moe.ep > 1) {
    const std::string why = collective::why_invalid(
        collective::make_spec(collective::Op::kAllToAll, c.groups[kEpGroup].algorithm, c.moe.ep,
                              bytes, 0, c.groups[kEpGroup].params));
    if (!why.empty()) return CollectiveProblem{"ep", why};
  }
  if (c.moe.experts > 0 && c.dp / c.moe.ep > 1) {
    const std::string why = collective::why_invalid(
        collective::make_spec(collective::Op::kAllReduce, c.groups[kDpGroup].algorithm,
                              c.dp / c.moe.ep, bytes, 0, c.groups[kEdpGroup].params));
    if (!why.empty()) return CollectiveProblem{"dp", why};
  }
  return std::nullopt;
}

ProgramSet make_programs(const Config& c, const compute::Device& device,
                         std::uint32_t fabric_nodes) {
  const std::uint32_t gpus = c.gpus();
  if (gpus > fabric_nodes) {
    throw std::invalid_argument(
        fmt::format("tp x pp x dp = {} GPUs, but the fabric has {} nodes", gpus, fabric_nodes));
  }
  const bool moe = c.moe.experts > 0;
  const std::uint32_t ep = moe ? c.moe.ep : 1, edp = moe ? c.dp / c.moe.ep : 1;
  // The communicators built below: TP groups, DP groups, EP and expert-DP groups.
  const std::uint64_t groups = (c.tp > 1 ? std::uint64_t{c.pp} * c.dp : 0) +
                               (c.dp > 1 ? std::uint64_t{c.tp} * c.pp : 0) +
                               (ep > 1 ? std::uint64_t{c.pp} * c.tp * edp : 0) +
                               (moe && edp > 1 ? std::uint64_t{c.pp} * c.tp * ep : 0);
  if (groups > collective::Tag::kMaxComm) {
    throw std::invalid_argument("too many TP, DP and EP groups for the message tag (65,534)");
  }
  ProgramSet set;
  set.iterations = c.iterations;
  set.replay_collectives = c.replay_collectives;
  const OpCosts k = op_costs(c, device);
  // Communicators: TP groups by (pp, dp), then DP groups by (pp, tp).
  const std::uint32_t tp_base = 0;
  const std::uint32_t dp_base = c.tp > 1 ? c.pp * c.dp : 0;
  if (c.tp > 1) {
    for (std::uint32_t s = 0; s < c.pp; ++s) {
      for (std::uint32_t d = 0; d < c.dp; ++d) {
        collective::Communicator comm{fmt::format("tp-{}-{}", s, d), {}, c.groups[kTpGroup].params};
        for (std::uint32_t t = 0; t < c.tp; ++t) comm.nodes.push_back(node_of(c, {t, d, s}));
        set.comms.push_back(std::move(comm));
      }
    }
    check_collective(c, set.comms.front(), c.groups[kTpGroup].algorithm, k.activation_bytes, true);
  }
  if (c.dp > 1) {
    for (std::uint32_t s = 0; s < c.pp; ++s) {
      for (std::uint32_t t = 0; t < c.tp; ++t) {
        collective::Communicator comm{fmt::format("dp-{}-{}", s, t), {}, c.groups[kDpGroup].params};
        for (std::uint32_t d = 0; d < c.dp; ++d) comm.nodes.push_back(node_of(c, {t, d, s}));
        set.comms.push_back(std::move(comm));
      }
    }
    check_collective(c, set.comms.back(), c.groups[kDpGroup].algorithm,
                     stage_parameters(c, 0) * element_bytes(c.model.precision), false);
  }
  // MoE: EP groups of ep consecutive DP ranks; expert-DP groups of the DP
  // ranks with the same place in their EP group.
  const auto ep_base = static_cast<std::uint32_t>(set.comms.size());
  if (ep > 1) {
    for (std::uint32_t s = 0; s < c.pp; ++s) {
      for (std::uint32_t t = 0; t < c.tp; ++t) {
        for (std::uint32_t j = 0; j < edp; ++j) {
          collective::Communicator comm{
              fmt::format("ep-{}-{}-{}", s, t, j), {}, c.groups[kEpGroup].params};
          for (std::uint32_t r = 0; r < ep; ++r)
            comm.nodes.push_back(node_of(c, {t, j * ep + r, s}));
          set.comms.push_back(std::move(comm));
        }
      }
    }
  }
  const auto edp_base = static_cast<std::uint32_t>(set.comms.size());
  if (moe && edp > 1) {
    for (std::uint32_t s = 0; s < c.pp; ++s) {
      for (std::uint32_t t = 0; t < c.tp; ++t) {
        for (std::uint32_t r = 0; r < ep; ++r) {
          collective::Communicator comm{
              fmt::format("edp-{}-{}-{}", s, t, r), {}, c.groups[kEdpGroup].params};
          for (std::uint32_t j = 0; j < edp; ++j)
            comm.nodes.push_back(node_of(c, {t, j * ep + r, s}));
          set.comms.push_back(std::move(comm));
        }
      }
    }
  }
  for (std::uint32_t s = 0; s < c.pp; ++s) {
    set.programs.push_back(stage_program(c, k, s, optimizer_ps(c, device, s)));
    // The iterations' computation alone must fit pdes::Time, with room for
    // communication (docs/scenarios.md, "Size bound").
    if (set.programs.back().computes_longer_than(c.iterations, pdes::Time{1} << 61)) {
      throw std::invalid_argument(fmt::format(
          "stage {} computes for more than 2^61 ps (about 27 days) in {} iterations: the run "
          "could not reach its end",
          s, c.iterations));
    }
  }
  set.bindings.resize(fabric_nodes);
  for (std::uint32_t g = 0; g < gpus; ++g) {
    const Coord x = coord_of(c, g);
    Binding b;
    b.program = x.pp;
    if (c.tp > 1) b.comms.push_back({tp_base + x.pp * c.dp + x.dp, x.tp});
    if (c.dp > 1) b.comms.push_back({dp_base + x.pp * c.tp + x.tp, x.dp});
    if (ep > 1) b.comms.push_back({ep_base + (x.pp * c.tp + x.tp) * edp + x.dp / ep, x.dp % ep});
    if (moe && edp > 1) {
      b.comms.push_back({edp_base + (x.pp * c.tp + x.tp) * ep + x.dp % ep, x.dp / ep});
    }
    // Peer slots: 0 the previous stage, 1 the next; the first stage's unused
    // slot 0 names its next stage too (a slot must name another node).
    if (c.schedule == Schedule::kInterleaved) {
      // Chunks wrap around: the last stage feeds stage 0's next chunk.
      b.peers = {node_of(c, {x.tp, x.dp, (x.pp + c.pp - 1) % c.pp}),
                 node_of(c, {x.tp, x.dp, (x.pp + 1) % c.pp})};
    } else if (c.pp > 1) {
      const std::uint32_t prev = x.pp > 0 ? node_of(c, {x.tp, x.dp, x.pp - 1}) : 0;
      const std::uint32_t next = x.pp + 1 < c.pp ? node_of(c, {x.tp, x.dp, x.pp + 1}) : 0;
      if (x.pp == 0) {
        b.peers = {next, next};
      } else if (x.pp + 1 == c.pp) {
        b.peers = {prev};
      } else {
        b.peers = {prev, next};
      }
    }
    set.bindings[node_of_gpu(c, g)] = std::move(b);
  }
  return set;
}

}  // namespace sipsim::workload::transformer
