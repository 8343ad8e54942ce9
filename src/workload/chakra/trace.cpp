// Reading a Chakra execution trace (docs/models.md, "Chakra traces"): the
// stream is read through protobuf's CodedInputStream over the file
// descriptor, one length-prefixed message at a time, each parsed into one
// reused message object and copied into the compact Node; then the
// dependencies are resolved to indices and ordered (Kahn).
#include "sipsim/workload/chakra/trace.hpp"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <spdlog/fmt/fmt.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>

#include "chakra/et.pb.h"
#include "sipsim/base/files.hpp"

namespace sipsim::workload::chakra {

namespace et = sipsim::chakra_et;
namespace io = google::protobuf::io;

std::string_view to_string(NodeType t) {
  static constexpr std::string_view kNames[kNodeTypes] = {
      "INVALID_NODE", "METADATA_NODE",  "MEM_LOAD_NODE",  "MEM_STORE_NODE",
      "COMP_NODE",    "COMM_SEND_NODE", "COMM_RECV_NODE", "COMM_COLL_NODE",
      "STORAGE_NODE", "BATCH_NODE",     "CHECKPOINT_NODE"};
  const auto i = static_cast<std::size_t>(t);
  return i < kNodeTypes ? kNames[i] : "?";
}

std::string_view to_string(CommType t) {
  static constexpr std::string_view kNames[kCommTypes] = {
      "ALL_REDUCE", "REDUCE",         "ALL_GATHER",           "GATHER", "SCATTER", "BROADCAST",
      "ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK", "BARRIER"};
  const auto i = static_cast<std::size_t>(t);
  return i < kCommTypes ? kNames[i] : "?";
}

std::string Trace::where(const Node& n) const {
  return fmt::format("{}: node {} ('{}')", path, n.id, names[n.name]);
}

namespace {

// An attribute's integer value, whichever integer (or bool) field holds it.
constexpr auto kMaxInt64 = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

std::optional<std::int64_t> as_integer(const et::Attribute& a) {
  const auto clamp = [](std::uint64_t v) {
    return static_cast<std::int64_t>(std::min(v, kMaxInt64));
  };
  switch (a.value_case()) {
    case et::Attribute::kInt32Val:
      return a.int32_val();
    case et::Attribute::kInt64Val:
      return a.int64_val();
    case et::Attribute::kUint32Val:
      return a.uint32_val();
    case et::Attribute::kUint64Val:
      return clamp(a.uint64_val());
    case et::Attribute::kSint32Val:
      return a.sint32_val();
    case et::Attribute::kSint64Val:
      return a.sint64_val();
    case et::Attribute::kFixed32Val:
      return a.fixed32_val();
    case et::Attribute::kFixed64Val:
      return clamp(a.fixed64_val());
    case et::Attribute::kSfixed32Val:
      return a.sfixed32_val();
    case et::Attribute::kSfixed64Val:
      return a.sfixed64_val();
    case et::Attribute::kBoolVal:
      return a.bool_val() ? 1 : 0;
    default:
      return std::nullopt;
  }
}

// One file being read: the stream, the position and the interned names.
class Reader {
 public:
  Reader(std::string path, int fd, std::uint64_t size) : input_(fd, 1 << 16), size_(size) {
    trace_.path = std::move(path);
    trace_.file_bytes = size;
    trace_.names.emplace_back();
    interned_.emplace("", 0);
  }

  Trace read() {
    read_metadata();
    while (offset_ < size_) read_node();
    resolve();
    order();
    return std::move(trace_);
  }

 private:
  [[noreturn]] void fail_at(const std::string& what) const {
    throw TraceError(
        fmt::format("{}: message {} at byte {}: {}", trace_.path, index_, message_start_, what));
  }
  [[noreturn]] void fail_node(const Node& n, std::string_view field,
                              const std::string& what) const {
    throw TraceError(fmt::format("{}: {}: {}", trace_.where(n), field, what));
  }

  // The next length-prefixed message into `msg`. A CodedInputStream per
  // message keeps its 2 GiB total limit away from large files.
  void next(google::protobuf::Message& msg) {
    message_start_ = offset_;
    io::CodedInputStream in(&input_);
    std::uint32_t length = 0;
    if (!in.ReadVarint32(&length)) {
      fail_at(size_ - offset_ < 5 ? "truncated length prefix (a varint cut short by the file's end)"
                                  : "malformed length prefix (not a varint)");
    }
    const auto header = static_cast<std::uint64_t>(in.CurrentPosition());
    const std::uint64_t left = size_ - offset_ - header;
    if (length > size_) {
      fail_at(fmt::format("length prefix says {} bytes, more than the whole file ({} bytes)",
                          length, size_));
    }
    if (length > left) {
      fail_at(
          fmt::format("truncated message: {} bytes declared, {} left in the file", length, left));
    }
    const io::CodedInputStream::Limit limit = in.PushLimit(static_cast<int>(length));
    if (!msg.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
      fail_at(fmt::format("not a valid {} message ({} bytes)", msg.GetTypeName(), length));
    }
    in.PopLimit(limit);
    offset_ += header + length;
    ++index_;
  }

  std::uint32_t intern(const std::string& s) {
    const auto [it, added] =
        interned_.try_emplace(s, static_cast<std::uint32_t>(trace_.names.size()));
    if (added) trace_.names.push_back(s);
    return it->second;
  }

  void read_metadata() {
    if (size_ == 0) fail_at("empty file: no GlobalMetadata message");
    et::GlobalMetadata meta;
    next(meta);
    trace_.version = meta.version();
    for (const et::Attribute& a : meta.attr()) {
      if (a.name() == "schema" && trace_.version.empty()) trace_.version = a.string_val();
    }
  }

  void read_node() {
    node_.Clear();
    next(node_);
    Node n;
    n.id = node_.id();
    n.name = intern(node_.name());
    if (node_.type() <= 0 || node_.type() >= kNodeTypes) {
      fail_node(n, "type", fmt::format("unknown node type {}", node_.type()));
    }
    n.type = static_cast<NodeType>(node_.type());
    n.duration_us = node_.duration_micros();
    n.has_duration = n.duration_us > 0;
    read_attributes(n);
    if (!n.has_duration && n.tensor_bytes == 0 && n.num_ops == 0) size_from_io(n);
    if (n.type == NodeType::kCommColl && !n.cpu_op && !n.has_comm_type) {
      fail_node(n, "attr comm_type", "missing on a COMM_COLL_NODE");
    }
    const bool comm = n.type == NodeType::kCommColl || n.type == NodeType::kCommSend ||
                      n.type == NodeType::kCommRecv;
    if (comm && !n.cpu_op && n.type != NodeType::kCommColl && n.comm_size == 0) {
      fail_node(n, "attr comm_size", "missing or 0 on a point-to-point node");
    }
    n.deps_begin = static_cast<std::uint32_t>(raw_deps_.size());
    raw_deps_.insert(raw_deps_.end(), node_.ctrl_deps().begin(), node_.ctrl_deps().end());
    raw_deps_.insert(raw_deps_.end(), node_.data_deps().begin(), node_.data_deps().end());
    n.deps_count = static_cast<std::uint32_t>(raw_deps_.size() - n.deps_begin);
    ctrl_counts_.push_back(static_cast<std::uint32_t>(node_.ctrl_deps_size()));
    if (!index_of_.try_emplace(n.id, static_cast<std::uint32_t>(trace_.nodes.size())).second) {
      fail_node(n, "id", "a second node with this id");
    }
    trace_.nodes.push_back(n);
  }

  // A node without a duration, FLOPs or tensor_size: the bytes of its input
  // and output tensors, where their text parses (else it stays unpriced).
  void size_from_io(Node& n) {
    std::uint64_t bytes = 0;
    for (const et::IOInfo* io : {&node_.inputs(), &node_.outputs()}) {
      const std::optional<std::uint64_t> b = io_tensor_bytes(io->shapes(), io->types());
      if (!b) return;
      bytes += *b;
    }
    n.tensor_bytes = std::min(bytes, kMaxCommBytes);
    n.io_sized = bytes > 0;
  }

  void read_attributes(Node& n) {
    for (const et::Attribute& a : node_.attr()) {
      const std::string& k = a.name();
      const auto integer = [&]() {
        const std::optional<std::int64_t> v = as_integer(a);
        if (!v) fail_node(n, "attr " + k, "not an integer");
        return *v;
      };
      const auto bytes = [&]() {
        const std::int64_t v = integer();
        if (v <= 0 || static_cast<std::uint64_t>(v) > kMaxCommBytes) {
          fail_node(n, "attr " + k, fmt::format("{} bytes: must be from 1 to 2^48 (256 TiB)", v));
        }
        return static_cast<std::uint64_t>(v);
      };
      if (k == "is_cpu_op") {
        n.cpu_op = integer() != 0;
      } else if (k == "comm_type") {
        const std::int64_t v = integer();
        if (v < 0 || v >= kCommTypes)
          fail_node(n, "attr comm_type", fmt::format("unknown collective type {}", v));
        n.comm_type = static_cast<CommType>(v);
        n.has_comm_type = true;
      } else if (k == "comm_size") {
        n.comm_size = bytes();
      } else if (k == "comm_src" || k == "comm_dst") {
        const std::int64_t v = integer();
        if (v < 0 || v > std::numeric_limits<std::int32_t>::max())
          fail_node(n, "attr " + k, fmt::format("rank {} out of range", v));
        (k == "comm_src" ? n.comm_src : n.comm_dst) = static_cast<std::int32_t>(v);
      } else if (k == "comm_tag") {
        n.comm_tag = integer();
      } else if (k == "pg_name") {
        n.pg_name = intern(a.string_val());
      } else if (k == "num_ops") {
        n.num_ops = static_cast<std::uint64_t>(std::max<std::int64_t>(integer(), 0));
      } else if (k == "tensor_size") {
        n.tensor_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(integer(), 0));
      } else if (k == "involved_dim") {
        read_involved_dim(n, a);
      } else {
        ++trace_.unknown_attributes[k];
      }
    }
    if (n.type == NodeType::kCommColl && !n.cpu_op && n.comm_size == 0) {
      fail_node(n, "attr comm_size", "missing on a COMM_COLL_NODE");
    }
  }

  // A bool list, kept as a bit mask (docs/models.md: the collective's group).
  void read_involved_dim(Node& n, const et::Attribute& a) const {
    if (a.value_case() != et::Attribute::kBoolList) {
      fail_node(n, "attr involved_dim", "not a bool list");
    }
    const auto& values = a.bool_list().values();
    if (values.size() > static_cast<int>(kMaxDims)) {
      fail_node(n, "attr involved_dim",
                fmt::format("{} dimensions: at most {}", values.size(), kMaxDims));
    }
    n.involved_dim = 0;
    n.involved_dims = static_cast<std::uint8_t>(values.size());
    for (int i = 0; i < values.size(); ++i) {
      if (values[i]) n.involved_dim |= std::uint32_t{1} << i;
    }
  }

  // Dependencies to indices. Traces converted from PyTorch keep control
  // dependencies on nodes the conversion left out: those are dropped and
  // counted; a data dependency on a missing node is an error.
  void resolve() {
    trace_.deps.reserve(raw_deps_.size());
    for (std::uint32_t i = 0; i < trace_.nodes.size(); ++i) {
      Node& n = trace_.nodes[i];
      const auto begin = static_cast<std::uint32_t>(trace_.deps.size());
      for (std::uint32_t j = 0; j < n.deps_count; ++j) {
        const std::uint64_t id = raw_deps_[n.deps_begin + j];
        const auto it = index_of_.find(id);
        if (it != index_of_.end()) {
          trace_.deps.push_back(it->second);
          if (j < ctrl_counts_[i]) ++n.ctrl_count;
        } else if (j < ctrl_counts_[i]) {
          ++trace_.missing_ctrl_deps;
        } else {
          fail_node(n, "data_deps", fmt::format("no node has id {}", id));
        }
      }
      n.deps_begin = begin;
      n.deps_count = static_cast<std::uint32_t>(trace_.deps.size()) - begin;
    }
    trace_.deps.shrink_to_fit();
    std::vector<std::uint64_t>().swap(raw_deps_);
    std::vector<std::uint32_t>().swap(ctrl_counts_);
    decltype(index_of_)().swap(index_of_);
    decltype(interned_)().swap(interned_);
  }

  // Kahn's order, the file's order among ready nodes. PyTorch conversions
  // leave control dependencies that close cycles (a node on itself, a parent
  // on its child): when nothing is ready, the first left-over node whose data
  // dependencies are all done goes next and its left-over control
  // dependencies are dropped (counted). A cycle of data dependencies is an
  // error naming a node on it.
  void order() {
    const auto n = static_cast<std::uint32_t>(trace_.nodes.size());
    std::vector<std::uint32_t> pending(n), pending_data(n), users_begin(n + 1, 0);
    for (std::uint32_t i = 0; i < n; ++i) {
      const Node& node = trace_.nodes[i];
      pending[i] = node.deps_count;
      pending_data[i] = node.deps_count - node.ctrl_count;
      for (std::uint32_t j = 0; j < node.deps_count; ++j) {
        ++users_begin[trace_.deps[node.deps_begin + j] + 1];
      }
    }
    for (std::uint32_t i = 0; i < n; ++i) users_begin[i + 1] += users_begin[i];
    // users: (user << 1) | (1 for a data dependency)
    std::vector<std::uint32_t> users(users_begin[n]);
    std::vector<std::uint32_t> fill(users_begin.begin(), users_begin.end() - 1);
    for (std::uint32_t i = 0; i < n; ++i) {
      const Node& node = trace_.nodes[i];
      for (std::uint32_t j = 0; j < node.deps_count; ++j) {
        users[fill[trace_.deps[node.deps_begin + j]]++] = i << 1 | (j >= node.ctrl_count ? 1 : 0);
      }
    }
    std::vector<std::uint32_t>().swap(fill);
    constexpr std::uint32_t kNone = ~0u;
    std::vector<std::uint32_t> pos(n, kNone);
    std::vector<std::uint32_t> ready;
    for (std::uint32_t i = n; i-- > 0;) {
      if (pending[i] == 0) ready.push_back(i);
    }
    std::make_heap(ready.begin(), ready.end(), std::greater<>());
    trace_.order.reserve(n);
    std::uint32_t cursor = 0;  // where the search for a node to release resumes
    while (trace_.order.size() < n) {
      if (ready.empty()) {
        const std::uint32_t start = cursor;
        while (pos[cursor] != kNone || pending_data[cursor] != 0) {
          cursor = (cursor + 1) % n;
          if (cursor == start) fail_cycle(pos);
        }
        trace_.broken_ctrl_deps += pending[cursor];
        ready.push_back(cursor);
      }
      std::pop_heap(ready.begin(), ready.end(), std::greater<>());
      const std::uint32_t i = ready.back();
      ready.pop_back();
      pos[i] = static_cast<std::uint32_t>(trace_.order.size());
      trace_.order.push_back(i);
      for (std::uint32_t k = users_begin[i]; k < users_begin[i + 1]; ++k) {
        const std::uint32_t u = users[k] >> 1;
        if (pos[u] != kNone) continue;  // released early, or a dependency on itself
        if ((users[k] & 1) != 0) --pending_data[u];
        if (--pending[u] == 0) {
          ready.push_back(u);
          std::push_heap(ready.begin(), ready.end(), std::greater<>());
        }
      }
    }
    // The dropped control dependencies leave the node's list.
    std::uint32_t out = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      Node& node = trace_.nodes[i];
      const std::uint32_t begin = out;
      std::uint32_t ctrl = 0;
      for (std::uint32_t j = 0; j < node.deps_count; ++j) {
        const std::uint32_t d = trace_.deps[node.deps_begin + j];
        if (pos[d] >= pos[i]) continue;
        trace_.deps[out++] = d;
        if (j < node.ctrl_count) ++ctrl;
      }
      node.deps_begin = begin;
      node.deps_count = out - begin;
      node.ctrl_count = ctrl;
    }
    trace_.deps.resize(out);
  }

  // Walks left-over data dependencies from a left-over node until one
  // repeats: it is on a cycle.
  [[noreturn]] void fail_cycle(const std::vector<std::uint32_t>& pos) const {
    const auto n = static_cast<std::uint32_t>(trace_.nodes.size());
    std::uint32_t at = 0;
    while (pos[at] != ~0u) ++at;
    std::vector<char> seen(n, 0);
    while (!seen[at]) {
      seen[at] = 1;
      const Node& node = trace_.nodes[at];
      for (std::uint32_t j = node.ctrl_count; j < node.deps_count; ++j) {
        const std::uint32_t d = trace_.deps[node.deps_begin + j];
        if (pos[d] == ~0u) {
          at = d;
          break;
        }
      }
    }
    fail_node(trace_.nodes[at], "data_deps", "dependency cycle through this node");
  }

  io::FileInputStream input_;
  std::uint64_t size_;
  std::uint64_t offset_ = 0, message_start_ = 0, index_ = 0;
  Trace trace_;
  et::Node node_;  // reused: its buffers keep their capacity
  std::vector<std::uint64_t> raw_deps_;
  std::vector<std::uint32_t> ctrl_counts_;  // per node: its ctrl_deps, first in raw_deps_
  std::unordered_map<std::uint64_t, std::uint32_t> index_of_;
  std::unordered_map<std::string, std::uint32_t> interned_;
};

}  // namespace

Trace read_trace(const std::string& path) {
  // O_NONBLOCK: a FIFO is refused below, not waited on.
  const base::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0)
    throw TraceError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    throw TraceError(fmt::format("{}: not a regular file", path));
  }
  if (static_cast<std::uint64_t>(st.st_size) >= (std::uint64_t{1} << 40)) {
    throw TraceError(
        fmt::format("{}: {} bytes: more than the 1 TiB a trace may have", path, st.st_size));
  }
  return Reader(path, fd.get(), static_cast<std::uint64_t>(st.st_size)).read();
}

TraceStats statistics(const Trace& t) {
  TraceStats s;
  for (const Node& n : t.nodes) {
    ++s.by_type[static_cast<std::size_t>(n.type)];
    if (n.cpu_op) {
      ++s.cpu_ops;
      continue;
    }
    if (n.type == NodeType::kComp) {
      s.compute_us += n.duration_us;
      if (!n.has_duration) {
        ++s.without_duration;
        if (n.io_sized) ++s.io_sized;
        if (n.num_ops == 0 && n.tensor_bytes == 0) ++s.untimed;
      }
    }
    if (n.type == NodeType::kCommColl) {
      ++s.collectives[static_cast<std::size_t>(n.comm_type)];
      s.collective_bytes[static_cast<std::size_t>(n.comm_type)] += n.comm_size;
    }
  }
  return s;
}

std::string describe(const Trace& t, std::string_view indent) {
  const TraceStats s = statistics(t);
  std::string out =
      fmt::format("{}{}: schema {}, {} nodes, {} bytes\n{}nodes:", indent, t.path,
                  t.version.empty() ? "?" : t.version, t.nodes.size(), t.file_bytes, indent);
  for (int i = 1; i < kNodeTypes; ++i) {
    if (s.by_type[i] > 0)
      out += fmt::format(" {} {}", to_string(static_cast<NodeType>(i)), s.by_type[i]);
  }
  out += fmt::format(" ({} CPU ops)\n{}collectives (GPU):", s.cpu_ops, indent);
  bool any = false;
  for (int i = 0; i < kCommTypes; ++i) {
    if (s.collectives[i] == 0) continue;
    out += fmt::format(" {} {} ({} bytes)", to_string(static_cast<CommType>(i)), s.collectives[i],
                       s.collective_bytes[i]);
    any = true;
  }
  if (!any) out += " none";
  out += fmt::format("\n{}control dependencies dropped: {} on missing nodes, {} closing cycles",
                     indent, t.missing_ctrl_deps, t.broken_ctrl_deps);
  out += fmt::format("\n{}compute: {} us in GPU COMP_NODEs ({} without duration_micros", indent,
                     s.compute_us, s.without_duration);
  if (s.without_duration > 0) {
    out += fmt::format(": {} priced by their tensors' bytes, {} by num_ops or tensor_size, {} at 0",
                       s.io_sized, s.without_duration - s.io_sized - s.untimed, s.untimed);
  }
  out += fmt::format(")\n{}unknown attributes:", indent);
  if (t.unknown_attributes.empty()) out += " none";
  for (const auto& [name, count] : t.unknown_attributes)
    out += fmt::format(" {} ({})", name, count);
  return out + "\n";
}

}  // namespace sipsim::workload::chakra
