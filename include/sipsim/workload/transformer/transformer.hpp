#pragma once
// `workload: transformer` (DESIGN.md §5; docs/models.md, "Transformer
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
#include <string>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/collective/algorithm.hpp"
#include "sipsim/compute/accelerator.hpp"
#include "sipsim/compute/device.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/workload/energy.hpp"
#include "sipsim/workload/interpreter.hpp"
#include "sipsim/workload/results.hpp"

namespace sipsim::workload::transformer {

enum class Schedule : std::uint8_t { kGpipe, kOneFOneB };
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

struct Config {
  ModelShape model;
  std::uint32_t tp = 1, pp = 1, dp = 1;
  Schedule schedule = Schedule::kOneFOneB;
  std::uint32_t iterations = 1;
  // Innermost first: GPU g has coordinate g % n0 on order[0], (g / n0) % n1 on
  // order[1], ... and runs on fabric node g. Default TP innermost, then DP, PP.
  std::array<Axis, 3> order = {Axis::kTp, Axis::kDp, Axis::kPp};
  collective::Algorithm tp_algorithm = collective::algorithm("ring");
  collective::Algorithm dp_algorithm = collective::algorithm("ring");
  // The algorithms' shapes for the TP and DP groups (setup/ fills them from
  // the fabric's hierarchy, as for the collectives benchmark).
  collective::AlgorithmParams tp_params, dp_params;
  compute::Accelerator accelerator;

  std::uint32_t gpus() const { return tp * pp * dp; }
  // Micro-batches per iteration and pipeline: B / (dp * b).
  std::uint32_t micro_batches() const { return model.global_batch / (dp * model.micro_batch); }
};

// The keys after `type` (docs/scenarios.md); every error is located at its key.
// What depends on the fabric (GPUs fitting) is checked in setup/.
Config read_transformer(base::MapReader& section);

// Bytes of one element at a precision (fp32, tf32: 4; fp16, bf16: 2; fp8: 1).
std::uint32_t element_bytes(compute::Precision p);

// A GPU's coordinates.
struct Coord {
  std::uint32_t tp = 0, dp = 0, pp = 0;
};
Coord coord_of(const Config& config, std::uint32_t gpu);
std::uint32_t gpu_of(const Config& config, const Coord& c);

// FLOPs of one transformer layer's forward pass for one micro-batch, whole
// layer (all TP shards): 2*b*s*(4h^2 + 2*h*ffn) + 4*b*s^2*h (Megatron's
// 24*b*s*h^2 + 4*b*s^2*h at ffn = 4h).
std::uint64_t layer_forward_flops(const ModelShape& m);
// The logit layer's forward FLOPs for one micro-batch: 2*b*s*h*V.
std::uint64_t logit_forward_flops(const ModelShape& m);
// Model FLOPs of one iteration, forward and backward (3x forward), all GPUs:
// 72*B*s*l*h^2*(1 + s/(6h) + V/(12*l*h)) at ffn = 4h.
double iteration_flops(const Config& config);
// Parameters of one stage held by one GPU (its TP shard).
std::uint64_t stage_parameters(const Config& config, std::uint32_t stage);

// The programs (one per stage), communicators and bindings of the job, ops
// priced by `device`. Throws std::invalid_argument when a collective is not
// valid for its group or the job does not fit `fabric_nodes`.
ProgramSet make_programs(const Config& config, const compute::Device& device,
                         std::uint32_t fabric_nodes);

// Per iteration: start (first GPU), end (last GPU), TFLOP/s per GPU; per
// iteration and GPU: the breakdown (docs/output.md).
class TransformerResults final : public Results, public ProgramObserver {
 public:
  TransformerResults(const Config& config, std::unique_ptr<fabric::Network> network,
                     std::unique_ptr<compute::Device> device);
  std::unique_ptr<Interpreter> take_model() { return std::move(owned_); }
  const fabric::Network& network() const { return interpreter_->network(); }

  void iteration_done(std::uint32_t node, std::uint32_t iteration, pdes::Time start, pdes::Time end,
                      const Breakdown& breakdown) override;
  void op_done(const OpRecord& record) override {
    if (trace_) trace_->record(record);
  }
  void set_trace(TraceLevel level) override;
  const Trace* trace() const { return trace_.get(); }
  void collect(const boost::mpi::communicator& comm) override;
  std::string unfinished(const boost::mpi::communicator& comm) const override;
  void write(output::h5::File& file) const override;
  void print(std::ostream& out) const override;

  // After collect(), identical on every rank.
  pdes::Time start(std::uint32_t iteration) const { return start_[iteration]; }
  pdes::Time end(std::uint32_t iteration) const { return end_[iteration]; }
  pdes::Time iteration_time(std::uint32_t iteration) const {
    return end_[iteration] - start_[iteration];
  }
  double tflops_per_gpu(std::uint32_t iteration) const;
  const Breakdown& breakdown(std::uint32_t iteration, std::uint32_t gpu) const {
    return breakdown_[std::size_t{iteration} * config_.gpus() + gpu];
  }
  // The iteration's energy (docs/models.md, "Energy").
  IterationEnergy energy(std::uint32_t iteration) const;

 private:
  Config config_;
  std::vector<pdes::Time> start_, end_;  // per iteration
  std::vector<Breakdown> breakdown_;     // per iteration x GPU
  std::uint64_t fabric_bytes_ = 0;       // sent over the run, all ranks
  EnergyModel energy_model_;             // set by collect()
  std::unique_ptr<Trace> trace_;         // output.trace, when not none
  std::unique_ptr<Interpreter> owned_;
  Interpreter* interpreter_ = nullptr;
};

// The job as a simulation (the job's GPUs are fabric nodes 0 .. gpus - 1).
Simulation make_transformer(const Config& config, std::unique_ptr<fabric::Network> network);

}  // namespace sipsim::workload::transformer
