// Peers per node and the degree check (workload/degree.hpp), and the job's
// traffic matrix from the same walk (workload/transfers.hpp): hand-built
// program sets with exact peer counts and messages, and transformer jobs
// that fit a degree and that do not.
#include "sipsim/workload/degree.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../support/training.hpp"
#include "sipsim/workload/interpreter.hpp"
#include "sipsim/workload/transformer/transformer.hpp"

namespace sipsim::workload {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;

collective::CollectiveCall all_reduce(std::string_view algorithm) {
  return {collective::Op::kAllReduce, collective::algorithm(algorithm), kMiB, 0};
}

// 8 nodes: "ring8" (all 8, ring all-reduce: one peer each way), "direct4"
// (nodes 0-3, direct all-reduce: the other 3 members both ways), and node 0
// sends 4 KiB to node 5. Node 0 sends to {1} + {1, 2, 3} + {5} and receives
// from {7} + {1, 2, 3}: 4 peers each way.
ProgramSet mixed_set() {
  ProgramSet set;
  set.comms.push_back({"ring8", {0, 1, 2, 3, 4, 5, 6, 7}, {}});
  set.comms.push_back({"direct4", {0, 1, 2, 3}, {}});
  Program sender("sender"), four("four"), receiver("receiver"), rest("rest");
  sender.collective(Category::kDpComm, 0, all_reduce("ring"));
  sender.collective(Category::kTpComm, 1, all_reduce("direct"));
  sender.collective(Category::kTpComm, 1, all_reduce("direct"));  // a repeat adds nothing
  sender.send(Category::kPpComm, 0, 4096);
  four.collective(Category::kDpComm, 0, all_reduce("ring"));
  four.collective(Category::kTpComm, 1, all_reduce("direct"));
  four.collective(Category::kTpComm, 1, all_reduce("direct"));
  receiver.collective(Category::kDpComm, 0, all_reduce("ring"));
  receiver.recv(Category::kPpComm, 0, 4096);
  rest.collective(Category::kDpComm, 0, all_reduce("ring"));
  set.programs = {sender, four, receiver, rest};
  set.bindings.resize(8);
  set.bindings[0] = Binding{0, {{0, 0}, {1, 0}}, {5}};
  for (std::uint32_t n = 1; n < 4; ++n) set.bindings[n] = Binding{1, {{0, n}, {1, n}}, {}};
  set.bindings[5] = Binding{2, {{0, 5}}, {0}};
  for (std::uint32_t n : {4u, 6u, 7u}) set.bindings[n] = Binding{3, {{0, n}}, {}};
  return set;
}

TEST(Degree, PeersCountOncePerDirectionAcrossGroups) {
  const ProgramSet set = mixed_set();
  EXPECT_EQ(peer_counts(set), (std::vector<std::uint32_t>{4, 3, 3, 4, 1, 2, 1, 1}));
  const NodePeers p = node_peers(set, 0);
  EXPECT_EQ(p.node, 0u);
  EXPECT_EQ(p.out, 4u);
  EXPECT_EQ(p.in, 4u);
  ASSERT_EQ(p.groups.size(), 3u);
  EXPECT_EQ(p.groups[0].name, "ring8");
  EXPECT_EQ(p.groups[0].size, 8u);
  EXPECT_EQ(p.groups[0].how, "ring");
  EXPECT_EQ(p.groups[0].out, 1u);
  EXPECT_EQ(p.groups[0].in, 1u);
  EXPECT_EQ(p.groups[1].name, "direct4");
  EXPECT_EQ(p.groups[1].how, "direct");
  EXPECT_EQ(p.groups[1].peers(), 3u);
  EXPECT_EQ(p.groups[2].name, "point-to-point");
  EXPECT_EQ(p.groups[2].size, 0u);
  EXPECT_EQ(p.groups[2].how, "pp-comm");
  EXPECT_EQ(p.groups[2].out, 1u);
  EXPECT_EQ(p.groups[2].in, 0u);
  // The receiver counts its sender (a recv is a peer too): from {4, 0}.
  const NodePeers r = node_peers(set, 5);
  EXPECT_EQ(r.out, 1u);
  EXPECT_EQ(r.in, 2u);
  EXPECT_EQ(r.groups.back().in, 1u);
  // Node 3 sends to {4} + {0, 1, 2} and receives from {2} + {0, 1, 2}.
  EXPECT_EQ(node_peers(set, 3).out, 4u);
  EXPECT_EQ(node_peers(set, 3).in, 3u);
}

TEST(Degree, MessageNamesTheFirstNodeItsGroupsAndWhatWouldFit) {
  const ProgramSet set = mixed_set();
  EXPECT_EQ(check_degree(set, 4), "");
  // Node 0 first, though node 3 needs 4 too.
  EXPECT_EQ(check_degree(set, 3, "fabric sip-ocs"),
            "GPU 0 needs 4 direct peers (sends to 4, receives from 4), but fabric sip-ocs gives "
            "each GPU at most 3 each way (its degree): ring8 (8 GPUs, ring): 1, direct4 (4 GPUs, "
            "direct): 3, point-to-point (pp-comm): 1; ring algorithms for direct4 would need at "
            "most 3");
  EXPECT_EQ(check_degree(set, 2),
            "GPU 0 needs 4 direct peers (sends to 4, receives from 4), but the fabric gives each "
            "GPU at most 2 each way (its degree): ring8 (8 GPUs, ring): 1, direct4 (4 GPUs, "
            "direct): 3, point-to-point (pp-comm): 1; even ring algorithms for direct4 would "
            "need up to 3: use fewer parallel groups per GPU");
  // Without node 0's program (each node's own ops are walked), node 3 is the
  // first over 3.
  ProgramSet without0 = mixed_set();
  without0.bindings[0].reset();
  EXPECT_EQ(peer_counts(without0), (std::vector<std::uint32_t>{0, 3, 3, 4, 1, 2, 1, 1}));
  EXPECT_EQ(check_degree(without0, 3),
            "GPU 3 needs 4 direct peers (sends to 4, receives from 3), but the fabric gives each "
            "GPU at most 3 each way (its degree): ring8 (8 GPUs, ring): 1, direct4 (4 GPUs, "
            "direct): 3; ring algorithms for direct4 would need at most 2");
}

TEST(Degree, RingSuggestedWhenItFitsAndNothingWhenGroupsAreRings) {
  ProgramSet set;
  set.comms.push_back({"dp", {0, 1, 2, 3, 4, 5, 6, 7}, {}});
  Program p("all");
  p.collective(Category::kDpComm, 0, all_reduce("direct"));
  set.programs = {p};
  for (std::uint32_t n = 0; n < 8; ++n) set.bindings.push_back(Binding{0, {{0, n}}, {}});
  EXPECT_EQ(peer_counts(set), std::vector<std::uint32_t>(8, 7));
  EXPECT_EQ(check_degree(set, 7), "");
  EXPECT_EQ(check_degree(set, 4),
            "GPU 0 needs 7 direct peers (sends to 7, receives from 7), but the fabric gives each "
            "GPU at most 4 each way (its degree): dp (8 GPUs, direct): 7; ring algorithms for dp "
            "would need at most 1");

  ProgramSet ring;
  ring.comms.push_back({"dp", {0, 1, 2, 3}, {}});
  Program r("ring");
  r.collective(Category::kDpComm, 0, all_reduce("ring"));
  r.send(Category::kPpComm, 0, 64);
  r.recv(Category::kPpComm, 1, 64);
  ring.programs = {r};
  for (std::uint32_t n = 0; n < 4; ++n) {
    ring.bindings.push_back(Binding{0, {{0, n}}, {(n + 2) % 4, (n + 2) % 4}});
  }
  // The ring's next and previous member, the point-to-point peer both ways.
  EXPECT_EQ(peer_counts(ring), std::vector<std::uint32_t>(4, 2));
  EXPECT_EQ(check_degree(ring, 2), "");
  EXPECT_EQ(check_degree(ring, 1),
            "GPU 0 needs 2 direct peers (sends to 2, receives from 2), but the fabric gives each "
            "GPU at most 1 each way (its degree): dp (4 GPUs, ring): 1, point-to-point (pp-comm): "
            "1; its groups already need one peer each way (rings): use fewer parallel groups or "
            "point-to-point peers per GPU");
}

// The traffic matrix from the same walk: sends and outgoing wire messages.
TEST(Degree, JobTrafficFromTheSameWalk) {
  const std::vector<fabric::PairTraffic> t = job_traffic(mixed_set());
  auto bytes = [&](std::uint32_t src, std::uint32_t dst) -> std::uint64_t {
    for (const fabric::PairTraffic& p : t) {
      if (p.src == src && p.dst == dst) return p.bytes;
    }
    return 0;
  };
  // Ring of 8: 2 x 7 chunks of 1/8 MiB to the next member.
  const std::uint64_t ring = 14 * kMiB / 8;
  EXPECT_EQ(bytes(4, 5), ring);
  EXPECT_EQ(bytes(7, 0), ring);
  EXPECT_EQ(bytes(0, 7), 0u);
  EXPECT_EQ(bytes(0, 5), 4096u);
  EXPECT_EQ(bytes(5, 0), 0u);
  // Node 0 to node 2: the direct all-reduce only, twice.
  EXPECT_GT(bytes(0, 2), 0u);
  EXPECT_EQ(bytes(0, 1), ring + bytes(0, 2));
  for (std::size_t i = 1; i < t.size(); ++i) {
    EXPECT_TRUE(t[i - 1].src < t[i].src || (t[i - 1].src == t[i].src && t[i - 1].dst < t[i].dst));
  }
}

// tp 2 x pp 2 x dp 8 (32 GPUs): each way, a TP pair (1 peer), a pipeline
// neighbour (1: activations out, gradients in, or the reverse) and the DP
// group, ring (1) or direct (7).
TEST(Degree, TransformerFitsWithRingsNotWithDirectDataParallel) {
  using transformer::Schedule;
  const testing::LinearDevice device;
  transformer::Config c = testing::tiny_transformer(2, 2, 8, Schedule::kOneFOneB);
  const ProgramSet rings = transformer::make_programs(c, device, c.gpus());
  EXPECT_EQ(peer_counts(rings), std::vector<std::uint32_t>(32, 3));
  EXPECT_EQ(check_degree(rings, 3), "");

  c.groups[transformer::kDpGroup].algorithm = collective::algorithm("direct");
  const ProgramSet direct = transformer::make_programs(c, device, c.gpus());
  EXPECT_EQ(peer_counts(direct), std::vector<std::uint32_t>(32, 9));
  EXPECT_EQ(check_degree(direct, 9), "");
  EXPECT_EQ(check_degree(direct, 8, "fabric sip-ring"),
            "GPU 0 needs 9 direct peers (sends to 9, receives from 9), but fabric sip-ring gives "
            "each GPU at most 8 each way (its degree): tp-0-0 (2 GPUs, ring): 1, dp-0-0 (8 GPUs, "
            "direct): 7, point-to-point (pp-comm): 1; ring algorithms for dp-0-0 would need at "
            "most 3");
}

}  // namespace
}  // namespace sipsim::workload
