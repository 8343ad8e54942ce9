// The keys of a `workload: {type: chakra}` section (docs/scenarios.md) and
// the cross-GPU checks of its traces: collectives in the same order, kinds
// and sizes on every member of a communicator; each send paired with its
// receive.
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <deque>
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

// `process_groups: {<pg_name>: [ranks] | {size, stride}}`.
std::map<std::string, ProcessGroup> read_process_groups(const base::Value& v, std::uint32_t gpus) {
  std::map<std::string, ProcessGroup> out;
  base::MapReader m = v.as_map();
  for (const auto& kv : v.yaml()) {
    const std::string name = kv.first.as<std::string>();
    const base::Value g = m.required(name);
    ProcessGroup pg;
    if (g.is_list()) {
      const std::vector<base::Value> ranks = g.as_list();
      if (ranks.empty()) g.fail("no GPU ranks");
      std::vector<bool> listed(gpus, false);
      for (const base::Value& r : ranks) {
        const std::uint32_t rank = r.as_u32();
        if (rank >= gpus) r.fail(fmt::format("rank {} is not a GPU of the {}", rank, gpus));
        if (listed[rank]) r.fail(fmt::format("rank {} is listed twice", rank));
        listed[rank] = true;
        pg.ranks.push_back(rank);
      }
      std::sort(pg.ranks.begin(), pg.ranks.end());
    } else if (g.is_map()) {
      base::MapReader p = g.as_map();
      pg.size = p.required("size").as_u32(1, gpus);
      pg.stride = p.get_u32("stride", 1, 1, gpus);
      p.finish();
      const std::uint64_t block = std::uint64_t{pg.size} * pg.stride;
      if (gpus % block != 0) {
        g.fail(fmt::format(
            "size {} x stride {} = {} does not divide the {} GPUs: not a partition into groups",
            pg.size, pg.stride, block, gpus));
      }
    } else {
      g.fail("expected a list of GPU ranks or {size: k, stride: s}");
    }
    out.emplace(name, std::move(pg));
  }
  m.finish();
  return out;
}

// `dimensions: [d0, d1, ...]`: npus per dimension, dimension 0 fastest.
std::vector<std::uint32_t> read_dimensions(const base::Value& v, std::uint32_t gpus) {
  std::vector<std::uint32_t> out;
  std::uint64_t product = 1;
  for (const base::Value& d : v.as_list()) {
    out.push_back(d.as_u32(1, gpus));
    product *= out.back();
    if (product > gpus) break;
  }
  if (out.empty() || out.size() > kMaxDims)
    v.fail(fmt::format("from 1 to {} dimensions", kMaxDims));
  if (product != gpus) {
    v.fail(fmt::format("the product of the dimensions is {}, not the {} GPUs",
                       product > gpus ? fmt::format("more than {}", gpus) : std::to_string(product),
                       gpus));
  }
  return out;
}

// GPU h's collectives on a communicator against GPU g's: "" or where they part.
std::string compare(const Config& c, std::uint32_t g, const std::vector<Coll>& first,
                    std::uint32_t h, const std::vector<Coll>& other) {
  const Trace& ta = c.traces[g];
  const Trace& tb = c.traces[h];
  const std::size_t n = std::min(first.size(), other.size());
  for (std::size_t k = 0; k < n; ++k) {
    const Coll& a = first[k];
    const Coll& b = other[k];
    if (a.type == b.type && a.bytes == b.bytes) continue;
    return fmt::format(
        "collective {} differs between GPUs: {} is {} of {} bytes, {} is {} of {} bytes", k,
        ta.where(ta.nodes[a.node]), to_string(a.type), a.bytes, tb.where(tb.nodes[b.node]),
        to_string(b.type), b.bytes);
  }
  if (first.size() == other.size()) return "";
  // The first collective without a counterpart: where the traces part.
  const bool longer = first.size() > other.size();
  const Trace& t = longer ? ta : tb;
  const Coll& extra = (longer ? first : other)[n];
  return fmt::format(
      "{} has {} collectives, {} has {}: collective {} ({}, {} of {} bytes) has "
      "no counterpart",
      ta.path, first.size(), tb.path, other.size(), n, t.where(t.nodes[extra.node]),
      to_string(extra.type), extra.bytes);
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
  // Per GPU: its collectives on each communicator, in trace order.
  std::vector<std::map<std::uint32_t, std::vector<Coll>>> on(c.traces.size());
  for (std::uint32_t g = 0; g < c.traces.size(); ++g) {
    const Trace& t = c.traces[g];
    for (const Coll& k : collectives_of(t)) {
      const Groups::Family& f = c.groups.families[c.groups.family_of(t, t.nodes[k.node])];
      if (f.comm[g] != Groups::kNone) on[g][f.comm[g]].push_back(k);
    }
  }
  for (std::uint32_t comm = 0; comm < c.groups.members.size(); ++comm) {
    const std::vector<std::uint32_t>& m = c.groups.members[comm];
    const std::string on_comm = c.groups.names[comm] == "all"
                                    ? ""
                                    : fmt::format(" (communicator {})", c.groups.names[comm]);
    for (std::size_t j = 1; j < m.size(); ++j) {
      std::string e = compare(c, m[0], on[m[0]][comm], m[j], on[m[j]][comm]);
      if (!e.empty()) return e + on_comm;
    }
  }
  return "";
}

// MPI's matching: a receive on h from g takes the first of g's sends to h with
// its tag not yet taken (messages of one tag do not overtake each other;
// messages of different tags may). Sizes must agree; a receive without a send,
// and a send never received, are errors at their nodes.
std::string match_messages(Config& c) {
  if (c.traces.size() < 2) return "";
  // Per (g, h): g's sends to h in g's order, h's receives from g in h's order.
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
      const auto q = static_cast<std::uint32_t>(peer);
      (send ? sends[{g, q}] : recvs[{q, g}]).push_back(i);
    }
  }
  c.messages.assign(c.traces.size(), {});
  for (const auto& [pair, r] : recvs) {
    const auto [g, h] = pair;
    const Trace& ts = c.traces[g];
    const Trace& tr = c.traces[h];
    const std::vector<std::uint32_t>& s = sends[pair];
    std::map<std::int64_t, std::deque<std::uint32_t>> by_tag;  // tag -> positions in s
    for (std::uint32_t k = 0; k < s.size(); ++k) by_tag[ts.nodes[s[k]].comm_tag].push_back(k);
    std::vector<std::uint64_t>& inbox = c.messages[h].inbox[g];
    for (const std::uint32_t i : s) inbox.push_back(ts.nodes[i].comm_size);
    for (const std::uint32_t i : r) {
      const Node& b = tr.nodes[i];
      std::deque<std::uint32_t>& q = by_tag[b.comm_tag];
      if (q.empty()) {
        return fmt::format(
            "{} receives tag {} from GPU {}, which sends GPU {} no {}message with it", tr.where(b),
            b.comm_tag, g, h, s.empty() ? "" : "further ");
      }
      const Node& a = ts.nodes[s[q.front()]];
      if (a.comm_size != b.comm_size) {
        return fmt::format("tag {} from GPU {} to GPU {}: {} sends {} bytes, {} receives {} bytes",
                           b.comm_tag, g, h, ts.where(a), a.comm_size, tr.where(b), b.comm_size);
      }
      c.messages[h].position[i] = q.front();
      q.pop_front();
    }
  }
  for (const auto& [pair, s] : sends) {
    const Trace& ts = c.traces[pair.first];
    const auto r = recvs.find(pair);
    const std::size_t received = r == recvs.end() ? 0 : r->second.size();
    if (received < s.size()) {
      // The first send no receive took.
      std::vector<bool> taken(s.size(), false);
      if (r != recvs.end()) {
        for (const std::uint32_t i : r->second)
          taken[c.messages[pair.second].position.at(i)] = true;
      }
      const auto k =
          static_cast<std::size_t>(std::find(taken.begin(), taken.end(), false) - taken.begin());
      const Node& a = ts.nodes[s[k]];
      return fmt::format(
          "{} sends tag {} to GPU {}, which never receives it ({} of {} messages "
          "received)",
          ts.where(a), a.comm_tag, pair.second, received, s.size());
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
  if (auto v = w.optional("process_groups")) c.process_groups = read_process_groups(*v, c.gpus);
  if (auto v = w.optional("dimensions")) c.dimensions = read_dimensions(*v, c.gpus);
  if (const std::string why = build_groups(c); !why.empty()) tv.fail(why);
  if (const std::string why = check_matching(c); !why.empty()) tv.fail(why);
  if (const std::string why = match_messages(c); !why.empty()) tv.fail(why);
  return c;
}

}  // namespace sipsim::workload::chakra
