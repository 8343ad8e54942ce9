// The mappers (workload/mapping/mapper.hpp), each chosen by its fabric's
// facts: contiguous groups follow the fabric's structure (the cluster's
// tiers, the whole torus), a ring fabric folds every axis, RAMP places a job
// on its §6.3 sub-box and its groups run RAMP-x.
#include "sipsim/workload/mapping/mapper.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "sipsim/collective/ramp_x.hpp"
#include "sipsim/fabric/electrical/plugin.hpp"
#include "sipsim/fabric/flat/plugin.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"
#include "sipsim/fabric/ramp/placement.hpp"
#include "sipsim/fabric/ramp/plugin.hpp"
#include "sipsim/fabric/sip/plugin.hpp"

namespace sipsim::workload::mapping {
namespace {

std::unique_ptr<fabric::Plugin> read(fabric::PluginReader reader, const std::string& yaml) {
  const base::Document doc = base::Document::load_string(yaml, "f.yaml");
  base::MapReader f = doc.root().as_map();
  f.required("type");
  std::unique_ptr<fabric::Plugin> plugin = reader(f);
  f.finish();
  return plugin;
}

collective::Dims dims(std::vector<std::uint32_t> v) {
  collective::Dims d{};
  std::copy(v.begin(), v.end(), d.begin());
  return d;
}

TEST(Mapper, MostSquareSplit) {
  EXPECT_EQ(most_square(12), dims({3, 4}));
  EXPECT_EQ(most_square(16), dims({4, 4}));
  EXPECT_EQ(most_square(7), dims({1, 7}));
}

TEST(Mapper, ContiguousWithoutStructureIsMostSquare) {
  const auto flat = read(fabric::elect_flat_plugin,
                         "{type: elect-flat, nodes: 64, bandwidth: 100Gbps, latency: 1us}");
  const auto mapper = make_mapper(*flat);
  const collective::AlgorithmParams p = mapper->group_params(12, true);
  EXPECT_EQ(p.torus, dims({3, 4}));
  EXPECT_EQ(p.hierarchy, p.torus);
  EXPECT_FALSE(mapper->place_group(8, p).has_value());
  const std::vector<std::uint32_t> sizes = {4, 2, 8};
  const AxesMapping m = mapper->map_axes(sizes);
  EXPECT_TRUE(m.nodes.empty());  // GPU g on node g
  EXPECT_FALSE(m.folded);
  EXPECT_FALSE(m.algorithm.has_value());
  ASSERT_EQ(m.params.size(), 3u);
  EXPECT_EQ(m.params[2].torus, dims({2, 4}));
}

// The cluster: a contiguous group is servers x the rest, its hierarchy one
// level per tier from the server up; a strided one knows no structure.
TEST(Mapper, ClusterGroupsFollowServersAndTiers) {
  const auto cluster =
      read(fabric::cluster_plugin, "{type: cluster, preset: superpod, nodes: 1024}");
  const auto mapper = make_mapper(*cluster);
  const collective::AlgorithmParams p = mapper->group_params(256, true);
  EXPECT_EQ(p.torus, dims({8, 32}));
  EXPECT_EQ(p.hierarchy[0], 8u);  // the server
  std::uint32_t product = 1;
  for (std::size_t i = 0; i < collective::levels(p.hierarchy); ++i) product *= p.hierarchy[i];
  EXPECT_EQ(product, 256u);
  EXPECT_GE(collective::levels(p.hierarchy), 3u);
  const collective::AlgorithmParams strided = mapper->group_params(32, false);
  EXPECT_EQ(strided.torus, dims({4, 8}));
  EXPECT_EQ(strided.hierarchy, strided.torus);
}

TEST(Mapper, TheWholeTorusRunsOnItsDimensions) {
  const auto torus = read(fabric::torus2d_plugin,
                          "{type: torus2d, dims: [2, 16], link_bandwidth: 100Gbps, hop_latency: "
                          "10ns}");
  const auto mapper = make_mapper(*torus);
  EXPECT_EQ(mapper->group_params(32, false).torus, dims({2, 16}));
  EXPECT_EQ(mapper->group_params(32, true).hierarchy, dims({2, 16}));
  EXPECT_EQ(mapper->group_params(16, true).torus, dims({4, 4}));  // part of it: most square
}

// SiP-Ring (ring order): every axis folded, a permutation of the job's nodes.
TEST(Mapper, RingFabricFoldsEveryAxis) {
  const auto ring = read(fabric::sip_ring_plugin,
                         "{type: sip-ring, nodes: 64, wavelengths: 4, latency: 1us, period: 20us, "
                         "reconfiguration_delay: 5us}");
  EXPECT_TRUE(ring->facts().ring_order);
  EXPECT_EQ(ring->facts().degree_limit.value_or(0), 16u);  // SiP-ML §5's reach 15, plus one
  const std::vector<std::uint32_t> sizes = {4, 8};
  const AxesMapping m = make_mapper(*ring)->map_axes(sizes);
  EXPECT_TRUE(m.folded);
  EXPECT_EQ(m.nodes, folded_nodes(sizes, 64));
  std::vector<std::uint32_t> sorted = m.nodes;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::uint32_t> all(32);
  std::iota(all.begin(), all.end(), 0u);
  EXPECT_EQ(sorted, all);
  EXPECT_EQ(m.nodes[3], 1u);  // TP rank 3 of 4 folded next to rank 0: 0, 3, 1, 2
}

// RAMP §6.3: a one-group job on the sub-box of shape_for, RAMP-x's payload
// set, the sub-box served when RAMP-x runs alone; a training job's axes
// each a factor of the sub-box's steps.
TEST(Mapper, RampPlacesJobsOnSubBoxes) {
  const auto ramp = read(fabric::ramp::plugin, "{type: ramp, x: 4, J: 4, Lambda: 8}");
  ASSERT_TRUE(ramp->facts().sub_boxes.has_value());
  const auto mapper = make_mapper(*ramp);
  const std::optional<GroupPlacement> g = mapper->place_group(16, mapper->group_params(16, true));
  ASSERT_TRUE(g.has_value());
  const fabric::ramp::RampShape shape = fabric::ramp::shape_for(4, 4, 2, 16);
  EXPECT_EQ(g->nodes, fabric::ramp::job_nodes(shape));
  EXPECT_EQ(g->algorithm, collective::algorithm("ramp-x"));
  EXPECT_EQ(collective::ramp_x::job_params(g->params).shape, shape);
  ASSERT_TRUE(g->service.job.has_value());
  EXPECT_EQ(*g->service.job, shape);
  EXPECT_THROW(mapper->place_group(1000, {}), std::invalid_argument);

  const std::vector<std::uint32_t> sizes = {4, 4};
  const AxesMapping m = mapper->map_axes(sizes);
  const auto placed = fabric::ramp::place_axes(4, 4, 2, sizes);
  ASSERT_TRUE(placed.has_value());
  EXPECT_EQ(m.nodes, placed->nodes);
  EXPECT_EQ(m.algorithm, collective::algorithm("ramp-x"));
  for (std::size_t a = 0; a < sizes.size(); ++a) {
    EXPECT_EQ(collective::ramp_x::job_params(m.params[a]).shape, placed->axis_shape(a));
  }
  EXPECT_EQ(m.service.job, placed->job);
  ASSERT_TRUE(m.service.inner.has_value());
  EXPECT_EQ((*m.service.inner)[0], placed->axes[0][0]);
}

}  // namespace
}  // namespace sipsim::workload::mapping
