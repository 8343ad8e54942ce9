// The loader against mutated scenarios: a few thousand variants of the shipped
// scenarios/**/*.yaml (lines deleted, duplicated or swapped, values retyped,
// keys misspelt, random bytes, deep nesting, aliases, tabs, second documents,
// huge numbers, wrong units, --set overrides) go through what `sipsim
// validate` runs: base::Document::load_string, setup::read and setup::build
// without `auto`'s estimates. Each must end in success or in a
// base::ScenarioError whose message starts with a location ("name:line:col: "
// or "--set "), within a time bound, and nothing else may escape. Each
// scenario is a test of its own with a fixed seed, so a failure reproduces;
// the failing text is printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "sipsim/setup/setup.hpp"
#include "support/fuzz.hpp"

namespace sipsim::setup {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

using fuzz::kSlowdown;
using fuzz::Rng;
// Per case and per scenario: guards against a validation gone pathological
// (docs/scenarios.md: validate takes well under a second), with room for a
// machine whose two cores run the rest of ctest at the same time (all
// scenarios take 35-50 s alone); speed itself is the benchmarks' to check.
constexpr double kCaseLimitSeconds = 2.0 * kSlowdown;
constexpr double kScenarioLimitSeconds = 60.0 * kSlowdown;
constexpr std::uint64_t kSeed = 20261123;
// Cases per scenario: a scenario that takes a while to build (a fabric of
// 16,384 nodes or more) gets fewer, so the test stays well under a minute.
constexpr int kCasesPerSmallScenario = 200;
constexpr int kCasesPerLargeScenario = 40;
constexpr std::uint32_t kLargeNodes = 16384;
constexpr double kSlowScenarioSeconds = 0.5 * kSlowdown;
constexpr double kLargeScenarioSeconds = 0.05 * kSlowdown;

struct Base {
  std::string name;  // relative to scenarios/
  std::string text;
  bool large = false;
};
// gtest names a failing case's parameter by this (not the scenario's text).
void PrintTo(const Base& base, std::ostream* out) {
  *out << base.name;
}

struct Case {
  std::string text;
  std::vector<std::string> overrides;
  std::string what;  // the mutations, for the failure message
};

const std::vector<std::string>& values() {
  static const std::vector<std::string> kValues = {
      "",
      "~",
      "null",
      "0",
      "1",
      "-1",
      "2",
      "3",
      "7",
      "100",
      "0.5",
      "-0.5",
      "1e400",
      "1e-400",
      ".inf",
      ".nan",
      "99999999999999999999",
      "18446744073709551615",
      "18446744073709551616",
      "4294967296",
      "16777217",
      "-9223372036854775809",
      "true",
      "yes",
      "abc",
      "\"quoted\"",
      "'single'",
      "[1, 2]",
      "[]",
      "{}",
      "{a: 1}",
      "[[[[1]]]]",
      "0s",
      "0ps",
      "1ps",
      "1.5ps",
      "1us",
      "-1us",
      "1 us",
      "1e30s",
      "213days",
      "1GiB",
      "0B",
      "1B",
      "3b",
      "16000PiB",
      "1EiB",
      "1bps",
      "0bps",
      "400Gbps",
      "1e30bps",
      "auto",
      "ring",
      "direct",
      "ramp-x",
      "all-to-all",
      "superpod",
      "cluster",
      "ramp",
      "phold",
      "&x 1",
      "*x",
      "!!str 1",
      "!!binary abc",
      "|\n  text",
      "@",
      "`",
      "%",
      "1:2",
      "0x10",
      "+5",
      "1_000",
  };
  return kValues;
}

// Every documented key (docs/scenarios.md), for overrides of keys the shipped
// scenarios leave at their defaults.
const std::vector<std::string>& documented_keys() {
  static const std::vector<std::string> kKeys = {"name",
                                                 "seed",
                                                 "simulation.end_time",
                                                 "simulation.engine",
                                                 "simulation.progress_interval",
                                                 "fabric.type",
                                                 "fabric.nodes",
                                                 "fabric.bandwidth",
                                                 "fabric.latency",
                                                 "fabric.preset",
                                                 "fabric.server_size",
                                                 "fabric.intra.bandwidth",
                                                 "fabric.intra.switch_latency",
                                                 "fabric.intra.propagation",
                                                 "fabric.nic.per",
                                                 "fabric.nic.bandwidth",
                                                 "fabric.tiers",
                                                 "fabric.chunk",
                                                 "fabric.io_latency",
                                                 "fabric.dims",
                                                 "fabric.link_bandwidth",
                                                 "fabric.hop_latency",
                                                 "fabric.ports",
                                                 "fabric.levels",
                                                 "fabric.switch_latency",
                                                 "fabric.propagation",
                                                 "fabric.degree",
                                                 "fabric.x",
                                                 "fabric.J",
                                                 "fabric.Lambda",
                                                 "fabric.b",
                                                 "fabric.line_rate",
                                                 "fabric.subnet",
                                                 "fabric.slot",
                                                 "fabric.reconfiguration",
                                                 "fabric.permissive",
                                                 "fabric.ignore_power_budget",
                                                 "fabric.extra_transceivers",
                                                 "fabric.physical.tx_launch_dbm",
                                                 "fabric.physical.soa_gain_db",
                                                 "fabric.physical.rx_sensitivity_dbm",
                                                 "fabric.physical.transceiver_w",
                                                 "fabric.physical.soa_in_transceiver",
                                                 "compute.preset",
                                                 "compute.dtype",
                                                 "compute.memory_bandwidth",
                                                 "compute.peak_tflops",
                                                 "compute.model",
                                                 "compute.memory_capacity",
                                                 "compute.matmul_tflops.fp16",
                                                 "compute.matmul_tflops.bf16",
                                                 "compute.vector_tflops.fp32",
                                                 "compute.amped.frequency",
                                                 "compute.amped.cores",
                                                 "compute.amped.fu",
                                                 "compute.amped.fu_width",
                                                 "compute.amped.fu_bits",
                                                 "compute.amped.nonlinear_units",
                                                 "compute.amped.nonlinear_width",
                                                 "compute.amped.nonlinear_bits",
                                                 "compute.efficiency.a",
                                                 "compute.efficiency.b",
                                                 "compute.efficiency.floor",
                                                 "compute.launch_overhead",
                                                 "compute.min_op_time",
                                                 "compute.power.busy",
                                                 "compute.power.idle",
                                                 "workload.type",
                                                 "workload.op",
                                                 "workload.algorithm",
                                                 "workload.root",
                                                 "workload.dims",
                                                 "workload.group.first",
                                                 "workload.group.count",
                                                 "workload.group.stride",
                                                 "workload.size",
                                                 "workload.sizes.min",
                                                 "workload.sizes.max",
                                                 "workload.sizes.factor",
                                                 "workload.ramp_broadcast",
                                                 "workload.iterations",
                                                 "workload.warmup",
                                                 "workload.lps",
                                                 "workload.start_events_per_lp",
                                                 "workload.remote_fraction",
                                                 "workload.lookahead",
                                                 "workload.mean_increment",
                                                 "workload.epoch"};
  return kKeys;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

bool key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// The keys of the text as dotted paths (block keys, and the keys of a flow map
// on their line), for --set. No std::regex: it recurses per character.
std::vector<std::string> key_paths(const std::string& text) {
  std::vector<std::string> paths, stack;
  std::vector<std::size_t> indents;
  for (const std::string& line : split_lines(text)) {
    std::size_t at = line.find_first_not_of(' ');
    if (at == std::string::npos) continue;
    const std::size_t indent = at;
    if (line.compare(at, 2, "- ") == 0) at += 2;
    const std::size_t key_begin = at;
    while (at < line.size() && key_char(line[at])) ++at;
    if (at == key_begin || at >= line.size() || line[at] != ':') continue;
    const std::string key = line.substr(key_begin, at - key_begin);
    while (!indents.empty() && indents.back() >= indent) {
      indents.pop_back();
      stack.pop_back();
    }
    std::string prefix;
    for (const std::string& k : stack) prefix += k + ".";
    paths.push_back(prefix + key);
    const std::string rest = line.substr(at + 1);
    if (rest.find('{') != std::string::npos) {
      for (std::size_t c = rest.find(": "); c != std::string::npos; c = rest.find(": ", c + 1)) {
        std::size_t k = c;
        while (k > 0 && key_char(rest[k - 1])) --k;
        if (k < c) paths.push_back(prefix + key + "." + rest.substr(k, c - k));
      }
    }
    indents.push_back(indent);
    stack.push_back(key);
  }
  return paths;
}

// True when `what` starts with "name:LINE:COL: " or "--set ".
bool located(const std::string& what, const std::string& name) {
  if (what.rfind("--set ", 0) == 0) return true;
  if (what.compare(0, name.size() + 1, name + ":") != 0) return false;
  std::size_t at = name.size() + 1;
  for (int field = 0; field < 2; ++field) {
    const std::size_t digits = at;
    while (at < what.size() && std::isdigit(static_cast<unsigned char>(what[at])) != 0) ++at;
    if (at == digits || at >= what.size() || what[at] != ':') return false;
    ++at;
  }
  return at < what.size() && what[at] == ' ';
}

// The value positions: after each "key: " (block or flow), up to the end of
// the token.
std::vector<std::pair<std::size_t, std::size_t>> value_spans(const std::string& text) {
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  for (std::size_t at = text.find(": "); at != std::string::npos; at = text.find(": ", at + 1)) {
    const std::size_t begin = at + 2;
    std::size_t end = begin;
    int depth = 0;
    while (end < text.size() && text[end] != '\n' && text[end] != '#') {
      const char c = text[end];
      if (c == '[' || c == '{') ++depth;
      if ((c == ']' || c == '}') && depth-- == 0) break;
      if (c == ',' && depth == 0) break;
      ++end;
    }
    while (end > begin && text[end - 1] == ' ') --end;
    if (end > begin) spans.emplace_back(begin, end);
  }
  return spans;
}

std::string nested(Rng& rng) {
  const std::size_t depth = 20 + rng.below(rng.chance(20) ? 20000 : 40);
  if (rng.chance(50)) return std::string(depth, '[') + "1" + std::string(depth, ']');
  std::string out;
  for (std::size_t i = 0; i < depth; ++i) out += "{k: ";
  out += "1";
  for (std::size_t i = 0; i < depth; ++i) out += "}";
  return out;
}

// One mutation of `c`, named in c.what.
void mutate(Case& c, Rng& rng) {
  std::vector<std::string> lines = split_lines(c.text);
  if (lines.empty()) lines.push_back("");
  const std::size_t i = rng.below(lines.size());
  switch (rng.below(16)) {
    case 0:
      c.what += " delete-line";
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    case 1:
      c.what += " duplicate-line";
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(i), lines[i]);
      break;
    case 2:
      c.what += " swap-lines";
      std::swap(lines[i], lines[rng.below(lines.size())]);
      break;
    case 3:
    case 4: {
      const auto spans = value_spans(c.text);
      if (spans.empty()) break;
      const auto [b, e] = rng.pick(spans);
      const std::string v = rng.pick(values());
      c.what += " retype(" + v + ")";
      c.text = c.text.substr(0, b) + v + c.text.substr(e);
      return;
    }
    case 5: {  // a misspelt or unknown key
      const std::size_t colon = lines[i].find(':');
      if (colon == std::string::npos || colon == 0) break;
      const std::size_t at = rng.below(colon);
      c.what += " rename-key";
      lines[i][at] = static_cast<char>('a' + rng.below(26));
      break;
    }
    case 6: {
      const std::size_t n = 1 + rng.below(8);
      c.what += " random-bytes";
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t at = rng.below(c.text.size() + 1);
        const char byte = static_cast<char>(rng.below(256));
        if (rng.chance(50) && at < c.text.size()) {
          c.text[at] = byte;
        } else {
          c.text.insert(c.text.begin() + static_cast<std::ptrdiff_t>(at), byte);
        }
      }
      return;
    }
    case 7: {
      c.what += " deep-nesting";
      if (rng.chance(50)) {
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(i), "deep: " + nested(rng));
      } else {
        std::string block = "deep:";
        const std::size_t depth = 20 + rng.below(60);
        for (std::size_t d = 1; d <= depth; ++d) block += "\n" + std::string(2 * d, ' ') + "k:";
        lines.push_back(block + " 1");
      }
      break;
    }
    case 8: {
      const auto spans = value_spans(c.text);
      if (spans.size() < 2) break;
      c.what += " alias";
      const auto [b1, e1] = spans[rng.below(spans.size())];
      const auto [b2, e2] = spans[rng.below(spans.size())];
      if (b1 == b2) break;
      // Anchor the first value, replace the second by an alias of it.
      std::string t = c.text;
      if (b2 > b1) {
        t = t.substr(0, b2) + "*x" + t.substr(e2);
        t.insert(b1, "&x ");
      } else {
        t.insert(b1, "&x ");
        t = t.substr(0, b2) + "*x" + t.substr(e2);
      }
      c.text = t;
      return;
    }
    case 9: {
      c.what += " alias-bomb";
      std::string bomb = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
      for (char x = 'b'; x <= 'j'; ++x) {
        bomb += std::string(1, x) + ": &" + x + " [";
        for (int k = 0; k < 9; ++k) bomb += std::string(k ? ", *" : "*") + char(x - 1);
        bomb += "]\n";
      }
      c.text = rng.chance(50) ? bomb + c.text : c.text + bomb;
      return;
    }
    case 10: {
      c.what += " tab";
      const std::size_t lead = lines[i].find_first_not_of(' ');
      if (lead != std::string::npos && lead > 0 && rng.chance(70)) {
        lines[i].replace(0, std::min<std::size_t>(lead, 1 + rng.below(lead)), "\t");
      } else {
        lines[i].insert(rng.below(lines[i].size() + 1), "\t");
      }
      break;
    }
    case 11:
      c.what += " second-document";
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(i),
                   rng.chance(50) ? std::string("---") : std::string("...\n---"));
      break;
    case 12: {  // a number made huge or negative
      std::vector<std::size_t> digits;
      for (std::size_t k = 0; k < c.text.size(); ++k) {
        if (std::isdigit(static_cast<unsigned char>(c.text[k])) != 0) digits.push_back(k);
      }
      if (digits.empty()) break;
      static const std::vector<std::string> kHuge = {"99999999999999999999",
                                                     "18446744073709551616",
                                                     "4294967296",
                                                     "1e400",
                                                     "999999999999999999999999999999999999999999",
                                                     "-",
                                                     "-1",
                                                     "0"};
      const std::string h = rng.pick(kHuge);
      c.what += " huge-number(" + h + ")";
      c.text.insert(rng.pick(digits), h);
      return;
    }
    case 13: {  // a unit of another dimension, or none
      static const std::vector<std::string> kUnits = {
          "us", "ns", "ps", "s", "GiB", "MiB", "B", "b", "Gbps", "bps", "GB/s", "", "xyz"};
      const std::string& from = rng.pick(kUnits);
      const std::size_t at = from.empty() ? std::string::npos : c.text.find(from);
      if (at == std::string::npos || at == 0 ||
          std::isdigit(static_cast<unsigned char>(c.text[at - 1])) == 0) {
        break;
      }
      const std::string& to = rng.pick(kUnits);
      c.what += " unit(" + from + "->" + to + ")";
      c.text.replace(at, from.size(), to);
      return;
    }
    case 14: {  // a --set override: a key of the file or a new one, any value
      std::vector<std::string> keys = key_paths(c.text);
      keys.insert(keys.end(), {"fabric", "a..b", "", "workload.type.x"});
      std::string o = rng.pick(rng.chance(50) ? keys : documented_keys());
      if (!rng.chance(5)) o += "=" + rng.pick(values());
      if (rng.chance(10)) o = "workload.size=" + nested(rng);
      c.what += " set(" + o.substr(0, 60) + ")";
      c.overrides.push_back(o);
      return;
    }
    case 15:
      c.what += " indent";
      if (rng.chance(50)) {
        lines[i].insert(0, std::string(1 + rng.below(3), ' '));
      } else if (!lines[i].empty() && lines[i][0] == ' ') {
        lines[i].erase(0, 1);
      }
      break;
  }
  c.text = join_lines(lines);
  if (rng.chance(3)) c.text.resize(rng.below(c.text.size() + 1));  // truncated
}

// What `sipsim validate` runs, in process; "" on success, else the error.
std::string validate(const std::string& name, const Case& c) {
  const base::Document doc = base::Document::load_string(c.text, name, c.overrides);
  const setup::Setup s = read(doc);
  const workload::Simulation sim = build(s, {.resolve_auto = false});
  (void)sim.model->partition(1);
  return "";
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<Base> shipped_scenarios() {
  std::vector<Base> out;
  for (const auto& entry : fs::recursive_directory_iterator(SIPSIM_SCENARIOS_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    // Study files (docs/studies.md) and what sweep writes next to them are not
    // shipped scenarios; tests/app/sweep_test.sh checks them.
    const fs::path rel = fs::relative(entry.path(), SIPSIM_SCENARIOS_DIR);
    if (!rel.empty() && *rel.begin() == "studies") continue;
    // The Chakra scenarios read traces kept beside the repository
    // (docs/workloads.md): without them they cannot validate.
    if (!rel.empty() && *rel.begin() == "chakra" &&
        !fs::exists(fs::path(SIPSIM_SCENARIOS_DIR) / ".." / ".." / "shared" / "data" / "chakra")) {
      continue;
    }
    std::ifstream in(entry.path());
    std::ostringstream text;
    text << in.rdbuf();
    out.push_back({fs::relative(entry.path(), SIPSIM_SCENARIOS_DIR).string(), text.str()});
  }
  std::sort(out.begin(), out.end(), [](const Base& a, const Base& b) { return a.name < b.name; });
  return out;
}

std::string shown(const Case& c) {
  std::string out = "mutations:" + c.what + "\n";
  for (const std::string& o : c.overrides) out += "--set " + o.substr(0, 200) + "\n";
  out += "text:\n" + c.text.substr(0, 3000);
  if (c.text.size() > 3000) out += "\n... (" + std::to_string(c.text.size()) + " bytes)";
  return out;
}

// One test per shipped scenario (ctest runs them side by side), each with its
// own stream of cases: seeded by the seed and the scenario's name, so a case
// reproduces whatever else runs or is filtered out.
std::uint64_t seed_for(const std::string& name) {
  std::uint64_t h = fuzz::fuzz_seed(kSeed);
  for (const char ch : name) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001b3ULL;  // FNV-1a
  return h;
}

// A test name gtest accepts: the scenario's path with every other byte as '_'.
std::string test_name(const ::testing::TestParamInfo<Base>& info) {
  std::string out = info.param.name;
  for (char& ch : out) {
    if (std::isalnum(static_cast<unsigned char>(ch)) == 0) ch = '_';
  }
  return out;
}

class LoaderFuzz : public ::testing::TestWithParam<Base> {};

TEST(LoaderFuzzCorpus, ShippedScenariosFound) {
  EXPECT_GE(shipped_scenarios().size(), 20u)
      << "scenarios not found under " << SIPSIM_SCENARIOS_DIR;
}

TEST_P(LoaderFuzz, EveryMutationEndsInALocatedErrorOrSuccess) {
  Base base = GetParam();
  // SIPSIM_FUZZ_SEED and SIPSIM_FUZZ_SCALE (a multiple of the cases) for
  // longer runs by hand; the bounds then scale too.
  const int scale = fuzz::fuzz_scale();
  const auto start = Clock::now();
  Rng rng(seed_for(base.name));
  int cases = 0, accepted = 0;
  double slowest = 0;
  std::string slowest_case;
  // Every shipped scenario validates as it is.
  EXPECT_EQ(validate(base.name, Case{base.text, {}, ""}), "") << base.name;
  // A scenario whose own validation is slow (AMPeD Table II's training
  // iterations: building thousands of GPUs' program state takes seconds)
  // is validated as shipped only; its keys are fuzzed in the small ones.
  const double took_shipped = seconds_since(start);
  const bool slow = took_shipped > kSlowScenarioSeconds;
  const setup::Setup s = read(base::Document::load_string(base.text, base.name));
  // Large: many nodes, or a load that builds much (a 1,024-GPU placement).
  base.large =
      (s.fabric && s.fabric->nodes() >= kLargeNodes) || took_shipped > kLargeScenarioSeconds;
  const int n = slow ? 0 : scale * (base.large ? kCasesPerLargeScenario : kCasesPerSmallScenario);
  for (int k = 0; k < n; ++k) {
    Case c{base.text, {}, ""};
    const std::size_t mutations = 1 + rng.below(rng.chance(80) ? 1 : 4);
    for (std::size_t m = 0; m < mutations; ++m) mutate(c, rng);
    const auto t = Clock::now();
    try {
      validate(base.name, c);
      ++accepted;
    } catch (const base::ScenarioError& e) {
      const std::string what = e.what();
      EXPECT_TRUE(located(what, base.name))
          << "case " << cases << ": unlocated error: " << what << "\n"
          << shown(c);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "case " << cases << ": " << typeid(e).name() << ": " << e.what() << "\n"
                    << shown(c);
    }
    const double took = seconds_since(t);
    if (took > slowest) {
      slowest = took;
      slowest_case = c.what;
    }
    EXPECT_LT(took, kCaseLimitSeconds) << "case " << cases << " took " << took << " s\n"
                                       << shown(c);
    ++cases;
  }
  const double total = seconds_since(start);
  std::cout << base.name << ": " << cases << " cases, " << accepted << " accepted, in " << total
            << " s; slowest " << slowest << " s (" << slowest_case << ")\n";
  EXPECT_LT(total, kScenarioLimitSeconds * scale);
}

INSTANTIATE_TEST_SUITE_P(Shipped, LoaderFuzz, ::testing::ValuesIn(shipped_scenarios()), test_name);

}  // namespace
}  // namespace sipsim::setup
