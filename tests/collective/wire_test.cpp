// The wire view of a step (one message per peer) must equal what the chunk-level
// schedule sends, including where it is computed in closed form.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sipsim/collective/ramp_x.hpp"
#include "sipsim/collective/schedule.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"

namespace sipsim::collective {

// RAMP-x reads the RAMP geometry of fabric/ramp/ (docs/architecture.md).
namespace ramp = fabric::ramp;
using fabric::ramp::RampShape;
namespace {

bool same(std::vector<WireMessage> a, std::vector<WireMessage> b) {
  auto key = [](const WireMessage& m) { return std::pair(m.peer, m.bytes); };
  auto less = [&](const WireMessage& x, const WireMessage& y) { return key(x) < key(y); };
  std::sort(a.begin(), a.end(), less);
  std::sort(b.begin(), b.end(), less);
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [&](const WireMessage& x, const WireMessage& y) { return key(x) == key(y); });
}

// Every member's every step of `spec`: the closed-form wire step equals the one
// derived from the chunk sets, peers in order with bytes and parts, and the
// same local operation. `at` names the case in failures.
void expect_closed_form_exact(const CollectiveSpec& spec, const std::string& at, int& checked) {
  auto exact = [](const std::vector<WireMessage>& a, const std::vector<WireMessage>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const WireMessage& x, const WireMessage& y) {
                        return x.peer == y.peer && x.bytes == y.bytes && x.parts == y.parts;
                      });
  };
  for (std::uint32_t m = 0; m < spec.p; ++m) {
    const Schedule sched(spec, m);
    for (std::uint32_t i = 0; i < sched.steps(); ++i) {
      const Step step = sched.step(i);
      const WireStep w = wire_step(sched, i);
      const std::string where = at + " m" + std::to_string(m) + " i" + std::to_string(i);
      ASSERT_TRUE(exact(w.out, outgoing(step))) << where;
      ASSERT_TRUE(exact(w.in, incoming(step))) << where;
      EXPECT_EQ(w.multicast, step.multicast) << where;
      EXPECT_EQ(w.local, step.local) << where;
      EXPECT_EQ(w.sources, step.sources) << where;
      EXPECT_EQ(w.local_bytes, step.local_bytes) << where;
      ++checked;
    }
  }
}

TEST(WireStep, GroupsSendsAndReceivesPerPeer) {
  Step s;
  s.sends = {{3, {}, 10}, {4, {}, 5}, {3, {}, 7}};
  s.recvs = {{2, {}, 1, Combine::kCopy}};
  const auto out = outgoing(s);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].peer, 3u);
  EXPECT_EQ(out[0].bytes, 17u);
  EXPECT_EQ(out[0].parts, 2u);
  EXPECT_EQ(incoming(s).size(), 1u);
}

// RAMP-x all-to-all in closed form (RAMP Table 8) against the chunk sets.
TEST(WireStep, RampAllToAllClosedFormMatchesTheChunkSchedule) {
  int checked = 0;
  for (std::uint32_t x : {2u, 3u, 4u}) {
    for (std::uint32_t J = 1; J <= x; ++J) {
      for (std::uint32_t D = 1; D <= x; ++D) {
        for (std::uint32_t n : {x * J * D * x, x, x * J}) {
          RampShape shape;
          try {
            shape = ramp::shape_for(x, J, D, n);
          } catch (const std::invalid_argument&) {
            continue;
          }
          CollectiveSpec spec;
          spec.op = Op::kAllToAll;
          spec.algorithm = algorithm("ramp-x");
          spec.p = n;
          spec.bytes = std::uint64_t{n} * 48;  // uniform blocks: the closed form applies
          ramp_x::set_spec(spec, shape);
          for (std::uint32_t m = 0; m < n; ++m) {
            const Schedule sched(spec, m);
            for (std::uint32_t i = 0; i < sched.steps(); ++i) {
              const Step step = sched.step(i);
              const WireStep w = wire_step(sched, i);
              ASSERT_TRUE(same(w.out, outgoing(step))) << x << J << D << " m" << m << " i" << i;
              ASSERT_TRUE(same(w.in, incoming(step))) << x << J << D << " m" << m << " i" << i;
              EXPECT_EQ(w.local, step.local);
              EXPECT_EQ(w.local_bytes, step.local_bytes);
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

// RAMP-x reduce-scatter / all-gather steps in closed form (all-reduce, reduce-scatter,
// all-gather, barrier, reduce) against the chunk sets: peers in order, bytes and parts.
TEST(WireStep, RampExchangeClosedFormMatchesTheChunkSchedule) {
  int checked = 0;
  for (std::uint32_t x : {2u, 3u, 4u}) {
    for (std::uint32_t J = 1; J <= x; ++J) {
      for (std::uint32_t D = 1; D <= x; ++D) {
        for (std::uint32_t n : {x * J * D * x, x, x * J, 2 * x}) {
          RampShape shape;
          try {
            shape = ramp::shape_for(x, J, D, n);
          } catch (const std::invalid_argument&) {
            continue;
          }
          for (Op op :
               {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather, Op::kBarrier, Op::kReduce}) {
            // Equal chunks, and a size that leaves them ragged.
            for (std::uint64_t bytes : {std::uint64_t{n} * 64, std::uint64_t{n} * 64 + 7}) {
              CollectiveSpec spec;
              spec.op = op;
              spec.algorithm = algorithm("ramp-x");
              spec.p = n;
              spec.bytes = bytes;
              spec.root = n / 3;
              ramp_x::set_spec(spec, shape);
              ASSERT_NO_FATAL_FAILURE(expect_closed_form_exact(
                  spec,
                  std::string(to_string(op)) + " " + std::to_string(x) + std::to_string(J) +
                      std::to_string(D) + " n" + std::to_string(n),
                  checked));
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

// RAMP's pipelined tree broadcast (eq. 1 stages) in closed form against the
// chunk sets: root, forwarders, level-1 leaves and level 2, exact order.
TEST(WireStep, RampTreeBroadcastClosedFormMatchesTheChunkSchedule) {
  int checked = 0;
  for (std::uint32_t x : {2u, 3u, 4u}) {
    for (std::uint32_t J = 1; J <= x; ++J) {
      for (std::uint32_t D = 1; D <= x; ++D) {
        const RampShape shape = ramp::full_job(x, J, D);
        if (!ramp::tree_broadcast_fits(shape)) continue;
        const std::uint32_t n = x * J * D * x;
        for (std::uint32_t stages : {1u, 3u}) {
          for (std::uint32_t root : {0u, n / 3, n - 1}) {
            CollectiveSpec spec;
            spec.op = Op::kBroadcast;
            spec.algorithm = algorithm("ramp-x");
            spec.p = n;
            spec.bytes = std::uint64_t{n} * 64 + 5;  // ragged chunks
            spec.root = root;
            ramp_x::set_spec(spec, shape, stages);
            ASSERT_NO_FATAL_FAILURE(expect_closed_form_exact(spec,
                                                             std::to_string(x) + std::to_string(J) +
                                                                 std::to_string(D) + " root" +
                                                                 std::to_string(root),
                                                             checked));
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

// Halving-doubling's all-reduce, reduce-scatter and all-gather in closed form against
// the chunk sets, folds of non-powers of two included, exact order and local operations.
TEST(WireStep, HalvingDoublingClosedFormMatchesTheChunkSchedule) {
  int checked = 0;
  for (std::uint32_t p = 1; p <= 40; ++p) {
    for (Op op : {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather}) {
      for (std::uint64_t bytes : {std::uint64_t{p} * 64, std::uint64_t{p} * 64 + 13}) {
        CollectiveSpec spec;
        spec.op = op;
        spec.algorithm = algorithm("halving-doubling");
        spec.p = p;
        spec.bytes = bytes;
        ASSERT_NO_FATAL_FAILURE(expect_closed_form_exact(
            spec, std::string(to_string(op)) + " p" + std::to_string(p), checked));
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

// The 2D torus all-to-all (row exchange, then column exchange) in closed form
// against the chunk sets, on tori of 1..7 x 1..7, even and ragged chunks.
TEST(WireStep, TorusAllToAllClosedFormMatchesTheChunkSchedule) {
  int checked = 0;
  for (std::uint32_t nx = 1; nx <= 7; ++nx) {
    for (std::uint32_t ny = 1; ny <= 7; ++ny) {
      const std::uint32_t p = nx * ny;
      for (std::uint64_t bytes : {std::uint64_t{p} * p * 8, std::uint64_t{p} * p * 8 + 11}) {
        CollectiveSpec spec;
        spec.op = Op::kAllToAll;
        spec.algorithm = algorithm("torus2d");
        spec.p = p;
        spec.bytes = bytes;
        spec.dims[0] = nx;
        spec.dims[1] = ny;
        ASSERT_NO_FATAL_FAILURE(expect_closed_form_exact(
            spec, std::to_string(nx) + "x" + std::to_string(ny) + " " + std::to_string(bytes),
            checked));
      }
    }
  }
  EXPECT_GT(checked, 5000);
}

// Bruck all-to-all in closed form against the chunk sets, parts included.
TEST(WireStep, BruckAllToAllClosedFormMatchesTheChunkSchedule) {
  int checked = 0;
  for (std::uint32_t p = 1; p <= 70; ++p) {
    for (std::uint64_t bytes : {std::uint64_t{p} * 24, std::uint64_t{p} * 24 + 5}) {
      CollectiveSpec spec;
      spec.op = Op::kAllToAll;
      spec.algorithm = algorithm("bruck");
      spec.p = p;
      spec.bytes = bytes;
      for (std::uint32_t m = 0; m < p; ++m) {
        const Schedule sched(spec, m);
        for (std::uint32_t i = 0; i < sched.steps(); ++i) {
          const Step step = sched.step(i);
          const WireStep w = wire_step(sched, i);
          const std::vector<WireMessage> out = outgoing(step), in = incoming(step);
          ASSERT_EQ(w.out.size(), out.size());
          ASSERT_EQ(w.in.size(), in.size());
          for (std::size_t j = 0; j < out.size(); ++j) {
            EXPECT_EQ(w.out[j].peer, out[j].peer) << p << " m" << m << " i" << i;
            EXPECT_EQ(w.out[j].bytes, out[j].bytes) << p << " m" << m << " i" << i;
            EXPECT_EQ(w.out[j].parts, out[j].parts) << p << " m" << m << " i" << i;
          }
          for (std::size_t j = 0; j < in.size(); ++j) {
            EXPECT_EQ(w.in[j].peer, in[j].peer) << p << " m" << m << " i" << i;
            EXPECT_EQ(w.in[j].bytes, in[j].bytes) << p << " m" << m << " i" << i;
            EXPECT_EQ(w.in[j].parts, in[j].parts) << p << " m" << m << " i" << i;
          }
          EXPECT_EQ(w.local, step.local);
          EXPECT_EQ(w.local_bytes, step.local_bytes) << p << " m" << m << " i" << i;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

}  // namespace
}  // namespace sipsim::collective
