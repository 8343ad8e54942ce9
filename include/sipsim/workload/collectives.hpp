#pragma once
// `workload: collectives` — an nccl-tests-like benchmark (DESIGN.md §4): one
// collective operation with one algorithm on a group of nodes, swept over
// message sizes, each size run `warmup` + `iterations` times back to back.
//
// Every group member runs its schedule (collective::Schedule) as a state
// machine: a step posts its sends, waits for its receives (early arrivals for
// later steps or later iterations wait in a per-sender queue), waits until its
// sends have left the node, then performs the step's local operation (costed
// by the roofline model) and moves on. Members start the next iteration as
// soon as they finished the previous one, as nccl-tests does (no barrier).
#include <boost/mpi/communicator.hpp>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sipsim/collective/schedule.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/pdes/model.hpp"

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
// The job's fabric nodes: `nodes` when set (RAMP-x), else the group.
std::vector<std::uint32_t> job_members(const CollectivesConfig& config, std::uint32_t fabric_nodes);

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

class CollectivesModel final : public pdes::Model, public fabric::MessageSink {
 public:
  CollectivesModel(const CollectivesConfig& config, std::unique_ptr<fabric::Network> network);

  std::uint32_t lp_count() const override { return network_->lp_count(); }
  pdes::Partition partition(int ranks) const override { return network_->partition(ranks); }
  pdes::Time lookahead(const pdes::Partition& p) const override { return network_->lookahead(p); }
  void setup(const pdes::Partition& partition, int rank) override;
  void init(pdes::Context& ctx) override;
  void handle(const pdes::Event& event, pdes::Context& ctx) override;
  void delivered(const fabric::Delivery& delivery, pdes::Context& ctx) override;

  const fabric::Network& network() const { return *network_; }
  const CollectivesConfig& config() const { return config_; }
  collective::CollectiveSpec spec_for(std::uint64_t bytes, collective::Algorithm algorithm) const;
  const std::vector<std::uint32_t>& members() const { return members_; }
  std::uint32_t group_size() const { return static_cast<std::uint32_t>(members_.size()); }

  // Combines every rank's view of each instance; identical on all ranks.
  std::vector<CollectiveRecord> gather_records(const boost::mpi::communicator& comm) const;
  // Network statistics summed over ranks.
  fabric::NetworkStats gather_stats(const boost::mpi::communicator& comm) const;

 private:
  struct Instance {
    std::uint64_t bytes;
    collective::Algorithm algorithm;
    std::vector<pdes::Time> lock_len;  // lock-step durations by step (RAMP-x), shared
    std::uint32_t iteration;
    bool warmup;
  };
  struct Node {
    std::int32_t member = -1;
    std::uint32_t instance = 0;
    std::optional<collective::Schedule> schedule;
    pdes::Time lock_t = 0;  // lock-step (RAMP-x): when the current step started
    std::uint32_t step = 0;
    std::uint32_t waiting = 0;  // receives of the current step still missing
    pdes::Time sends_done = 0;  // when the current step's sends have left
    pdes::Time step_h2t = 0;
    pdes::Time step_compute = 0;
    pdes::Time start = 0, compute = 0, h2t = 0;
    // Messages of the current step not yet arrived: peer -> their part counts.
    std::unordered_map<std::uint32_t, std::deque<std::uint32_t>> expecting;
    // Messages that arrived before their step: peer -> tags (parts << 32 | instance).
    std::unordered_map<std::uint32_t, std::deque<std::uint64_t>> early;
  };

  void start_instance(Node& node, pdes::Context& ctx);
  void start_step(Node& node, pdes::Context& ctx);
  void receives_complete(Node& node, pdes::Context& ctx);
  void finish_instance(Node& node, pdes::Context& ctx);
  void check_parts(std::uint64_t tag, std::uint32_t parts, std::uint32_t peer,
                   const Node& node) const;

  CollectivesConfig config_;
  std::unique_ptr<fabric::Network> network_;
  compute::Roofline roofline_;
  std::vector<std::uint32_t> members_;   // member index -> node
  std::vector<std::int32_t> member_of_;  // node -> member index or -1
  std::vector<Instance> instances_;
  std::vector<Node> nodes_;  // by local LP index (only node LPs used)
  std::vector<CollectiveRecord> local_records_;
};

}  // namespace sipsim::workload
