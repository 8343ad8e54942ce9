#pragma once
// AMPeD (Moolchandani et al.; papers/002), eq. 1-12: the closed-form
// iteration time of a `workload: transformer` configuration on a fabric, with
// the breakdown categories the simulator prints (docs/models.md, "AMPeD
// analytical model"). `sipsim analyze` prints it for transformer scenarios.
//
// Compute (eq. 1-4, 12) is priced by the scenario's device model
// (compute::Device::op_ps: AMPeD's eq. 2-4 under `model: amped`, the roofline
// otherwise), op for op as the transformer generator prices it, so that the
// two agree where their assumptions coincide. Communication (eq. 5-11) uses
// AMPeD's closed forms with a latency C and a bandwidth BW read from the
// fabric (read_amped_fabric). Every time is integer picoseconds.
#include <cstdint>

#include "sipsim/compute/accelerator.hpp"
#include "sipsim/compute/device.hpp"
#include "sipsim/fabric/cost_model.hpp"
#include "sipsim/pdes/time.hpp"
#include "sipsim/workload/transformer/transformer.hpp"

namespace sipsim::analytical {

// One of AMPeD's link classes: latency C and bandwidth BW (eq. 6, 7, 11).
struct AmpedLink {
  pdes::Time latency = 0;      // C: the fabric's time for an empty message
  std::uint64_t rate_bps = 0;  // BW: the path's bottleneck rate
};

// A communication group as AMPeD splits it (eq. 6, 10-11): `intra` members
// per AMPeD node on the intra link, `inter` nodes on the inter link
// (intra x inter = the group's size; 1 means that level is absent).
struct AmpedGroup {
  std::uint32_t intra = 1, inter = 1;
  AmpedLink intra_link, inter_link;
};

// What AMPeD needs of the fabric for one configuration.
struct AmpedFabric {
  AmpedGroup tp, dp;
  AmpedLink pp;  // the slowest pair of adjacent stages (eq. 5's max of intra and inter)
  std::uint64_t node_rate_bps = 0;  // links at this rate are intra-node
};

// Reads C and BW from `network` for the configuration's first TP group, DP
// group and pipeline (GPU 0's): a pair's C is network.uncongested_ps(a, b, 0),
// its BW network.path_rate_bps(a, b). AMPeD's node is the GPUs reached from
// GPU 0 at the fastest rate it has to any GPU of the job: on a cluster its
// server (NVLink), on a fabric where every pair has the same rate (an ideal
// switch, elect-flat) the whole job. A group whose members in GPU 0's node
// are its first k, with k dividing its size, is k per node x size/k nodes;
// otherwise it is one flat ring at its slowest pair (all inter-node).
AmpedFabric read_amped_fabric(const workload::transformer::Config& config,
                              const fabric::CostModel& network);

struct AmpedOptions {
  // R (eq. 8): non-overlapping bubbles relative to a naive (GPipe) pipeline,
  // in parts per million; 1 (AMPeD Table II) by default.
  std::uint64_t r_ppm = compute::kPpm;
};

struct AmpedEstimate {
  // One micro-batch on one GPU (its TP shard), eq. 2-4 through the device:
  pdes::Time layer_forward = 0, layer_backward = 0;  // one transformer layer
  pdes::Time logit_forward = 0, logit_backward = 0;  // the logit layer
  std::uint64_t efficiency_ppm = 0;                  // eff(ub) at the micro-batch
  // One communication each:
  pdes::Time tp_all_reduce = 0;     // eq. 6 (+ inter-node): one all-reduce of b*s*h
  pdes::Time pp_message = 0;        // eq. 7 summed over l: one b*s*h message
  pdes::Time dp_all_reduce = 0;     // eq. 10-11: the first stage's gradients
  std::uint64_t dp_parameters = 0;  // per GPU, the first stage's (N_g)
  std::uint32_t micro_batches = 0;  // N_ub

  // Per iteration on one GPU (eq. 1 with N_batch = 1); they sum to `iteration`.
  pdes::Time forward = 0, backward = 0, optimizer = 0;
  pdes::Time tp_comm = 0, pp_comm = 0, dp_comm = 0;
  pdes::Time bubble = 0;  // eq. 8
  pdes::Time iteration = 0;
  // FLOPs per second and GPU over `iteration`, in 10^12, counted as run
  // counts them: the hardware FLOPs (hardware_iteration_flops: recomputation
  // as the scenario sets it) and the model FLOPs (iteration_flops, 3x
  // forward). AMPeD's time has no recomputation, so with `recompute` set the
  // hardware figure counts work the time leaves out.
  double hardware_tflops_per_gpu = 0;
  double model_tflops_per_gpu = 0;
};

// AMPeD's ring all-reduce of `bytes` on a group (eq. 6 / 11, hierarchical
// intra then inter): per level C T N + bytes/BW T with T = 2(N-1)/N, i.e.
// 2(N-1) steps of C plus ceil(bytes/N) at BW.
pdes::Time amped_all_reduce(const AmpedGroup& group, std::uint64_t bytes);
// The ring all-gather of `bytes` (its output) on a group: half of the above.
pdes::Time amped_all_gather(const AmpedGroup& group, std::uint64_t bytes);

// R from the scenario's schedule: 1 for GPipe and 1F1B (AMPeD Table II), 1/v
// for interleaved 1F1B with v model chunks per GPU (Narayanan et al. 2021,
// §2.2.2: interleaving divides the bubble by v).
AmpedOptions amped_options(const workload::transformer::Config& config);

// eq. 1-12 for `config` (iterations ignored: one iteration).
AmpedEstimate estimate_amped(const workload::transformer::Config& config,
                             const compute::Device& device, const AmpedFabric& fabric,
                             const AmpedOptions& options = {});

}  // namespace sipsim::analytical
