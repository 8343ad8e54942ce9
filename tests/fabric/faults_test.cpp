// The `faults:` section (src/fabric/faults.cpp): entries read with their
// times, factor and target; every bad entry refused at its key: unknown
// kinds, keys and targets, times past the end, a repair before the failure,
// a factor out of range or where it means nothing, overlapping duplicates,
// and kinds the fabric does not model.
#include "sipsim/fabric/faults.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sipsim/fabric/routed/faults.hpp"

namespace sipsim::fabric {
namespace {

constexpr pdes::Time kMs = 1'000'000'000;

std::vector<Fault> read(const std::string& yaml, pdes::Time end = pdes::kTimeMax) {
  const base::Document doc = base::Document::load_string(yaml, "f.yaml");
  return read_faults(doc.root().as_map().required("faults"), 64, end);
}

std::string error_of(const std::string& yaml, pdes::Time end = pdes::kTimeMax) {
  try {
    read(yaml, end);
  } catch (const base::ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST(Faults, ReadsEntries) {
  const std::vector<Fault> f = read(
      "faults:\n"
      "  - {kind: gpu-slowdown, target: {gpu: 9}, at: 1ms, until: 3ms, factor: 0.8}\n"
      "  - {kind: gpu, target: {gpu: 63}, at: 2ms}\n"
      "  - {kind: gpu-slowdown, target: {gpu: 9}, at: 3ms, factor: 0.5}\n");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].kind, FaultKind::kGpuSlowdown);
  EXPECT_EQ(f[0].gpu, 9u);
  EXPECT_EQ(f[0].at, kMs);
  EXPECT_EQ(f[0].until, 3 * kMs);
  EXPECT_EQ(f[0].factor, 0.8);
  EXPECT_EQ(f[0].target, "gpu 9");
  EXPECT_EQ(f[1].until, pdes::kTimeMax);
  EXPECT_EQ(describe(f[0]), "gpu 9 at 0.8 of its speed from 1ms until 3ms");
  EXPECT_EQ(describe(f[1]), "gpu 63 fails at 2ms");
  EXPECT_EQ(first_gpu_failure(f)->gpu, 63u);
  EXPECT_TRUE(read("faults: []\n").empty());
  EXPECT_FALSE(first_gpu_failure(read("faults: []\n")));
}

TEST(Faults, FirstFailureIsTheEarliest) {
  const std::vector<Fault> f = read(
      "faults:\n"
      "  - {kind: gpu, target: {gpu: 1}, at: 5ms}\n"
      "  - {kind: gpu, target: {gpu: 2}, at: 2ms}\n");
  EXPECT_EQ(first_gpu_failure(f)->gpu, 2u);
}

TEST(Faults, BadEntriesAreLocated) {
  const auto has = [](const std::string& error, const std::string& part) {
    return error.find(part) != std::string::npos;
  };
  std::string e = error_of("faults:\n  - {kind: gpu-slow, target: {gpu: 1}, at: 0s}\n");
  EXPECT_TRUE(has(e, "f.yaml:2:")) << e;
  EXPECT_TRUE(has(e, "faults[0].kind")) << e;
  EXPECT_TRUE(has(e, "gpu-slowdown")) << e;  // the suggestion
  e = error_of("faults:\n  - {kind: gpu, target: {gpu: 64}, at: 0s}\n");
  EXPECT_TRUE(has(e, "faults[0].target.gpu")) << e;
  e = error_of("faults:\n  - {kind: gpu, target: {gpu: 1}, at: 0s, untill: 1s}\n");
  EXPECT_TRUE(has(e, "untill")) << e;
  e = error_of("faults:\n  - {kind: gpu, target: {gpu: 1}, at: 2ms}\n", 2 * kMs);
  EXPECT_TRUE(has(e, "faults[0].at")) << e;
  EXPECT_TRUE(has(e, "end_time")) << e;
  e = error_of(
      "faults:\n  - {kind: gpu-slowdown, target: {gpu: 1}, at: 2ms, until: 1ms, "
      "factor: 0.5}\n");
  EXPECT_TRUE(has(e, "faults[0].until")) << e;
  EXPECT_TRUE(has(e, "after the failure")) << e;
  e = error_of("faults:\n  - {kind: gpu, target: {gpu: 1}, at: 2ms, until: 3ms}\n");
  EXPECT_TRUE(has(e, "no repair")) << e;
  e = error_of("faults:\n  - {kind: gpu-slowdown, target: {gpu: 1}, at: 0s, factor: 1.5}\n");
  EXPECT_TRUE(has(e, "faults[0].factor")) << e;
  e = error_of("faults:\n  - {kind: gpu-slowdown, target: {gpu: 1}, at: 0s}\n");
  EXPECT_TRUE(has(e, "factor")) << e;
  e = error_of("faults:\n  - {kind: gpu, target: {gpu: 1}, at: 0s, factor: 0.5}\n");
  EXPECT_TRUE(has(e, "only a gpu-slowdown")) << e;
  e = error_of("faults:\n  - {kind: gpu, target: {node: 1}, at: 0s}\n");
  EXPECT_TRUE(has(e, "faults[0].target")) << e;
  e = error_of(
      "faults:\n"
      "  - {kind: gpu-slowdown, target: {gpu: 1}, at: 0s, until: 2ms, factor: 0.5}\n"
      "  - {kind: gpu-slowdown, target: {gpu: 1}, at: 1ms, factor: 0.9}\n");
  EXPECT_TRUE(has(e, "f.yaml:3:")) << e;
  EXPECT_TRUE(has(e, "overlaps fault 0")) << e;
  e = error_of(
      "faults:\n"
      "  - {kind: gpu-slowdown, target: {gpu: 1}, at: 0s, factor: 0.5}\n"
      "  - {kind: gpu, target: {gpu: 1}, at: 1ms}\n");
  EXPECT_TRUE(has(e, "overlaps fault 0")) << e;
  e = error_of("faults:\n  - {kind: link, target: {link: [0, 1]}, at: 0s}\n");
  EXPECT_TRUE(has(e, "faults[0].kind")) << e;
  EXPECT_TRUE(has(e, "not modelled on this fabric")) << e;
  e = error_of("faults: {kind: gpu}\n");
  EXPECT_TRUE(has(e, "faults")) << e;
}

// The routed fabrics' targets: a switch by tier and index, a NIC by its
// node, a link by its two ends; a degraded link's factor.
TEST(Faults, RoutedTargets) {
  FaultTargets routed;
  routed.kinds = {FaultKind::kLink, FaultKind::kSwitch, FaultKind::kNic};
  routed.read = read_routed_target;
  const auto read_routed = [&](const std::string& yaml) {
    const base::Document doc = base::Document::load_string(yaml, "f.yaml");
    return read_faults(doc.root().as_map().required("faults"), 64, pdes::kTimeMax, routed);
  };
  const std::vector<Fault> f = read_routed(
      "faults:\n"
      "  - {kind: switch, target: {tier: 2, index: 3}, at: 1ms, until: 2ms}\n"
      "  - {kind: nic, target: {node: 5}, at: 0s}\n"
      "  - {kind: link, target: {ends: [{node: 5}, {tier: 1, index: 0}]}, at: 0s, factor: 0.5}\n");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].target, "switch tier 2 index 3");
  EXPECT_EQ(describe(f[0]), "switch tier 2 index 3 down from 1ms until 2ms");
  EXPECT_EQ(f[1].target, "nic of node 5");
  EXPECT_EQ(f[2].target, "link node 5 - switch tier 1 index 0");
  EXPECT_EQ(describe(f[2]), "link node 5 - switch tier 1 index 0 at 0.5 of its rate from 0ps");
  EXPECT_TRUE(f[2].where.has_value());
  const auto error = [&](const std::string& yaml) {
    try {
      read_routed(yaml);
    } catch (const base::ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string e = error("faults:\n  - {kind: link, target: {ends: [{node: 5}]}, at: 0s}\n");
  EXPECT_NE(e.find("faults[0].target.ends: a link has two ends"), std::string::npos) << e;
  e = error("faults:\n  - {kind: switch, target: {tier: 1}, at: 0s}\n");
  EXPECT_NE(e.find("faults[0].target.index"), std::string::npos) << e;
  e = error("faults:\n  - {kind: switch, target: {tier: 1, index: 0}, at: 0s, factor: 0.5}\n");
  EXPECT_NE(e.find("only a gpu-slowdown, a link or a nic has a factor"), std::string::npos) << e;
  e = error("faults:\n  - {kind: nic, target: {node: 5}, at: 0s, factor: 1}\n");
  EXPECT_NE(e.find("faults[0].factor"), std::string::npos) << e;
  e = error(
      "faults:\n  - {kind: nic, target: {node: 5}, at: 0s}\n"
      "  - {kind: nic, target: {node: 5}, at: 1s}\n");
  EXPECT_NE(e.find("overlaps fault 0"), std::string::npos) << e;
}

// `random:` entries: `fraction` draws that many distinct targets, `mtbf`
// about count x over / mtbf failures, never two on a target at once; the
// same seed the same faults, another seed others.
TEST(Faults, RandomDraws) {
  FaultTargets nics;
  nics.kinds = {FaultKind::kNic};
  nics.read = [](FaultKind, const base::Value& t) {
    return "nic " + t.as_map().required("node").as_string();
  };
  nics.count = [](FaultKind) { return std::uint64_t{1000}; };
  nics.nth = [](FaultKind, std::uint64_t i) { return "{node: " + std::to_string(i) + "}"; };
  const auto draw = [&](const std::string& yaml, std::uint64_t seed) {
    const base::Document doc = base::Document::load_string(yaml, "f.yaml");
    return read_faults(doc.root().as_map().required("faults"), 64, 100 * kMs, nics, seed);
  };
  const std::string fraction = "faults:\n  - random: {kind: nic, fraction: 0.05, at: 1ms}\n";
  const std::vector<Fault> a = draw(fraction, 1), b = draw(fraction, 1), c = draw(fraction, 2);
  ASSERT_EQ(a.size(), 50u);
  std::vector<std::string> ta, tb, tc;
  for (const Fault& f : a) {
    EXPECT_EQ(f.at, kMs);
    EXPECT_EQ(f.until, pdes::kTimeMax);
    ta.push_back(f.target);
  }
  for (const Fault& f : b) tb.push_back(f.target);
  for (const Fault& f : c) tc.push_back(f.target);
  EXPECT_EQ(ta, tb);
  EXPECT_NE(ta, tc);
  std::sort(ta.begin(), ta.end());
  EXPECT_EQ(std::unique(ta.begin(), ta.end()), ta.end());  // distinct targets

  // 1,000 NICs of MTBF 1 s over 100 ms: about 100 failures of 5 ms each.
  const std::vector<Fault> m = draw("faults:\n  - random: {kind: nic, mtbf: 1s, repair: 5ms}\n", 7);
  EXPECT_GT(m.size(), 60u);
  EXPECT_LT(m.size(), 140u);
  for (const Fault& f : m) {
    EXPECT_LT(f.at, 100 * kMs);
    EXPECT_EQ(f.until - f.at, 5 * kMs);
    EXPECT_TRUE(f.where.has_value());
  }
  // GPUs need no listing; a failed GPU has no repair.
  const std::vector<Fault> g = draw("faults:\n  - random: {kind: gpu, mtbf: 1s, over: 50ms}\n", 3);
  for (const Fault& f : g) {
    EXPECT_EQ(f.kind, FaultKind::kGpu);
    EXPECT_EQ(f.until, pdes::kTimeMax);
  }
  const auto error = [&](const std::string& yaml) {
    try {
      draw(yaml, 1);
    } catch (const base::ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string e = error("faults:\n  - random: {kind: nic, fraction: 1.5}\n");
  EXPECT_NE(e.find("faults[0].random.fraction"), std::string::npos) << e;
  e = error("faults:\n  - random: {kind: nic, mtbf: 1s}\n");
  EXPECT_NE(e.find("faults[0].random.repair"), std::string::npos) << e;
  e = error("faults:\n  - random: {kind: switch, fraction: 0.1}\n");
  EXPECT_NE(e.find("not modelled"), std::string::npos) << e;
}

}  // namespace
}  // namespace sipsim::fabric
