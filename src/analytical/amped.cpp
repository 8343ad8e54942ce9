// AMPeD eq. 1-12 (docs/models.md, "AMPeD analytical model").
#include "sipsim/analytical/amped.hpp"

#include <algorithm>
#include <vector>

#include "sipsim/fabric/cost_model.hpp"

namespace sipsim::analytical {

namespace {

__extension__ typedef unsigned __int128 U128;
using workload::transformer::Config;
using workload::transformer::ModelShape;

pdes::Time clamp(U128 ps) {
  return ps >= pdes::kTimeMax ? pdes::kTimeMax : static_cast<pdes::Time>(ps);
}

AmpedLink link(const fabric::CostModel& n, std::uint32_t a, std::uint32_t b) {
  return {n.uncongested_ps(a, b, 0), n.path_rate_bps(a, b)};
}

// C + bytes / BW, the serialization rounded as the fabrics round it.
pdes::Time message_ps(const AmpedLink& l, std::uint64_t bytes) {
  return pdes::saturating_add(l.latency, fabric::serialization_ps(bytes, l.rate_bps));
}

// AMPeD's split of a group (see read_amped_fabric): the members reached from
// the first at `node_rate` are its node.
AmpedGroup split(const std::vector<std::uint32_t>& m, const fabric::CostModel& n,
                 std::uint64_t node_rate) {
  AmpedGroup g;
  const auto size = static_cast<std::uint32_t>(m.size());
  if (size < 2) return g;
  std::vector<std::uint64_t> rate(size, 0);
  std::uint64_t slow = ~std::uint64_t{0};
  for (std::uint32_t i = 1; i < size; ++i) {
    rate[i] = n.path_rate_bps(m[0], m[i]);
    slow = std::min(slow, rate[i]);
  }
  // A class's link: `r`, and the largest latency from the first member to a
  // member in the class (`fast`: at the node rate, or not).
  const auto class_link = [&](std::uint64_t r, bool fast) {
    AmpedLink l{0, r};
    for (std::uint32_t i = 1; i < size; ++i) {
      if ((rate[i] == node_rate) == fast) {
        l.latency = std::max(l.latency, n.uncongested_ps(m[0], m[i], 0));
      }
    }
    return l;
  };
  const auto in_node =
      static_cast<std::uint32_t>(1 + std::count(rate.begin() + 1, rate.end(), node_rate));
  std::uint32_t block = 1;
  while (block < size && rate[block] == node_rate) ++block;
  if (in_node == size) {  // the whole group in one AMPeD node
    g.intra = size;
    g.intra_link = class_link(node_rate, true);
  } else if (in_node > 1 && block == in_node && size % block == 0) {
    g.intra = block;
    g.inter = size / block;
    g.intra_link = class_link(node_rate, true);
    g.inter_link = class_link(slow, false);
  } else {  // every member in another node, or no equal blocks: one flat ring
    g.inter = size;
    g.inter_link = class_link(slow, false);
    if (in_node > 1) {
      g.inter_link.latency = std::max(g.inter_link.latency, class_link(node_rate, true).latency);
    }
  }
  return g;
}

// eq. 6 (and 11) for one level of N members: C T N + bytes S / BW T with the
// ring's T = 2(N-1)/N, as 2(N-1) steps of C and a chunk of ceil(bytes / N).
pdes::Time ring_level(std::uint32_t n, const AmpedLink& l, std::uint64_t bytes) {
  if (n < 2) return 0;
  const std::uint64_t chunk = (bytes + n - 1) / n;
  return clamp(U128{2} * (n - 1) * message_ps(l, chunk));
}

// One transformer block's op pair as the generator prices it: its matrix
// multiplies (eq. 2's MAC term, with eff(ub)) and its element-wise bytes, each
// an op with the device's launch overhead and minimum time; the backward pass
// is twice both.
pdes::Time block(const compute::Device& d, const ModelShape& m, std::uint64_t flops,
                 std::uint64_t bytes, std::uint64_t times) {
  const compute::OpCost mm{flops * times, 0, m.precision, compute::OpKind::kMatmul, m.micro_batch};
  const compute::OpCost ew{0, bytes * times, m.precision, compute::OpKind::kElementwise,
                           m.micro_batch};
  return d.op_ps(mm) + d.op_ps(ew);
}

}  // namespace

AmpedFabric read_amped_fabric(const Config& c, const fabric::CostModel& network) {
  using workload::transformer::node_of;
  AmpedFabric f;
  std::vector<std::uint32_t> tp, dp;
  for (std::uint32_t t = 0; t < c.tp; ++t) tp.push_back(node_of(c, {t, 0, 0}));
  for (std::uint32_t d = 0; d < c.dp; ++d) dp.push_back(node_of(c, {0, d, 0}));
  // The node rate: the fastest path from GPU 0 to any other GPU of the job.
  for (std::uint32_t g = 1; g < c.gpus(); ++g) {
    f.node_rate_bps = std::max(f.node_rate_bps, network.path_rate_bps(0, g));
  }
  f.tp = split(tp, network, f.node_rate_bps);
  f.dp = split(dp, network, f.node_rate_bps);
  const std::uint64_t bytes = std::uint64_t{c.model.micro_batch} * c.model.seq * c.model.hidden *
                              compute::element_bytes(c.model.precision);
  pdes::Time worst = 0;
  for (std::uint32_t s = 0; s + 1 < c.pp; ++s) {
    const AmpedLink l = link(network, node_of(c, {0, 0, s}), node_of(c, {0, 0, s + 1}));
    if (s == 0 || message_ps(l, bytes) > worst) {
      worst = message_ps(l, bytes);
      f.pp = l;
    }
  }
  return f;
}

pdes::Time amped_all_reduce(const AmpedGroup& g, std::uint64_t bytes) {
  // Hierarchical (eq. 10): within the node, then across nodes, each on the
  // full message as AMPeD states it.
  return pdes::saturating_add(ring_level(g.intra, g.intra_link, bytes),
                              ring_level(g.inter, g.inter_link, bytes));
}

AmpedOptions amped_options(const Config& c) {
  AmpedOptions o;
  if (c.schedule == workload::transformer::Schedule::kInterleaved) {
    o.r_ppm = compute::kPpm / c.virtual_stages;
  }
  return o;
}

AmpedEstimate estimate_amped(const Config& c, const compute::Device& d, const AmpedFabric& f,
                             const AmpedOptions& options) {
  using compute::element_bytes;
  const ModelShape& m = c.model;
  const std::uint64_t b = m.micro_batch, s = m.seq, h = m.hidden, p = element_bytes(m.precision);
  const std::uint64_t heads = m.heads / c.tp, ffn = m.ffn / c.tp,
                      vocab = (m.vocab + c.tp - 1) / c.tp;
  AmpedEstimate e;
  e.micro_batches = c.micro_batches();
  e.efficiency_ppm = compute::efficiency_ppm(c.accelerator.efficiency, m.micro_batch);

  // eq. 2 per sub-layer i, one micro-batch, one TP shard (U(l) / N_TP). The
  // sub-layers and their element-wise traffic are the generator's
  // (workload/transformer/programs.cpp): attention (QKV, scores, context,
  // output projection), MLP, and the logit layer.
  const std::uint64_t attn_flops = (8 * b * s * h * h + 4 * b * s * s * h) / c.tp;
  const std::uint64_t attn_bytes = (7 * b * s * h + 4 * b * heads * s * s) * p;
  const std::uint64_t mlp_flops = 4 * b * s * h * ffn;
  const std::uint64_t mlp_bytes = (7 * b * s * h + 2 * b * s * ffn) * p;
  const std::uint64_t logit_flops = 2 * b * s * h * vocab;
  const std::uint64_t logit_bytes = 2 * b * s * vocab * p;
  e.layer_forward = block(d, m, attn_flops, attn_bytes, 1) + block(d, m, mlp_flops, mlp_bytes, 1);
  e.layer_backward = block(d, m, attn_flops, attn_bytes, 2) + block(d, m, mlp_flops, mlp_bytes, 2);
  if (m.vocab > 0) {  // vocab 0: an encoder-block stack without logit layer
    e.logit_forward = block(d, m, logit_flops, logit_bytes, 1);
    e.logit_backward = block(d, m, logit_flops, logit_bytes, 2);
  }

  // eq. 1's compute divided by N_TP N_DP N_PP: per GPU, its L / PP layers for
  // each of its N_ub micro-batches, and its share 1 / PP of the logit layer.
  const U128 ub = e.micro_batches, per_stage = m.layers / c.pp;
  e.forward = clamp(ub * (per_stage * e.layer_forward + e.logit_forward / c.pp));
  e.backward = clamp(ub * (per_stage * e.layer_backward + e.logit_backward / c.pp));

  // eq. 12 (weight update) as the device prices mixed-precision Adam (the
  // generator's optimizer op) on the first stage's parameters: it holds the
  // embedding, and it is the last stage to finish its backward pass.
  e.dp_parameters = workload::transformer::stage_parameters(c, 0);
  e.optimizer = d.op_ps({12 * e.dp_parameters, e.dp_parameters * (24 + 2 * p),
                         compute::Precision::kFp32, compute::OpKind::kElementwise, 1});

  // eq. 5-6: N_act,TP = 2bsh per layer and pass, two all-reduces of bsh
  // (attention and MLP); the backward pass the same (AMPeD §IV-E).
  const std::uint64_t act = b * s * h * p;
  if (c.tp > 1) {
    e.tp_all_reduce = amped_all_reduce(f.tp, act);
    e.tp_comm = clamp(ub * per_stage * 4 * e.tp_all_reduce);
  }
  // eq. 7 summed over the L layers (its 1/L): one bsh message per micro-batch
  // and pass, at the slower of the intra- and inter-node links (eq. 5's max);
  // no overlap with compute.
  if (c.pp > 1) {
    e.pp_message = message_ps(f.pp, act);
    e.pp_comm = clamp(ub * 2 * e.pp_message);
  }
  // eq. 10-11: the gradients (N_g, S_g at the model's precision), after the
  // last backward pass; ZeRO's (1 + M_f,DP) factor is 1 (no ZeRO).
  if (c.dp > 1) {
    e.dp_all_reduce = amped_all_reduce(f.dp, e.dp_parameters * p);
    e.dp_comm = e.dp_all_reduce;
  }
  // eq. 8 summed over l: R (N_PP - 1) / N_ub of the forward and backward
  // passes' compute and communication (weight update and gradients are
  // outside the pipeline).
  const U128 passes = U128{e.forward} + e.backward + e.tp_comm + e.pp_comm;
  e.bubble = clamp(passes * (c.pp - 1) * options.r_ppm / (ub * compute::kPpm));

  const U128 total =
      U128{e.forward} + e.backward + e.optimizer + e.tp_comm + e.pp_comm + e.dp_comm + e.bubble;
  e.iteration = clamp(total);
  if (e.iteration > 0) {
    const double seconds = pdes::to_seconds(e.iteration);
    e.hardware_tflops_per_gpu =
        workload::transformer::hardware_iteration_flops(c) / seconds / c.gpus() / 1e12;
    e.model_tflops_per_gpu = workload::transformer::iteration_flops(c) / seconds / c.gpus() / 1e12;
  }
  return e;
}

}  // namespace sipsim::analytical
