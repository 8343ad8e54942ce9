#pragma once
// Programs (docs/architecture.md): what a node does, as an immutable list of ops with
// dependency indices. A program is shared by every node of the same role (a
// pipeline stage, a benchmark member), so memory does not grow with nodes x
// ops; what differs between the nodes of a role — which communicators they use
// and which nodes they exchange point-to-point messages with — is looked up
// through slots in the node's Binding.
//
// Ops: compute (a duration from the device model), collective (started on the
// collective executor, on the communicator of a slot), send and recv
// (point-to-point, e.g. pipeline activations, with the node of a peer slot),
// and wait (a join: done when its dependencies are). An op starts when all its
// dependencies (earlier ops of the same iteration) are done. Every op carries
// a category, so that the interpreter can say where each picosecond went.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sipsim/collective/communicator.hpp"
#include "sipsim/pdes/time.hpp"

namespace sipsim::workload {

enum class OpKind : std::uint8_t { kCompute, kCollective, kSend, kRecv, kWait };

// Where a node's time goes. Compute categories first, then communication
// kinds; the breakdown adds two columns: the pipeline bubble (waiting on a
// pp-comm recv whose peer has not sent yet) and idle (nothing runs).
enum class Category : std::uint8_t {
  kForward,
  kBackward,
  kWeightGradient,
  kOptimizer,
  kCompute,     // other computation
  kTpComm,      // tensor parallelism
  kPpComm,      // pipeline parallelism (activations, gradients between stages)
  kDpComm,      // data parallelism (gradient all-reduce, ZeRO)
  kEpComm,      // expert parallelism (all-to-all)
  kCollective,  // other communication (e.g. the collectives benchmark)
};
inline constexpr std::size_t kCategories = 10;
inline constexpr std::size_t kBubbleColumn = kCategories;
inline constexpr std::size_t kIdleColumn = kCategories + 1;
inline constexpr std::size_t kBreakdownColumns = kCategories + 2;  // + bubble, idle
std::string_view to_string(Category c);
// A category's name, "bubble" or "idle".
std::string_view breakdown_column(std::size_t column);
bool is_communication(Category c);

std::string_view to_string(OpKind k);

struct Op {
  OpKind kind = OpKind::kWait;
  Category category = Category::kCompute;
  std::uint32_t deps_begin = 0;  // into Program::deps
  std::uint32_t deps_count = 0;
  pdes::Time duration = 0;  // compute
  std::uint32_t call = 0;   // collective: index into Program::calls
  std::uint32_t slot = 0;   // collective: communicator slot; send/recv: peer slot
  std::uint64_t bytes = 0;  // send/recv
};

class Program {
 public:
  explicit Program(std::string name = "program") : name_(std::move(name)) {}

  // Each adds an op whose dependencies are earlier ops, and returns its index.
  std::uint32_t compute(Category category, pdes::Time duration,
                        std::initializer_list<std::uint32_t> deps = {});
  std::uint32_t collective(Category category, std::uint32_t comm_slot,
                           const collective::CollectiveCall& call,
                           std::initializer_list<std::uint32_t> deps = {});
  std::uint32_t send(Category category, std::uint32_t peer_slot, std::uint64_t bytes,
                     std::initializer_list<std::uint32_t> deps = {});
  std::uint32_t recv(Category category, std::uint32_t peer_slot, std::uint64_t bytes,
                     std::initializer_list<std::uint32_t> deps = {});
  std::uint32_t wait(std::initializer_list<std::uint32_t> deps);
  // The general form (deps as a span); throws std::invalid_argument when a
  // dependency is not an earlier op, so a program is acyclic by construction.
  std::uint32_t add(Op op, std::span<const std::uint32_t> deps);

  const std::string& name() const { return name_; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(ops_.size()); }
  const Op& op(std::uint32_t i) const { return ops_[i]; }
  // The sum of its compute ops' durations: a lower bound of the time it
  // takes (no communication, no waiting).
  pdes::Time compute_time() const;
  std::span<const std::uint32_t> deps(std::uint32_t i) const;
  // The ops that depend on op i (filled by finish()).
  std::span<const std::uint32_t> users(std::uint32_t i) const;
  // Whether `iterations` of the program's compute ops (durations summed)
  // take more than `limit`: the workloads' bound that a run can end within
  // pdes::Time (docs/scenarios.md, "Size bound").
  bool computes_longer_than(std::uint32_t iterations, pdes::Time limit) const;
  // The ops without dependencies, in order (filled by finish()).
  std::span<const std::uint32_t> roots() const { return roots_; }
  const collective::CollectiveCall& call(std::uint32_t i) const { return calls_[i]; }
  // Slots the ops use (the Binding must provide at least these).
  std::uint32_t comm_slots() const { return comm_slots_; }
  std::uint32_t peer_slots() const { return peer_slots_; }
  // Optional op names (docs/output.md, /trace/ops): a table that programs
  // may share (a Chakra trace's names; entry 0 is never an op's name, it
  // stands for none), and an index per op into it. A program without a table names no op.
  void set_name_table(std::shared_ptr<const std::vector<std::string>> names);
  // Op i is named (*names)[name]; needs the table.
  void name_op(std::uint32_t i, std::uint32_t name);
  // Op i's name, "" when it has none.
  std::string_view op_name(std::uint32_t i) const;

  // One line for error messages: "op 5 (recv, pp-comm, 1048576 B from peer slot 0)".
  std::string describe(std::uint32_t i) const;

  // Builds the reverse edges; call once after the last op (the interpreter does).
  void finish();

 private:
  std::string name_;
  std::vector<Op> ops_;
  std::vector<std::uint32_t> deps_;
  std::vector<collective::CollectiveCall> calls_;
  std::vector<std::uint32_t> users_begin_, users_, roots_;
  std::uint32_t comm_slots_ = 0, peer_slots_ = 0;
  std::shared_ptr<const std::vector<std::string>> names_;
  std::vector<std::uint32_t> op_names_;  // by op; shorter than ops_ when the rest have none
};

// What a node's program slots refer to on that node.
struct Binding {
  std::uint32_t program = 0;  // index into the interpreter's programs
  struct Comm {
    std::uint32_t comm = 0;    // index into the interpreter's communicators
    std::uint32_t member = 0;  // the node's member index in it
  };
  std::vector<Comm> comms;           // by communicator slot
  std::vector<std::uint32_t> peers;  // by peer slot: fabric nodes
};

}  // namespace sipsim::workload
