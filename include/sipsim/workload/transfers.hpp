#pragma once
// What one iteration of a job's programs puts on the fabric, without running
// them: every node's point-to-point sends and recvs and its collectives' wire
// messages (collective::wire_step). One walk serves every reader of the
// programs' traffic: the job's traffic matrix (job_traffic, for fabrics that
// plan circuits for the job) and the peers a node needs (check_degree, for
// fabrics with a limited degree).
#include <cstdint>
#include <vector>

#include "sipsim/collective/schedule.hpp"
#include "sipsim/workload/program.hpp"

namespace sipsim::workload {

struct ProgramSet;

// One member's wire messages of a collective, over all its steps; peers are
// member indices of the communicator. Every op with the same (communicator,
// call, member) has the same messages and the same `id` (0, 1, ... in the
// order the walk first meets them), so that a reader can skip repeats: a
// 1,024-GPU job runs the same all-reduce in every layer.
struct MemberMessages {
  std::uint32_t id = 0;
  std::vector<collective::WireMessage> out, in;
};

class TransferVisitor {
 public:
  virtual ~TransferVisitor() = default;
  // A send (outgoing) or recv op of fabric node `node` with fabric node `peer`.
  virtual void point_to_point(std::uint32_t /*node*/, const Op& /*op*/, std::uint32_t /*peer*/,
                              bool /*outgoing*/) {}
  // A collective op of `node`, member of set.comms[comm]. Calls that are not
  // valid for their group are skipped (the interpreter reports them).
  virtual void collective(std::uint32_t /*node*/, std::uint32_t /*comm*/,
                          const collective::CollectiveCall& /*call*/,
                          const MemberMessages& /*messages*/) {}
  // After each bound node's ops (the MemberMessages seen so far are still alive).
  virtual void node_end(std::uint32_t /*node*/) {}
  // Checked before each node: true ends the walk (a reader that has found
  // what it looks for).
  virtual bool done() const { return false; }
};

// Visits every bound node in increasing order, its program's ops in order,
// until the visitor is done().
void walk_transfers(const ProgramSet& set, TransferVisitor& visitor);

}  // namespace sipsim::workload
