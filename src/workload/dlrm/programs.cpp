// DLRM's partitioner and program generator (docs/models.md, "DLRM"): tables
// cut table-wise, then column-wise (RAMP §7.2.2; Mudigere et al. 2021), MLPs
// data-parallel; one program per role.
#include <spdlog/fmt/fmt.h>

#include <stdexcept>
#include <vector>

#include "sipsim/base/units.hpp"
#include "sipsim/workload/dlrm/dlrm.hpp"

namespace sipsim::workload::dlrm {

Partition partition(const Config& c) {
  const ModelShape& m = c.model;
  const std::uint64_t share = c.memory_share_bytes();
  const std::uint32_t p = element_bytes(m.precision);
  auto cut = [&](std::uint32_t split) {
    Partition out;
    out.split = split;
    out.shard_cols = m.dim / split;
    out.shards = std::uint64_t{m.tables} * split;
    out.most = static_cast<std::uint32_t>((out.shards + c.gpus - 1) / c.gpus);
    out.least = static_cast<std::uint32_t>(out.shards / c.gpus);
    out.shard_bytes = m.rows * out.shard_cols * p;
    return out;
  };
  auto fits = [&](const Partition& x) {
    __extension__ typedef unsigned __int128 U128;
    return U128{x.most} * x.shard_bytes <= share;
  };
  // Table-wise first (split 1); column-wise only as far as needed.
  for (std::uint32_t split = 1; split <= m.dim; ++split) {
    if (m.dim % split != 0) continue;
    const Partition x = cut(split);
    if (fits(x) && (x.shards >= c.gpus || split == m.dim)) return x;
  }
  const Partition x = cut(m.dim);
  throw std::invalid_argument(fmt::format(
      "the embedding tables do not fit: even one column per shard leaves {} shards of {} on the "
      "busiest GPU, more than its memory share ({})",
      x.most, base::format_bytes(x.shard_bytes), base::format_bytes(share)));
}

namespace {

// The MLP's layers as (in, out) pairs: bottom from the dense features, top
// from the bottom's output and the interaction's pairs.
std::vector<std::pair<std::uint64_t, std::uint64_t>> layers(const std::vector<std::uint32_t>& sizes,
                                                            std::uint64_t in) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (const std::uint32_t s : sizes) {
    out.emplace_back(in, s);
    in = s;
  }
  return out;
}

std::uint64_t vectors(const ModelShape& m) {
  return std::uint64_t{m.tables} + 1;
}
std::uint64_t top_input(const ModelShape& m) {
  const std::uint64_t f = vectors(m);
  return m.dim + f * (f - 1) / 2;
}

std::uint64_t mlp_flops(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& ls) {
  std::uint64_t total = 0;
  for (const auto& [in, out] : ls) total += 2 * in * out;
  return total;
}

std::uint64_t mlp_params(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& ls) {
  std::uint64_t total = 0;
  for (const auto& [in, out] : ls) total += in * out + out;
  return total;
}

std::uint64_t interaction_flops(const ModelShape& m) {
  return 2 * vectors(m) * vectors(m) * m.dim;
}

}  // namespace

std::uint64_t mlp_parameters(const ModelShape& m) {
  return mlp_params(layers(m.bottom, m.dense)) + mlp_params(layers(m.top, top_input(m)));
}

std::uint64_t sample_forward_flops(const ModelShape& m) {
  return mlp_flops(layers(m.bottom, m.dense)) + interaction_flops(m) +
         mlp_flops(layers(m.top, top_input(m)));
}

double iteration_flops(const Config& c) {
  return 3.0 * c.model.global_batch * static_cast<double>(sample_forward_flops(c.model));
}

namespace {

// One GPU's op costs.
struct Costs {
  pdes::Time lookup = 0;  // its shards' lookups and pooling, the global batch
  pdes::Time bottom_fwd = 0, top_fwd = 0, top_bwd = 0, bottom_bwd = 0;
  pdes::Time embedding_update = 0;  // sparse SGD on the looked-up rows
  pdes::Time mlp_update = 0;        // SGD on the replicated MLPs
};

// An MLP's matrix multiplies for `batch` samples, `times` x the forward (the
// backward: 2, the input and the weight gradients); its memory traffic is
// its weights and its activations.
pdes::Time mlp_ps(const compute::Device& d, const ModelShape& m,
                  const std::vector<std::pair<std::uint64_t, std::uint64_t>>& ls,
                  std::uint64_t batch, std::uint64_t times) {
  const std::uint64_t p = element_bytes(m.precision);
  std::uint64_t flops = 0, bytes = 0;
  for (const auto& [in, out] : ls) {
    flops += 2 * batch * in * out;
    bytes += (in * out + batch * (in + out)) * p;
  }
  return d.op_ps({flops * times, bytes * times, m.precision, compute::OpKind::kMatmul,
                  static_cast<std::uint32_t>(batch)});
}

Costs costs(const Config& c, const compute::Device& d, const Partition& x, std::uint32_t shards) {
  const ModelShape& m = c.model;
  const std::uint64_t b = c.local_batch(), p = element_bytes(m.precision);
  const auto bottom = layers(m.bottom, m.dense);
  const auto top = layers(m.top, top_input(m));
  Costs out;
  if (shards > 0) {
    // Every sample's `pooling` rows of each shard read and summed, the pooled
    // vectors written: bytes-bound (Mudigere et al. 2021 §3).
    const std::uint64_t vecs = std::uint64_t{m.global_batch} * shards * x.shard_cols;
    out.lookup = d.op_ps({vecs * m.pooling, vecs * (m.pooling + 1) * p, m.precision,
                          compute::OpKind::kElementwise, 1});
    // Sparse SGD: the pooled gradient read, each looked-up row read and written.
    out.embedding_update = d.op_ps({vecs * m.pooling * 2, vecs * (1 + 2 * m.pooling) * p,
                                    m.precision, compute::OpKind::kElementwise, 1});
  }
  // The dot interaction (a batched F x dim x F product) goes with the top MLP.
  const std::uint64_t inter = b * interaction_flops(m);
  const std::uint64_t inter_bytes = b * (vectors(m) * m.dim + top_input(m)) * p;
  const pdes::Time inter_fwd = d.op_ps(
      {inter, inter_bytes, m.precision, compute::OpKind::kMatmul, static_cast<std::uint32_t>(b)});
  const pdes::Time inter_bwd = d.op_ps({2 * inter, 2 * inter_bytes, m.precision,
                                        compute::OpKind::kMatmul, static_cast<std::uint32_t>(b)});
  out.bottom_fwd = mlp_ps(d, m, bottom, b, 1);
  out.top_fwd = inter_fwd + mlp_ps(d, m, top, b, 1);
  out.top_bwd = mlp_ps(d, m, top, b, 2) + inter_bwd;
  out.bottom_bwd = mlp_ps(d, m, bottom, b, 2);
  // SGD: weight and gradient read, weight written, a multiply-add each.
  const std::uint64_t params = mlp_parameters(m);
  out.mlp_update =
      d.op_ps({2 * params, 3 * params * p, m.precision, compute::OpKind::kElementwise, 1});
  return out;
}

constexpr std::uint32_t kAllToAllSlot = 0, kAllReduceSlot = 1;

// One iteration of a GPU holding `shards` shards:
//   lookup -> forward all-to-all, and bottom forward, both before
//   interaction + top forward -> top + interaction backward, then
//     backward all-to-all -> embedding update (sparse SGD), and
//     bottom backward -> MLP all-reduce (after the backward all-to-all)
//     -> MLP update (SGD).
// One compute stream: the lookup runs first, then the bottom MLP while the
// pooled embeddings travel; the backward all-to-all overlaps the bottom
// MLP's backward. One collective at a time, in issue order, as NCCL runs a
// process group's collectives on one stream; on RAMP two RAMP-x collectives
// in flight at once would also contend for the same wavelengths.
Program role_program(const Config& c, const Costs& k, std::uint64_t a2a_bytes,
                     std::uint32_t shards) {
  Program p(fmt::format("shards-{}", shards));
  const bool comm = c.gpus > 1;
  const std::uint64_t grad_bytes = mlp_parameters(c.model) * element_bytes(c.model.precision);
  std::vector<std::uint32_t> before_top;
  std::uint32_t lookup = 0;
  if (shards > 0) lookup = p.compute(Category::kForward, k.lookup);
  before_top.push_back(p.compute(Category::kForward, k.bottom_fwd));
  if (comm) {
    const collective::CollectiveCall call{collective::Op::kAllToAll, c.all_to_all, a2a_bytes, 0};
    before_top.push_back(shards > 0
                             ? p.collective(Category::kCollective, kAllToAllSlot, call, {lookup})
                             : p.collective(Category::kCollective, kAllToAllSlot, call));
  }
  Op top;
  top.kind = OpKind::kCompute;
  top.category = Category::kForward;
  top.duration = k.top_fwd;
  const std::uint32_t top_fwd = p.add(top, before_top);
  const std::uint32_t top_bwd = p.compute(Category::kBackward, k.top_bwd, {top_fwd});
  std::uint32_t embeddings_ready = top_bwd;
  if (comm) {
    embeddings_ready =
        p.collective(Category::kCollective, kAllToAllSlot,
                     {collective::Op::kAllToAll, c.all_to_all, a2a_bytes, 0}, {top_bwd});
  }
  const std::uint32_t bottom_bwd = p.compute(Category::kBackward, k.bottom_bwd, {top_bwd});
  if (shards > 0) p.compute(Category::kOptimizer, k.embedding_update, {embeddings_ready});
  std::uint32_t grads = bottom_bwd;
  if (comm) {
    grads = p.collective(Category::kDpComm, kAllReduceSlot,
                         {collective::Op::kAllReduce, c.all_reduce, grad_bytes, 0},
                         {bottom_bwd, embeddings_ready});
  }
  p.compute(Category::kOptimizer, k.mlp_update, {grads});
  return p;
}

void check_collective(collective::Op op, collective::Algorithm algorithm, std::uint32_t p,
                      std::uint64_t bytes, const collective::AlgorithmParams& params,
                      const char* what) {
  const std::string why =
      collective::why_invalid(collective::make_spec(op, algorithm, p, bytes, 0, params));
  if (!why.empty()) throw std::invalid_argument(fmt::format("the {}: {}", what, why));
}

}  // namespace

std::uint64_t all_to_all_bytes(const Config& c, const Partition& x) {
  // Each GPU sends every other GPU its shards' pooled vectors for that GPU's
  // local batch; the collective is uniform, so every GPU sends as much as the
  // busiest (an all-to-allv would send the least busy's less).
  return std::uint64_t{c.model.global_batch} * x.most * x.shard_cols *
         element_bytes(c.model.precision);
}

ProgramSet make_programs(const Config& c, const compute::Device& device,
                         std::uint32_t fabric_nodes) {
  if (c.gpus > fabric_nodes) {
    throw std::invalid_argument(
        fmt::format("gpus = {}, but the fabric has {} nodes", c.gpus, fabric_nodes));
  }
  const Partition x = partition(c);
  const std::uint64_t a2a = all_to_all_bytes(c, x);
  ProgramSet set;
  set.iterations = c.iterations;
  set.replay_collectives = c.replay_collectives;
  if (c.gpus > 1) {
    const std::uint64_t grads = mlp_parameters(c.model) * element_bytes(c.model.precision);
    check_collective(collective::Op::kAllToAll, c.all_to_all, c.gpus, a2a, c.params, "all-to-all");
    check_collective(collective::Op::kAllReduce, c.all_reduce, c.gpus, grads, c.params,
                     "MLP all-reduce");
    std::vector<std::uint32_t> members(c.gpus);
    for (std::uint32_t g = 0; g < c.gpus; ++g) members[g] = c.nodes.empty() ? g : c.nodes[g];
    set.comms.push_back({"all-to-all", members, c.params});
    set.comms.push_back({"dp", members, c.params});
  }
  // Roles: GPUs with `most` shards, then (if different) those with `least`.
  const std::vector<std::uint32_t> roles = x.most == x.least
                                               ? std::vector<std::uint32_t>{x.most}
                                               : std::vector<std::uint32_t>{x.most, x.least};
  for (const std::uint32_t shards : roles) {
    const Costs k = costs(c, device, x, shards);
    set.programs.push_back(role_program(c, k, a2a, shards));
    if (set.programs.back().computes_longer_than(c.iterations, pdes::Time{1} << 61)) {
      throw std::invalid_argument(fmt::format(
          "a GPU computes for more than 2^61 ps (about 27 days) in {} iterations: the run "
          "could not reach its end",
          c.iterations));
    }
  }
  set.bindings.resize(fabric_nodes);
  for (std::uint32_t g = 0; g < c.gpus; ++g) {
    Binding b;
    b.program = x.shards_on(g, c.gpus) == x.most ? 0 : 1;
    if (c.gpus > 1) b.comms = {{0, g}, {1, g}};
    set.bindings[c.nodes.empty() ? g : c.nodes[g]] = std::move(b);
  }
  return set;
}

}  // namespace sipsim::workload::dlrm
