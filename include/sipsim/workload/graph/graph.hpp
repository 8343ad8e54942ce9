#pragma once
// `workload: graph` (docs/models.md, "Op graphs and SiP-ML placement"): a
// per-op graph of one forward pass (a JSON file, streamed so that a large
// one stays cheap, every error located), trained with data parallelism or with SiP-ML's
// degree-aware hybrid MP x DP placement (§3.2, Algorithm 1). One program per
// MP position (k roles, shared by the l DP groups); the program interpreter
// runs them on the fabric, GraphResults reports each iteration.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/collective/algorithm.hpp"
#include "sipsim/compute/accelerator.hpp"
#include "sipsim/compute/device.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/workload/interpreter.hpp"
#include "sipsim/workload/mapping/degree_aware.hpp"
#include "sipsim/workload/mapping/ring_fold.hpp"
#include "sipsim/workload/training_results.hpp"

namespace sipsim::workload::graph {

// One op of the forward pass, its costs for the graph's `batch` samples.
struct GraphOp {
  std::string name;
  compute::OpKind kind = compute::OpKind::kMatmul;
  std::uint64_t flops = 0;           // forward
  std::uint64_t backward_flops = 0;  // default 2 x flops
  std::uint64_t bytes = 0;           // forward memory traffic (weights included)
  std::uint64_t output_bytes = 0;    // the activation its consumers read
  std::uint64_t params_bytes = 0;    // its weights (the DP gradient all-reduce)
  // Split into parts, each part needs its producers' whole outputs (a matrix
  // multiply split by output features); default: it has weights.
  bool gathers = false;
  std::vector<std::uint32_t> deps;  // producers (indices into Graph::ops)
};

struct Graph {
  std::string name;
  std::uint32_t batch = 1;  // samples the ops' costs are for
  compute::Precision precision = compute::Precision::kFp16;
  std::vector<GraphOp> ops;
  std::vector<std::uint32_t> order;  // a topological order (producers first)

  std::uint64_t params_bytes() const;
  // Forward + backward FLOPs of the graph's batch.
  double flops() const;
};

// The most a graph file may hold (docs/models.md): its text is kept in
// memory while it is read.
constexpr std::uint64_t kMaxGraphFileBytes = std::uint64_t{1} << 30;

// Reads a graph (docs/models.md, "Op graphs"), JSON (RFC 8259) named `name`
// in errors: syntax errors, unknown keys, duplicate names, unknown
// dependencies, cycles and negative or out-of-range numbers are
// base::ScenarioError located at the key (name:line:col: ops[3].deps[0]: ...).
Graph read_graph(std::string_view json, const std::string& name);
Graph read_graph_file(const std::string& path);

enum class Placement : std::uint8_t { kDataParallel, kDegreeAware };
enum class Optimizer : std::uint8_t { kAdam, kSgd };

struct Config {
  Graph graph;
  std::string graph_path;  // as resolved (relative to the scenario's directory)
  Placement placement = Placement::kDataParallel;
  std::uint32_t mp = 1;  // k (1 under data-parallel)
  std::uint32_t dp = 1;  // l (gpus under data-parallel)
  std::uint32_t degree =
      0;  // D (degree-aware; Delta = D - 1); 0: not given (graph/setup.cpp fills it)
  std::uint32_t global_batch = 1;
  pdes::Time quantum = 10 * pdes::kMicrosecond;  // tau (SiP-ML §4.2: 10 us)
  std::uint32_t iterations = 1;
  Optimizer optimizer = Optimizer::kAdam;  // mixed-precision Adam, or plain SGD
  collective::Algorithm all_reduce = collective::algorithm("ring");
  // The gradient all-reduce in buckets overlapped with the backward (PyTorch
  // DDP's 25 MiB), or one after the whole backward.
  bool dp_overlap = true;
  std::uint64_t dp_bucket_bytes = std::uint64_t{25} << 20;
  collective::AlgorithmParams dp_params;  // the DP groups' shape (the mapping's)
  // MP position r of a group sits at node offset folded_slot(r, mp)
  // (workload/mapping/ring_fold.hpp) rather than r (on a fabric that is a ring,
  // fabric::Facts::ring_order).
  bool fold_groups = false;
  compute::Accelerator accelerator;

  std::uint32_t gpus() const { return mp * dp; }
  std::uint32_t group_batch() const { return global_batch / dp; }  // one MP group's samples
};

// The keys after `type` (docs/scenarios.md); `scenario_path` locates the
// graph file (relative paths are relative to the scenario's directory).
Config read_graph_workload(base::MapReader& section, const std::string& scenario_path);

// ---- SiP-ML Algorithm 1 (workload/mapping/degree_aware.hpp) by its graph names ----

using mapping::check_placement;
using mapping::Message;
using mapping::messages;
using mapping::PlacementResult;
using mapping::SubEdge;
using mapping::SubOp;
using mapping::traffic_matrix;

// The whole placement of a job: Algorithm 1 on the graph's ops (mapping::place),
// their durations from `device` and their outputs at the group's batch (k = 1
// under data-parallel: every op whole on the one device).
PlacementResult place_job(const Config& config, const compute::Device& device);

// The programs (one per MP position), communicators and bindings; MP
// position r at offset folded_slot(r, mp) with fold_groups (workload/mapping/ring_fold.hpp).
ProgramSet make_programs(const Config& config, const compute::Device& device,
                         std::uint32_t fabric_nodes);

class GraphResults final : public TrainingResults {
 public:
  GraphResults(const Config& config, std::unique_ptr<fabric::Network> network,
               std::unique_ptr<compute::Device> device);

 private:
  void print_header(std::ostream& out) const override;
  Config config_;
};

Simulation make_graph(const Config& config, std::unique_ptr<fabric::Network> network);

}  // namespace sipsim::workload::graph
