#pragma once
// Chakra execution traces (docs/models.md, "Chakra traces"): MLCommons'
// per-rank op graphs, a varint-length-delimited protobuf stream of one
// GlobalMetadata message and then one Node per op. read_trace loads one file
// into a compact form (names stored once, dependencies as indices, a
// topological order); every error names the file, the node (its id, else the
// message's index and byte offset) and the field.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sipsim::workload::chakra {

// Chakra's NodeType values.
enum class NodeType : std::uint8_t {
  kMetadata = 1,
  kMemLoad = 2,
  kMemStore = 3,
  kComp = 4,
  kCommSend = 5,
  kCommRecv = 6,
  kCommColl = 7,
  kStorage = 8,
  kBatch = 9,
  kCheckpoint = 10,
};
inline constexpr int kNodeTypes = 11;  // 0 (invalid) .. 10
std::string_view to_string(NodeType t);

// Chakra's CollectiveCommType values.
enum class CommType : std::uint8_t {
  kAllReduce = 0,
  kReduce = 1,
  kAllGather = 2,
  kGather = 3,
  kScatter = 4,
  kBroadcast = 5,
  kAllToAll = 6,
  kReduceScatter = 7,
  kReduceScatterBlock = 8,
  kBarrier = 9,
};
inline constexpr int kCommTypes = 10;
std::string_view to_string(CommType t);

// A comm_size above this is refused as absurd (256 TiB).
inline constexpr std::uint64_t kMaxCommBytes = std::uint64_t{1} << 48;
// involved_dim lists of more dimensions are refused.
inline constexpr std::uint32_t kMaxDims = 32;

struct Node {
  std::uint64_t id = 0;
  std::uint64_t duration_us = 0;
  std::uint64_t comm_size = 0;     // bytes (collectives, send, recv)
  std::uint64_t num_ops = 0;       // attribute num_ops (FLOPs), 0 if absent
  std::uint64_t tensor_bytes = 0;  // attribute tensor_size, 0 if absent
  std::uint32_t name = 0;          // index into Trace::names
  std::uint32_t pg_name = 0;       // index into Trace::names (0: "" = none)
  std::uint32_t deps_begin = 0;    // into Trace::deps: node indices, ctrl then data
  std::uint32_t deps_count = 0;
  std::uint32_t ctrl_count = 0;  // the first ctrl_count deps are ctrl_deps
  std::int32_t comm_src = -1, comm_dst = -1;
  std::int64_t comm_tag = 0;
  std::uint32_t involved_dim = 0;  // attribute involved_dim: bit i set = dimension i involved
  std::uint8_t involved_dims = 0;  // its length (0: absent)
  NodeType type = NodeType::kComp;
  CommType comm_type = CommType::kAllReduce;
  bool has_comm_type = false;
  bool has_duration = false;
  bool cpu_op = false;
  // tensor_bytes came from the node's inputs and outputs (io_tensor_bytes),
  // not from a tensor_size attribute.
  bool io_sized = false;
};

struct Trace {
  std::string path;
  std::string version;  // GlobalMetadata.version (0.0.4), else its `schema` attribute (1.0.1)
  std::vector<Node> nodes;
  std::vector<std::uint32_t> deps;
  std::vector<std::string> names;    // names[0] == ""
  std::vector<std::uint32_t> order;  // a topological order (node indices)
  // Attributes sipsim does not read, by name: how many nodes carry each.
  std::map<std::string, std::uint64_t> unknown_attributes;
  std::uint64_t file_bytes = 0;
  // ctrl_deps on ids no node has (dropped; PyTorch conversions leave them).
  std::uint64_t missing_ctrl_deps = 0;
  // ctrl_deps dropped because they closed a cycle (docs/models.md).
  std::uint64_t broken_ctrl_deps = 0;

  const std::string& name(const Node& n) const { return names[n.name]; }
  // "file: node 12 ('aten::mm')", for messages.
  std::string where(const Node& n) const;
};

// A trace that cannot be read: the message says where.
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads a trace file; throws TraceError.
Trace read_trace(const std::string& path);

// The bytes held by the tensors of one IOInfo (its `shapes` and `types`
// texts as PyTorch's observer writes them); nullopt where the texts are not in
// that form. Arguments that are not tensors count 0.
std::optional<std::uint64_t> io_tensor_bytes(std::string_view shapes, std::string_view types);

// What `sipsim info` prints of a trace.
struct TraceStats {
  std::uint64_t by_type[kNodeTypes] = {};
  std::uint64_t collectives[kCommTypes] = {};
  std::uint64_t collective_bytes[kCommTypes] = {};
  std::uint64_t cpu_ops = 0;
  std::uint64_t compute_us = 0;        // COMP_NODE durations, GPU ops
  std::uint64_t without_duration = 0;  // GPU COMP_NODEs without duration_micros
  std::uint64_t io_sized = 0;          // of those, priced by their tensors' bytes
  std::uint64_t untimed = 0;           // of those, without FLOPs or bytes: 0
};
TraceStats statistics(const Trace& trace);
// Several lines, each starting with `indent`.
std::string describe(const Trace& trace, std::string_view indent);

}  // namespace sipsim::workload::chakra
