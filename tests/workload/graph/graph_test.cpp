// The op-graph workload: the reader's located errors and a 3-op chain on
// elect-flat whose iteration is computed by hand in both placements (a
// device whose ops cost their FLOPs plus bytes in nanoseconds); SiP-ML's
// Algorithm 1 itself is tested in tests/workload/mapping/. Runs at 1 and 3
// ranks (ctest).
#include "sipsim/workload/graph/graph.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>

#include "../../support/training.hpp"
#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/flat/elect_flat.hpp"
#include "sipsim/setup/setup.hpp"

namespace sipsim::workload::graph {
namespace {

using pdes::kNanosecond;
using pdes::Time;
using testing::LinearDevice;

Graph parse(const std::string& json) {
  return read_graph(json, "g.json");
}

// "key: message" of the reader's error, or "".
std::string error_of(const std::string& json) {
  try {
    parse(json);
  } catch (const base::ScenarioError& e) {
    return e.key_path() + ": " + e.message();
  }
  return "";
}

std::string ops(const std::string& body) {
  return "{\"batch\": 1, \"ops\": [\n" + body + "\n]}";
}

// The whole error, location first, or "".
std::string what_of(const std::string& json) {
  try {
    parse(json);
  } catch (const base::ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST(GraphReader, Reads) {
  const Graph g = parse(ops(
      R"({"name": "a", "flops": 10, "bytes": 4, "output_bytes": 8},
         {"name": "b", "kind": "elementwise", "flops": 3, "bytes": 2, "output_bytes": 1,
          "params_bytes": 2, "backward_flops": 5, "deps": ["c", 0]},
         {"name": "c", "flops": 1, "bytes": 1, "output_bytes": 1, "deps": [0]})"));
  ASSERT_EQ(g.ops.size(), 3u);
  EXPECT_EQ(g.ops[0].backward_flops, 20u);  // default 2 x forward
  EXPECT_EQ(g.ops[1].backward_flops, 5u);
  EXPECT_EQ(g.ops[1].kind, compute::OpKind::kElementwise);
  EXPECT_EQ(g.ops[1].deps, (std::vector<std::uint32_t>{2, 0}));
  EXPECT_EQ(g.order, (std::vector<std::uint32_t>{0, 2, 1}));  // producers first
  EXPECT_EQ(g.params_bytes(), 2u);
  EXPECT_EQ(g.precision, compute::Precision::kFp16);
}

TEST(GraphReader, ErrorsAreLocatedAtTheKey) {
  const std::string a = R"({"name": "a", "flops": 1, "bytes": 1, "output_bytes": 1})";
  EXPECT_EQ(error_of(ops(a + R"(, {"name": "b", "flops": 1, "bytes": 1, "output_bytes": 1,
                               "deps": ["x"]})")),
            "ops[1].deps[0]: unknown op 'x'");
  EXPECT_EQ(error_of(ops(a + R"(, {"name": "b", "flops": 1, "bytes": 1, "output_bytes": 1,
                               "deps": [7]})")),
            "ops[1].deps[0]: no op has index 7 (there are 2 ops)");
  EXPECT_EQ(error_of(ops(a + ", " + a)), "ops[1].name: duplicate op name 'a' (ops[0] has it)");
  EXPECT_EQ(error_of(ops(R"({"name": "a", "flops": -5, "bytes": 1, "output_bytes": 1})")),
            "ops[0].flops: must not be negative");
  EXPECT_EQ(error_of(ops(R"({"name": "a", "flops": 1, "bytes": 1})")).rfind("ops[0]", 0), 0u);
  EXPECT_NE(error_of(ops(R"({"name": "a", "flops": 1, "bytes": 1, "output_bytes": 1, "x": 1})"))
                .find("unknown key"),
            std::string::npos);
  // a -> b -> c -> a (each depends on the one before).
  const std::string cycle = error_of(ops(
      R"({"name": "a", "flops": 1, "bytes": 1, "output_bytes": 1, "deps": ["c"]},
         {"name": "b", "flops": 1, "bytes": 1, "output_bytes": 1, "deps": ["a"]},
         {"name": "c", "flops": 1, "bytes": 1, "output_bytes": 1, "deps": ["b"]})"));
  EXPECT_EQ(cycle.rfind("ops[", 0), 0u) << cycle;
  EXPECT_NE(cycle.find("].deps[0]: dependency cycle"), std::string::npos) << cycle;
  EXPECT_NE(cycle.find("a -> c -> b -> a"), std::string::npos) << cycle;
  EXPECT_EQ(error_of(ops(R"({"name": "a", "flops": 1, "bytes": 1, "output_bytes": 1,
                            "deps": ["a"]})"))
                .rfind("ops[0].deps[0]: dependency cycle", 0),
            0u);
  // The location is the file, line and column of the key's value.
  try {
    parse(ops(a + ",\n" +
              R"({"name": "b", "flops": 1, "bytes": 1, "output_bytes": 1, "deps": ["x"]})"));
    FAIL();
  } catch (const base::ScenarioError& e) {
    EXPECT_EQ(e.location().rfind("g.json:3:", 0), 0u) << e.location();
  }
}

// The file is JSON, not YAML: indentation by tabs is fine, and a column
// counts a tab as one character.
TEST(GraphReader, TabIndentedJson) {
  const Graph g = parse(
      "{\n\t\"batch\": 2,\n\t\"ops\": [\n\t\t{\n\t\t\t\"name\": \"a\",\n\t\t\t\"flops\": 1,\n"
      "\t\t\t\"bytes\": 1,\n\t\t\t\"output_bytes\": 1\n\t\t}\n\t]\n}\n");
  ASSERT_EQ(g.ops.size(), 1u);
  EXPECT_EQ(g.batch, 2u);
  EXPECT_EQ(g.name, "g");  // the file's stem
  EXPECT_EQ(what_of("{\n\t\"batch\": 0,\n\t\"ops\": []\n}"),
            "g.json:2:11: batch: must be between 1 and 1048576");
}

// Every error at the line and column where the offending key or value
// starts, with its key path. Op b is on line 3: `  {"name": "b", "flops": ...`.
TEST(GraphReader, EachErrorIsLocated) {
  const std::string a = R"(  {"name": "a", "flops": 1, "bytes": 1, "output_bytes": 1})";
  const auto two = [&a](const std::string& b) {
    return "{\"ops\": [\n" + a + ",\n  " + b + "\n]}";
  };
  const std::string b = R"({"name": "b", "flops": 1, "bytes": 1, "output_bytes": 1, "deps": )";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {two(R"({"name": "b", "flop": 1, "bytes": 1, "output_bytes": 1})"),
       "g.json:3:17: ops[1].flop: unknown key; did you mean 'flops'?"},
      {two(R"({"name": "b", "bytes": 1, "output_bytes": 1})"),
       "g.json:3:3: ops[1].flops: missing required key"},
      {two(R"({"name": "b", "flops": 72057594037927937, "bytes": 1, "output_bytes": 1})"),
       "g.json:3:26: ops[1].flops: must be at most 2^56 (72057594037927936)"},
      {two(R"({"name": "b", "flops": 99999999999999999999, "bytes": 1, "output_bytes": 1})"),
       "g.json:3:26: ops[1].flops: must be at most 2^56 (72057594037927936)"},
      {two(R"({"name": "b", "flops": -5, "bytes": 1, "output_bytes": 1})"),
       "g.json:3:26: ops[1].flops: must not be negative"},
      {two(R"({"name": "b", "flops": 1.5, "bytes": 1, "output_bytes": 1})"),
       "g.json:3:26: ops[1].flops: expected an integer, got 1.5"},
      {two(R"({"name": "b", "flops": "10", "bytes": 1, "output_bytes": 1})"),
       "g.json:3:26: ops[1].flops: expected an integer, got \"10\""},
      {two(R"({"name": "b", "flops": {"x": 1}, "bytes": 1, "output_bytes": 1})"),
       "g.json:3:26: ops[1].flops: expected an integer, got an object"},
      {two(R"({"name": "b", "kind": "matmull", "flops": 1, "bytes": 1, "output_bytes": 1})"),
       "g.json:3:25: ops[1].kind: unknown value 'matmull'; expected one of matmul, elementwise, "
       "nonlinear; did you mean 'matmul'?"},
      {two(R"({"name": "b", "gathers": 1, "flops": 1, "bytes": 1, "output_bytes": 1})"),
       "g.json:3:28: ops[1].gathers: expected true or false, got 1"},
      {two(R"({"name": "a", "flops": 1, "bytes": 1, "output_bytes": 1})"),
       "g.json:3:12: ops[1].name: duplicate op name 'a' (ops[0] has it)"},
      {two(R"({"name": "", "flops": 1, "bytes": 1, "output_bytes": 1})"),
       "g.json:3:12: ops[1].name: must not be empty"},
      {two(R"({"name": "b", "flops": 1, "flops": 2, "bytes": 1, "output_bytes": 1})"),
       "g.json:3:29: ops[1].flops: duplicate key 'flops' (first at line 3)"},
      {two(b + R"(["x"]})"), "g.json:3:69: ops[1].deps[0]: unknown op 'x'"},
      {two(b + R"(["0"]})"), "g.json:3:69: ops[1].deps[0]: unknown op '0'"},
      {two(b + R"([0, "x\"y"]})"), "g.json:3:72: ops[1].deps[1]: unknown op 'x\"y'"},
      {two(b + R"([7]})"), "g.json:3:69: ops[1].deps[0]: no op has index 7 (there are 2 ops)"},
      {two(b + R"(["a", 0]})"), "g.json:3:74: ops[1].deps[1]: 'a' is listed twice"},
      {two(b + R"([null]})"),
       "g.json:3:69: ops[1].deps[0]: expected an op name or index, got null"},
      {two(b + R"("a"})"),
       "g.json:3:68: ops[1].deps: must be a list of op names or indices, got \"a\""},
      {two(b + R"(["b"]})"),
       "g.json:3:69: ops[1].deps[0]: dependency cycle (each op depends on the next): b -> b"},
      {"{\"ops\": [\n  {\"name\": \"a\", \"flops\": 1, \"bytes\": 1, \"output_bytes\": 1, "
       "\"deps\": [\"b\"]},\n  " +
           b + R"(["a"]})" + "\n]}",
       "g.json:3:69: ops[1].deps[0]: dependency cycle (each op depends on the next): a -> b -> a"},
      {R"({"precision": "fp12", "ops": []})",
       "g.json:1:15: precision: unknown value 'fp12'; expected one of fp32, tf32, fp16, bf16, fp8; "
       "did you mean 'fp32'?"},
      {R"({"batch": 1, "ops": []})", "g.json:1:21: ops: must list at least one op"},
      {R"({"batch": 1})", "g.json:1:1: ops: missing required key"},
      {R"({"batch": 1, "batch": 2})",
       "g.json:1:14: batch: duplicate key 'batch' (first at line 1)"},
      {R"({"ops": [1]})", "g.json:1:10: ops[0]: expected an op (an object), got 1"},
      {R"({"ops": {}})", "g.json:1:9: ops: must be a list of ops, got an object"},
      {R"({"opps": []})", "g.json:1:2: opps: unknown key; did you mean 'ops'?"},
      // JSON syntax: the token where it goes wrong, and why.
      {"{\"ops\": [\n  {\"name\": \"a\" \"flops\": 1}\n]}",
       "g.json:2:16: ops[0]: not JSON: unexpected string literal; expected '}' (while parsing an "
       "object)"},
      {"{\"ops\": [\n  {\"name\": \"a\",}\n]}",
       "g.json:2:16: ops[0]: not JSON: unexpected '}'; expected string literal (while parsing an "
       "object key)"},
      {"{\"ops\": [",
       "g.json:1:10: ops[0]: not JSON: unexpected end of input; expected '[', '{', "
       "or a literal (while parsing a value)"},
      {"{\"ops\": [" + a.substr(2) + "]} x",
       "g.json:1:69: not JSON: invalid literal; expected end of input (while parsing a value)"},
  };
  for (const auto& [json, expected] : cases) EXPECT_EQ(what_of(json), expected) << json;
}

// A message quotes at most one short line of the file: not a whole file
// that was never a graph (`--set workload.graph=/etc/passwd`).
TEST(GraphReader, QuotesAtMostOneShortLine) {
  const std::string long_line(200, 'x');
  EXPECT_EQ(
      what_of("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1\n"),
      "g.json:1:1: not JSON: expected '{' at the start (got 'root:x:0:0:root:/root:/bin/bash')");
  EXPECT_EQ(
      what_of("\n  " + long_line + "\n" + long_line),
      "g.json:2:3: not JSON: expected '{' at the start (got '" + std::string(60, 'x') + "…')");
  // Control characters and bytes that are not UTF-8 (a binary file) as '?'.
  EXPECT_EQ(what_of(std::string("\x7f"
                                "ELF\x02\x01\xc3\xa9\xff\xc3\n{",
                                11)),
            "g.json:1:1: not JSON: expected '{' at the start (got '?ELF?"
            "?\xc3\xa9?"
            "?')");
  EXPECT_EQ(what_of(""),
            "g.json:1:1: the graph file is empty; it needs a JSON object with a list of ops");
  // An unterminated string, a name, a key and a cycle of long names.
  const std::string name(100000, 'n');
  for (const std::string& json :
       {"{\"ops\": [{\"name\": \"" + name + "\n" + name, "{\"" + name + "\": 1}",
        ops("{\"name\": \"" + name +
            "\", \"flops\": 1, \"bytes\": 1, \"output_bytes\": 1, "
            "\"deps\": [\"" +
            name + "\"]}"),
        ops("{\"name\": \"a\", \"kind\": \"" + name + "\"}")}) {
    const std::string what = what_of(json);
    EXPECT_NE(what, "");
    EXPECT_LT(what.size(), 400u) << what.substr(0, 400);
  }
}

// deps: a JSON string is always a name (a quoted "1" too); a plain integer
// is an index, unless an op has it as its name (names win).
TEST(GraphReader, QuotedIndexIsAName) {
  const std::string a = R"({"name": "a", "flops": 1, "bytes": 1, "output_bytes": 1})";
  const std::string one = R"({"name": "1", "flops": 1, "bytes": 1, "output_bytes": 1})";
  const auto with = [](const std::string& deps) {
    return R"({"name": "c", "flops": 1, "bytes": 1, "output_bytes": 1, "deps": )" + deps + "}";
  };
  EXPECT_EQ(parse(ops(a + ",\n" + a.substr(0, 10) + "b" + a.substr(11) + ",\n" + with("[1]")))
                .ops[2]
                .deps,
            (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(
      error_of(ops(a + ",\n" + a.substr(0, 10) + "b" + a.substr(11) + ",\n" + with("[\"1\"]"))),
      "ops[2].deps[0]: unknown op '1'");
  // Op 0 is named "1": both spellings name it, and index 1 is unreachable.
  EXPECT_EQ(parse(ops(one + ",\n" + a + ",\n" + with("[\"1\"]"))).ops[2].deps,
            (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(parse(ops(one + ",\n" + a + ",\n" + with("[1]"))).ops[2].deps,
            (std::vector<std::uint32_t>{0}));
}

// A large graph, built here (about 17 MB of JSON): every op, dependency and
// number read back.
TEST(GraphReader, LargeGraph) {
  constexpr std::uint32_t kOps = 200'000;
  std::string json = "{\"name\": \"large\", \"ops\": [\n";
  for (std::uint32_t i = 0; i < kOps; ++i) {
    const std::string n = std::to_string(i);
    std::string deps;
    if (i > 0) deps = "\"op" + std::to_string(i - 1) + "\"";
    if (i > 0 && i % 5 == 0) deps += ", " + std::to_string(i - 3);
    json += (i == 0 ? "  {\"name\": \"op" : ",\n  {\"name\": \"op") + n + "\", \"kind\": \"" +
            (i % 2 == 0 ? "matmul" : "elementwise") + "\", \"flops\": " + std::to_string(1000 + i) +
            ", \"bytes\": " + std::to_string(2 * i) +
            ", \"output_bytes\": " + std::to_string(3 * i) +
            ", \"params_bytes\": " + std::to_string(i % 4) + ", \"deps\": [" + deps + "]}";
  }
  json += "\n]}\n";
  const Graph g = parse(json);
  EXPECT_EQ(g.name, "large");
  ASSERT_EQ(g.ops.size(), kOps);
  ASSERT_EQ(g.order.size(), kOps);
  std::uint64_t params = 0;
  for (std::uint32_t i = 0; i < kOps; ++i) {
    const GraphOp& op = g.ops[i];
    ASSERT_EQ(op.name, "op" + std::to_string(i));
    ASSERT_EQ(op.kind, i % 2 == 0 ? compute::OpKind::kMatmul : compute::OpKind::kElementwise);
    ASSERT_EQ(op.flops, 1000u + i);
    ASSERT_EQ(op.backward_flops, 2 * (1000u + i));
    ASSERT_EQ(op.bytes, 2u * i);
    ASSERT_EQ(op.output_bytes, 3u * i);
    ASSERT_EQ(op.gathers, i % 4 != 0);
    std::vector<std::uint32_t> deps;
    if (i > 0) deps.push_back(i - 1);
    if (i > 0 && i % 5 == 0) deps.push_back(i - 3);
    ASSERT_EQ(op.deps, deps) << i;
    ASSERT_EQ(g.order[i], i);  // a chain: the file's order
    params += i % 4;
  }
  EXPECT_EQ(g.params_bytes(), params);
}

// A graph file may hold at most 1 GiB; the size is checked before reading
// (a sparse file here).
TEST(GraphReader, SizeLimit) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("sipsim-graph-large-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path).put('{');
  std::filesystem::resize_file(path, kMaxGraphFileBytes + 1);
  try {
    read_graph_file(path.string());
    ADD_FAILURE();
  } catch (const base::ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()),
              path.string() +
                  ":1:1: the graph file has 1073741825 bytes, more than the 1GiB a graph file "
                  "may have");
  }
  std::filesystem::remove(path);
}

// A gathering op by default has weights (split by output features); a
// `gathers` key says otherwise (the placement: workload/mapping/).
TEST(GraphReader, GathersByDefaultWithWeights) {
  const Graph g = parse(ops(
      R"({"name": "A", "flops": 1, "bytes": 1, "output_bytes": 100},
         {"name": "B", "flops": 1, "bytes": 1, "output_bytes": 100, "params_bytes": 8,
          "deps": ["A"]},
         {"name": "C", "flops": 1, "bytes": 1, "output_bytes": 100, "deps": ["B"]},
         {"name": "D", "flops": 1, "bytes": 1, "output_bytes": 100, "params_bytes": 8,
          "gathers": false, "deps": ["C"]})"));
  EXPECT_TRUE(g.ops[1].gathers);
  EXPECT_FALSE(g.ops[3].gathers);
}

constexpr std::uint64_t k100G = 100'000'000'000;  // 16 B take 1.28 ns
constexpr Time kLatency = 1000 * kNanosecond;

// A -> B -> C, for the graph's batch of 1; at 2 samples per GPU (or MP
// group): A 20 FLOPs + 8 B = 28 ns forward, 40 + 16 = 56 ns backward; B (4 B
// of weights) 40 + (4 + 2 x 6) = 56 ns and 80 + 32 = 112 ns; C 10 + 4 = 14
// and 20 + 8 = 28 ns; activations of 16 B.
const char* kChain = R"({"batch": 1, "precision": "fp16", "ops": [
  {"name": "A", "flops": 10, "bytes": 4, "output_bytes": 8},
  {"name": "B", "flops": 20, "bytes": 10, "output_bytes": 8, "params_bytes": 4, "deps": ["A"]},
  {"name": "C", "flops": 5, "bytes": 2, "output_bytes": 2, "deps": ["B"]}]})";

// A diamond: A -> B, C -> D; C (no weights) 40 FLOPs + 20 B = 60 ns forward,
// 80 + 40 = 120 ns backward; D as C above (14 and 28 ns).
const char* kDiamond = R"({"batch": 1, "precision": "fp16", "ops": [
  {"name": "A", "flops": 10, "bytes": 4, "output_bytes": 8},
  {"name": "B", "flops": 20, "bytes": 10, "output_bytes": 8, "params_bytes": 4, "deps": ["A"]},
  {"name": "C", "flops": 20, "bytes": 10, "output_bytes": 8, "deps": ["A"]},
  {"name": "D", "flops": 5, "bytes": 2, "output_bytes": 2, "deps": ["B", "C"]}]})";

struct Outcome {
  std::unique_ptr<GraphResults> results;
  std::string unfinished;
};

Outcome run(const Config& c) {
  Outcome r;
  r.results = std::make_unique<GraphResults>(c, fabric::make_elect_flat(c.gpus(), k100G, kLatency),
                                             std::make_unique<LinearDevice>());
  r.unfinished = testing::run_training(*r.results);
  return r;
}

Time column(const GraphResults& r, std::uint32_t gpu, Category c) {
  return r.breakdown(0, gpu)[static_cast<std::size_t>(c)];
}
Time sum(const Breakdown& b) {
  return std::accumulate(b.begin(), b.end(), Time{0});
}

// Data-parallel on 2 GPUs, global batch 4: forward 28 + 56 + 14 = 98 ns,
// backward 28 + 112 + 56 = 196 ns; the ring all-reduce of B's 4 B (2 steps
// of 2 B: 0.16 ns + 1 us each) 2000.32 ns; SGD on 2 parameters 4 FLOPs +
// 12 B = 16 ns. After the whole backward (dp_overlap false): iteration
// 2310.32 ns. In buckets (the default), B's bucket starts when B's backward
// ends (238 ns) and overlaps A's (56 ns): 2254.32 ns, 1944.32 ns exposed.
TEST(GraphWorkload, DataParallelChainByHand) {
  for (const bool overlap : {false, true}) {
    Config c;
    c.graph = parse(kChain);
    c.optimizer = Optimizer::kSgd;
    c.dp = 2;
    c.global_batch = 4;
    c.iterations = 2;
    c.dp_overlap = overlap;
    const Outcome r = run(c);
    ASSERT_EQ(r.unfinished, "");
    const Time iteration = overlap ? 2254320u : 2310320u;
    for (std::uint32_t i = 0; i < 2; ++i) EXPECT_EQ(r.results->iteration_time(i), iteration) << i;
    for (std::uint32_t g = 0; g < 2; ++g) {
      EXPECT_EQ(column(*r.results, g, Category::kForward), 98 * kNanosecond);
      EXPECT_EQ(column(*r.results, g, Category::kBackward), 196 * kNanosecond);
      EXPECT_EQ(column(*r.results, g, Category::kDpComm), overlap ? 1944320u : 2000320u);
      EXPECT_EQ(column(*r.results, g, Category::kOptimizer), 16 * kNanosecond);
      EXPECT_EQ(sum(r.results->breakdown(0, g)), iteration);
    }
  }
}

// Buckets: with 1-byte buckets each op with weights gets its own all-reduce,
// in backward order; every GPU's program has one per such op.
TEST(GraphWorkload, DataParallelBuckets) {
  Config c;
  c.graph = parse(kDiamond);
  c.graph.ops[2].params_bytes = 6;  // C has weights too
  c.dp = 2;
  c.global_batch = 4;
  c.dp_bucket_bytes = 1;
  const ProgramSet set = make_programs(c, LinearDevice(), 2);
  std::vector<std::uint64_t> sizes;
  for (std::uint32_t i = 0; i < set.programs[0].size(); ++i) {
    const Op& op = set.programs[0].op(i);
    if (op.kind == OpKind::kCollective) sizes.push_back(set.programs[0].call(op.call).bytes);
  }
  EXPECT_EQ(sizes, (std::vector<std::uint64_t>{6, 4}));  // C's backward comes first
  const Outcome r = run(c);
  ASSERT_EQ(r.unfinished, "");
}

// The optimizer step: SGD 2 FLOPs + 3 x 2 B per parameter; Adam (the
// default, as the transformer's) 12 FLOPs + (24 + 2 x 2) B.
TEST(GraphWorkload, OptimizerStep) {
  Config c;
  c.graph = parse(kChain);  // B: 4 B, 2 parameters
  c.dp = 1;
  c.global_batch = 1;
  for (const auto& [optimizer, ps] : {std::pair{Optimizer::kSgd, 16 * kNanosecond},
                                      std::pair{Optimizer::kAdam, 80 * kNanosecond}}) {
    c.optimizer = optimizer;
    const ProgramSet set = make_programs(c, LinearDevice(), 1);
    const Program& p = set.programs[0];
    const Op& last = p.op(p.size() - 1);
    EXPECT_EQ(last.category, Category::kOptimizer);
    EXPECT_EQ(last.duration, ps);
  }
}

// Degree-aware, mp 2, dp 1, degree 2, every op whole (far below the
// quantum), the diamond: A on GPU 0; B on 0 too (GPUs free by A's end tie,
// and the tie goes to A's GPU), C on 1 (it can start at once there), D on 0
// (a tie, the smallest index). GPU 0: A 0-28, B 28-84; A's 16 B reach GPU 1
// at 1029.28 (1.28 ns + 1 us); C 1029.28-1089.28, its output at 2090.56; D
// -2104.56; D's backward -2132.56, B's -2244.56; C's gradient reaches GPU 1
// at 3133.84, C's backward -3253.84, its gradient to A at 4255.12; A's
// backward -4311.12, B's optimizer step (16 ns) -4327.12 ns. GPU 0 waits
// from 84 and from 2244.56 ns: bubble until GPU 1 sends (1089.28, 3253.84),
// pp-comm for the transfer (1001.28 ns each).
TEST(GraphWorkload, DegreeAwareDiamondByHand) {
  Config c;
  c.graph = parse(kDiamond);
  c.optimizer = Optimizer::kSgd;
  c.placement = Placement::kDegreeAware;
  c.mp = 2;
  c.dp = 1;
  c.degree = 2;
  c.global_batch = 2;
  const PlacementResult p = place_job(c, LinearDevice());
  std::vector<std::uint32_t> devices;
  for (const SubOp& s : p.subops) devices.push_back(s.device);
  EXPECT_EQ(devices, (std::vector<std::uint32_t>{0, 0, 1, 0}));
  EXPECT_EQ(traffic_matrix(p, 2), (std::vector<std::uint64_t>{0, 32, 32, 0}));
  const Outcome r = run(c);
  ASSERT_EQ(r.unfinished, "");
  EXPECT_EQ(r.results->iteration_time(0), 4327120u);
  EXPECT_EQ(column(*r.results, 0, Category::kForward), 98 * kNanosecond);
  EXPECT_EQ(column(*r.results, 0, Category::kBackward), 196 * kNanosecond);
  EXPECT_EQ(column(*r.results, 0, Category::kOptimizer), 16 * kNanosecond);
  EXPECT_EQ(column(*r.results, 0, Category::kPpComm), 2002560u);
  EXPECT_EQ(r.results->breakdown(0, 0)[kBubbleColumn], 2014560u);
  EXPECT_EQ(sum(r.results->breakdown(0, 0)), 4327120u);
  // GPU 1: C's 60 + 120 ns; its transfers in (1001.28 ns each) and sends
  // (1.28 ns each) pp-comm, the rest bubble; it ends with its last send.
  EXPECT_EQ(column(*r.results, 1, Category::kForward), 60 * kNanosecond);
  EXPECT_EQ(column(*r.results, 1, Category::kBackward), 120 * kNanosecond);
  EXPECT_EQ(column(*r.results, 1, Category::kOptimizer), 0u);
  EXPECT_EQ(column(*r.results, 1, Category::kPpComm), 2005120u);
  EXPECT_EQ(sum(r.results->breakdown(0, 1)), 3255120u);
}

// Degree-aware on 8 GPUs (mp 4 x dp 2) with splitting, residuals and both
// kinds of communication: every program finishes and the breakdown adds up.
TEST(GraphWorkload, DegreeAwareHybridFinishes) {
  std::string body;
  for (int i = 0; i < 12; ++i) {
    body += (i > 0 ? ",\n" : "") + std::string("{\"name\": \"op") + std::to_string(i) +
            "\", \"flops\": " + std::to_string(1000 * (1 + i % 4)) +
            ", \"bytes\": 100, \"output_bytes\": 64, \"params_bytes\": 32, \"deps\": [" +
            (i == 0 ? "" : std::to_string(i - 1)) +
            (i >= 3 && i % 3 == 0 ? ", " + std::to_string(i - 3) : "") + "]}";
  }
  Config c;
  c.graph = parse(ops(body));
  c.placement = Placement::kDegreeAware;
  c.mp = 4;
  c.dp = 2;
  c.degree = 3;
  c.global_batch = 4;
  c.quantum = 1000 * kNanosecond;
  c.iterations = 2;
  const Outcome r = run(c);
  ASSERT_EQ(r.unfinished, "");
  EXPECT_GT(r.results->programs().programs.size(), 1u);
  Time longest = 0;
  std::uint32_t computing = 0;
  for (std::uint32_t g = 0; g < 8; ++g) {
    longest = std::max(longest, sum(r.results->breakdown(0, g)));
    computing += column(*r.results, g, Category::kForward) > 0 ? 1 : 0;
  }
  EXPECT_EQ(longest, r.results->iteration_time(0));
  EXPECT_GE(computing, 4u);  // at least 2 GPUs of each MP group
  EXPECT_EQ(check_placement(place_job(c, LinearDevice()), 4, 2), "");
}

// Folded groups (a ring fabric): a bijection on each group's nodes, and
// neighbours in the group's ring at most 2 nodes apart.
TEST(GraphWorkload, FoldedGroupsKeepRingNeighboursClose) {
  for (std::uint32_t k = 1; k <= 17; ++k) {
    std::vector<bool> used(k, false);
    for (std::uint32_t r = 0; r < k; ++r) {
      const std::uint32_t s = mapping::folded_slot(r, k);
      ASSERT_LT(s, k);
      EXPECT_FALSE(used[s]) << "k " << k << " r " << r;
      used[s] = true;
      const std::uint32_t next = mapping::folded_slot((r + 1) % k, k);
      EXPECT_LE(s > next ? s - next : next - s, 2u) << "k " << k << " r " << r;
    }
  }
  EXPECT_EQ(mapping::folded_slot(3, 4), 1u);  // 0, 3, 1, 2 in node order
  EXPECT_EQ(mapping::folded_slot(1, 4), 2u);
}

// The same job folded runs the same programs on permuted nodes of each group.
TEST(GraphWorkload, FoldedGroupsPermuteTheBindingsWithinEachGroup) {
  Config c;
  c.graph = parse(kDiamond);
  c.placement = Placement::kDegreeAware;
  c.mp = 4;
  c.dp = 2;
  c.degree = 3;
  c.global_batch = 4;
  c.quantum = 1000 * kNanosecond;
  const ProgramSet straight = make_programs(c, LinearDevice(), 8);
  c.fold_groups = true;
  const ProgramSet folded = make_programs(c, LinearDevice(), 8);
  for (std::uint32_t g = 0; g < 2; ++g) {
    for (std::uint32_t r = 0; r < 4; ++r) {
      const Binding& a = *straight.bindings[g * 4 + r];
      const Binding& b = *folded.bindings[g * 4 + mapping::folded_slot(r, 4)];
      EXPECT_EQ(a.program, b.program);
      ASSERT_EQ(a.peers.size(), b.peers.size());
      for (std::size_t p = 0; p < a.peers.size(); ++p) {
        EXPECT_EQ(b.peers[p], g * 4 + mapping::folded_slot(a.peers[p] % 4, 4));
      }
    }
  }
}

// The workload's keys: every bad key is an error at that key; the graph
// path is relative to the scenario's directory.
class GraphConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("sipsim-graph-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_ / "graphs");
    std::ofstream(dir_ / "graphs" / "chain.json") << kChain;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string error_of(const std::string& workload) const {
    const std::string text =
        "fabric: {type: elect-flat, nodes: 8, bandwidth: 100Gbps, latency: 1us}\n"
        "workload:\n  type: graph\n  graph: graphs/chain.json\n" +
        workload;
    try {
      setup::read(base::Document::load_string(text, (dir_ / "s.yaml").string()));
    } catch (const base::ScenarioError& e) {
      return e.key_path() + ": " + e.message();
    }
    return "";
  }
  std::filesystem::path dir_;
};

TEST_F(GraphConfig, Errors) {
  EXPECT_EQ(error_of("  gpus: 4\n  global_batch: 8\n"), "");
  EXPECT_EQ(
      error_of("  gpus: 4\n  global_batch: 8\n  dp_overlap: false\n  dp_bucket_bytes: 1MiB\n"), "");
  EXPECT_EQ(
      error_of("  gpus: 4\n  global_batch: 8\n  optimizer: lamb\n").rfind("workload.optimizer:", 0),
      0u);
  EXPECT_EQ(error_of("  gpus: 4\n  global_batch: 8\n  dp_bucket_bytes: 0B\n")
                .rfind("workload.dp_bucket_bytes:", 0),
            0u);
  EXPECT_EQ(error_of("  placement: degree-aware\n  mp: 2\n  dp: 4\n  degree: 2\n"
                     "  global_batch: 8\n  quantum: 5us\n"),
            "");
  EXPECT_EQ(error_of("  gpus: 16\n  global_batch: 16\n").rfind("workload.gpus:", 0), 0u);
  EXPECT_EQ(error_of("  gpus: 4\n  global_batch: 6\n").rfind("workload.global_batch:", 0), 0u);
  EXPECT_EQ(error_of("  placement: degree-aware\n  mp: 2\n  dp: 4\n  degree: 1\n"
                     "  global_batch: 8\n")
                .rfind("workload.degree:", 0),
            0u);
  EXPECT_EQ(error_of("  placement: diagonal\n  gpus: 4\n  global_batch: 8\n")
                .rfind("workload.placement:", 0),
            0u);
  EXPECT_EQ(error_of("  gpus: 4\n  global_batch: 8\n  algorithms: {all_reduce: foo}\n")
                .rfind("workload.algorithms.all_reduce:", 0),
            0u);
  EXPECT_NE(error_of("  gpus: 4\n  global_batch: 8\n  mp: 2\n").find("unknown key"),
            std::string::npos);
  // A file over the limit is refused at the key, before it is read (a sparse file).
  std::ofstream(dir_ / "graphs" / "huge.json").put('{');
  std::filesystem::resize_file(dir_ / "graphs" / "huge.json", kMaxGraphFileBytes + 1);
  try {
    setup::read(base::Document::load_string(
        "fabric: {type: elect-flat, nodes: 8, bandwidth: 100Gbps, latency: 1us}\n"
        "workload: {type: graph, graph: graphs/huge.json, gpus: 2, global_batch: 2}\n",
        (dir_ / "s.yaml").string()));
    ADD_FAILURE();
  } catch (const base::ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()), (dir_ / "s.yaml").string() +
                                         ":2:32: workload.graph: the graph file has 1073741825 "
                                         "bytes, more than the 1GiB a graph file may have");
  }
  const std::string text =
      "fabric: {type: elect-flat, nodes: 8, bandwidth: 100Gbps, latency: 1us}\n"
      "workload: {type: graph, graph: graphs/none.json, gpus: 2, global_batch: 2}\n";
  try {
    setup::read(base::Document::load_string(text, (dir_ / "s.yaml").string()));
    FAIL();
  } catch (const base::ScenarioError& e) {
    EXPECT_EQ(e.key_path(), "workload.graph");
  }
}

}  // namespace
}  // namespace sipsim::workload::graph
