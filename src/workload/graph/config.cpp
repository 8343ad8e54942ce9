// The op-graph file (docs/models.md, "Op graphs and SiP-ML placement") and
// the keys of a `workload: {type: graph}` section (docs/scenarios.md). The
// file is parsed in one streaming pass (json_reader.cpp); this file resolves
// the dependencies and orders the ops. Every error names the file, line,
// column and key.
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "json_reader.hpp"
#include "sipsim/base/units.hpp"
#include "sipsim/workload/graph/graph.hpp"

namespace sipsim::workload::graph {

namespace {

std::string too_large(std::uint64_t bytes) {
  return fmt::format("the graph file has {} bytes, more than the {} a graph file may have", bytes,
                     base::format_bytes(kMaxGraphFileBytes));
}

// A dependency's target: by name (names win), else a plain integer as an index.
std::uint32_t resolve(const ParsedGraph& p, const JsonText& text, const WrittenDep& d) {
  if (const auto it = p.index.find(d.text); it != p.index.end()) return it->second;
  const auto fail = [&](const std::string& message) {
    text.fail(d.at, fmt::format("ops[{}].deps[{}]", d.op, d.slot), message);
  };
  const std::size_t n = p.graph.ops.size();
  if (d.number && d.text.find_first_not_of("0123456789") == std::string::npos) {
    std::uint64_t x = 0;
    const auto [end, ec] = std::from_chars(d.text.data(), d.text.data() + d.text.size(), x);
    if (ec != std::errc() || x >= n) {
      fail(fmt::format("no op has index {} (there are {} ops)", clip(d.text), n));
    }
    return static_cast<std::uint32_t>(x);
  }
  fail(fmt::format("unknown op '{}'", clip(d.text)));
  return 0;
}

// "a -> b -> c -> a", at most a dozen names.
std::string cycle_text(const Graph& g, const std::vector<std::uint32_t>& cycle) {
  constexpr std::size_t kShown = 12;
  std::string out;
  for (std::size_t j = 0; j < cycle.size(); ++j) {
    if (cycle.size() > kShown && j == kShown / 2) {
      out += fmt::format("… ({} more) -> ", cycle.size() - kShown);
      j = cycle.size() - kShown / 2;
    }
    out += clip(g.ops[cycle[j]].name) + (j + 1 < cycle.size() ? " -> " : "");
  }
  return out;
}

// Kahn's topological order, the file's order among ready ops; a cycle is
// reported at the dependency that closes it.
void order(Graph& g, const JsonText& text, const std::vector<WrittenDep>& deps) {
  const std::size_t n = g.ops.size();
  std::vector<std::uint32_t> pending(n);
  std::vector<std::vector<std::uint32_t>> users(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    pending[i] = static_cast<std::uint32_t>(g.ops[i].deps.size());
    for (const std::uint32_t d : g.ops[i].deps) users[d].push_back(i);
  }
  std::vector<std::uint32_t> ready;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push_back(i);
  }
  // A min-heap over indices keeps the file's order where the graph allows it.
  std::make_heap(ready.begin(), ready.end(), std::greater<>());
  g.order.reserve(n);
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), std::greater<>());
    const std::uint32_t i = ready.back();
    ready.pop_back();
    g.order.push_back(i);
    for (const std::uint32_t u : users[i]) {
      if (--pending[u] == 0) {
        ready.push_back(u);
        std::push_heap(ready.begin(), ready.end(), std::greater<>());
      }
    }
  }
  if (g.order.size() == n) return;
  // Walk from an op left over along left-over dependencies until one repeats.
  std::uint32_t at = 0;
  while (pending[at] == 0) ++at;
  std::vector<char> seen(n, 0);
  std::vector<std::uint32_t> path;
  while (!seen[at]) {
    seen[at] = 1;
    path.push_back(at);
    for (const std::uint32_t d : g.ops[at].deps) {
      if (pending[d] != 0) {
        at = d;
        break;
      }
    }
  }
  // path[j] depends on path[j + 1]; the last one depends on `at`, closing the cycle.
  std::vector<std::uint32_t> cycle(std::find(path.begin(), path.end(), at), path.end());
  cycle.push_back(at);
  const std::uint32_t last = path.back();
  const auto& last_deps = g.ops[last].deps;
  const auto slot = static_cast<std::uint32_t>(std::find(last_deps.begin(), last_deps.end(), at) -
                                               last_deps.begin());
  // The written dependencies are in file order: by op, then slot.
  const auto d =
      std::lower_bound(deps.begin(), deps.end(), std::pair{last, slot},
                       [](const WrittenDep& w, const std::pair<std::uint32_t, std::uint32_t>& k) {
                         return std::pair{w.op, w.slot} < k;
                       });
  text.fail(d->at, fmt::format("ops[{}].deps[{}]", last, slot),
            "dependency cycle (each op depends on the next): " + cycle_text(g, cycle));
}

}  // namespace

std::uint64_t Graph::params_bytes() const {
  std::uint64_t total = 0;
  for (const GraphOp& op : ops) total += op.params_bytes;
  return total;
}

double Graph::flops() const {
  double total = 0;
  for (const GraphOp& op : ops) {
    total += static_cast<double>(op.flops) + static_cast<double>(op.backward_flops);
  }
  return total;
}

Graph read_graph(std::string_view json, const std::string& name) {
  const JsonText text(json, name);
  if (json.size() > kMaxGraphFileBytes) text.fail(0, "", too_large(json.size()));
  ParsedGraph p = parse_graph_json(text);
  Graph& g = p.graph;
  for (const WrittenDep& d : p.deps) {
    const std::uint32_t dep = resolve(p, text, d);
    std::vector<std::uint32_t>& deps = g.ops[d.op].deps;
    if (std::find(deps.begin(), deps.end(), dep) != deps.end()) {
      text.fail(d.at, fmt::format("ops[{}].deps[{}]", d.op, d.slot),
                fmt::format("'{}' is listed twice", clip(g.ops[dep].name)));
    }
    deps.push_back(dep);
  }
  order(g, text, p.deps);
  return std::move(p.graph);
}

Graph read_graph_file(const std::string& path) {
  const std::string start = path + ":1:1";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw base::ScenarioError(start, "", "is a directory, not a graph file");
  }
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"),
                                                          &std::fclose);
  if (!f)
    throw base::ScenarioError(start, "", "cannot read file: " + std::string(std::strerror(errno)));
  std::string text;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec) {
    if (size > kMaxGraphFileBytes) throw base::ScenarioError(start, "", too_large(size));
    text.reserve(size);
  }
  char buf[65536];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) {
    text.append(buf, n);
    // A file that grew, or one without a size (a pipe).
    if (text.size() > kMaxGraphFileBytes)
      throw base::ScenarioError(start, "", too_large(text.size()));
  }
  if (std::ferror(f.get()) != 0) {
    throw base::ScenarioError(start, "", "cannot read file: " + std::string(std::strerror(errno)));
  }
  return read_graph(text, path);
}

Config read_graph_workload(base::MapReader& w, const std::string& scenario_path) {
  Config c;
  {
    const base::Value v = w.required("graph");
    std::filesystem::path p(v.as_string());
    if (p.is_relative()) p = std::filesystem::path(scenario_path).parent_path() / p;
    c.graph_path = p.lexically_normal().string();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(c.graph_path, ec)) {
      v.fail(fmt::format("no graph file {} (paths are relative to the scenario's directory)",
                         c.graph_path));
    }
    if (const std::uintmax_t size = std::filesystem::file_size(c.graph_path, ec);
        !ec && size > kMaxGraphFileBytes) {
      v.fail(too_large(size));
    }
    c.graph = read_graph_file(c.graph_path);
  }
  if (auto p = w.optional("placement")) {
    c.placement = p->as_enum({"data-parallel", "degree-aware"}) == "degree-aware"
                      ? Placement::kDegreeAware
                      : Placement::kDataParallel;
  }
  if (c.placement == Placement::kDataParallel) {
    c.dp = w.required("gpus").as_u32(1, 1u << 24);
  } else {
    // Sub-op edges grow as mp^2 per dependency (gathering ops).
    c.mp = w.required("mp").as_u32(1, 256);
    c.dp = w.required("dp").as_u32(1, 1u << 24);
    if (std::uint64_t{c.mp} * c.dp > (1u << 24)) w.required("dp").fail("mp x dp: at most 2^24");
    // Without it, graph/setup.cpp takes the fabric's degree limit (or requires it).
    if (auto d = w.optional("degree")) c.degree = d->as_u32(2, 1u << 12);
    c.quantum = w.get_time_ps("quantum", c.quantum);
    if (c.quantum == 0) w.required("quantum").fail("must be more than 0");
  }
  const base::Value b = w.required("global_batch");
  c.global_batch = b.as_u32(1, 1u << 30);
  if (c.global_batch % c.dp != 0) {
    b.fail(fmt::format("must be a multiple of the data-parallel degree ({})", c.dp));
  }
  c.iterations = w.get_u32("iterations", 1, 1, 10'000);
  if (auto o = w.optional("optimizer")) {
    c.optimizer = o->as_enum({"adam", "sgd"}) == "sgd" ? Optimizer::kSgd : Optimizer::kAdam;
  }
  c.dp_overlap = w.get_bool("dp_overlap", c.dp_overlap);
  if (w.has("dp_bucket_bytes")) {
    c.dp_bucket_bytes = w.required("dp_bucket_bytes").as_bytes();
    if (c.dp_bucket_bytes == 0) w.required("dp_bucket_bytes").fail("must be at least 1B");
  }
  if (auto a = w.optional("algorithms")) {
    base::MapReader m = a->as_map();
    if (auto v = m.optional("all_reduce")) {
      c.all_reduce = *collective::parse_algorithm(v->as_enum(collective::algorithm_names()));
    }
    m.finish();
  }
  return c;
}

}  // namespace sipsim::workload::graph
