#pragma once
// `workload: dlrm` (docs/models.md, "DLRM"): a deep-learning recommendation
// model (Naumov et al. 2019) trained with the 3D partitioning of Mudigere et
// al. 2021 as RAMP §7.2.2 uses it: embedding tables table-wise, split
// column-wise when a table does not fit a GPU's memory share or there are
// fewer tables than GPUs; bottom and top MLPs data-parallel. One program per
// role (GPUs holding the same number of table shards); the program
// interpreter runs them on the fabric, DlrmResults reports each iteration.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/collective/algorithm.hpp"
#include "sipsim/compute/accelerator.hpp"
#include "sipsim/compute/device.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/workload/interpreter.hpp"
#include "sipsim/workload/training_results.hpp"

namespace sipsim::workload::dlrm {

struct ModelShape {
  std::uint32_t tables = 0;
  std::uint64_t rows = 0;             // rows per table
  std::uint32_t dim = 0;              // embedding dimension (the sparse feature size)
  std::uint32_t pooling = 1;          // lookups per sample and table (summed)
  std::uint32_t dense = 0;            // dense features (the bottom MLP's input)
  std::vector<std::uint32_t> bottom;  // bottom MLP layer outputs; the last is `dim`
  std::vector<std::uint32_t> top;     // top MLP layer outputs
  std::uint32_t global_batch = 0;     // samples per iteration, all GPUs
  compute::Precision precision = compute::Precision::kFp16;
};

struct Config {
  ModelShape model;
  std::uint32_t gpus = 1;
  std::uint32_t iterations = 1;
  // `collectives` (docs/models.md, "Replayed collectives"), as for transformer.
  collective::Replay replay_collectives = collective::Replay::kNone;
  // A GPU's memory for embedding shards; 0: half the accelerator's memory.
  std::uint64_t memory_share = 0;
  // `auto`: RAMP-x where the fabric places jobs (RAMP), else direct
  // (all-to-all) and ring (all-reduce); dlrm/setup.cpp resolves it.
  collective::Algorithm all_to_all = collective::algorithm("direct");
  collective::Algorithm all_reduce = collective::algorithm("ring");
  bool auto_all_to_all = true, auto_all_reduce = true;
  collective::AlgorithmParams params;  // the whole job's group (the mapping's)
  std::vector<std::uint32_t> nodes;    // member g's fabric node; empty: node g
  compute::Accelerator accelerator;

  std::uint32_t local_batch() const { return model.global_batch / gpus; }
  std::uint64_t memory_share_bytes() const {
    return memory_share != 0 ? memory_share : accelerator.memory_capacity_bytes / 2;
  }
};

// The keys after `type` (docs/scenarios.md); every error is located at its key.
Config read_dlrm(base::MapReader& section);

// element_bytes(Precision): compute/device.hpp.

// How the tables are cut (RAMP §7.2.2): each table into `split` column
// shards of dim / split columns; shard s (table s / split, part s % split)
// on GPU s % gpus.
struct Partition {
  std::uint32_t split = 1;        // column shards per table (1: table-wise)
  std::uint32_t shard_cols = 0;   // dim / split
  std::uint64_t shards = 0;       // tables x split
  std::uint32_t most = 0;         // shards on the busiest GPU: ceil(shards / gpus)
  std::uint32_t least = 0;        // on the least busy: floor(shards / gpus)
  std::uint64_t shard_bytes = 0;  // rows x shard_cols x element bytes
  std::uint32_t shards_on(std::uint32_t gpu, std::uint32_t gpus) const {
    return gpu < shards % gpus ? most : least;
  }
};
// The smallest split (a divisor of dim) whose busiest GPU's shards fit the
// memory share and that gives every GPU a shard (tables x split >= gpus), or
// split = dim when none gives every GPU one. Throws std::invalid_argument
// when even split = dim does not fit.
Partition partition(const Config& config);

// Each GPU's all-to-all send buffer, forward and backward: the pooled
// vectors of the busiest GPU's shards for the global batch,
// global_batch x most x shard_cols x element bytes.
std::uint64_t all_to_all_bytes(const Config& config, const Partition& x);

// Parameters of the MLPs (weights and biases), replicated on every GPU.
std::uint64_t mlp_parameters(const ModelShape& m);
// Forward FLOPs of one sample: bottom MLP, dot interaction of tables + 1
// vectors (2 F^2 dim, F = tables + 1), top MLP (input dim + F(F-1)/2).
std::uint64_t sample_forward_flops(const ModelShape& m);
// Model FLOPs of one iteration: 3 x global batch x sample_forward_flops
// (the embeddings are memory traffic, not FLOPs).
double iteration_flops(const Config& config);

// The programs (one per role), communicators and bindings, ops priced by
// `device`. Throws std::invalid_argument when a collective is not valid for
// the group or the job does not fit `fabric_nodes`.
ProgramSet make_programs(const Config& config, const compute::Device& device,
                         std::uint32_t fabric_nodes);

class DlrmResults final : public TrainingResults {
 public:
  DlrmResults(const Config& config, std::unique_ptr<fabric::Network> network,
              std::unique_ptr<compute::Device> device);

 private:
  void print_header(std::ostream& out) const override;
  Config config_;
};

Simulation make_dlrm(const Config& config, std::unique_ptr<fabric::Network> network);

}  // namespace sipsim::workload::dlrm
