// The transformer's op costs (docs/models.md, "Transformer training"): each
// block is its matrix multiplies, named by shape, and its element-wise ops,
// priced separately by the device and run back to back as one op.
#include "sipsim/workload/transformer/op_costs.hpp"

#include <vector>

namespace sipsim::workload::transformer {

namespace {

using compute::Gemm;

// A block's GEMMs in one pass. The backward pass of C = A B (A: m x k,
// B: k x n) is dA = dC B^T (m x k, inner n) and dB = A^T dC (k x n, inner m):
// twice the forward's FLOPs.
struct Gemms {
  std::vector<Gemm> list;
  std::uint64_t flops() const {
    std::uint64_t f = 0;
    for (const Gemm& g : list) f += g.flops();
    return f;
  }
};
Gemm input_grad(const Gemm& g) {
  return {g.m, g.k, g.n, g.batch};
}
Gemm weight_grad(const Gemm& g) {
  return {g.k, g.n, g.m, g.batch};
}
Gemms backward_of(const std::vector<Gemm>& forward) {
  Gemms out;
  for (const Gemm& g : forward) {
    out.list.push_back(input_grad(g));
    out.list.push_back(weight_grad(g));
  }
  return out;
}

// The matrix multiplies (by shape) and the element-wise bytes of an op.
pdes::Time price(const compute::Device& d, const ModelShape& m, const Gemms& mm,
                 std::uint64_t bytes) {
  const compute::OpCost gemm{mm.flops(),    0,      m.precision, compute::OpKind::kMatmul,
                             m.micro_batch, mm.list};
  const compute::OpCost ew{0, bytes, m.precision, compute::OpKind::kElementwise, m.micro_batch};
  return (mm.list.empty() ? 0 : d.op_ps(gemm)) + (bytes == 0 ? 0 : d.op_ps(ew));
}

// One block's costs; with `split`, the backward also without the weight
// gradient of the block's first GEMM, which backward_of lists second.
BlockCost block(const compute::Device& d, const ModelShape& m, const std::vector<Gemm>& forward,
                std::uint64_t bytes, bool split) {
  BlockCost b;
  b.forward = price(d, m, {forward}, bytes);
  Gemms backward = backward_of(forward);
  b.backward = price(d, m, backward, 2 * bytes);
  b.early = b.backward;
  if (split) {
    const Gemm wgrad = backward.list[1];
    backward.list.erase(backward.list.begin() + 1);
    b.early = price(d, m, backward, 2 * bytes);
    b.wgrad = price(d, m, {{wgrad}}, 0);
  }
  return b;
}

}  // namespace

OpCosts op_costs(const Config& c, const compute::Device& d) {
  const ModelShape& m = c.model;
  const std::uint64_t b = m.micro_batch, s = m.seq, h = m.hidden, p = element_bytes(m.precision);
  const std::uint64_t heads = m.heads / c.tp, ffn = m.ffn / c.tp,
                      vocab = (m.vocab + c.tp - 1) / c.tp, head_dim = h / m.heads;
  // Layer norm, dropout and residual on b*s*h: replicated on the TP ranks,
  // split along the sequence with sequence parallelism.
  const std::uint64_t bsh = c.sequence_parallel ? b * s * h / c.tp : b * s * h;
  // Attention (Shoeybi et al. 2019, TP shard): the QKV projection
  // (b*s x 3h/tp x h), scores Q K^T and context (per head: s x s x h/heads
  // and s x h/heads x s), the output projection (b*s x h x h/tp): 8bsh^2/tp +
  // 4bs^2h/tp FLOPs. Element-wise: layer norm, dropout and residual on b*s*h
  // (7 reads and writes), softmax and dropout on the scores (4 per element).
  const Gemm qkv{b * s, 3 * heads * head_dim, h, 1};
  const Gemm scores{s, s, head_dim, b * heads};
  const Gemm context{s, head_dim, s, b * heads};
  const Gemm projection{b * s, h, heads * head_dim, 1};
  const std::uint64_t attn_bytes = (7 * bsh + 4 * b * heads * s * s) * p;
  // MLP: b*s x ffn/tp x h and b*s x h x ffn/tp (4bsh*ffn/tp); element-wise as
  // above plus GeLU on b*s*ffn.
  const Gemm fc1{b * s, ffn, h, 1};
  const Gemm fc2{b * s, h, ffn, 1};
  const std::uint64_t mlp_bytes = (7 * bsh + 2 * b * s * ffn) * p;
  // Logits b*s x V/tp x h and the softmax cross-entropy on b*s*V.
  const Gemm logits{b * s, vocab, h, 1};
  const std::uint64_t logit_bytes = 2 * b * s * vocab * p;

  OpCosts out;
  // The column-parallel QKV and fc1 come first: their weight gradients split.
  out.attn = block(d, m, {qkv, scores, context, projection}, attn_bytes, true);
  out.mlp = block(d, m, {fc1, fc2}, mlp_bytes, true);
  // vocab 0: no logit layer (an encoder-block stack, RAMP §7.3).
  if (m.vocab > 0) out.logit = block(d, m, {logits}, logit_bytes, false);
  // The attention core (Korthikanti et al. 2022, §5): Q K^T and the scores
  // times V, softmax and dropout on the scores.
  out.attn_core = price(d, m, {{scores, context}}, 4 * b * heads * s * s * p);
  if (c.moe.experts > 0) {
    // The router (b*s x E x h, replicated) and the experts' MLPs on the
    // tokens this GPU's experts receive (b*s*top_k*capacity on average),
    // sharded by TP.
    const std::uint64_t tokens = moe_tokens(c);
    const std::vector<Gemm> moe = {
        {b * s, c.moe.experts, h, 1}, {tokens, ffn, h, 1}, {tokens, h, ffn, 1}};
    out.moe = block(d, m, moe, (7 * bsh + 2 * tokens * ffn) * p, false);
    out.a2a_bytes = tokens * h * p / (c.sequence_parallel ? c.tp : 1);
  }
  out.activation_bytes = b * s * h * p;
  out.pp_bytes = scatter_gather(c) ? (bsh * p + c.tp - 1) / c.tp : bsh * p;
  return out;
}

}  // namespace sipsim::workload::transformer
