#pragma once
// What every training workload reports (docs/output.md: /iterations,
// /breakdown): per iteration its start (first GPU), end (last GPU), period
// and hardware and model TFLOP/s per GPU, then any extra per-iteration columns
// a workload adds; per iteration and GPU the breakdown. A workload derives
// from TrainingResults, gives it its programs, GPUs, iterations and FLOPs per
// iteration, and prints its own header line; the interpreter runs the
// programs and reports to it.
#include <boost/mpi/communicator.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "sipsim/compute/device.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/workload/energy.hpp"
#include "sipsim/workload/interpreter.hpp"
#include "sipsim/workload/results.hpp"
#include "sipsim/workload/steps_to_target.hpp"

namespace sipsim::workload {

// What differs between training workloads in their results.
struct TrainingShape {
  std::uint32_t gpus = 1;
  std::uint32_t iterations = 1;
  // FLOPs of one iteration, all GPUs: what the GPUs execute (recomputation
  // included) and the model's (3x the forward pass).
  double hardware_flops_per_iteration = 0;
  double model_flops_per_iteration = 0;
  std::string flops_formula;  // the /iterations attribute flops_formula
  // GPU g runs on fabric node nodes[g]; empty: on node g.
  std::vector<std::uint32_t> nodes;
  // `workload.collectives` that ran (the /iterations attribute collectives).
  collective::Replay replay_collectives = collective::Replay::kNone;
  // The accelerator's busy and idle power (W), for the energy columns.
  double busy_w = 0;
  double idle_w = 0;
  // Samples per iteration, over all GPUs (the time to accuracy's batch).
  std::uint64_t global_batch = 0;
};

// An extra per-iteration column: a double in /iterations after
// model_tflops_per_gpu, and a column of the summary's iteration table.
struct IterationColumn {
  std::string name;     // the /iterations field
  std::string heading;  // the summary's column heading
  int decimals = 2;     // the summary's digits after the point
  // The value of an iteration; called after collect() on every rank.
  std::function<double(std::uint32_t iteration)> value;
};

class TrainingResults : public Results, public ProgramObserver {
 public:
  using ProgramMaker = std::function<ProgramSet(const compute::Device&, std::uint32_t nodes)>;
  // Builds the programs with `make` (priced by `device`, for the fabric's
  // nodes) and the interpreter that runs them, reporting here.
  TrainingResults(TrainingShape shape, const ProgramMaker& make,
                  std::unique_ptr<fabric::Network> network,
                  std::unique_ptr<compute::Device> device);

  std::unique_ptr<Interpreter> take_model() { return std::move(owned_); }
  const fabric::Network& network() const { return interpreter_->network(); }
  const ProgramSet& programs() const { return interpreter_->programs(); }
  void use_estimators(const Estimators& estimators) override {
    interpreter_->price_shape_contention(estimators);
  }
  // The iterations at this job's global batch (StepsToTarget::iterations).
  void set_steps_to_target(const StepsToTarget& steps) override;
  // After a failure, collect() keeps the iterations every GPU completed.
  void set_faults(std::vector<Slowdown> slowdowns, std::optional<pdes::Time> failure) override;
  // After collect(): the iterations reported (all of them, or those
  // completed before a GPU failure).
  std::uint32_t iterations() const { return static_cast<std::uint32_t>(start_.size()); }
  // After collect(): the steady-state period (the mean of iterations 1.., or
  // iteration 0's with one iteration), and the time to accuracy (NaN without
  // set_steps_to_target), in seconds.
  double steady_period_s() const;
  double time_to_accuracy_s() const;

  void iteration_done(std::uint32_t node, std::uint32_t iteration, pdes::Time start, pdes::Time end,
                      const Breakdown& breakdown) override;
  void op_done(const OpRecord& record) override {
    if (trace_) trace_->record(record);
  }
  void step_done(const OpRecord& record, std::uint32_t step) override {
    if (trace_) trace_->record_step(record, step);
  }
  void set_trace(TraceLevel level) override;
  const Trace* trace() const { return trace_.get(); }
  // After collect(): the bytes behind the fabric energy (all ranks), replayed
  // collectives' included.
  std::uint64_t fabric_bytes() const { return fabric_bytes_; }
  void collect(const boost::mpi::communicator& comm) override;
  std::string unfinished(const boost::mpi::communicator& comm) const override;
  void write(output::h5::File& file) const override;
  // The workload's header (print_header), the iteration table and the
  // breakdown per iteration (mean GPU and slowest GPU).
  void print(std::ostream& out) const override;

  // After collect(), identical on every rank.
  pdes::Time start(std::uint32_t iteration) const { return start_[iteration]; }
  pdes::Time end(std::uint32_t iteration) const { return end_[iteration]; }
  pdes::Time iteration_time(std::uint32_t iteration) const {
    return end_[iteration] - start_[iteration];
  }
  // The steady-state period: end(i) - end(i - 1), with end(-1) = start(0), so
  // iteration 0's period is its whole time and the periods sum to the run's
  // span. Iterations overlap (a GPU starts the next when it finished its own
  // part), so end - start over-counts every iteration after the first.
  pdes::Time period(std::uint32_t iteration) const;
  // FLOPs per second and GPU over the period, in 10^12: the hardware count
  // (recomputation included) and the model count (TrainingShape).
  double hardware_tflops_per_gpu(std::uint32_t iteration) const;
  double model_tflops_per_gpu(std::uint32_t iteration) const;
  const Breakdown& breakdown(std::uint32_t iteration, std::uint32_t gpu) const {
    return breakdown_[std::size_t{iteration} * shape_.gpus + gpu];
  }
  // The breakdown of all GPUs and iterations, summed per column.
  Breakdown total_breakdown() const;
  // The iteration's energy (docs/models.md, "Energy").
  IterationEnergy energy(std::uint32_t iteration) const;
  const TrainingShape& shape() const { return shape_; }

 protected:
  // Extra columns, in order, after model_tflops_per_gpu (call from the constructor).
  void add_column(IterationColumn column) { columns_.push_back(std::move(column)); }
  // The summary's first lines, each starting with '#'.
  virtual void print_header(std::ostream& out) const = 0;
  // Lines after the breakdown, each starting with '#'.
  virtual void print_footer(std::ostream& /*out*/) const {}

 private:
  void print_iterations(std::ostream& out) const;
  void print_breakdown(std::ostream& out) const;
  TrainingShape shape_;
  std::vector<IterationColumn> columns_;
  std::vector<std::uint32_t> gpu_of_node_;  // empty: GPU g is node g
  std::vector<pdes::Time> start_, end_;     // per iteration
  std::vector<std::uint64_t> done_gpus_;    // per iteration: GPUs that completed it
  std::optional<pdes::Time> failure_;       // a GPU failure ends the run then
  std::vector<Breakdown> breakdown_;        // per iteration x GPU
  std::uint64_t fabric_bytes_ = 0;          // sent over the run, all ranks
  EnergyModel energy_model_;                // set by collect()
  std::unique_ptr<Trace> trace_;            // output.trace, when not none
  double target_steps_ = NAN;               // iterations to the target accuracy
  std::string target_source_ = "none";      // where they come from
  std::unique_ptr<Interpreter> owned_;
  Interpreter* interpreter_ = nullptr;
};

// Rank 0 writes `data` (of `type`, shape `dims`) as dataset `path`; collective.
output::h5::Handle write_rank0(output::h5::File& file, const char* path, hid_t type, int rank,
                               const hsize_t* dims, const void* data);

// A training job as a simulation.
Simulation make_training_simulation(std::unique_ptr<TrainingResults> results);

}  // namespace sipsim::workload
