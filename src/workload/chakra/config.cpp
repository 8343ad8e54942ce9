// The keys of a `workload: {type: chakra}` section (docs/scenarios.md) and
// the cross-GPU checks of its traces: collectives in the same order, kinds
// and sizes on every GPU; each send paired with its receive.
#include <spdlog/fmt/fmt.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "sipsim/base/units.hpp"
#include "sipsim/workload/chakra/chakra.hpp"

namespace sipsim::workload::chakra {

namespace {

constexpr std::size_t kOps = 9;  // collective::Op's values

// The scenario's spelling of an op (algorithms' keys).
constexpr std::pair<const char*, collective::Op> kOpKeys[] = {
    {"all-reduce", collective::Op::kAllReduce},
    {"all-gather", collective::Op::kAllGather},
    {"reduce-scatter", collective::Op::kReduceScatter},
    {"all-to-all", collective::Op::kAllToAll},
    {"broadcast", collective::Op::kBroadcast},
    {"reduce", collective::Op::kReduce},
    {"gather", collective::Op::kGather},
    {"scatter", collective::Op::kScatter},
    {"barrier", collective::Op::kBarrier}};

// The traces' files: prefix.0.et .. prefix.<n-1>.et, or one file.
std::vector<std::string> trace_files(const base::Value& v, const std::string& resolved,
                                     bool& single) {
  std::error_code ec;
  single = std::filesystem::is_regular_file(resolved, ec);
  if (single) return {resolved};
  std::vector<std::string> files;
  for (std::uint32_t r = 0;; ++r) {
    std::string f = fmt::format("{}.{}.et", resolved, r);
    if (!std::filesystem::is_regular_file(f, ec)) break;
    files.push_back(std::move(f));
  }
  if (files.empty()) {
    v.fail(fmt::format(
        "no trace file {} and no {}.0.et (paths are relative to the scenario's directory)",
        resolved, resolved));
  }
  return files;
}

struct Coll {
  std::uint32_t node;
  CommType type;
  std::uint64_t bytes;
};

std::vector<Coll> collectives_of(const Trace& t) {
  std::vector<Coll> out;
  for (const std::uint32_t i : t.order) {
    const Node& n = t.nodes[i];
    if (n.type == NodeType::kCommColl && !n.cpu_op) out.push_back({i, n.comm_type, n.comm_size});
  }
  return out;
}

}  // namespace

collective::Op collective_op(CommType t) {
  switch (t) {
    case CommType::kAllReduce:
      return collective::Op::kAllReduce;
    case CommType::kReduce:
      return collective::Op::kReduce;
    case CommType::kAllGather:
      return collective::Op::kAllGather;
    case CommType::kGather:
      return collective::Op::kGather;
    case CommType::kScatter:
      return collective::Op::kScatter;
    case CommType::kBroadcast:
      return collective::Op::kBroadcast;
    case CommType::kAllToAll:
      return collective::Op::kAllToAll;
    case CommType::kReduceScatter:
    case CommType::kReduceScatterBlock:
      return collective::Op::kReduceScatter;
    case CommType::kBarrier:
      return collective::Op::kBarrier;
  }
  return collective::Op::kAllReduce;
}

std::uint64_t spec_bytes(const Node& n, std::uint32_t group) {
  const bool gathers = n.comm_type == CommType::kAllGather || n.comm_type == CommType::kGather;
  return gathers ? n.comm_size * group : n.comm_size;
}

std::string check_matching(const Config& c) {
  if (c.traces.size() < 2) return "";
  const std::vector<Coll> first = collectives_of(c.traces[0]);
  for (std::size_t g = 1; g < c.traces.size(); ++g) {
    const std::vector<Coll> other = collectives_of(c.traces[g]);
    const std::size_t n = std::min(first.size(), other.size());
    for (std::size_t k = 0; k < n; ++k) {
      const Coll& a = first[k];
      const Coll& b = other[k];
      if (a.type == b.type && a.bytes == b.bytes) continue;
      const Trace& ta = c.traces[0];
      const Trace& tb = c.traces[g];
      return fmt::format(
          "collective {} differs between GPUs: {} is {} of {} bytes, {} is {} of {} bytes", k,
          ta.where(ta.nodes[a.node]), to_string(a.type), a.bytes, tb.where(tb.nodes[b.node]),
          to_string(b.type), b.bytes);
    }
    if (first.size() != other.size()) {
      // The first collective without a counterpart: where the traces part.
      const bool longer = first.size() > other.size();
      const Trace& t = c.traces[longer ? 0 : g];
      const Coll& extra = (longer ? first : other)[n];
      return fmt::format(
          "{} has {} collectives, {} has {}: collective {} ({}, {} of {} bytes) has "
          "no counterpart",
          c.traces[0].path, first.size(), c.traces[g].path, other.size(), n,
          t.where(t.nodes[extra.node]), to_string(extra.type), extra.bytes);
    }
  }
  // Sends from g to h and receives on h from g, in order: sizes and tags agree.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::uint32_t>> sends, recvs;
  for (std::uint32_t g = 0; g < c.traces.size(); ++g) {
    const Trace& t = c.traces[g];
    for (const std::uint32_t i : t.order) {
      const Node& n = t.nodes[i];
      if (n.cpu_op) continue;
      const bool send = n.type == NodeType::kCommSend;
      if (!send && n.type != NodeType::kCommRecv) continue;
      // Before pairing: a peer missing (-1) or out of range would pair with a
      // GPU that does not exist.
      const std::int32_t peer = send ? n.comm_dst : n.comm_src;
      if (peer < 0 || static_cast<std::uint32_t>(peer) >= c.traces.size() ||
          static_cast<std::uint32_t>(peer) == g) {
        return fmt::format("{}: attr {}: {} is not another GPU of the {}", t.where(n),
                           send ? "comm_dst" : "comm_src",
                           peer < 0 ? std::string("missing") : std::to_string(peer),
                           c.traces.size());
      }
      if (n.type == NodeType::kCommSend)
        sends[{g, static_cast<std::uint32_t>(n.comm_dst)}].push_back(i);
      if (n.type == NodeType::kCommRecv)
        recvs[{static_cast<std::uint32_t>(n.comm_src), g}].push_back(i);
    }
  }
  for (const auto& [pair, s] : sends) {
    const Trace& ts = c.traces[pair.first];
    const auto it = recvs.find(pair);
    const std::size_t received = it == recvs.end() ? 0 : it->second.size();
    if (received != s.size()) {
      return fmt::format(
          "GPU {} sends {} messages to GPU {}, which receives {} from it ({}, first send {})",
          pair.first, s.size(), pair.second, received, ts.path, ts.nodes[s[0]].id);
    }
    const Trace& tr = c.traces[pair.second];
    for (std::size_t k = 0; k < s.size(); ++k) {
      const Node& a = ts.nodes[s[k]];
      const Node& b = tr.nodes[it->second[k]];
      if (a.comm_tag != b.comm_tag || a.comm_size != b.comm_size) {
        return fmt::format(
            "message {} from GPU {} to GPU {}: {} sends tag {} ({} bytes), {} receives tag {} ({} "
            "bytes)",
            k, pair.first, pair.second, ts.where(a), a.comm_tag, a.comm_size, tr.where(b),
            b.comm_tag, b.comm_size);
      }
    }
  }
  for (const auto& [pair, r] : recvs) {
    if (!sends.contains(pair)) {
      const Trace& tr = c.traces[pair.second];
      return fmt::format("{} receives from GPU {}, which sends nothing to GPU {}",
                         tr.where(tr.nodes[r[0]]), pair.first, pair.second);
    }
  }
  return "";
}

Config read_chakra_workload(base::MapReader& w, const std::string& scenario_path) {
  Config c;
  const base::Value tv = w.required("trace");
  std::filesystem::path p(tv.as_string());
  if (p.is_relative()) p = std::filesystem::path(scenario_path).parent_path() / p;
  c.trace_path = p.lexically_normal().string();
  bool single = false;
  c.files = trace_files(tv, c.trace_path, single);
  if (auto r = w.optional("replicate")) {
    if (!single) r->fail("only with a single .et file as `trace`");
    c.gpus = r->as_u32(1, 1u << 24);
  } else {
    c.gpus = static_cast<std::uint32_t>(c.files.size());
  }
  for (const std::string& f : c.files) {
    try {
      c.traces.push_back(read_trace(f));
    } catch (const TraceError& e) {
      tv.fail(e.what());
    }
  }
  c.algorithms.assign(kOps, collective::algorithm("ring"));
  c.auto_algorithm.assign(kOps, true);
  if (auto a = w.optional("algorithms")) {
    base::MapReader m = a->as_map();
    std::vector<std::string> names = collective::algorithm_names();
    names.insert(names.begin(), "auto");
    for (const auto& [key, op] : kOpKeys) {
      if (auto v = m.optional(key)) {
        const std::string name = v->as_enum(names);
        const auto i = static_cast<std::size_t>(op);
        c.auto_algorithm[i] = name == "auto";
        if (name != "auto") c.algorithms[i] = *collective::parse_algorithm(name);
      }
    }
    m.finish();
  }
  if (auto v = w.optional("cpu_ops")) {
    c.cpu_ops = v->as_enum({"ignore", "time"}) == "time" ? CpuOps::kTime : CpuOps::kIgnore;
  }
  c.iterations = w.get_u32("iterations", 1, 1, 10'000);
  if (c.traces.size() == 1 && c.gpus > 1) {
    for (const Node& n : c.traces[0].nodes) {
      if (!n.cpu_op && (n.type == NodeType::kCommSend || n.type == NodeType::kCommRecv)) {
        tv.fail(c.traces[0].where(n) +
                ": a replicated trace cannot send or receive (its peers are absolute ranks)");
      }
    }
  }
  if (const std::string why = check_matching(c); !why.empty()) tv.fail(why);
  return c;
}

}  // namespace sipsim::workload::chakra
