#pragma once
// The transformer's op costs for one micro-batch on one GPU (its TP shard),
// priced by the device (docs/models.md, "Transformer training"). The program
// generator and `analyze` share them, so both price a layer alike.
#include <cstdint>

#include "sipsim/compute/device.hpp"
#include "sipsim/pdes/time.hpp"
#include "sipsim/workload/transformer/transformer.hpp"

namespace sipsim::workload::transformer {

struct OpCosts {
  pdes::Time attn_fwd = 0, mlp_fwd = 0, logit_fwd = 0;
  // Whole backward passes (input and weight gradients, element-wise).
  pdes::Time attn_bwd = 0, mlp_bwd = 0, logit_bwd = 0;
  // The same backward passes split for `tp_overlap`: all but the block's
  // first (column-parallel) linear's weight gradient, then that gradient,
  // which runs while the TP all-reduce of the input gradient does.
  pdes::Time attn_bwd_early = 0, attn_wgrad = 0, mlp_bwd_early = 0, mlp_wgrad = 0;
  pdes::Time attn_core = 0;             // selective recomputation: the s^2 terms' forward
  pdes::Time moe_fwd = 0, moe_bwd = 0;  // an MoE layer's router and experts
  std::uint64_t a2a_bytes = 0;          // each MoE all-to-all's send buffer
  std::uint64_t activation_bytes = 0;   // b*s*h elements: TP collectives
  std::uint64_t pp_bytes = 0;           // PP messages: b*s*h, b*s*h/tp with sequence parallelism
};

OpCosts op_costs(const Config& config, const compute::Device& device);

}  // namespace sipsim::workload::transformer
