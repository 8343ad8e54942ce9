// The transformer on degree-limited fabrics (SiP-ML §3.2, §5): every axis
// folded on a ring fabric, and `auto` choosing algorithms whose peers fit the
// degree. Runs at 1 and 3 ranks (ctest) with transformer_test.cpp.
#include <gtest/gtest.h>
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <array>
#include <string>
#include <tuple>
#include <vector>

#include "../../support/training.hpp"
#include "scenario_run.hpp"
#include "sipsim/workload/mapping/mapper.hpp"
#include "sipsim/workload/transformer/transformer.hpp"

namespace sipsim::workload::transformer {
namespace {

constexpr auto& tiny = testing::tiny_transformer;

// On a ring fabric each axis is folded (mapping::folded_nodes): the map is a
// permutation of the job's nodes, and every TP ring's, DP ring's and
// pipeline's neighbours, wrap-arounds included, are within 2 x the axis'
// stride on the ring, whatever the mapping, whether the job fills the ring
// (its outermost axis then stays straight, closing around the fibre) or not.
TEST(TransformerFolded, NeighboursStayWithinTwiceTheStride) {
  const std::vector<std::array<Axis, 3>> orders = {{Axis::kTp, Axis::kDp, Axis::kPp},
                                                   {Axis::kDp, Axis::kPp, Axis::kTp},
                                                   {Axis::kPp, Axis::kTp, Axis::kDp}};
  for (const auto& [tp, pp, dp] : {std::tuple{4u, 1u, 16u}, std::tuple{4u, 2u, 8u},
                                   std::tuple{2u, 3u, 5u}, std::tuple{1u, 4u, 1u}}) {
    for (const std::array<Axis, 3>& order : orders) {
      Config c = tiny(tp, pp, dp, Schedule::kOneFOneB);
      c.order = order;
      const std::uint32_t n = c.gpus();
      for (const std::uint32_t ring : {n, n + 7}) {
        c.nodes = mapping::folded_nodes(axis_sizes(c), ring);
        ASSERT_EQ(c.nodes.size(), n);
        std::vector<std::uint32_t> sorted = c.nodes;
        std::sort(sorted.begin(), sorted.end());
        for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i);
        // An axis' stride: the product of the sizes inside it.
        const auto stride = [&](Axis a) {
          std::uint32_t s = 1;
          for (const Axis b : order) {
            if (b == a) break;
            s *= b == Axis::kTp ? tp : b == Axis::kDp ? dp : pp;
          }
          return s;
        };
        const auto hops = [ring](std::uint32_t a, std::uint32_t b) {
          const std::uint32_t d = a > b ? a - b : b - a;
          return std::min(d, ring - d);
        };
        for (std::uint32_t g = 0; g < n; ++g) {
          const Coord x = coord_of(c, g);
          const std::uint32_t here = node_of_gpu(c, g);
          const std::string where =
              fmt::format("tp {} pp {} dp {}, ring {}, gpu {}", tp, pp, dp, ring, g);
          EXPECT_LE(hops(here, node_of(c, {(x.tp + 1) % tp, x.dp, x.pp})), 2 * stride(Axis::kTp))
              << where;
          EXPECT_LE(hops(here, node_of(c, {x.tp, (x.dp + 1) % dp, x.pp})), 2 * stride(Axis::kDp))
              << where;
          EXPECT_LE(hops(here, node_of(c, {x.tp, x.dp, (x.pp + 1) % pp})), 2 * stride(Axis::kPp))
              << where;
        }
      }
    }
  }
  // tp 4 x dp 16 on a ring of 128: straight, the DP ring would wrap 60 nodes;
  // folded, dp 15 of node 0 is node 4 and dp 1 node 8. On a ring of 64 the DP
  // rings close around the fibre: straight, dp 15 is 4 hops from node 0.
  Config c = tiny(4, 1, 16, Schedule::kOneFOneB);
  c.nodes = mapping::folded_nodes(axis_sizes(c), 128);
  EXPECT_EQ(node_of(c, {0, 15, 0}), 4u);
  EXPECT_EQ(node_of(c, {0, 1, 0}), 8u);
  EXPECT_EQ(node_of(c, {3, 0, 0}), 1u);
  c.nodes = mapping::folded_nodes(axis_sizes(c), 64);
  EXPECT_EQ(node_of(c, {0, 15, 0}), 60u);
  EXPECT_EQ(node_of(c, {0, 1, 0}), 4u);
  EXPECT_EQ(node_of(c, {3, 0, 0}), 1u);
}

// On SiP-Ring the job is laid out folded, and the header says so.
TEST(Transformer, FoldedOnARingFabric) {
  const ScenarioRun r = run_scenario(
      "fabric: {type: sip-ring, nodes: 16, wavelengths: 4, latency: 1us, period: 20us, "
      "reconfiguration_delay: 5us}\n"
      "workload:\n  type: transformer\n"
      "  model: {layers: 2, hidden: 64, heads: 8, seq: 32, vocab: 256, global_batch: 8}\n"
      "  parallelism: {tp: 2, pp: 2, dp: 4}\n  mapping: dp-tp-pp\n");
  EXPECT_GT(r.iteration, 0u);
  EXPECT_NE(r.printed.find("recompute none, tp ring, dp ring, mapping dp-tp-pp folded | sip-ring"),
            std::string::npos)
      << r.printed;
}

// On a fabric with a degree limit `auto` picks the fastest-estimated pair of
// algorithms whose peers fit it. SiP-OCS with Q switches, tp 8 x dp 2 of a
// tiny model (latency-bound TP all-reduces): direct-concurrent (two steps,
// 7 TP peers) is the fastest TP estimate and fits no Q here; halving-doubling
// is the next, with 3 TP peers + 1 DP peer each way: it fits Q = 4, not
// Q = 3, where hierarchical-ring (2 + 1) does; Q = 1 fits nothing.
TEST(Transformer, AutoRespectsTheDegreeLimit) {
  const auto scenario = [](std::uint32_t q, const std::string& algorithms) {
    return fmt::format(
        "fabric: {{type: sip-ocs, nodes: 16, switches: {}, bandwidth: 400Gbps, latency: 1us}}\n"
        "workload:\n  type: transformer\n"
        "  model: {{layers: 2, hidden: 64, heads: 8, seq: 32, vocab: 256, global_batch: 4}}\n"
        "  parallelism: {{tp: 8, dp: 2}}\n  algorithms: {}\n",
        q, algorithms);
  };
  const std::string both = "{tp: auto, dp: auto}";
  const ScenarioRun four = run_scenario(scenario(4, both));
  EXPECT_NE(four.printed.find("tp halving-doubling (auto), dp ring (auto)"), std::string::npos)
      << four.printed;
  const ScenarioRun three = run_scenario(scenario(3, both));
  EXPECT_GT(three.iteration, 0u);
  EXPECT_NE(three.printed.find("tp hierarchical-ring (auto), dp ring (auto)"), std::string::npos)
      << three.printed;
  const auto error_of_scenario = [](const std::string& text) -> std::string {
    try {
      const setup::Setup s = setup::read(base::Document::load_string(text, "t.yaml"));
      setup::build(s);
    } catch (const base::ScenarioError& e) {
      return e.what();
    }
    return "";
  };
  // Named, the fastest does not fit Q = 3.
  EXPECT_NE(error_of_scenario(scenario(3, "{tp: halving-doubling}"))
                .find("GPU 0 needs 4 direct peers (sends to 4, receives from 4), but fabric "
                      "sip-ocs gives each GPU at most 3 each way"),
            std::string::npos);
  const std::string none = error_of_scenario(scenario(1, both));
  EXPECT_NE(none.find("t.yaml:3:3: workload: GPU 0 needs 8 direct peers"), std::string::npos)
      << none;
  EXPECT_NE(none.find("at most 1 each way (its degree)"), std::string::npos) << none;
  EXPECT_NE(none.find("with the fastest pair `auto` found, tp direct-concurrent, dp ring; none "
                      "of the 100 pairs of valid algorithms fits"),
            std::string::npos)
      << none;
}

}  // namespace
}  // namespace sipsim::workload::transformer
