// The critical path of communicators running one collective at once
// (estimate_concurrent_critical_paths, `replay-shapes`' contention): one
// communicator is the plain estimate, communicators on disjoint resources do
// not slow each other, and groups strided over the same servers load the
// same uplinks.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <span>
#include <stdexcept>

#include "../support/test_fabrics.hpp"
#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/fabric/flat/elect_flat.hpp"
#include "sipsim/fabric/routed/routed_network.hpp"

namespace sipsim::analytical {
namespace {

using collective::algorithm;
using collective::CollectiveSpec;
using collective::Op;
using pdes::kMicrosecond;
using pdes::Time;

const compute::Roofline kA100(compute::a100());

CollectiveSpec spec_of(Op op, const char* name, std::uint32_t p, std::uint64_t bytes) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = algorithm(name);
  s.p = p;
  s.bytes = bytes;
  return s;
}

// Four 8-GPU servers with a 200 Gb/s NIC per GPU under one leaf each.
std::unique_ptr<fabric::Network> cluster32() {
  return fabric::make_routed(fabric::make_cluster(testing::cluster_spec(200'000'000'000, 4), 32),
                             1 << 20);
}

// Communicator c of k: `p` members `stride` apart from node c * offset.
std::vector<std::vector<std::uint32_t>> groups(std::uint32_t k, std::uint32_t p,
                                               std::uint32_t stride, std::uint32_t offset) {
  std::vector<std::vector<std::uint32_t>> out(k, std::vector<std::uint32_t>(p));
  for (std::uint32_t c = 0; c < k; ++c) {
    for (std::uint32_t m = 0; m < p; ++m) out[c][m] = c * offset + m * stride;
  }
  return out;
}

// Ring all-reduce goes by rounds (one walk prices every communicator); direct
// all-to-all step by step (one walk per communicator).
const char* const kAlgorithms[][2] = {{"all-reduce", "ring"}, {"all-to-all", "direct"}};
Op op_of(const char* name) {
  return std::string_view(name) == "all-reduce" ? Op::kAllReduce : Op::kAllToAll;
}

TEST(ConcurrentCriticalPath, OneCommunicatorIsTheEstimate) {
  const auto net = cluster32();
  for (const auto& [op, name] : kAlgorithms) {
    const CollectiveSpec spec = spec_of(op_of(op), name, 4, 16 << 20);
    const auto comms = groups(1, 4, 8, 0);
    const auto together = estimate_concurrent_critical_paths(spec, comms, *net, kA100);
    const CollectiveEstimate alone = estimate_critical_path(spec, comms[0], *net, kA100);
    ASSERT_EQ(together.size(), 1u);
    EXPECT_EQ(together[0].total, alone.total) << name;
    EXPECT_EQ(together[0].compute, alone.compute) << name;
    EXPECT_EQ(together[0].h2t, alone.h2t) << name;
    EXPECT_EQ(together[0].messages, alone.messages) << name;
  }
}

// Four groups of eight on elect-flat (each node its own port) and the eight
// GPUs of each of four servers (NVLink inside the server): no resource is
// shared, so together is alone, to the picosecond, whichever way the waits
// combine.
TEST(ConcurrentCriticalPath, DisjointCommunicatorsDoNotSlowEachOther) {
  const auto flat = fabric::make_elect_flat(32, 400'000'000'000, kMicrosecond);
  const auto cluster = cluster32();
  for (const fabric::Network* net : {flat.get(), cluster.get()}) {
    for (const auto& [op, name] : kAlgorithms) {
      const CollectiveSpec spec = spec_of(op_of(op), name, 8, 64 << 20);
      const auto comms = groups(4, 8, 1, 8);
      for (const Waiting waiting : {Waiting::kAdded, Waiting::kOverlapped}) {
        const auto together =
            estimate_concurrent_critical_paths(spec, comms, *net, kA100, kDefaultMaxWork, waiting);
        ASSERT_EQ(together.size(), 4u);
        for (std::size_t c = 0; c < comms.size(); ++c) {
          EXPECT_EQ(together[c].total, estimate_critical_path(spec, comms[c], *net, kA100).total)
              << name << ", communicator " << c;
        }
      }
    }
  }
}

// Data-parallel groups strided by the server size: group t is GPU t of each
// of four servers, so the eight groups' inter-server messages leave every
// server through its leaf's uplinks at once. Each group alone meets an idle
// fabric; together, none is faster and the flows that share an uplink
// (ECMP) are slower. The ring's estimate is the same with the groups in any
// order: each is priced against the same loads.
TEST(ConcurrentCriticalPath, StridedGroupsLoadTheSameUplinks) {
  const auto net = cluster32();
  for (const auto& [op, name] : kAlgorithms) {
    const CollectiveSpec spec = spec_of(op_of(op), name, 4, 64 << 20);
    auto comms = groups(8, 4, 8, 1);
    const auto together = estimate_concurrent_critical_paths(spec, comms, *net, kA100);
    ASSERT_EQ(together.size(), 8u);
    Time slowest = 0;
    for (std::size_t c = 0; c < comms.size(); ++c) {
      const Time alone = estimate_critical_path(spec, comms[c], *net, kA100).total;
      EXPECT_GE(together[c].total, alone) << name << ", communicator " << c;
      slowest = std::max(slowest, together[c].total - alone);
    }
    EXPECT_GT(slowest, 0u) << name;
    std::reverse(comms.begin(), comms.end());
    const auto reversed = estimate_concurrent_critical_paths(spec, comms, *net, kA100);
    for (std::size_t c = 0; c < comms.size(); ++c) {
      EXPECT_EQ(reversed[c].total, together[comms.size() - 1 - c].total) << name << ", " << c;
    }
  }
}

// Waiting::kOverlapped (replay-shapes' pricing): a message takes the larger
// of its idle-fabric time and its busiest resource's time, instead of their
// sum. Alone, with nothing shared, that is the plain estimate; beside the
// strided groups it is never above the added waits, and never below alone.
TEST(ConcurrentCriticalPath, OverlappedWaitsLieBetweenAloneAndAdded) {
  const auto net = cluster32();
  for (const auto& [op, name] : kAlgorithms) {
    const CollectiveSpec spec = spec_of(op_of(op), name, 4, 64 << 20);
    const auto comms = groups(8, 4, 8, 1);
    const auto alone = estimate_concurrent_critical_paths(
        spec, std::span(comms).first(1), *net, kA100, kDefaultMaxWork, Waiting::kOverlapped);
    EXPECT_EQ(alone[0].total, estimate_critical_path(spec, comms[0], *net, kA100).total) << name;
    const auto added = estimate_concurrent_critical_paths(spec, comms, *net, kA100);
    const auto overlapped = estimate_concurrent_critical_paths(
        spec, comms, *net, kA100, kDefaultMaxWork, Waiting::kOverlapped);
    bool slower = false;
    for (std::size_t c = 0; c < comms.size(); ++c) {
      EXPECT_LE(overlapped[c].total, added[c].total) << name << ", communicator " << c;
      EXPECT_GE(overlapped[c].total, alone[0].total) << name << ", communicator " << c;
      slower = slower || overlapped[c].total > alone[0].total;
    }
    EXPECT_TRUE(slower) << name;
  }
}

TEST(ConcurrentCriticalPath, RefusesMismatchedSizesAndWorkAboveTheLimit) {
  const auto net = fabric::make_elect_flat(64, 400'000'000'000, kMicrosecond);
  const CollectiveSpec ring = spec_of(Op::kAllReduce, "ring", 8, 1 << 20);
  auto comms = groups(4, 8, 1, 8);
  comms[2].pop_back();
  EXPECT_THROW(estimate_concurrent_critical_paths(ring, comms, *net, kA100), std::invalid_argument);
  // Rounds: the work of one walk times the communicators; steps: times their square.
  comms = groups(4, 8, 1, 8);
  const std::uint64_t ring_work = critical_path_work(ring);
  EXPECT_NO_THROW(estimate_concurrent_critical_paths(ring, comms, *net, kA100, 4 * ring_work));
  EXPECT_THROW(estimate_concurrent_critical_paths(ring, comms, *net, kA100, 4 * ring_work - 1),
               EstimateTooLarge);
  const CollectiveSpec direct = spec_of(Op::kAllToAll, "direct", 8, 1 << 20);
  const std::uint64_t direct_work = critical_path_work(direct);
  EXPECT_NO_THROW(estimate_concurrent_critical_paths(direct, comms, *net, kA100, 16 * direct_work));
  EXPECT_THROW(estimate_concurrent_critical_paths(direct, comms, *net, kA100, 16 * direct_work - 1),
               EstimateTooLarge);
}

}  // namespace
}  // namespace sipsim::analytical
