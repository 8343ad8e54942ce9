// The op-graph file (docs/models.md, "Op graphs and SiP-ML placement") and
// the keys of a `workload: {type: graph}` section (docs/scenarios.md). The
// graph is JSON read through base::Document (YAML 1.2 reads JSON), so every
// error names the file, line, column and key.
#include <spdlog/fmt/fmt.h>

#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

#include "sipsim/workload/graph/graph.hpp"

namespace sipsim::workload::graph {

namespace {

// Each op's numbers stay below 2^56 so that scaling by a batch ratio and
// summing over a few thousand ops stays well inside 64 bits (setup checks
// the scaled costs again).
constexpr std::uint64_t kMaxNumber = std::uint64_t{1} << 56;

std::uint64_t read_number(base::MapReader& m, std::string_view key, bool required) {
  if (!required && !m.has(key)) return 0;
  const base::Value v = m.required(key);
  const std::uint64_t x = v.as_uint();
  if (x > kMaxNumber) v.fail(fmt::format("must be at most 2^56 ({})", kMaxNumber));
  return x;
}

compute::Precision read_precision(const base::Value& v) {
  const std::vector<std::string> names = {"fp32", "tf32", "fp16", "bf16", "fp8"};
  const std::string name = v.as_enum(names);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<compute::Precision>(i);
  }
  return compute::Precision::kFp16;
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

Graph read_graph(const base::Document& document) {
  base::MapReader root = document.root().as_map();
  Graph g;
  g.name = root.get_string("name", std::filesystem::path(document.name()).stem().string());
  root.get_string("description", "");
  g.batch = root.get_u32("batch", 1, 1, 1u << 20);
  if (auto p = root.optional("precision")) g.precision = read_precision(*p);
  const base::Value ops_value = root.required("ops");
  if (!ops_value.is_list()) ops_value.fail("must be a list of ops");
  const std::vector<base::Value> items = ops_value.as_list();
  if (items.empty()) ops_value.fail("must list at least one op");
  if (items.size() > (1u << 20)) ops_value.fail("at most 2^20 ops");
  root.finish();

  // First pass: names, numbers; the dependencies' values kept for errors.
  std::unordered_map<std::string, std::uint32_t> index;
  std::vector<std::vector<base::Value>> dep_values(items.size());
  g.ops.resize(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    base::MapReader m = items[i].as_map();
    GraphOp& op = g.ops[i];
    const base::Value name = m.required("name");
    op.name = name.as_string();
    if (op.name.empty()) name.fail("must not be empty");
    if (!index.emplace(op.name, static_cast<std::uint32_t>(i)).second) {
      name.fail(fmt::format("duplicate op name '{}' (ops[{}] has it)", op.name, index[op.name]));
    }
    if (auto k = m.optional("kind")) {
      const std::string kind = k->as_enum({"matmul", "elementwise", "nonlinear"});
      op.kind = kind == "matmul"        ? compute::OpKind::kMatmul
                : kind == "elementwise" ? compute::OpKind::kElementwise
                                        : compute::OpKind::kNonlinear;
    }
    op.flops = read_number(m, "flops", true);
    op.bytes = read_number(m, "bytes", true);
    op.output_bytes = read_number(m, "output_bytes", true);
    op.params_bytes = read_number(m, "params_bytes", false);
    op.gathers = m.get_bool("gathers", op.params_bytes > 0);
    op.backward_flops =
        m.has("backward_flops") ? read_number(m, "backward_flops", true) : 2 * op.flops;
    if (auto d = m.optional("deps")) {
      if (!d->is_list()) d->fail("must be a list of op names or indices");
      dep_values[i] = d->as_list();
    }
    m.finish();
  }
  // Second pass: dependencies by name (a string) or index (a plain integer).
  for (std::size_t i = 0; i < items.size(); ++i) {
    for (const base::Value& d : dep_values[i]) {
      if (!d.is_scalar()) d.fail("expected an op name or index");
      const std::string& s = d.yaml().Scalar();
      const bool quoted = d.yaml().Tag() == "!";
      std::uint32_t dep = 0;
      if (auto it = index.find(s); it != index.end()) {
        dep = it->second;
      } else if (!quoted && !s.empty() && s.find_first_not_of("0123456789") == std::string::npos) {
        const std::uint64_t x = d.as_uint();
        if (x >= items.size()) {
          d.fail(fmt::format("no op has index {} (there are {} ops)", x, items.size()));
        }
        dep = static_cast<std::uint32_t>(x);
      } else {
        d.fail(fmt::format("unknown op '{}'", s));
      }
      for (const std::uint32_t earlier : g.ops[i].deps) {
        if (earlier == dep) d.fail(fmt::format("'{}' is listed twice", g.ops[dep].name));
      }
      g.ops[i].deps.push_back(dep);
    }
  }
  // Kahn's topological order, the file's order among ready ops.
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
  if (g.order.size() != n) {
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
    std::size_t t = 0;
    while (path[t] != at) ++t;
    std::string cycle;
    for (std::size_t j = t; j < path.size(); ++j) cycle += g.ops[path[j]].name + " -> ";
    cycle += g.ops[at].name;
    const std::uint32_t last = path.back();
    for (std::size_t j = 0; j < g.ops[last].deps.size(); ++j) {
      if (g.ops[last].deps[j] == at) {
        dep_values[last][j].fail("dependency cycle (each op depends on the next): " + cycle);
      }
    }
  }
  return g;
}

Graph read_graph_file(const std::string& path) {
  return read_graph(base::Document::load_file(path));
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
    // Without it, setup/ takes the fabric's degree limit (or requires it).
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
