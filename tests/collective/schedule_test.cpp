// Tests of the collective schedules that span the algorithm families, and of the schedule
// oracle itself (tests/support/schedule_oracle.hpp): an abstract executor runs every member's
// schedule concurrently on contributor sets and checks message matching, byte accounting, the
// local operation rule, deadlock freedom and the final state of each operation. One file per
// family beside this one (algorithms/, ramp_x/) holds the tests of a single family.
#include "sipsim/collective/schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "support/schedule_oracle.hpp"

namespace sipsim::collective {
namespace {

using namespace oracle;

// ---------------------------------------------------------------------------------------------
// Names, factors, validation.

TEST(Names, RoundTrip) {
  ASSERT_EQ(op_names().size(), std::size(kOps));
  ASSERT_EQ(algorithm_names().size(), std::size(kAlgorithms) + 1);  // + ramp-x (RampX tests)
  for (std::size_t i = 0; i < std::size(kOps); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(kOps[i]), i);
    EXPECT_EQ(op_names()[i], to_string(kOps[i]));
    EXPECT_EQ(parse_op(to_string(kOps[i])), kOps[i]);
  }
  for (std::size_t i = 0; i < std::size(kAlgorithms); ++i) {
    EXPECT_EQ(kAlgorithms[i].row(), i);
    EXPECT_EQ(all_algorithms()[i], kAlgorithms[i]);
    EXPECT_EQ(algorithm_names()[i], to_string(kAlgorithms[i]));
    EXPECT_EQ(parse_algorithm(to_string(kAlgorithms[i])), kAlgorithms[i]);
  }
  EXPECT_EQ(to_string(Op::kAllReduce), "all-reduce");
  EXPECT_EQ(to_string(Op::kAllToAll), "all-to-all");
  EXPECT_EQ(to_string(algorithm("bidirectional-ring")), "bidirectional-ring");
  EXPECT_EQ(to_string(algorithm("double-binary-tree")), "double-binary-tree");
  EXPECT_EQ(to_string(algorithm("ramp-x")), "ramp-x");
  EXPECT_EQ(algorithm_names().back(), "ramp-x");
  EXPECT_EQ(parse_algorithm("ramp-x"), algorithm("ramp-x"));
  EXPECT_EQ(parse_op("allreduce"), std::nullopt);
  EXPECT_EQ(parse_op(""), std::nullopt);
  EXPECT_EQ(parse_algorithm("Ring"), std::nullopt);
  EXPECT_EQ(parse_algorithm("torus"), std::nullopt);
  EXPECT_THROW(algorithm("torus"), std::invalid_argument);
}

TEST(BusBandwidth, NcclTestsFactors) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Op::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Op::kAllReduce, 1), 0.0);
  for (Op op : {Op::kReduceScatter, Op::kAllGather, Op::kAllToAll, Op::kGather, Op::kScatter}) {
    EXPECT_DOUBLE_EQ(bus_bandwidth_factor(op, 4), 0.75) << to_string(op);
  }
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Op::kBroadcast, 16), 1.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Op::kReduce, 3), 1.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Op::kBarrier, 16), 0.0);
}

TEST(WhyInvalid, SupportMatrixAndMessages) {
  for (Algorithm a : kAlgorithms) {
    for (Op op : kOps) {
      const CollectiveSpec s = make_spec(op, a, 4, 100, 0, 2, 2);
      const std::string why = why_invalid(s);
      if (expected_support(a, op)) {
        EXPECT_EQ(why, "") << describe(s);
        EXPECT_NO_THROW(Schedule(s, 3));
      } else {
        EXPECT_EQ(why, "algorithm " + std::string(to_string(a)) + " does not implement op " +
                           std::string(to_string(op)));
        EXPECT_THROW(Schedule(s, 0), InvalidCollective);
      }
    }
  }
  EXPECT_EQ(why_invalid(make_spec(Op::kAllReduce, algorithm("bruck"), 4)),
            "algorithm bruck does not implement op all-reduce");
  EXPECT_EQ(why_invalid(make_spec(Op::kGather, algorithm("double-binary-tree"), 4)),
            "algorithm double-binary-tree does not implement op gather");
  EXPECT_EQ(why_invalid(make_spec(Op::kBroadcast, algorithm("ring"), 4, 10, 4)),
            "root 4 is not a member (p = 4)");
  EXPECT_EQ(why_invalid(make_spec(Op::kAllReduce, algorithm("ring"), 0)),
            "a collective needs p >= 1 members");
  EXPECT_EQ(why_invalid(make_spec(Op::kAllReduce, algorithm("torus2d"), 6, 10, 0, 2, 2)),
            "algorithm torus2d needs two dims whose product is p = 6, got 2 x 2");
  CollectiveSpec three = make_spec(Op::kAllReduce, algorithm("torus2d"), 8);
  three.dims = Dims{2, 2, 2};
  EXPECT_EQ(why_invalid(three),
            "algorithm torus2d needs two dims whose product is p = 8, got 2 x 2 x 2");
  three.algorithm = algorithm("hierarchical-ring");
  EXPECT_EQ(why_invalid(three), "");
  three.dims = Dims{2, 0, 4};
  EXPECT_EQ(why_invalid(three),
            "algorithm hierarchical-ring needs 2 to 8 dims whose product is p = 8, got 2 x 0 x 4");
  EXPECT_NE(why_invalid(make_spec(Op::kAllReduce, algorithm("hierarchical-ring"), 6, 10, 0, 6, 0)),
            "");
  EXPECT_THROW(Schedule(make_spec(Op::kAllReduce, algorithm("ring"), 0), 0), InvalidCollective);
  EXPECT_THROW(Schedule(make_spec(Op::kAllReduce, algorithm("ring"), 4), 4), InvalidCollective);
  // dims are ignored by the one-dimensional algorithms.
  EXPECT_EQ(why_invalid(make_spec(Op::kAllReduce, algorithm("ring"), 6, 10, 0, 7, 7)), "");
}

TEST(Schedule, StepOutOfRangeThrows) {
  const Schedule s(make_spec(Op::kAllReduce, algorithm("ring"), 4), 1);
  EXPECT_EQ(s.steps(), 6u);
  EXPECT_THROW(s.step(6), std::out_of_range);
  const Schedule one(make_spec(Op::kAllReduce, algorithm("ring"), 1), 0);
  EXPECT_EQ(one.steps(), 0u);
  EXPECT_THROW(one.step(0), std::out_of_range);
}

// ---------------------------------------------------------------------------------------------
// Byte accounting.

TEST(ChunkBytes, PartitionTheBuffer) {
  const std::vector<std::uint64_t> sizes = {
      0, 1, 7, 1000, 123456789, (std::uint64_t{1} << 40) + 3, std::uint64_t{1} << 62};
  for (std::uint32_t p : {1u, 2u, 3u, 7u, 16u, 33u}) {
    for (Algorithm a : kAlgorithms) {
      for (Op op : kOps) {
        if (!expected_support(a, op)) continue;
        for (std::uint64_t bytes : sizes) {
          const CollectiveSpec spec = make_spec(op, a, p, bytes);
          const Schedule s(spec, 0);
          const std::uint64_t C = s.chunks();
          const std::uint64_t rows = op == Op::kAllToAll ? p : 1, per_row = C / rows;
          const std::uint64_t want = op == Op::kBarrier ? 0 : bytes;
          for (std::uint64_t row = 0; row < rows; ++row) {
            std::uint64_t sum = 0, lo = UINT64_MAX, hi = 0;
            for (std::uint64_t c = row * per_row; c < (row + 1) * per_row; ++c) {
              const std::uint64_t b = s.chunk_bytes(c);
              sum += b;
              lo = std::min(lo, b);
              hi = std::max(hi, b);
            }
            ASSERT_EQ(sum, want) << describe(spec) << " row " << row;
            ASSERT_LE(hi - lo, 1u) << describe(spec);
          }
        }
      }
    }
  }
}

// Send / Recv bytes equal the sum of chunk_bytes over their ChunkSet, also for sizes where the
// products bytes * index exceed 64 bits (all-to-all: T = p * bytes > 2^64).
TEST(ChunkBytes, SetBytesMatchChunkSumsForHugeSizes) {
  for (std::uint32_t p : {5u, 12u, 16u}) {
    for (std::uint64_t bytes : {(std::uint64_t{1} << 50) + 12345, (std::uint64_t{1} << 62) + 7}) {
      for (const CollectiveSpec& spec :
           all_specs(p, {bytes}, {std::begin(kAlgorithms), std::end(kAlgorithms)})) {
        for (std::uint32_t r = 0; r < p; ++r) {
          const Schedule s(spec, r);
          auto sum = [&](const ChunkSet& cs) {
            std::uint64_t b = 0;
            cs.for_each(s.chunks(), [&](std::uint64_t c) { b += s.chunk_bytes(c); });
            return b;
          };
          for (std::uint32_t i = 0; i < s.steps(); ++i) {
            const Step st = s.step(i);
            for (const Send& snd : st.sends)
              ASSERT_EQ(snd.bytes, sum(snd.chunks)) << describe(spec);
            for (const Recv& rv : st.recvs) ASSERT_EQ(rv.bytes, sum(rv.chunks)) << describe(spec);
          }
        }
      }
    }
  }
}

TEST(Schedule, CopiesAndRepeatedCallsAgree) {
  const Schedule a(make_spec(Op::kAllToAll, algorithm("bruck"), 13, 1000), 4);
  const Schedule b = a;
  for (std::uint32_t i = 0; i < a.steps(); ++i) {
    const Step x = a.step(i), y = b.step(i), z = a.step(i);
    ASSERT_EQ(x.sends.size(), y.sends.size());
    ASSERT_EQ(x.sends.size(), z.sends.size());
    for (std::size_t k = 0; k < x.sends.size(); ++k) {
      EXPECT_EQ(x.sends[k].chunks.first, y.sends[k].chunks.first);
      EXPECT_EQ(x.sends[k].bytes, z.sends[k].bytes);
    }
  }
}

bool same_wire(const WireStep& a, const WireStep& b) {
  auto eq = [](const std::vector<WireMessage>& x, const std::vector<WireMessage>& y) {
    return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                      [](const WireMessage& m, const WireMessage& n) {
                        return m.peer == n.peer && m.bytes == n.bytes && m.parts == n.parts;
                      });
  };
  return eq(a.out, b.out) && eq(a.in, b.in) && a.local == b.local && a.sources == b.sources &&
         a.local_bytes == b.local_bytes;
}

// Schedule::runs: the runs partition the steps, every member has the same runs,
// and all steps of a run are identical on the wire for every member (what the
// critical-path estimator relies on); ring phases merge only with even chunks.
TEST(Schedule, RunsAreIdenticalStepsForEveryMember) {
  int merged = 0;
  for (Op op : kOps) {
    for (Algorithm a : kAlgorithms) {
      for (std::uint32_t p : {6u, 8u}) {
        for (std::uint64_t bytes : {std::uint64_t{p} * p * 96, std::uint64_t{1001}}) {
          const std::uint32_t d0 = two_dims(a) ? 2 : 0, d1 = two_dims(a) ? p / 2 : 0;
          const CollectiveSpec spec = make_spec(op, a, p, bytes, 1, d0, d1);
          if (!why_invalid(spec).empty()) continue;
          const std::vector<Schedule::Run> runs0 = Schedule(spec, 0).runs();
          for (std::uint32_t m = 0; m < p; ++m) {
            const Schedule s(spec, m);
            const std::vector<Schedule::Run> runs = s.runs();
            std::uint32_t next = 0;
            for (const Schedule::Run& r : runs) {
              ASSERT_EQ(r.first, next);
              ASSERT_GE(r.count, 1u);
              next += r.count;
              if (r.count > 1) {
                ++merged;
                const std::uint64_t total = op == Op::kBarrier    ? 0
                                            : op == Op::kAllToAll ? bytes * p
                                                                  : bytes;
                EXPECT_EQ(total % s.chunks(), 0u);
                const WireStep first = wire_step(s, r.first);
                for (std::uint32_t i = 1; i < r.count; ++i) {
                  EXPECT_TRUE(same_wire(first, wire_step(s, r.first + i)))
                      << to_string(op) << " " << to_string(a) << " p=" << p << " member " << m
                      << " step " << r.first + i;
                }
              }
            }
            EXPECT_EQ(next, s.steps());
            if (runs0.size() > 1 || runs0.at(0).count > 1) {
              bool any = false;
              for (const Schedule::Run& r : runs0) any = any || r.count > 1;
              if (any) {
                ASSERT_EQ(runs.size(), runs0.size()) << to_string(a);
                for (std::size_t k = 0; k < runs.size(); ++k) {
                  EXPECT_EQ(runs[k].count, runs0[k].count) << to_string(a);
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(merged, 50);
  // 1 GiB ring all-reduce on 65,536 members: two runs of 65,535 steps.
  const std::vector<Schedule::Run> big =
      Schedule(make_spec(Op::kAllReduce, algorithm("ring"), 65536, 1ull << 30), 77).runs();
  ASSERT_EQ(big.size(), 2u);
  EXPECT_EQ(big[1].first, 65535u);
  EXPECT_EQ(big[1].count, 65535u);
}

TEST(ChunkBytes, ChunkCounts) {
  EXPECT_EQ(Schedule(make_spec(Op::kAllReduce, algorithm("ring"), 6), 0).chunks(), 6u);
  EXPECT_EQ(Schedule(make_spec(Op::kAllToAll, algorithm("ring"), 6), 0).chunks(), 36u);
  EXPECT_EQ(Schedule(make_spec(Op::kAllGather, algorithm("bidirectional-ring"), 6), 0).chunks(),
            12u);
  EXPECT_EQ(Schedule(make_spec(Op::kAllReduce, algorithm("halving-doubling"), 6), 0).chunks(), 4u);
  EXPECT_EQ(Schedule(make_spec(Op::kReduceScatter, algorithm("halving-doubling"), 6), 0).chunks(),
            6u);
  EXPECT_EQ(Schedule(make_spec(Op::kAllReduce, algorithm("double-binary-tree"), 6), 0).chunks(),
            2u);
  EXPECT_EQ(Schedule(make_spec(Op::kBarrier, algorithm("bruck"), 6, 99), 0).chunk_bytes(3), 0u);
}

// ---------------------------------------------------------------------------------------------
// Exhaustive execution.

TEST(Executor, AllCollectivesOnSmallGroups) {
  int failures = 0, runs = 0;
  const std::vector<Algorithm> algorithms(std::begin(kAlgorithms), std::end(kAlgorithms));
  for (std::uint32_t p = 1; p <= 17; ++p) {
    const std::vector<std::uint64_t> sizes = {0, 1, 7, 1000, std::uint64_t{p} * p * 3 + 1};
    for (const CollectiveSpec& spec : all_specs(p, sizes, algorithms)) {
      ++runs;
      const Outcome out = execute(spec);
      if (!out.error.empty() && ++failures <= 20)
        ADD_FAILURE() << describe(spec) << ": " << out.error;
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(runs, 5000);
}

TEST(Executor, LargerGroupsSpotChecks) {
  const std::vector<Algorithm> algorithms = {algorithm("ring"), algorithm("halving-doubling"),
                                             algorithm("bruck"), algorithm("direct")};
  int failures = 0;
  for (std::uint32_t p : {64u, 100u, 128u}) {
    for (CollectiveSpec spec : all_specs(p, {std::uint64_t{p} * p * 3 + 1}, algorithms)) {
      const Outcome out = execute(spec);
      if (!out.error.empty() && ++failures <= 10)
        ADD_FAILURE() << describe(spec) << ": " << out.error;
    }
  }
  // The other algorithms once each at a larger size.
  for (const CollectiveSpec& spec :
       {make_spec(Op::kAllReduce, algorithm("bidirectional-ring"), 64, 99999),
        make_spec(Op::kAllReduce, algorithm("hierarchical-ring"), 96, 99999, 0, 8, 12),
        make_spec(Op::kBroadcast, algorithm("hierarchical-ring"), 96, 99999, 50, 8, 12),
        make_spec(Op::kReduce, algorithm("hierarchical-ring"), 96, 99999, 95, 12, 8),
        [] {
          CollectiveSpec s = make_spec(Op::kAllReduce, algorithm("hierarchical-ring"), 96, 99999);
          s.dims = Dims{4, 2, 3, 4};
          return s;
        }(),
        [] {
          CollectiveSpec s =
              make_spec(Op::kBroadcast, algorithm("hierarchical-ring"), 96, 99999, 7);
          s.dims = Dims{8, 2, 6};
          return s;
        }(),
        make_spec(Op::kAllToAll, algorithm("torus2d"), 96, 99999, 0, 8, 12),
        [] {
          CollectiveSpec s =
              make_spec(Op::kBroadcast, algorithm("multicast-tree"), 512, 1 << 20, 300);
          s.dims = Dims{8, 8, 8};
          return s;
        }(),
        [] {
          CollectiveSpec s = make_spec(Op::kAllReduce, algorithm("multicast-tree"), 96, 99999);
          s.dims = Dims{4, 2, 12};
          return s;
        }(),
        make_spec(Op::kAllReduce, algorithm("torus2d"), 100, 99999, 0, 10, 10),
        make_spec(Op::kAllReduce, algorithm("double-binary-tree"), 100, 99999),
        make_spec(Op::kBroadcast, algorithm("double-binary-tree"), 127, 99999, 77),
        make_spec(Op::kReduce, algorithm("double-binary-tree"), 128, 99999, 5),
        make_spec(Op::kGather, algorithm("binomial-tree"), 100, 99999, 33),
        make_spec(Op::kAllReduce, algorithm("binomial-tree"), 100, 99999)}) {
    const Outcome out = execute(spec);
    EXPECT_EQ(out.error, "") << describe(spec);
  }
  EXPECT_EQ(failures, 0);
}

TEST(Schedule, LargeGroupsOnDemand) {
  const auto t0 = std::chrono::steady_clock::now();
  {
    const Schedule s(make_spec(Op::kAllReduce, algorithm("ring"), 65536, 1 << 30), 12345);
    EXPECT_EQ(s.steps(), 2u * 65535);
    const Step st = s.step(100000);  // all-gather stage, step 100000 - 65535
    ASSERT_EQ(st.sends.size(), 1u);
    ASSERT_EQ(st.recvs.size(), 1u);
    EXPECT_EQ(st.sends[0].peer, 12346u);
    EXPECT_EQ(st.recvs[0].peer, 12344u);
    EXPECT_EQ(st.sends[0].chunks.first, (12345 + 65536 * 2 - (100000 - 65535)) % 65536);
    EXPECT_EQ(st.local, LocalOp::kNone);
  }
  {
    // Bruck all-to-all on 65536 members: C = 2^32 chunks; step k sends the p/2 blocks of the
    // positions with bit k set as a few strided ChunkSets.
    const std::uint32_t p = 65536;
    const Schedule s(make_spec(Op::kAllToAll, algorithm("bruck"), p, std::uint64_t{p} * 1000), 777);
    EXPECT_EQ(s.steps(), 16u);
    for (std::uint32_t k = 0; k < 16; ++k) {
      const Step st = s.step(k);
      std::uint64_t blocks = 0, bytes = 0;
      for (const Send& snd : st.sends) {
        EXPECT_EQ(snd.peer, (777 + (1u << k)) % p);
        blocks += snd.chunks.count();
        bytes += snd.bytes;
      }
      EXPECT_EQ(blocks, p / 2);
      EXPECT_EQ(bytes, std::uint64_t{p} / 2 * 1000);
      EXPECT_LE(st.sends.size(), 512u);
    }
  }
  EXPECT_EQ(Schedule(make_spec(Op::kAllReduce, algorithm("halving-doubling"), 1 << 20), 5).steps(),
            40u);
  EXPECT_EQ(Schedule(make_spec(Op::kBroadcast, algorithm("binomial-tree"), 1000000), 0).steps(),
            20u);
  EXPECT_LE(
      Schedule(make_spec(Op::kAllReduce, algorithm("double-binary-tree"), 1000000), 999).steps(),
      8u);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(secs, 2.0);
}

// ---------------------------------------------------------------------------------------------
// The executor must catch broken schedules.

TEST(Executor, DetectsChunkMismatch) {
  const Outcome out = execute(make_spec(Op::kAllReduce, algorithm("ring"), 4, 400),
                              [](std::uint32_t r, std::uint32_t i, Step& s) {
                                if (r == 1 && i == 0) {
                                  s.recvs[0].chunks.first = (s.recvs[0].chunks.first + 1) % 4;
                                }
                              });
  EXPECT_NE(out.error.find("mismatches"), std::string::npos) << out.error;
}

TEST(Executor, DetectsDoubleCounting) {
  // Reduce instead of copy in the all-gather stage: the full sum is added to a partial one.
  const Outcome out = execute(make_spec(Op::kAllReduce, algorithm("ring"), 4, 400),
                              [](std::uint32_t r, std::uint32_t i, Step& s) {
                                if (r == 2 && i == 3) {
                                  s.recvs[0].combine = Combine::kReduce;
                                  s.local = LocalOp::kReduce;
                                  s.sources = 2;
                                  s.local_bytes = 100;
                                }
                              });
  EXPECT_NE(out.error.find("double counting"), std::string::npos) << out.error;
}

TEST(Executor, DetectsDeadlock) {
  // Member 1 never sends its last block: member 2 waits forever.
  const Outcome out = execute(make_spec(Op::kAllReduce, algorithm("ring"), 4),
                              [](std::uint32_t r, std::uint32_t i, Step& s) {
                                if (r == 1 && i == 5) s.sends.clear();
                              });
  EXPECT_NE(out.error.find("deadlock"), std::string::npos) << out.error;
}

TEST(Executor, DetectsUnmatchedMessage) {
  // Member 0 of a broadcast gets the data twice.
  const Outcome out = execute(make_spec(Op::kBroadcast, algorithm("direct"), 3, 10, 0),
                              [](std::uint32_t r, std::uint32_t i, Step& s) {
                                if (r == 0 && i == 0) s.sends.push_back(s.sends[0]);
                              });
  EXPECT_NE(out.error.find("unmatched"), std::string::npos) << out.error;
}

TEST(Executor, DetectsWrongBytes) {
  const Outcome out = execute(make_spec(Op::kAllToAll, algorithm("direct"), 3, 30),
                              [](std::uint32_t r, std::uint32_t i, Step& s) {
                                if (r == 1 && i == 1) s.sends[0].bytes += 1;
                              });
  EXPECT_NE(out.error.find("bytes"), std::string::npos) << out.error;
}

TEST(Executor, DetectsSendingAbsentData) {
  const Outcome out = execute(make_spec(Op::kAllGather, algorithm("ring"), 4, 400),
                              [](std::uint32_t, std::uint32_t i, Step& s) {
                                if (i == 0) {  // send the block the member will receive next
                                  s.sends[0].chunks.first = (s.sends[0].chunks.first + 3) % 4;
                                  s.recvs[0].chunks.first = (s.recvs[0].chunks.first + 3) % 4;
                                }
                              });
  EXPECT_NE(out.error.find("does not hold"), std::string::npos) << out.error;
}

TEST(Executor, DetectsWrongFinalState) {
  // Every member forwards an already-known block in the last all-gather step.
  const Outcome out = execute(make_spec(Op::kAllGather, algorithm("ring"), 4, 400),
                              [](std::uint32_t, std::uint32_t i, Step& s) {
                                if (i == 2) {
                                  s.sends[0].chunks.first = (s.sends[0].chunks.first + 1) % 4;
                                  s.recvs[0].chunks.first = (s.recvs[0].chunks.first + 1) % 4;
                                }
                              });
  EXPECT_NE(out.error.find("final state"), std::string::npos) << out.error;
}

TEST(Executor, DetectsWrongLocalOp) {
  const Outcome out = execute(make_spec(Op::kReduceScatter, algorithm("ring"), 4, 400),
                              [](std::uint32_t r, std::uint32_t i, Step& s) {
                                if (r == 0 && i == 1) s.sources = 3;
                              });
  EXPECT_NE(out.error.find("local op"), std::string::npos) << out.error;
}

TEST(Executor, DetectsIncompleteBarrier) {
  // A dissemination barrier that skips its last round leaves members uninformed.
  const Outcome out = execute(make_spec(Op::kBarrier, algorithm("bruck"), 5, 0),
                              [](std::uint32_t, std::uint32_t i, Step& s) {
                                if (i == 2) {
                                  s.sends.clear();
                                  s.recvs.clear();
                                  s.local = LocalOp::kNone;
                                }
                              });
  EXPECT_NE(out.error.find("final state"), std::string::npos) << out.error;
}

}  // namespace
}  // namespace sipsim::collective
