#pragma once
// `workload: collectives` — an nccl-tests-like benchmark (docs/models.md, "Collectives"): one
// collective operation with one algorithm on a group of nodes, swept over
// message sizes, each size run `warmup` + `iterations` times back to back.
//
// It is a program like any other (docs/architecture.md): every group member runs the
// same op list, one collective op per instance, each depending on the one
// before, on one communicator ("group"); the program interpreter and the
// collective executor do the rest. Members start the next instance as soon as
// they finished the previous one, as nccl-tests does (no barrier).
#include <boost/mpi/communicator.hpp>
#include <cstdint>
#include <memory>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/collective/schedule.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/workload/interpreter.hpp"
#include "sipsim/workload/results.hpp"

namespace sipsim::workload {

// Members of the group: nodes first, first + stride, ... (count of them).
struct GroupSpec {
  std::uint32_t first = 0;
  std::uint32_t count = 0;  // 0: every node from `first` on with the stride
  std::uint32_t stride = 1;
};

struct CollectivesConfig {
  collective::Op op = collective::Op::kAllReduce;
  collective::Algorithm algorithm;
  // One algorithm per size of the sweep (algorithm: auto); empty: `algorithm` for all.
  std::vector<collective::Algorithm> per_size;
  // The algorithms `auto` chooses among (auto_among); empty: all of them.
  std::vector<collective::Algorithm> auto_among;
  std::uint32_t root = 0;
  // What the algorithms read (collective::make_spec): the hierarchy's levels and the
  // torus's dimensions (workload.dims, or derived from the fabric), the RAMP job
  // (RAMP §6.3) and RAMP §6.1's broadcast tree.
  collective::AlgorithmParams params;
  GroupSpec group;
  // The job's nodes when the fabric places it (RAMP §6.3, chosen to minimise
  // steps); when not empty it replaces `group`.
  std::vector<std::uint32_t> nodes;
  std::uint64_t min_bytes = 1 << 20;
  std::uint64_t max_bytes = 1 << 20;
  std::uint32_t factor = 2;
  std::uint32_t iterations = 5;
  std::uint32_t warmup = 1;
  compute::Accelerator accelerator;
};

// The collective a config asks for, for one size and algorithm, on p members.
collective::CollectiveSpec make_spec(const CollectivesConfig& config, std::uint32_t p,
                                     std::uint64_t bytes, collective::Algorithm algorithm);
// Whether `auto_among` lets `auto` choose `algorithm` (an empty list: every one).
bool auto_may_choose(const CollectivesConfig& config, collective::Algorithm algorithm);
// The job's fabric nodes: `nodes` when set (RAMP-x), else the group.
std::vector<std::uint32_t> job_members(const CollectivesConfig& config, std::uint32_t fabric_nodes);

// The keys of the section after `type` (op, algorithm, auto_among, root, dims, group,
// size/sizes, ramp_broadcast, iterations, warmup); `auto_algorithm` says
// whether algorithm is `auto` (resolved later by the estimator, in bench/setup.cpp).
// What depends on the fabric (the group fitting, the shapes, RAMP placement)
// is checked when the workload is set up on it.
CollectivesConfig read_collectives(base::MapReader& section, bool& auto_algorithm);

// The sizes of the sweep: min, min*factor, ... up to max inclusive.
std::vector<std::uint64_t> sweep_sizes(const CollectivesConfig& config);
// The group's node ids; throws std::invalid_argument when it does not fit.
std::vector<std::uint32_t> group_nodes(const GroupSpec& group, std::uint32_t fabric_nodes);

// One collective instance, as written to /collectives.
struct CollectiveRecord {
  std::uint64_t id = 0;  // instance number in the run
  std::uint64_t bytes = 0;
  collective::Algorithm algorithm;
  std::uint32_t iteration = 0;  // within its size; warmup iterations come first
  bool warmup = false;
  pdes::Time start = 0;  // earliest member start
  pdes::Time end = 0;    // latest member end
  // Breakdown along the timeline of the member that finished last:
  pdes::Time compute = 0;  // local operations (roofline)
  pdes::Time h2t = 0;      // data transfer: per step, its sends (in turn) or its largest
                           // receive at the path's bottleneck rate, whichever is longer
  pdes::Time h2h = 0;      // the rest of end - start: latency, queueing, waiting
  std::uint32_t last_node = 0;
};

// The benchmark's results: it watches every member's collectives and keeps
// one record per instance (written to /collectives, printed as nccl-tests'
// table).
class CollectivesBenchmark final : public Results, public ProgramObserver {
 public:
  // Checks the config against the network (distinct members, one algorithm
  // per size, valid collectives: std::invalid_argument otherwise) and builds
  // the program interpreter that runs the benchmark.
  CollectivesBenchmark(const CollectivesConfig& config, std::unique_ptr<fabric::Network> network);

  // The simulation model; the benchmark keeps a reference to it.
  std::unique_ptr<Interpreter> take_model();
  const fabric::Network& network() const { return interpreter_->network(); }
  const CollectivesConfig& config() const { return config_; }
  collective::CollectiveSpec spec_for(std::uint64_t bytes, collective::Algorithm algorithm) const;
  const std::vector<std::uint32_t>& members() const { return members_; }
  std::uint32_t group_size() const { return static_cast<std::uint32_t>(members_.size()); }

  void op_done(const OpRecord& record) override;
  // The benchmark has no compute ops for slowdowns to stretch (the
  // executor times its reductions); after a failure the records are those
  // of the instances that ended before it, as under simulation.end_time.
  void set_faults(std::vector<Slowdown> slowdowns, std::optional<pdes::Time> /*failure*/) override {
    interpreter_->set_slowdowns(std::move(slowdowns));
  }

  void collect(const boost::mpi::communicator& comm) override;
  std::string unfinished(const boost::mpi::communicator& comm) const override;
  void write(output::h5::File& file) const override;
  void print(std::ostream& out) const override;
  // After collect(): one record per instance, identical on all ranks.
  const std::vector<CollectiveRecord>& records() const { return records_; }

 private:
  CollectivesConfig config_;
  std::vector<std::uint32_t> members_;  // member index -> node
  std::vector<CollectiveRecord> local_records_, records_;
  std::unique_ptr<Interpreter> owned_;
  Interpreter* interpreter_ = nullptr;
};

// The benchmark as a simulation: the interpreter and the benchmark's results.
Simulation make_collectives_benchmark(const CollectivesConfig& config,
                                      std::unique_ptr<fabric::Network> network);

}  // namespace sipsim::workload
