#pragma once
// `workload: transformer` (docs/architecture.md; docs/models.md, "Transformer
// training"): a GPT-style decoder trained with Megatron-LM's tensor (TP),
// pipeline (PP) and data (DP) parallelism (Shoeybi et al. 2019; Narayanan et
// al. 2021; RAMP §7.2-7.3). The generator builds one immutable program per
// pipeline stage, shared by the tp x dp GPUs of that stage; the program
// interpreter runs it on the fabric, and TransformerResults reports each
// iteration's time, TFLOP/s per GPU and every GPU's breakdown.
#include <array>
#include <boost/mpi/communicator.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/collective/algorithm.hpp"
#include "sipsim/compute/accelerator.hpp"
#include "sipsim/compute/device.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/workload/interpreter.hpp"
#include "sipsim/workload/results.hpp"
#include "sipsim/workload/training_results.hpp"

namespace sipsim::workload::transformer {

// GPipe, 1F1B (PipeDream-Flush) and interleaved 1F1B (Narayanan et al. 2021, §2.2).
enum class Schedule : std::uint8_t { kGpipe, kOneFOneB, kInterleaved };
// Activation recomputation (Korthikanti et al. 2022): none; selective (the
// attention core's s^2 terms are recomputed in backward); full (each layer's
// forward pass, with its TP all-reduces, runs again before its backward).
enum class Recompute : std::uint8_t { kNone, kSelective, kFull };
// A parallelism axis, for the mapping of GPUs onto fabric nodes.
enum class Axis : std::uint8_t { kTp, kDp, kPp };

struct ModelShape {
  std::uint32_t layers = 0;
  std::uint32_t hidden = 0;        // h
  std::uint32_t heads = 0;         // a
  std::uint32_t ffn = 0;           // the MLP's inner size (4h by default)
  std::uint32_t seq = 0;           // s
  std::uint32_t vocab = 0;         // V
  std::uint32_t global_batch = 0;  // B: sequences per iteration, over all DP replicas
  std::uint32_t micro_batch = 1;   // b
  compute::Precision precision = compute::Precision::kFp16;
};

// Mixture of experts (Shazeer et al. 2017; GShard, Lepikhin et al. 2021;
// DeepSpeed-MoE): every `every`-th layer's MLP is `experts` expert MLPs, each
// token routed to top_k of them; experts are sharded over EP groups of `ep`
// GPUs carved out of the DP group. experts = 0: a dense model.
struct Moe {
  std::uint32_t experts = 0, top_k = 1, every = 1, ep = 1;
  std::uint32_t capacity_permille = 1000;  // capacity factor x 1000
};

// The communicator kinds, an index of Config::groups: the TP and DP groups
// and, with MoE, the EP groups (ep) and the expert gradients' groups
// (dp / ep), which run the DP groups' algorithm.
enum GroupKind : std::size_t { kTpGroup, kDpGroup, kEpGroup, kEdpGroup, kGroupKinds };
struct Group {
  // The scenario's `algorithms`, else the fabric's (RAMP-x on a RAMP fabric
  // that placed the job), else ring (EP: direct).
  collective::Algorithm algorithm = collective::algorithm("ring");
  bool given = false;  // named in the scenario's `algorithms`
  // TP and DP `auto`: the algorithm with the smallest critical-path estimate
  // for the group's collectives, among those valid for all its ops
  // (transformer/setup.cpp resolves it when it builds the job; until then
  // the fabric's default above).
  bool automatic = false;
  // The algorithms' shapes (the mapping fills them from the fabric's
  // hierarchy, as for the collectives benchmark).
  collective::AlgorithmParams params;
};
inline Group direct_group() {
  Group g;
  g.algorithm = collective::algorithm("direct");
  return g;
}

struct Config {
  ModelShape model;
  Moe moe;
  std::uint32_t tp = 1, pp = 1, dp = 1;
  // Sequence parallelism (Korthikanti et al. 2022, §4.2.2): the TP group's
  // all-reduces become reduce-scatter + all-gather; the element-wise ops and
  // their activations are split over the group along the sequence.
  bool sequence_parallel = false;
  // ZeRO stage (Rajbhandari et al. 2020) over the DP group: 1 shards the
  // optimizer state, 2 also the gradients (the all-reduce becomes a
  // reduce-scatter, the optimizer updates 1/dp, an all-gather of the
  // parameters follows), 3 also the parameters (gathered per layer before its
  // forward and its backward, its gradients reduce-scattered after it).
  std::uint32_t zero = 0;
  // Data-parallel gradient buckets started during the last micro-batch's
  // backward pass (PyTorch DDP, Megatron-LM: 25 MiB), overlapping the rest
  // of it; false: one bucket after the whole backward pass.
  bool dp_overlap = true;
  std::uint64_t dp_bucket_bytes = std::uint64_t{25} << 20;
  // Megatron-LM's overlaps, off by default (docs/models.md): the backward
  // TP collective of each block alongside its first linear's weight gradient
  // (tp_overlap); pipeline messages scattered over the TP group's GPUs, 1/tp
  // each, and all-gathered over TP on arrival (pp_scatter_gather; moot with
  // sequence parallelism, whose messages are already 1/tp).
  bool tp_overlap = false;
  bool pp_scatter_gather = false;
  Schedule schedule = Schedule::kOneFOneB;
  // Model chunks per GPU (interleaved 1F1B's v): stage s holds chunks
  // s, s + pp, ..., each of layers / (pp * v) layers.
  std::uint32_t virtual_stages = 1;
  Recompute recompute = Recompute::kNone;
  // Refuse at setup a configuration whose GPUs' memory exceeds the accelerator's.
  bool memory_check = true;
  std::uint32_t iterations = 1;
  // Innermost first: GPU g has coordinate g % n0 on order[0], (g / n0) % n1 on
  // order[1], ... and runs on fabric node nodes[g] (node g when nodes is
  // empty). Default TP innermost, then DP, PP.
  std::array<Axis, 3> order = {Axis::kTp, Axis::kDp, Axis::kPp};
  // The mapping's (workload/mapping/, from transformer/setup.cpp): the RAMP
  // sub-box per axis (RAMP §6.3), or on a ring fabric (SiP-Ring) every axis
  // folded (mapping::folded_nodes) with `folded` set; empty: GPU g on node g.
  std::vector<std::uint32_t> nodes;
  bool folded = false;
  // The communicator kinds' algorithms and shapes (GroupKind).
  std::array<Group, kGroupKinds> groups = {Group{}, Group{}, direct_group(), Group{}};
  compute::Accelerator accelerator;
  // `collectives: replay` (docs/models.md, "Replayed collectives"): every
  // call after the first on a communicator repeats the first's timing;
  // `replay-shapes`: every call on communicators of one shape repeats the
  // first on the lowest of them.
  collective::Replay replay_collectives = collective::Replay::kNone;

  std::uint32_t gpus() const { return tp * pp * dp; }
  // Micro-batches per iteration and pipeline: B / (dp * b).
  std::uint32_t micro_batches() const { return model.global_batch / (dp * model.micro_batch); }
};

// The keys after `type` (docs/scenarios.md); every error is located at its key.
// What depends on the fabric (GPUs fitting) is checked in transformer/setup.cpp.
Config read_transformer(base::MapReader& section);

// "GPipe", "1F1B", "interleaved 1F1B".
const char* schedule_name(Schedule s);
// Interleaved 1F1B's warm-up forward passes (of chunks) on a stage (Megatron-LM).
std::uint32_t interleaved_warmup(const Config& config, std::uint32_t stage);
// "none", "selective", "full".
const char* recompute_name(Recompute r);

// element_bytes(Precision): compute/device.hpp.

// A GPU's coordinates.
struct Coord {
  std::uint32_t tp = 0, dp = 0, pp = 0;
};
Coord coord_of(const Config& config, std::uint32_t gpu);
std::uint32_t gpu_of(const Config& config, const Coord& c);
// The axes' sizes along Config::order, innermost first: what the mapping
// (workload/mapping/) lays out. On a ring fabric each axis is folded, so that
// neighbours on every TP ring, DP ring and pipeline (wrap-arounds included)
// are at most 2 x the axis' stride apart (mapping::folded_nodes).
std::array<std::uint32_t, 3> axis_sizes(const Config& config);
// The fabric node a GPU runs on (Config::nodes).
inline std::uint32_t node_of_gpu(const Config& config, std::uint32_t gpu) {
  return config.nodes.empty() ? gpu : config.nodes[gpu];
}
inline std::uint32_t node_of(const Config& config, const Coord& c) {
  return node_of_gpu(config, gpu_of(config, c));
}

// FLOPs of one transformer layer's forward pass for one micro-batch, whole
// layer (all TP shards): 2*b*s*(4h^2 + 2*h*ffn) + 4*b*s^2*h (Megatron's
// 24*b*s*h^2 + 4*b*s^2*h at ffn = 4h).
std::uint64_t layer_forward_flops(const ModelShape& m);
// MoE: whether layer `layer` (0-based, over the whole model) is an MoE layer;
// the tokens one GPU's experts process per micro-batch, ceil(b*s*top_k*capacity);
// the FLOPs of an MoE layer's forward pass (useful: top_k experts per token,
// no capacity padding; the router 2*b*s*h*E).
bool is_moe_layer(const Config& config, std::uint32_t layer);
std::uint64_t moe_tokens(const Config& config);
std::uint64_t moe_layer_forward_flops(const Config& config);
// The logit layer's forward FLOPs for one micro-batch: 2*b*s*h*V.
std::uint64_t logit_forward_flops(const ModelShape& m);
// Model FLOPs of one iteration, forward and backward (3x forward), all GPUs:
// 72*B*s*l*h^2*(1 + s/(6h) + V/(12*l*h)) at ffn = 4h.
double iteration_flops(const Config& config);
// The FLOPs the GPUs execute in one iteration, all GPUs: iteration_flops plus
// the forward work `recompute` reruns. full: the layers' forward again, so the
// layers' 4x and the logits' 3x, 96*B*s*l*h^2*(1 + s/(6h) + V/(16*l*h)) at
// ffn = 4h (Narayanan et al. 2021, eq. 3); selective: the attention core's
// forward again, + 4*B*s^2*h*l (Korthikanti et al. 2022, §5); none: nothing.
double hardware_iteration_flops(const Config& config);
// Parameters of one stage held by one GPU (its TP shard).
std::uint64_t stage_parameters(const Config& config, std::uint32_t stage);
// Parameters of one (dense) layer held by one GPU (its TP shard).
std::uint64_t layer_parameters(const Config& config);
// Expert parameters of one stage held by one GPU (included in stage_parameters).
std::uint64_t stage_expert_parameters(const Config& config, std::uint32_t stage);
// The global index of a stage's layer `l` of chunk `chunk`.
std::uint32_t global_layer(const Config& config, std::uint32_t stage, std::uint32_t chunk,
                           std::uint32_t l);
// The parameters a GPU's optimizer updates: the stage's, 1/dp of them with ZeRO.
std::uint64_t optimizer_parameters(const Config& config, std::uint32_t stage);

// One GPU's memory in bytes (docs/models.md, "Memory"): model states (mixed-
// precision Adam) and activations at the schedule's peak of micro-batches in flight.
struct MemoryUse {
  double weights = 0, gradients = 0, optimizer = 0, activations = 0, logits = 0;
  std::uint32_t in_flight = 0;  // micro-batches whose activations are held
  double total() const;
};
// Micro-batches a stage holds activations of at its peak: m (GPipe), pp - stage
// (1F1B); interleaved: chunk passes of layers / (pp * v) layers, warm-up + 1.
std::uint32_t in_flight(const Config& config, std::uint32_t stage);
MemoryUse memory_use(const Config& config, std::uint32_t stage);
// The stage whose GPUs need the most memory (the first among equals).
std::uint32_t peak_memory_stage(const Config& config);
// Empty when the peak stage fits config.accelerator.memory_capacity_bytes;
// otherwise the error, with every term in GiB and a suggestion.
std::string memory_error(const Config& config);

// The first collective of the job (by group: "tp", "dp") whose algorithm is
// not valid for its group and op at `bytes`, and why; nullopt when all are.
struct CollectiveProblem {
  std::string group, why;
};
std::optional<CollectiveProblem> invalid_collective(const Config& config, std::uint64_t bytes);
// The collectives a group runs: TP all-reduce, or reduce-scatter and
// all-gather with sequence parallelism; DP all-reduce, or reduce-scatter and
// all-gather with ZeRO.
std::vector<collective::Op> group_ops(const Config& config, bool tp);
// Whether pipeline messages are scattered over the TP group (pp_scatter_gather
// with tp > 1, pp > 1 and no sequence parallelism).
bool scatter_gather(const Config& config);

// The programs (one per stage), communicators and bindings of the job, ops
// priced by `device`. Throws std::invalid_argument when a collective is not
// valid for its group or the job does not fit `fabric_nodes`.
ProgramSet make_programs(const Config& config, const compute::Device& device,
                         std::uint32_t fabric_nodes);

// Per iteration: start (first GPU), end (last GPU), period, hardware
// (hardware_iteration_flops) and model (iteration_flops) TFLOP/s per GPU; per
// iteration and GPU: the breakdown (docs/output.md; workload/training_results).
class TransformerResults final : public TrainingResults {
 public:
  TransformerResults(const Config& config, std::unique_ptr<fabric::Network> network,
                     std::unique_ptr<compute::Device> device);
  // The shared tables, then /memory (each GPU's peak memory).
  void write(output::h5::File& file) const override;

 private:
  void print_header(std::ostream& out) const override;
  void print_footer(std::ostream& out) const override;
  Config config_;
};

// The job as a simulation (the job's GPUs are fabric nodes 0 .. gpus - 1).
Simulation make_transformer(const Config& config, std::unique_ptr<fabric::Network> network);

}  // namespace sipsim::workload::transformer
