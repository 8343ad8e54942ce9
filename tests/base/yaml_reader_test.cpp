#include "sipsim/base/yaml_reader.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace sipsim::base {
namespace {

Document load(std::string_view text, const std::vector<std::string>& overrides = {}) {
  return Document::load_string(text, "s.yaml", overrides);
}

// The what() of the ScenarioError thrown by `f`, or "" when nothing is thrown.
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

std::string load_error(std::string_view text, const std::vector<std::string>& overrides = {}) {
  return error_of([&] { load(text, overrides); });
}

// ---------------------------------------------------------------------------------------
// Reading valid documents

TEST(YamlReader, ReadsNestedValues) {
  const Document doc = load(
      "seed: 42\n"
      "name: run-1\n"
      "workload:\n"
      "  lookahead: 1.3us\n"
      "  size: 1GiB\n"
      "  link: 400Gbps\n"
      "  scale: 0.5\n"
      "  offset: -3\n"
      "  trace: true\n"
      "  kind: phold\n"
      "sweep:\n"
      "  values: [1, 2, 3]\n");
  MapReader root = doc.root().as_map();
  EXPECT_EQ(root.get_uint("seed", 1), 42u);
  EXPECT_EQ(root.get_string("name", ""), "run-1");
  EXPECT_EQ(root.get_uint("missing", 7), 7u);
  EXPECT_FALSE(root.has("absent"));
  MapReader w = root.required("workload").as_map();
  EXPECT_EQ(w.value().path(), "workload");
  EXPECT_EQ(w.get_time_ps("lookahead", 0), 1'300'000u);
  EXPECT_EQ(w.get_bytes("size", 0), 1'073'741'824u);
  EXPECT_EQ(w.get_bandwidth_bps("link", 0), 400'000'000'000u);
  EXPECT_DOUBLE_EQ(w.get_double("scale", 0), 0.5);
  EXPECT_EQ(w.get_int("offset", 0), -3);
  EXPECT_TRUE(w.get_bool("trace", false));
  EXPECT_EQ(w.required("kind").as_enum({"phold", "ring"}), "phold");
  EXPECT_EQ(w.get_time_ps("window", 5), 5u);
  EXPECT_NO_THROW(w.finish());
  MapReader sweep = root.required("sweep").as_map();
  std::vector<Value> values = sweep.required("values").as_list();
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[2].path(), "sweep.values[2]");
  EXPECT_EQ(values[2].location(), "s.yaml:12:18");
  EXPECT_EQ(values[2].as_int(), 3);
  EXPECT_NO_THROW(sweep.finish());
  EXPECT_NO_THROW(root.finish());
  EXPECT_EQ(doc.name(), "s.yaml");
}

TEST(YamlReader, DoubleAcceptsIntegersAndExponents) {
  MapReader root = load("a: 3\nb: -1.5e3\nc: +2\n").root().as_map();
  EXPECT_DOUBLE_EQ(root.get_double("a", 0), 3.0);
  EXPECT_DOUBLE_EQ(root.get_double("b", 0), -1500.0);
  EXPECT_DOUBLE_EQ(root.get_double("c", 0), 2.0);
}

TEST(YamlReader, LoadFileKeepsNameAndText) {
  const auto path = std::filesystem::temp_directory_path() / "sipsim_yaml_reader_test.yaml";
  const std::string text = "# scenario\nseed: 3\n";
  {
    std::ofstream out(path);
    out << text;
  }
  const Document doc = Document::load_file(path.string());
  std::filesystem::remove(path);
  EXPECT_EQ(doc.name(), path.string());
  EXPECT_EQ(doc.text(), text);
  EXPECT_EQ(doc.root().as_map().get_uint("seed", 0), 3u);
}

TEST(YamlReader, LoadFileMissing) {
  EXPECT_EQ(error_of([] { Document::load_file("/nonexistent/s.yaml"); }),
            "/nonexistent/s.yaml: cannot read (No such file or directory)");
  const std::string dir = std::filesystem::temp_directory_path().string();
  EXPECT_EQ(error_of([&] { Document::load_file(dir); }),
            dir + ": is a directory, not a scenario file");
}

TEST(YamlReader, ScenarioErrorParts) {
  const ScenarioError with_path("s.yaml:1:2", "a.b", "bad");
  EXPECT_STREQ(with_path.what(), "s.yaml:1:2: a.b: bad");
  EXPECT_EQ(with_path.location(), "s.yaml:1:2");
  EXPECT_EQ(with_path.key_path(), "a.b");
  EXPECT_EQ(with_path.message(), "bad");
  EXPECT_STREQ(ScenarioError("s.yaml:1:2", "", "bad").what(), "s.yaml:1:2: bad");
}

// ---------------------------------------------------------------------------------------
// Load-time errors

TEST(YamlReader, ParserErrorLocation) {
  EXPECT_EQ(load_error("a: [1, 2\n"), "s.yaml:2:1: end of sequence flow not found");
  EXPECT_EQ(load_error("a:\n  b: 1\n c: 2\n"), "s.yaml:3:2: end of map not found");
}

TEST(YamlReader, EmptyAndNonMapRoot) {
  EXPECT_EQ(load_error(""),
            "s.yaml:1:1: the scenario file is empty; it needs at least a workload section "
            "(docs/scenarios.md)");
  EXPECT_EQ(load_error(" \n\n"),
            "s.yaml:1:1: the scenario file is empty; it needs at least a workload section "
            "(docs/scenarios.md)");
  EXPECT_EQ(load_error("# only a comment\n"),
            "s.yaml:1:1: the scenario file has only comments; it needs at least a workload "
            "section (docs/scenarios.md)");
  EXPECT_EQ(load_error("~\n"),
            "s.yaml:1:1: expected a mapping of keys at the top level, got an empty value");
  EXPECT_EQ(load_error("- 1\n- 2\n"),
            "s.yaml:1:1: expected a mapping of keys at the top level, got a list");
}

// Aliases are refused where they are, before yaml-cpp builds anything: nine
// lines of nested aliases would otherwise expand to 9^9 nodes when walked.
TEST(YamlReader, AliasesAreRefused) {
  const std::string refused =
      "YAML aliases are not supported in scenario files (an alias '*name' repeats the node "
      "anchored '&name'); write the value out in full";
  EXPECT_EQ(load_error("a: &x 1\nb: *x\n"), "s.yaml:2:4: b: " + refused);
  EXPECT_EQ(load_error("a: &x {c: 1}\nb:\n  - 2\n  - *x\n"), "s.yaml:4:5: b[1]: " + refused);
  EXPECT_EQ(load_error("a: &x {c: 1}\nb: {<<: *x}\n"), "s.yaml:2:9: b.<<: " + refused);
  EXPECT_EQ(load_error("a: *nowhere\n"), "s.yaml:1:4: " + refused);
  EXPECT_EQ(load_error("a: 1\n", {"b=*x"}), "--set b=*x: b: " + refused);
  // An anchor alone is harmless.
  EXPECT_EQ(load_error("a: &x 1\n"), "");

  std::string bomb = "a: &a [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int k = 0; k < 9; ++k) bomb += std::string(k ? ", *" : "*") + static_cast<char>(c - 1);
    bomb += "]\n";
  }
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(load_error(bomb), "s.yaml:2:8: b[0]: " + refused);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(200));
}

TEST(YamlReader, OneDocumentOnly) {
  const std::string second =
      "a second YAML document starts here; a scenario file holds one document (remove the '---' "
      "or '...' line and what follows it)";
  EXPECT_EQ(load_error("a: 1\n---\nb: 2\n"), "s.yaml:2:1: " + second);
  EXPECT_EQ(load_error("a: 1\n...\n---\nb: 2\n"), "s.yaml:3:1: " + second);
  EXPECT_EQ(load_error("a: 1\n---\n"), "s.yaml:2:1: " + second);
  EXPECT_EQ(load_error("---\na: 1\n...\n"), "");
  EXPECT_EQ(load_error("a: 1\n", {"b=1\n---\n2"}), "--set b=1\n---\n2: " + second);
}

TEST(YamlReader, TabsInIndentation) {
  const std::string tabs = "tabs are not allowed in YAML indentation; indent with spaces";
  EXPECT_EQ(load_error("a:\n\tb: 1\n"), "s.yaml:2:1: " + tabs);
  EXPECT_EQ(load_error("a:\n  \tb: 1\n"), "s.yaml:2:3: " + tabs);
  EXPECT_EQ(load_error("a: 1\n\t# comment\n"), "s.yaml:2:1: " + tabs);
  // Elsewhere a tab is separation space; a line of only whitespace is blank.
  EXPECT_EQ(load_error("a:\t1\nb: [1,\t2]  # \t\n\t\n"), "");
  EXPECT_EQ(load_error("a: 1\n", {"b={c: 1,\n\td: 2}"}),
            "--set b={c: 1,\n\td: 2}: b: tabs are not allowed in YAML indentation");
}

TEST(YamlReader, NestingLimit) {
  std::string deep = "a: " + std::string(100000, '[') + std::string(100000, ']') + "\n";
  const auto start = std::chrono::steady_clock::now();
  const std::string error = load_error(deep);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
  EXPECT_EQ(error.substr(0, 15), "s.yaml:1:35: a[");
  EXPECT_NE(error.find("]: nesting is deeper than 32 levels, the most a scenario file may have"),
            std::string::npos)
      << error;
  std::string blocks = "a:\n";
  for (int i = 1; i < 40; ++i) blocks += std::string(2 * i, ' ') + "k:\n";
  EXPECT_EQ(load_error(blocks).substr(0, 13), "s.yaml:33:65:");
  // 32 levels are fine.
  EXPECT_EQ(load_error("a: " + std::string(31, '[') + std::string(31, ']') + "\n"), "");
}

TEST(YamlReader, DuplicateKeys) {
  EXPECT_EQ(load_error("seed: 1\nseed: 2\n"),
            "s.yaml:2:1: seed: duplicate key 'seed' (first at line 1)");
  EXPECT_EQ(load_error("workload:\n"
                       "  net:\n"
                       "    bw: 1Gbps\n"
                       "    lat: 1us\n"
                       "    bw: 2Gbps\n"),
            "s.yaml:5:5: workload.net.bw: duplicate key 'bw' (first at line 3)");
  EXPECT_EQ(load_error("sweep:\n  - a: 1\n    a: 2\n"),
            "s.yaml:3:5: sweep[0].a: duplicate key 'a' (first at line 2)");
  // The same key in different maps is fine.
  EXPECT_EQ(load_error("a:\n  x: 1\nb:\n  x: 2\n"), "");
}

TEST(YamlReader, NonScalarKey) {
  EXPECT_EQ(load_error("w:\n  ? [a, b]\n  : 1\n"),
            "s.yaml:2:5: w: mapping keys must be plain names, got a list");
}

// ---------------------------------------------------------------------------------------
// MapReader errors

TEST(YamlReader, UnknownKeySuggestsAskedKey) {
  const Document doc = load(
      "workload:\n"
      "    lookahed: 1us\n"
      "    zzzzzz: 2\n");
  MapReader w = doc.root().as_map().required("workload").as_map();
  EXPECT_EQ(w.get_time_ps("lookahead", 0), 0u);
  EXPECT_EQ(error_of([&] { w.finish(); }),
            "s.yaml:2:5: workload.lookahed: unknown key; did you mean 'lookahead'?");
  w.has("lookahed");
  EXPECT_EQ(error_of([&] { w.finish(); }), "s.yaml:3:5: workload.zzzzzz: unknown key");
}

TEST(YamlReader, UnknownKeyAtRoot) {
  MapReader root = load("seed: 1\nsed: 2\n").root().as_map();
  root.get_uint("seed", 0);
  EXPECT_EQ(error_of([&] { root.finish(); }), "s.yaml:2:1: sed: unknown key; did you mean 'seed'?");
}

TEST(YamlReader, MissingRequiredKey) {
  const Document doc = load("# header comment\n\nworkload:\n  lps: 4\n");
  MapReader root = doc.root().as_map();
  EXPECT_EQ(error_of([&] { root.required("seed"); }), "s.yaml:1:1: seed: missing required key");
  MapReader w = root.required("workload").as_map();
  EXPECT_EQ(error_of([&] { w.required("lookahead"); }),
            "s.yaml:4:3: workload.lookahead: missing required key");
}

TEST(YamlReader, MisspeltRequiredKeyIsReportedAtTheTypo) {
  const Document doc = load("workload:\n  lps: 4\n  lokahead: 1us\n");
  MapReader w = doc.root().as_map().required("workload").as_map();
  EXPECT_EQ(error_of([&] { w.required("lookahead"); }),
            "s.yaml:3:3: workload.lokahead: unknown key; did you mean 'lookahead'?");
}

TEST(YamlReader, TypeErrors) {
  const Document doc = load(
      "a: 1.5\n"
      "b: -4\n"
      "c: yes\n"
      "d: .nan\n"
      "e: {x: 1}\n"
      "f: text\n"
      "g: phld\n"
      "h: 99999999999999999999\n"
      "i:\n"
      "j: [1, 2]\n");
  MapReader r = doc.root().as_map();
  EXPECT_EQ(error_of([&] { r.get_uint("a", 0); }), "s.yaml:1:4: a: expected an integer, got '1.5'");
  EXPECT_EQ(error_of([&] { r.get_int("a", 0); }), "s.yaml:1:4: a: expected an integer, got '1.5'");
  EXPECT_EQ(error_of([&] { r.get_uint("b", 0); }), "s.yaml:2:4: b: must not be negative");
  EXPECT_EQ(error_of([&] { r.get_bool("c", false); }),
            "s.yaml:3:4: c: expected true or false, got 'yes'");
  EXPECT_EQ(error_of([&] { r.get_double("d", 0); }),
            "s.yaml:4:4: d: expected a finite number, got '.nan'");
  EXPECT_EQ(error_of([&] { r.get_double("f", 0); }),
            "s.yaml:6:4: f: expected a number, got 'text'");
  EXPECT_EQ(error_of([&] { r.get_string("e", ""); }),
            "s.yaml:5:4: e: expected a string, got a mapping");
  EXPECT_EQ(error_of([&] { r.required("f").as_map(); }), "s.yaml:6:4: f: expected a mapping");
  EXPECT_EQ(error_of([&] { r.required("f").as_list(); }), "s.yaml:6:4: f: expected a list");
  EXPECT_EQ(error_of([&] {
              r.required("g").as_enum({"phold", "ring"});
            }),
            "s.yaml:7:4: g: unknown value 'phld'; expected one of phold, ring; did you mean "
            "'phold'?");
  EXPECT_EQ(error_of([&] {
              r.required("f").as_enum({"phold", "ring"});
            }),
            "s.yaml:6:4: f: unknown value 'text'; expected one of phold, ring");
  EXPECT_EQ(error_of([&] { r.get_int("h", 0); }),
            "s.yaml:8:4: h: integer 99999999999999999999 is out of range: between "
            "-9223372036854775808 and 9223372036854775807");
  EXPECT_EQ(error_of([&] { r.get_uint("h", 0); }),
            "s.yaml:8:4: h: integer 99999999999999999999 is out of range: at most "
            "18446744073709551615");
  EXPECT_EQ(error_of([&] { r.get_uint("i", 0); }),
            "s.yaml:10:1: i: expected an integer, got an empty value");
  EXPECT_EQ(error_of([&] { r.required("j").as_list()[1].as_bool(); }),
            "s.yaml:10:8: j[1]: expected true or false, got '2'");
}

TEST(YamlReader, UnitErrorsCarryLocation) {
  const Document doc = load(
      "net:\n"
      "  lookahead: 1.5ps\n"
      "  size: 12b\n"
      "  link: 400\n"
      "  wrong: 1GiB\n"
      "  nested: {a: 1}\n");
  MapReader n = doc.root().as_map().required("net").as_map();
  EXPECT_EQ(error_of([&] { n.get_time_ps("lookahead", 0); }),
            "s.yaml:2:14: net.lookahead: '1.5ps' is not a whole number of picoseconds");
  EXPECT_EQ(error_of([&] { n.get_bytes("size", 0); }),
            "s.yaml:3:9: net.size: '12b' is not a whole number of bytes (12 bits)");
  EXPECT_EQ(error_of([&] { n.get_bandwidth_bps("link", 0); }),
            "s.yaml:4:9: net.link: '400' needs a unit, e.g. 400Gbps");
  EXPECT_EQ(error_of([&] { n.get_time_ps("wrong", 0); }),
            "s.yaml:5:10: net.wrong: '1GiB' is a data size, expected a time such as 1.3us");
  EXPECT_EQ(error_of([&] { n.get_time_ps("nested", 0); }),
            "s.yaml:6:11: net.nested: expected a time such as 1.3us, got a mapping");
}

// ---------------------------------------------------------------------------------------
// --set overrides

TEST(YamlReaderOverride, SetsExistingAndNewValues) {
  const Document doc = load("seed: 1\nworkload:\n  lps: 4\n  lookahead: 1us\n",
                            {"workload.lps=64", "extra.deep.list=[1, 2]", "seed=9"});
  MapReader root = doc.root().as_map();
  EXPECT_EQ(root.get_uint("seed", 0), 9u);
  MapReader w = root.required("workload").as_map();
  EXPECT_EQ(w.get_uint("lps", 0), 64u);
  EXPECT_EQ(w.get_time_ps("lookahead", 0), 1'000'000u);
  EXPECT_EQ(w.required("lps").location(), "--set workload.lps=64");
  EXPECT_EQ(w.required("lookahead").location(), "s.yaml:4:14");
  EXPECT_EQ(w.value().location(), "s.yaml:3:3");
  MapReader extra = root.required("extra").as_map();
  EXPECT_EQ(extra.value().location(), "--set extra.deep.list=[1, 2]");
  std::vector<Value> list = extra.required("deep").as_map().required("list").as_list();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[1].as_int(), 2);
  EXPECT_EQ(list[1].location(), "--set extra.deep.list=[1, 2]");
  // The file's text is kept as read, without the overrides.
  EXPECT_EQ(doc.text(), "seed: 1\nworkload:\n  lps: 4\n  lookahead: 1us\n");
}

TEST(YamlReaderOverride, LastOverrideWins) {
  const Document doc = load("seed: 1\n", {"seed=2", "seed=3"});
  Value seed = doc.root().as_map().required("seed");
  EXPECT_EQ(seed.as_uint(), 3u);
  EXPECT_EQ(seed.location(), "--set seed=3");
}

TEST(YamlReaderOverride, ErrorsReportTheOverride) {
  const Document doc =
      load("workload:\n  lps: 4\n", {"workload.lps=-1", "workload.lsp=2", "net.x=1"});
  MapReader root = doc.root().as_map();
  MapReader w = root.required("workload").as_map();
  EXPECT_EQ(error_of([&] { w.get_uint("lps", 0); }),
            "--set workload.lps=-1: workload.lps: must not be negative");
  EXPECT_EQ(error_of([&] { w.finish(); }),
            "--set workload.lsp=2: workload.lsp: unknown key; did you mean 'lps'?");
  MapReader net = root.required("net").as_map();
  EXPECT_EQ(error_of([&] { net.required("bw"); }), "--set net.x=1: net.bw: missing required key");
}

TEST(YamlReaderOverride, PathThroughScalar) {
  EXPECT_EQ(load_error("seed: 5\n", {"seed.x=1"}),
            "--set seed.x=1: seed: is '5', not a mapping, so 'seed.x' cannot be set");
  EXPECT_EQ(load_error("a:\n  b: [1]\n", {"a.b.c.d=1"}),
            "--set a.b.c.d=1: a.b: is a list, not a mapping, so 'a.b.c.d' cannot be set");
}

TEST(YamlReaderOverride, MalformedOverrides) {
  EXPECT_EQ(load_error("a: 1\n", {"a"}), "--set a: expected key.path=value");
  EXPECT_EQ(load_error("a: 1\n", {"a..b=1"}), "--set a..b=1: empty key in path 'a..b'");
  EXPECT_EQ(load_error("a: 1\n", {"=1"}), "--set =1: empty key in path ''");
  EXPECT_EQ(load_error("a: 1\n", {"a=[1"}),
            "--set a=[1: a: invalid YAML value: end of sequence flow not found");
}

TEST(YamlReaderOverride, DuplicatesAreCheckedFirst) {
  EXPECT_EQ(load_error("a: 1\na: 2\n", {"a=3"}),
            "s.yaml:2:1: a: duplicate key 'a' (first at line 1)");
}

// ---------------------------------------------------------------------------------------
// closest_match

TEST(ClosestMatch, PicksNearestWithinLimit) {
  const std::vector<std::string> keys = {"seed", "workload", "lookahead", "lps"};
  EXPECT_EQ(closest_match("lookahed", keys), "lookahead");
  EXPECT_EQ(closest_match("worklod", keys), "workload");
  EXPECT_EQ(closest_match("sed", keys), "seed");
  EXPECT_EQ(closest_match("seed", keys), "seed");
  EXPECT_EQ(closest_match("xyzzy", keys), "");
  EXPECT_EQ(closest_match("anything", {}), "");
  // Short keys still allow a distance of 2.
  EXPECT_EQ(closest_match("l", {"lps"}), "lps");
  EXPECT_EQ(closest_match("x", {"lps"}), "");
  // Longer keys allow size/3: 12 chars -> 4 edits.
  EXPECT_EQ(closest_match("abcdefghijkl", {"abcdefghXXXX"}), "abcdefghXXXX");
  EXPECT_EQ(closest_match("abcdefghijkl", {"abcdefgXXXXX"}), "");
}

TEST(ClosestMatch, TiesGoToTheFirstCandidate) {
  EXPECT_EQ(closest_match("ab", {"ax", "ay"}), "ax");
  EXPECT_EQ(closest_match("ab", {"ay", "ax"}), "ay");
  EXPECT_EQ(closest_match("ab", {"xx", "ay"}), "ay");
}

}  // namespace
}  // namespace sipsim::base
