#pragma once
// The transformer's op costs for one micro-batch on one GPU (its TP shard),
// priced by the device (docs/models.md, "Transformer training"). The program
// generator and `analyze` share them, so both price a layer alike.
#include <cstdint>

#include "sipsim/compute/device.hpp"
#include "sipsim/pdes/time.hpp"
#include "sipsim/workload/transformer/transformer.hpp"

namespace sipsim::workload::transformer {

// One block's ops: its forward pass; its whole backward pass (input and
// weight gradients, element-wise); and the same backward split for
// `tp_overlap`: all but the block's first (column-parallel) linear's weight
// gradient (`early`), then that gradient (`wgrad`), which runs while the TP
// all-reduce of the input gradient does (0 for blocks that do not split).
struct BlockCost {
  pdes::Time forward = 0, backward = 0, early = 0, wgrad = 0;
};

struct OpCosts {
  BlockCost attn, mlp;
  BlockCost logit;                     // zero without a logit layer (vocab 0)
  BlockCost moe;                       // an MoE layer's router and experts
  pdes::Time attn_core = 0;            // selective recomputation: the s^2 terms' forward
  std::uint64_t a2a_bytes = 0;         // each MoE all-to-all's send buffer
  std::uint64_t activation_bytes = 0;  // b*s*h elements: TP collectives
  // A pipeline message from one GPU: b*s*h elements, /tp with sequence
  // parallelism or scattered over the TP group (scatter_gather).
  std::uint64_t pp_bytes = 0;
};

OpCosts op_costs(const Config& config, const compute::Device& device);

}  // namespace sipsim::workload::transformer
