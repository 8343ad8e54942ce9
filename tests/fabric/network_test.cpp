// Transport on an idle fabric: one message arrives exactly when the closed
// form says, for elect-flat and for chunked store-and-forward over topologies.
#include "sipsim/fabric/network.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>

#include "routed/one_message.hpp"
#include "sipsim/fabric/circuit/topoopt.hpp"
#include "sipsim/fabric/electrical/cluster.hpp"
#include "sipsim/fabric/electrical/torus2d.hpp"
#include "sipsim/fabric/flat/elect_flat.hpp"
#include "sipsim/fabric/routed/faults.hpp"
#include "sipsim/fabric/routed/routed_network.hpp"
#include "sipsim/pdes/engine.hpp"

namespace sipsim::fabric {
namespace {

using pdes::kNanosecond;

using testing::expect_exact;

TEST(Transport, SerializationRoundsUp) {
  EXPECT_EQ(serialization_ps(1, 8'000'000'000'000), 1u);  // 1 byte at 8 Tb/s: exactly 1 ps
  EXPECT_EQ(serialization_ps(1, 3'000'000'000'000), 3u);  // 2.67 ps -> 3
  EXPECT_EQ(serialization_ps(1 << 30, 400'000'000'000), 21'474'836'480u);
  EXPECT_EQ(serialization_ps(0, 1), 0u);
}

TEST(Transport, ElectFlatIsLatencyPlusSerialisation) {
  auto net = make_elect_flat(4, 400'000'000'000, 700 * kNanosecond);
  EXPECT_EQ(net->uncongested_ps(0, 3, 1000), 700 * kNanosecond + 20'000);
  expect_exact(*net, 0, 3, 1000);
  expect_exact(*net, 2, 1, 0);
}

// 16 nodes in servers of 4 (NVLink 2.4 Tb/s), 200 Gb/s NICs and leaves, and
// spines whose links run at `spine_bps`.
ClusterSpec two_tiers(std::uint64_t spine_bps) {
  ClusterSpec c;
  c.server_size = 4;
  c.intra_rate_bps = 2'400'000'000'000;
  c.intra_switch_latency = 100 * kNanosecond;
  c.intra_propagation = 20 * kNanosecond;
  c.nic_rate_bps = 200'000'000'000;
  TierSpec leaf{4, 1, 200'000'000'000, 350 * kNanosecond, 10 * kNanosecond};
  TierSpec spine{4, 1, spine_bps, 350 * kNanosecond, 50 * kNanosecond};
  c.tiers = {leaf, spine};
  return c;
}

TEST(Transport, RoutedMessagesArriveWhenTheClosedFormSays) {
  const ClusterSpec c = two_tiers(200'000'000'000);
  for (std::uint64_t chunk : {1000ull, 4096ull, 1ull << 20}) {
    auto net = make_routed(make_cluster(c, 16), chunk);
    for (std::uint64_t bytes : {0ull, 1ull, 4096ull, 100'000ull}) {
      expect_exact(*net, 0, 1, bytes);  // same server: NVLink
      expect_exact(*net, 0, 5, bytes);  // another leaf: up to the spine
      expect_exact(*net, 15, 2, bytes);
    }
  }
  TopooptSpec t{4, 400'000'000'000, 260 * kNanosecond, std::nullopt};
  auto ring = make_routed(make_topoopt(t, 12), 8192);
  expect_exact(*ring, 0, 6, 50'000);  // several relaying hops
  // The node's I/O latency (RAMP §7.5) delays each message once, not each chunk or hop.
  auto io = make_routed(make_topoopt(t, 12), 8192, 100 * kNanosecond);
  for (std::uint64_t bytes : {0ull, 50'000ull}) {
    expect_exact(*io, 0, 6, bytes);
    EXPECT_EQ(io->uncongested_ps(0, 6, bytes),
              ring->uncongested_ps(0, 6, bytes) + 100 * kNanosecond);
    EXPECT_EQ(io->injection_ps(0, 6, bytes), ring->injection_ps(0, 6, bytes) + 100 * kNanosecond);
  }
}

// Cut-through (InfiniBand, NVSwitch): a chunk passes a switch once its first
// byte is there, so a message pays one serialisation on its path's slowest
// link, plus each link's latency, whatever the chunk size.
TEST(Transport, CutThroughPaysTheSlowestLinkOnce) {
  const ClusterSpec c = two_tiers(100'000'000'000);  // spines slower than the NICs
  constexpr auto kCut = Forwarding::kCutThrough;
  for (std::uint64_t chunk : {1000ull, 4096ull, 1ull << 20}) {
    auto net = make_routed(make_cluster(c, 16), chunk, 0, kCut);
    for (std::uint64_t bytes : {0ull, 1ull, 4096ull, 100'000ull, 3'000'000ull}) {
      expect_exact(*net, 0, 1, bytes);  // same server: NVLink
      expect_exact(*net, 0, 5, bytes);  // another leaf: through the spine
      expect_exact(*net, 15, 2, bytes);
    }
  }
  // The path's latencies plus one serialisation at its slowest link's rate,
  // in one chunk or in 33.
  auto one = make_routed(make_cluster(c, 16), 1 << 20, 0, kCut);
  auto small = make_routed(make_cluster(c, 16), 3000, 0, kCut);  // whole ps per chunk
  for (std::uint32_t b : {1u, 5u}) {
    const pdes::Time path = one->uncongested_ps(0, b, 0);
    const pdes::Time transfer = serialization_ps(99'000, one->path_rate_bps(0, b));
    EXPECT_EQ(one->uncongested_ps(0, b, 99'000), path + transfer);
    EXPECT_EQ(small->uncongested_ps(0, b, 99'000), path + transfer);
  }
  EXPECT_EQ(one->path_rate_bps(0, 1), 2'400'000'000'000u);
  // Store-and-forward pays a whole chunk per extra hop.
  auto stored = make_routed(make_cluster(c, 16), 1 << 20);
  EXPECT_EQ(stored->uncongested_ps(0, 1, 100'000),
            one->uncongested_ps(0, 1, 100'000) + serialization_ps(100'000, 2'400'000'000'000));
  // Relaying nodes (TopoOpt's rings) cut through too.
  TopooptSpec t{4, 400'000'000'000, 260 * kNanosecond, std::nullopt};
  auto ring = make_routed(make_topoopt(t, 12), 8192, 100 * kNanosecond, kCut);
  expect_exact(*ring, 0, 6, 50'000);
  expect_exact(*ring, 0, 6, 0);
}

TEST(Transport, ChunkingPipelinesAcrossHops) {
  // Two equal hops: one 2-chunk message takes 3 chunk times, not 4.
  Torus2dSpec t{{3, 1}, 8'000'000'000'000, 0};
  auto net = make_routed(make_torus2d(t), 1000);  // 1000 B = 1 ns at 8 Tb/s
  // In a ring of 4, node 2 is two hops away either way.
  Torus2dSpec t4{{4, 1}, 8'000'000'000'000, 0};
  auto net4 = make_routed(make_torus2d(t4), 1000);
  EXPECT_EQ(net4->uncongested_ps(0, 2, 2000), 3 * kNanosecond);
  expect_exact(*net4, 0, 2, 2000);
  EXPECT_EQ(net->uncongested_ps(0, 1, 2000), 2 * kNanosecond);
}

// Faults (docs/faults.md): a link at half rate costs a one-chunk message
// one more serialisation at the healthy rate (store-and-forward: one per
// link), and the closed form still matches the simulation; a failed spine
// is routed around, a node cut off cannot send.
TEST(Transport, FaultedLinksAndSwitches) {
  const ClusterSpec c = two_tiers(200'000'000'000);
  const std::uint64_t bytes = 100'000;
  auto healthy = make_routed(make_cluster(c, 16), 1 << 20);
  // Node 0's NIC up to its leaf (its first link out of the server is
  // NVLink; the NIC per server is the server's endpoint).
  auto topo = make_cluster(c, 16);
  const std::vector<LinkId> nic = topo->nic_links(0);
  ASSERT_EQ(nic.size(), 2u);
  std::vector<LinkFault> half{{0, pdes::kTimeMax, {nic[0]}, 0.5, "nic"}};
  auto slow = make_routed(std::make_unique<FaultedTopology>(std::move(topo), half), 1 << 20);
  expect_exact(*slow, 0, 5, bytes);
  EXPECT_EQ(slow->uncongested_ps(0, 5, bytes) - healthy->uncongested_ps(0, 5, bytes),
            serialization_ps(bytes, 100'000'000'000) - serialization_ps(bytes, 200'000'000'000));
  // The other way the NIC is healthy.
  EXPECT_EQ(slow->uncongested_ps(5, 0, bytes), healthy->uncongested_ps(5, 0, bytes));

  // A spine down: every route avoids its links, and is as long as before
  // (the other spines are as close); its repair restores the healthy routes.
  auto inner = make_cluster(c, 16);
  const Vertex spine = *inner->switch_at(2, 0);
  std::vector<LinkId> spine_links;
  for (LinkId id = 0; id < inner->links().size(); ++id) {
    if (inner->link(id).from == spine || inner->link(id).to == spine) spine_links.push_back(id);
  }
  const auto healthy_topo = make_cluster(c, 16);
  FaultedTopology f(std::move(inner), {{10, 20, spine_links, 0.0, "spine"}});
  for (const pdes::Time t : {pdes::Time{0}, pdes::Time{10}, pdes::Time{20}}) {
    f.apply_changes(t);
    for (Vertex a = 0; a < 16; ++a) {
      for (Vertex b = 0; b < 16; ++b) {
        if (a == b) continue;
        std::vector<LinkId> path, before;
        ASSERT_TRUE(f.route(a, b, a * 31 + b, path));
        ASSERT_TRUE(healthy_topo->route(a, b, a * 31 + b, before));
        EXPECT_EQ(path.size(), before.size());
        for (const LinkId id : path) EXPECT_FALSE(f.down(id)) << t;
        // Routes the failure does not touch keep their healthy links.
        const bool touched = std::any_of(before.begin(), before.end(), [&](LinkId id) {
          return f.link(id).to == spine || f.link(id).from == spine;
        });
        if (t != 10 || !touched) {
          EXPECT_EQ(path, before);
        } else {
          for (const LinkId id : path) EXPECT_NE(f.link(id).to, spine);
        }
      }
    }
  }
  EXPECT_EQ(f.next_change(0), 10u);
  EXPECT_EQ(f.next_change(10), 20u);
  EXPECT_EQ(f.next_change(20), pdes::kTimeMax);

  // Node 0's NIC and its server's switch down: node 0 is cut off.
  auto alone = make_cluster(c, 16);
  std::vector<LinkId> cut = alone->nic_links(0);
  const Vertex server = *alone->switch_at(0, 0);
  for (LinkId id = 0; id < alone->links().size(); ++id) {
    if (alone->link(id).from == server || alone->link(id).to == server) cut.push_back(id);
  }
  FaultedTopology off(std::move(alone), {{0, pdes::kTimeMax, cut, 0.0, "server 0"}});
  try {
    off.next_link(0, 9, 1);
    ADD_FAILURE() << "node 0 is cut off";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("node 0 cannot reach node 9: the faults (server 0)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sipsim::fabric

int main(int argc, char** argv) {
  boost::mpi::environment env(argc, argv, false);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
