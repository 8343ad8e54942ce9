// AMPeD eq. 1-12 (docs/models.md, "AMPeD analytical model").
#include "sipsim/analytical/amped.hpp"

#include <algorithm>
#include <vector>

#include "sipsim/fabric/cost_model.hpp"
#include "sipsim/workload/transformer/op_costs.hpp"

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
// ring's T = 2(N-1)/N, as 2(N-1) steps of C and a chunk of ceil(bytes / N);
// `passes` 1 is one pass of the ring (an all-gather), half of it.
pdes::Time ring_level(std::uint32_t n, const AmpedLink& l, std::uint64_t bytes,
                      std::uint32_t passes = 2) {
  if (n < 2) return 0;
  const std::uint64_t chunk = (bytes + n - 1) / n;
  return clamp(U128{passes} * (n - 1) * message_ps(l, chunk));
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

pdes::Time amped_all_gather(const AmpedGroup& g, std::uint64_t bytes) {
  // One pass of the ring at each level: (N-1) steps, half the all-reduce's.
  return pdes::saturating_add(ring_level(g.intra, g.intra_link, bytes, 1),
                              ring_level(g.inter, g.inter_link, bytes, 1));
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
  using workload::transformer::Recompute;
  const ModelShape& m = c.model;
  const std::uint64_t p = element_bytes(m.precision);
  AmpedEstimate e;
  e.micro_batches = c.micro_batches();
  e.efficiency_ppm = compute::efficiency_ppm(c.accelerator.efficiency, m.micro_batch);

  // eq. 2 per sub-layer i, one micro-batch, one TP shard (U(l) / N_TP), as
  // the generator prices them (workload/transformer/op_costs.hpp): attention
  // (QKV, scores, context, output projection), MLP, and the logit layer.
  const workload::transformer::OpCosts k = workload::transformer::op_costs(c, d);
  e.layer_forward = k.attn.forward + k.mlp.forward;
  e.layer_backward = k.attn.backward + k.mlp.backward;
  // Recomputation (Korthikanti et al. 2022), as `run` does it: full reruns
  // each layer's forward before its backward, selective the attention core.
  if (c.recompute == Recompute::kFull) e.layer_backward += e.layer_forward;
  if (c.recompute == Recompute::kSelective) e.layer_backward += k.attn_core;
  e.logit_forward = k.logit.forward;  // 0 without a logit layer (vocab 0)
  e.logit_backward = k.logit.backward;

  // eq. 1's compute divided by N_TP N_DP N_PP: per GPU, its L / PP layers for
  // each of its N_ub micro-batches. The logit layer is the last stage's: in
  // steady state every stage runs at the pace of the slowest, so the
  // iteration follows the last stage's compute (eq. 1 spreads the logit
  // layer over the stages, as if they were equal; docs/models.md).
  const U128 ub = e.micro_batches, per_stage = m.layers / c.pp;
  e.forward = clamp(ub * (per_stage * e.layer_forward + e.logit_forward));
  e.backward = clamp(ub * (per_stage * e.layer_backward + e.logit_backward));
  // The mean stage's passes, for eq. 8's fill and drain.
  const U128 mean_passes = ub * (per_stage * (U128{e.layer_forward} + e.layer_backward) +
                                 (U128{e.logit_forward} + e.logit_backward) / c.pp);

  // eq. 12 (weight update) as the device prices mixed-precision Adam (the
  // generator's optimizer op) on the first stage's parameters: it holds the
  // embedding, and it is the last stage to finish its backward pass.
  e.dp_parameters = workload::transformer::stage_parameters(c, 0);
  e.optimizer = d.op_ps({12 * e.dp_parameters, e.dp_parameters * (24 + 2 * p),
                         compute::Precision::kFp32, compute::OpKind::kElementwise, 1});

  // eq. 5-6: N_act,TP = 2bsh per layer and pass, two all-reduces of bsh
  // (attention and MLP); the backward pass the same (AMPeD §IV-E), and full
  // recomputation's forward two more. With sequence parallelism each is a
  // reduce-scatter and an all-gather, which the ring prices as one
  // all-reduce. With tp_overlap a backward all-reduce hides behind its
  // block's first weight gradient.
  const std::uint64_t act = k.activation_bytes;
  if (c.tp > 1) {
    e.tp_all_reduce = amped_all_reduce(f.tp, act);
    const pdes::Time ar = e.tp_all_reduce;
    const auto exposed = [&](pdes::Time hidden) {
      return c.tp_overlap ? (ar > hidden ? ar - hidden : 0) : ar;
    };
    const U128 per_layer = U128{2} * ar + exposed(k.attn.wgrad) + exposed(k.mlp.wgrad) +
                           (c.recompute == Recompute::kFull ? U128{2} * ar : 0);
    e.tp_comm = clamp(ub * per_stage * per_layer);
  }
  // eq. 7 summed over the L layers (its 1/L): one message per micro-batch,
  // pass and model chunk (v with interleaving), at the slower of the intra-
  // and inter-node links (eq. 5's max); no overlap with compute. The message
  // is b*s*h, 1/tp of it with sequence parallelism or scattered over the TP
  // group, which then all-gathers it over the node's links.
  if (c.pp > 1) {
    e.pp_message = message_ps(f.pp, k.pp_bytes);
    if (workload::transformer::scatter_gather(c))
      e.pp_message = pdes::saturating_add(e.pp_message, amped_all_gather(f.tp, act));
    const std::uint32_t chunks =
        c.schedule == workload::transformer::Schedule::kInterleaved ? c.virtual_stages : 1;
    e.pp_comm = clamp(ub * 2 * chunks * e.pp_message);
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
  const U128 passes = mean_passes + e.tp_comm + e.pp_comm;
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
