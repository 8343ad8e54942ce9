// Tests of RAMP-x (src/collective/ramp_x/, docs/models.md, "RAMP-x collectives") and the RAMP
// geometry it reads, against the optical-rule checker of tests/support/optical_rules.hpp.
#include "sipsim/collective/ramp_x.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "sipsim/collective/schedule.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"
#include "support/optical_rules.hpp"
#include "support/schedule_oracle.hpp"

namespace sipsim::collective {

// RAMP-x reads the RAMP geometry of fabric/ramp/ (docs/architecture.md).
namespace ramp = fabric::ramp;
using fabric::ramp::RampShape;
namespace {

using namespace oracle;

TEST(RampX, TableRestatementIsConsistent) {
  // The test's own model: subgroups partition, digits are a bijection, and the closed-form
  // source used by the sampled 65,536-node check agrees with the subgroups.
  for (std::uint32_t x = 1; x <= 5; ++x) {
    for (std::uint32_t J = 1; J <= x; ++J) {
      for (std::uint32_t D = 1; D <= x; ++D) {
        const rampt::Fabric f{x, J, D};
        std::set<std::array<std::uint32_t, 4>> seen;
        for (std::uint32_t n = 0; n < f.nodes(); ++n) {
          const rampt::Node a = f.node(n);
          ASSERT_EQ(f.id(a), n);
          seen.insert(f.digits(a));
          for (int row = 1; row <= 4; ++row) {
            std::set<std::uint32_t> group;
            for (const rampt::Node& b : f.subgroup(row, a)) {
              group.insert(f.id(b));
              std::set<std::uint32_t> back;
              for (const rampt::Node& c : f.subgroup(row, b)) back.insert(f.id(c));
              ASSERT_EQ(back.size(), f.radix(row));
              for (const rampt::Node& c : f.subgroup(row, a)) ASSERT_TRUE(back.count(f.id(c)));
              for (std::uint32_t gs = 0; gs < x; ++gs) {
                const auto src = f.source_in_group(row, a, gs);
                const bool here = b.g == gs && !(b == a);
                if (here) {
                  ASSERT_TRUE(src.has_value());
                  ASSERT_EQ(f.id(*src), f.id(b));
                }
              }
            }
            ASSERT_EQ(group.size(), f.radix(row));
            for (std::uint32_t gs = 0; gs < x; ++gs) {
              const auto src = f.source_in_group(row, a, gs);
              if (src) {
                ASSERT_TRUE(group.count(f.id(*src))) << x << J << D << row;
              }
            }
          }
        }
        ASSERT_EQ(seen.size(), f.nodes()) << "(3) digits are not a bijection";
      }
    }
  }
}

TEST(RampX, CoordinatesAndJobs) {
  for (std::uint32_t x = 1; x <= 4; ++x) {
    for (std::uint32_t J = 1; J <= x; ++J) {
      for (std::uint32_t D = 1; D <= x; ++D) {
        const RampShape sh = ramp::full_job(x, J, D);
        const rampt::Fabric f{x, J, D};
        for (std::uint32_t m = 0; m < f.nodes(); ++m) {
          const ramp::Coord c = ramp::coord_of_node(m, sh);
          const rampt::Node n = f.node(m);
          ASSERT_EQ(c, (ramp::Coord{n.g, n.j, n.d, n.p}));
          ASSERT_EQ(ramp::node_id(c, sh), m);
          ASSERT_EQ(ramp::node_of_member(m, sh), m);  // full job: member = fabric node
          ASSERT_EQ(ramp::member_of_offsets(ramp::offsets_of_member(m, sh), sh), m);
          const auto d = f.digits(n);
          ASSERT_EQ(ramp::digits(c, sh), d);
          ASSERT_EQ(ramp::job_digits(ramp::offsets_of_member(m, sh), sh), d);
          ASSERT_EQ(c.lambda(x), n.d * x + n.p);
        }
      }
    }
  }
  // A subset job: distinct nodes, member <-> offsets round trip, node 0 first.
  const RampShape sub{4, 4, 2, {3, 2, 3, 2}};
  const std::vector<std::uint32_t> nodes = ramp::job_nodes(sub);
  ASSERT_EQ(nodes.size(), 36u);
  EXPECT_EQ(nodes[0], 0u);
  EXPECT_EQ(std::set<std::uint32_t>(nodes.begin(), nodes.end()).size(), 36u);
  for (std::uint32_t m = 0; m < 36; ++m) {
    EXPECT_EQ(ramp::member_of_offsets(ramp::offsets_of_member(m, sub), sub), m);
    EXPECT_LT(nodes[m], ramp::fabric_nodes(sub));
  }
  // 128-node tensor-parallel group on the reference fabric: rack 0 of every group, devices 0-3.
  const RampShape tp = ramp::shape_for(32, 32, 2, 128);
  const std::vector<std::uint32_t> tp_nodes = ramp::job_nodes(tp);
  for (std::uint32_t m = 0; m < 128; ++m) {
    const ramp::Coord c = ramp::coord_of_node(tp_nodes[m], tp);
    EXPECT_EQ(c.j, 0u);
    EXPECT_EQ(c.delta, 0u);
    EXPECT_LT(c.p, 4u);
  }
}

TEST(RampX, ShapeFor) {
  auto active = [](const RampShape& s) {
    return std::array<std::uint32_t, 4>{s.active[0], s.active[1], s.active[2], s.active[3]};
  };
  using A = std::array<std::uint32_t, 4>;
  EXPECT_EQ(active(ramp::shape_for(32, 32, 2, 128)), (A{32, 4, 1, 1}));
  EXPECT_EQ(active(ramp::shape_for(32, 32, 2, 65536)), (A{32, 32, 32, 2}));
  EXPECT_EQ(active(ramp::shape_for(32, 32, 2, 96)), (A{32, 3, 1, 1}));
  EXPECT_EQ(active(ramp::shape_for(32, 32, 2, 1)), (A{1, 1, 1, 1}));
  EXPECT_EQ(active(ramp::shape_for(32, 32, 2, 32)), (A{32, 1, 1, 1}));
  EXPECT_EQ(active(ramp::shape_for(32, 32, 2, 2048)), (A{32, 32, 2, 1}));
  EXPECT_EQ(active(ramp::shape_for(32, 16, 2, 32 * 32 * 16)), (A{32, 32, 16, 1}));
  EXPECT_EQ(active(ramp::shape_for(4, 4, 2, 64)), (A{4, 4, 4, 1}));
  EXPECT_EQ(active(ramp::shape_for(4, 4, 2, 6)), (A{3, 2, 1, 1}));
  EXPECT_THROW(ramp::shape_for(32, 32, 2, 37), std::invalid_argument);      // prime > x
  EXPECT_THROW(ramp::shape_for(32, 32, 2, 131072), std::invalid_argument);  // > fabric
  EXPECT_THROW(ramp::shape_for(4, 5, 2, 8), std::invalid_argument);         // J > x
  EXPECT_THROW(ramp::shape_for(0, 1, 1, 1), std::invalid_argument);
  EXPECT_EQ(ramp::shape_for(32, 32, 2, 128).x, 32u);
}

TEST(RampX, WhyInvalid) {
  RampShape sh = ramp::full_job(2, 2, 2);
  for (Op op : kOps) EXPECT_EQ(why_invalid(rampt::spec(op, sh, 100)), "") << to_string(op);
  CollectiveSpec s = rampt::spec(Op::kAllReduce, RampShape{}, 100);
  s.p = 4;
  EXPECT_EQ(why_invalid(s), "ramp-x needs a RAMP fabric (x, J, D)");
  EXPECT_THROW(Schedule(s, 0), InvalidCollective);
  s = rampt::spec(Op::kAllReduce, sh, 100);
  s.p = 15;
  EXPECT_EQ(why_invalid(s), "ramp-x needs p = product of the active sizes = 16, got p = 15");
  s = rampt::spec(Op::kAllReduce, RampShape{2, 2, 3, {2, 2, 2, 1}}, 100);
  EXPECT_NE(why_invalid(s).find("D <= x"), std::string::npos) << why_invalid(s);
  s = rampt::spec(Op::kAllReduce, RampShape{2, 3, 1, {2, 2, 1, 1}}, 100);
  EXPECT_NE(why_invalid(s).find("J <= x"), std::string::npos) << why_invalid(s);
  for (const RampShape& bad :
       {RampShape{4, 2, 2, {4, 4, 3, 1}}, RampShape{4, 2, 2, {5, 1, 1, 1}},
        RampShape{4, 2, 2, {1, 1, 1, 3}}, RampShape{4, 2, 2, {0, 1, 1, 1}}}) {
    s = rampt::spec(Op::kAllReduce, bad, 100);
    s.p = std::max<std::uint32_t>(s.p, 1);
    EXPECT_NE(why_invalid(s).find("out of range"), std::string::npos) << why_invalid(s);
  }
  s = rampt::spec(Op::kBroadcast, sh, 100, 8);
  EXPECT_EQ(why_invalid(s), "");
  s.root = 16;
  EXPECT_EQ(why_invalid(s), "root 16 is not a member (p = 16)");
}

// RAMP-x's parameters are its own payload: a communicator's JobParams (set by the fabric that
// placed the job, and the workload's broadcast choice) and a spec's SpecParams, compared by
// RAMP-x's own ==. The executor replays communicators of one shape only with equal parameters.
TEST(RampX, ParamsDifferingOnlyInTheRampPayloadDiffer) {
  AlgorithmParams a;
  a.hierarchy = {4, 8};
  a.torus = {4, 8};
  EXPECT_EQ(ramp_x::job_params(a), ramp_x::JobParams{});  // none: the defaults
  ramp_x::set_job(a, ramp::shape_for(4, 4, 2, 32), 700, 1'000'000);
  AlgorithmParams b = a;
  EXPECT_EQ(a, b);
  ramp_x::set_job(b, ramp::shape_for(4, 4, 2, 32), 700, 1'000'000);  // a value of its own
  EXPECT_EQ(a, b);
  ramp_x::set_job(b, ramp::shape_for(4, 4, 2, 16), 700, 1'000'000);  // another job
  EXPECT_EQ(b.hierarchy, a.hierarchy);
  EXPECT_NE(a, b);
  ramp_x::set_job(b, ramp::shape_for(4, 4, 2, 32), 800, 1'000'000);  // another stage latency
  EXPECT_NE(a, b);
  ramp_x::set_job(b, ramp::shape_for(4, 4, 2, 32), 700, 2'000'000);  // another group rate
  EXPECT_NE(a, b);
  ramp_x::set_job(b, ramp::shape_for(4, 4, 2, 32), 700, 1'000'000);
  ramp_x::set_tree_broadcast(b, false);  // scatter + all-gather instead of the tree
  EXPECT_NE(a, b);
  // The fabric's placement keeps the workload's choice.
  ramp_x::set_job(b, ramp::shape_for(4, 4, 2, 64), 0, 0);
  EXPECT_FALSE(ramp_x::job_params(b).tree_broadcast);
  EXPECT_EQ(ramp::job_size(ramp_x::job_params(b).shape), 64u);
  ramp_x::set_tree_broadcast(b, true);
  ramp_x::set_job(b, ramp::shape_for(4, 4, 2, 32), 700, 1'000'000);
  EXPECT_EQ(a, b);
  // Defaults are no payload: equal to parameters that never named RAMP-x.
  AlgorithmParams c = a;
  ramp_x::set_job(c, RampShape{});
  EXPECT_TRUE(c.payload.empty());
  AlgorithmParams d = a;
  d.payload = {};
  EXPECT_EQ(c, d);
  // make_spec gives the spec RAMP-x's part of the job; specs compare the same way.
  const CollectiveSpec s = make_spec(Op::kAllReduce, algorithm("ramp-x"), 32, 1000, 0, a);
  EXPECT_EQ(ramp_x::spec_params(s).shape, ramp_x::job_params(a).shape);
  EXPECT_EQ(ramp_x::spec_params(s).stages, 0u);
  CollectiveSpec t = s;
  ramp_x::set_spec(t, ramp_x::job_params(a).shape);
  EXPECT_EQ(s.payload, t.payload);
  ramp_x::set_spec(t, ramp_x::job_params(a).shape, 2);
  EXPECT_NE(s.payload, t.payload);
  // Other algorithms take no part of it.
  EXPECT_TRUE(make_spec(Op::kAllReduce, algorithm("ring"), 32, 1000, 0, a).payload.empty());
}

// Every op on every full fabric with x <= 4 (J <= x, Lambda = D*x for D = 1..x), roots first
// and last, through the executor and the invariant checks.
TEST(RampX, ExhaustiveSmallFabrics) {
  int failures = 0, runs = 0;
  for (std::uint32_t x = 1; x <= 4; ++x) {
    for (std::uint32_t J = 1; J <= x; ++J) {
      for (std::uint32_t D = 1; D <= x; ++D) {
        const RampShape sh = ramp::full_job(x, J, D);
        const std::uint32_t p = static_cast<std::uint32_t>(ramp::job_size(sh));
        for (Op op : kOps) {
          std::set<std::uint32_t> roots = {0};
          if (rooted(op)) roots.insert(p - 1);
          for (std::uint32_t root : roots) {
            for (std::uint64_t bytes :
                 {std::uint64_t{1}, std::uint64_t{1000}, 3 * std::uint64_t{p} + 1}) {
              const CollectiveSpec s = rampt::spec(op, sh, bytes, root);
              ++runs;
              std::string err;
              if (bytes == 1) {
                err = rampt::run_and_check(s);
              } else if (op == Op::kAllToAll && p > 128) {
                err = rampt::track_all_to_all(s, nullptr);
              } else {
                err = execute(s).error;
              }
              if (!err.empty() && ++failures <= 20) ADD_FAILURE() << describe(s) << ": " << err;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(runs, 1000);
}

// Subset jobs (RAMP §6.3) through the executor and the invariant checks.
TEST(RampX, SubsetJobs) {
  int failures = 0;
  const std::vector<RampShape> shapes = {
      RampShape{4, 4, 2, {4, 2, 1, 1}}, RampShape{4, 4, 2, {4, 4, 2, 1}},
      RampShape{4, 4, 2, {2, 1, 1, 1}}, RampShape{4, 4, 2, {3, 2, 3, 2}},
      RampShape{4, 4, 2, {1, 3, 1, 2}}, RampShape{4, 4, 2, {2, 4, 3, 1}},
      RampShape{4, 3, 3, {1, 1, 3, 3}}, RampShape{4, 4, 2, {1, 1, 1, 1}},
      ramp::shape_for(4, 4, 2, 12),     ramp::shape_for(4, 4, 2, 24)};
  for (const RampShape& sh : shapes) {
    const std::uint32_t p = static_cast<std::uint32_t>(ramp::job_size(sh));
    for (Op op : kOps) {
      std::set<std::uint32_t> roots = {0};
      if (rooted(op)) roots = {0, p / 2, p - 1};
      for (std::uint32_t root : roots) {
        for (std::uint64_t bytes : {std::uint64_t{1}, std::uint64_t{1000}}) {
          const CollectiveSpec s = rampt::spec(op, sh, bytes, root);
          const std::string err = bytes == 1 ? rampt::run_and_check(s) : execute(s).error;
          if (!err.empty() && ++failures <= 20) ADD_FAILURE() << describe(s) << ": " << err;
        }
      }
    }
    // Only the active steps run.
    const int active =
        (sh.active[0] > 1) + (sh.active[1] > 1) + (sh.active[2] > 1) + (sh.active[3] > 1);
    EXPECT_EQ(Schedule(rampt::spec(Op::kReduceScatter, sh, 100), 0).steps(),
              static_cast<std::uint32_t>(active));
    EXPECT_EQ(Schedule(rampt::spec(Op::kAllReduce, sh, 100), p - 1).steps(),
              static_cast<std::uint32_t>(2 * active));
  }
  EXPECT_EQ(failures, 0);
  // The 128-node group of the reference fabric: 2 steps, 31 then 3 peers.
  const CollectiveSpec tp = rampt::spec(Op::kReduceScatter, ramp::shape_for(32, 32, 2, 128), 12800);
  const Schedule s(tp, 77);
  ASSERT_EQ(s.steps(), 2u);
  EXPECT_EQ(s.step(0).recvs.size(), 31u);
  EXPECT_EQ(s.step(1).recvs.size(), 3u);
  EXPECT_EQ(execute(tp).error, "");
}

// RAMP §6.2.2 eq. 3 as printed, and what it gives at the reference point.
TEST(RampX, Eq3AdditionalTransceivers) {
  EXPECT_EQ(ramp::eq3_additional(32, 2), 16u);
  EXPECT_EQ(ramp::eq3_additional(32, 3), 6u);
  EXPECT_EQ(ramp::eq3_additional(32, 4), 2u);
  EXPECT_EQ(ramp::eq3_additional(32, 17), 1u);
  EXPECT_EQ(ramp::eq3_additional(32, 32), 0u);
  EXPECT_EQ(ramp::eq3_additional(32, 1), 0u);
  for (std::uint32_t x = 1; x <= 64; ++x) {
    for (std::uint32_t d = 1; d <= x; ++d) {
      ASSERT_EQ(ramp::eq3_additional(x, d), rampt::eq3(x, d)) << x << " " << d;
      // eq. 5's (1 + #TRX_additional)(d - 1) groups never exceed the node's x.
      ASSERT_LE((1 + rampt::eq3(x, d)) * (d - 1), x) << x << " " << d;
    }
  }
  // 65,536 nodes, full job: eq. 3 gives 0 for steps 1-3 (d = x = J) and step 4 (d = D = 2)
  // has every transceiver index of its subnets taken, so nothing changes.
  const RampShape ref = ramp::full_job(32, 32, 2);
  for (int k = 1; k <= 4; ++k) EXPECT_EQ(ramp::extra_groups(k, ref), 0u) << k;
  EXPECT_EQ(ramp::eq3_additional(32, 2), 16u);
  // The 128-node and 64-node jobs of the reference fabric: step 2 (4 and 2 members).
  EXPECT_EQ(ramp::extra_groups(2, ramp::shape_for(32, 32, 2, 128)), 2u);
  EXPECT_EQ(ramp::extra_groups(2, ramp::shape_for(32, 32, 2, 64)), 15u);  // (e + 1)*2 <= 32
  EXPECT_EQ(ramp::extra_groups(1, ramp::shape_for(32, 32, 2, 64)), 0u);
  // Without a job, one group.
  const ramp::Coord a{0, 0, 0, 0}, b{1, 0, 0, 1};
  EXPECT_EQ(ramp::transceivers_for_pair(a, b, RampShape{32, 32, 2, {0, 0, 0, 0}}).count, 1u);
  EXPECT_EQ(ramp::transceivers_for_pair(a, b, ramp::shape_for(32, 32, 2, 64)).count, 16u);
}

// RAMP §6.2.2 eq. 3-4: for every job shape of every fabric with x <= 4 (J <= x, D <= x), of
// x = 5, 6 with D <= 2, and of x = 8 with small subgroups, every active step gets exactly the
// largest number of extra groups (<= eq. 3, d apart) for which every transmission of the step
// keeps optical rules (a)-(c), found by trying each count against the rule check.
TEST(RampX, ExtraGroupsAreTheLargestSafeCount) {
  std::vector<RampShape> shapes;
  for (std::uint32_t x = 1; x <= 6; ++x) {
    for (std::uint32_t J = 1; J <= x; ++J) {
      for (std::uint32_t D = 1; D <= (x <= 4 ? x : 2); ++D) {
        for (const RampShape& sh : rampt::job_shapes(x, J, D)) shapes.push_back(sh);
      }
    }
  }
  for (const RampShape& sh : rampt::job_shapes(8, 8, 2, {2, 3, 4, 8})) shapes.push_back(sh);
  for (const RampShape& sh : rampt::job_shapes(8, 3, 8, {2, 3})) shapes.push_back(sh);
  int failures = 0, with_extra = 0, bound_by_c = 0;
  for (const RampShape& sh : shapes) {
    for (int row = 1; row <= 4; ++row) {
      const std::uint32_t d = sh.active[row - 1];
      if (d < 2) continue;
      const std::uint32_t want = rampt::safe_extra(sh, row);
      const std::uint32_t got = ramp::extra_groups(row, sh);
      with_extra += want > 0;
      // Rule (c) binds where (a)/(b) and eq. 3 alone would allow more.
      bound_by_c += want < std::min(rampt::eq3(sh.x, d), sh.x / d - 1);
      if (got != want && ++failures <= 20) {
        ADD_FAILURE() << "x=" << sh.x << " J=" << sh.J << " D=" << sh.D << " job " << sh.active[0]
                      << "x" << sh.active[1] << "x" << sh.active[2] << "x" << sh.active[3]
                      << " step " << row << ": " << got << " extra groups, " << want << " safe";
      }
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(with_extra, 500);
  EXPECT_GT(bound_by_c, 100);
}

// Every operation of the job shapes whose steps use extra groups (every one for x <= 4; for
// x = 6 and 8, J = x, D = 2, those with subgroup sizes 1-3), roots first and last, through the
// executor and the invariant checks: rules (a)-(c) hold on every group of every transmission.
TEST(RampX, ExtraGroupsKeepOpticalRulesForEveryOperation) {
  std::vector<RampShape> shapes;
  for (std::uint32_t x = 2; x <= 4; ++x) {
    for (std::uint32_t J = 1; J <= x; ++J) {
      for (std::uint32_t D = 1; D <= x; ++D) {
        for (const RampShape& sh : rampt::job_shapes(x, J, D)) shapes.push_back(sh);
      }
    }
  }
  for (const RampShape& sh : rampt::job_shapes(6, 6, 2, {2, 3})) shapes.push_back(sh);
  for (const RampShape& sh : rampt::job_shapes(8, 8, 2, {2, 3})) shapes.push_back(sh);
  int failures = 0, runs = 0;
  for (const RampShape& sh : shapes) {
    bool extra = false;
    for (int row = 1; row <= 4; ++row) extra = extra || ramp::extra_groups(row, sh) > 0;
    if (!extra) continue;
    const std::uint32_t p = static_cast<std::uint32_t>(ramp::job_size(sh));
    for (Op op : kOps) {
      std::set<std::uint32_t> roots = {0};
      if (rooted(op)) roots.insert(p - 1);
      for (std::uint32_t root : roots) {
        const CollectiveSpec s = rampt::spec(op, sh, 1, root);
        ++runs;
        const std::string err = rampt::run_and_check(s);
        if (!err.empty() && ++failures <= 20) ADD_FAILURE() << describe(s) << ": " << err;
      }
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_GT(runs, 1000);
}

// Message sizes per peer and step (RAMP Table 8) and the local operations.
TEST(RampX, Table8MessageSizes) {
  const std::uint32_t x = 4, J = 3, D = 2;
  const RampShape sh = ramp::full_job(x, J, D);
  const std::uint64_t p = ramp::job_size(sh), m = p * 1000;  // divisible: exact sizes
  auto per_peer = [&](const CollectiveSpec& s, std::uint32_t member, std::uint32_t i) {
    const Step st = Schedule(s, member).step(i);
    std::map<std::uint32_t, std::uint64_t> bytes;
    for (const Send& snd : st.sends) bytes[snd.peer] += snd.bytes;
    std::set<std::uint64_t> sizes;
    for (const auto& [peer, b] : bytes) sizes.insert(b);
    EXPECT_EQ(sizes.size(), 1u);
    return *sizes.begin();
  };
  const std::vector<std::uint64_t> rs = {m / x, m / (x * x), m / (x * x * J), m / (x * x * J * D)};
  for (std::uint32_t member : {0u, 7u, static_cast<std::uint32_t>(p - 1)}) {
    const CollectiveSpec ar = rampt::spec(Op::kAllReduce, sh, m);
    const CollectiveSpec rsc = rampt::spec(Op::kReduceScatter, sh, m);
    const CollectiveSpec ag = rampt::spec(Op::kAllGather, sh, m);
    const CollectiveSpec a2a = rampt::spec(Op::kAllToAll, sh, m);
    for (std::uint32_t i = 0; i < 4; ++i) {
      EXPECT_EQ(per_peer(ar, member, i), rs[i]);
      EXPECT_EQ(per_peer(rsc, member, i), rs[i]);
      EXPECT_EQ(per_peer(ar, member, 7 - i), rs[i]);  // all-gather: the reverse
      EXPECT_EQ(per_peer(ag, member, 3 - i), rs[i]);
      const Step st = Schedule(ar, member).step(i);
      EXPECT_EQ(st.local, LocalOp::kReduce);
      EXPECT_EQ(st.sources, i < 2 ? x : (i == 2 ? J : D));  // x-to-1 reductions
      EXPECT_EQ(st.local_bytes, rs[i]);
      EXPECT_EQ(Schedule(ar, member).step(4 + i).local, LocalOp::kNone);
    }
    // all-to-all: m/x, m/x, m/J, m*x/Lambda.
    EXPECT_EQ(per_peer(a2a, member, 0), m / x);
    EXPECT_EQ(per_peer(a2a, member, 1), m / x);
    EXPECT_EQ(per_peer(a2a, member, 2), m / J);
    EXPECT_EQ(per_peer(a2a, member, 3), m * x / (D * x));
    // After the reduce-scatter stage of all-reduce, member m holds the chunk of its portion
    // index ((d1*x + d2)*J + d3)*D + d4.
    const Step last = Schedule(ar, member).step(3);
    const rampt::Fabric f{x, J, D};
    const auto d = f.digits(f.node(member));
    EXPECT_EQ(last.recvs[0].chunks.first, ((d[0] * x + d[1]) * J + d[2]) * D + d[3]);
    EXPECT_EQ(last.recvs[0].chunks.count(), 1u);
  }
}

// Optical rules (4) and subgroups (1) over every transmission of every step of all-reduce
// (each step of which uses all pairs of its subgroups) at larger fabrics.
TEST(RampX, OpticalRulesLargerFabrics) {
  for (auto [x, J, D] : {std::array<std::uint32_t, 3>{7, 7, 7}, {8, 8, 8}, {16, 16, 2}}) {
    const RampShape sh = ramp::full_job(x, J, D);
    const rampt::Fabric f{x, J, D};
    const CollectiveSpec s = rampt::spec(Op::kAllReduce, sh, 1 << 20);
    const std::uint32_t p = f.nodes();
    std::vector<Schedule> sched;
    for (std::uint32_t m = 0; m < p; ++m) sched.emplace_back(s, m);
    const int rows[8] = {1, 2, 3, 4, 4, 3, 2, 1};
    for (std::uint32_t i = 0; i < 8; ++i) {
      std::vector<rampt::Tx> txs;
      bool ok = true;
      for (std::uint32_t m = 0; m < p && ok; ++m) {
        const Step st = sched[m].step(i);
        const rampt::Node a = f.node(m);
        std::set<std::uint32_t> want, got = {m};
        for (const rampt::Node& n : f.subgroup(rows[i], a)) want.insert(f.id(n));
        for (const Send& snd : st.sends) {
          got.insert(snd.peer);
          txs.push_back(rampt::Tx{a, f.node(snd.peer), rows[i]});
        }
        ok = got == want && st.sends.size() + 1 == want.size();
        EXPECT_TRUE(ok) << "(1) x=" << x << " J=" << J << " D=" << D << " step " << i << " member "
                        << m;
      }
      EXPECT_EQ(rampt::check_optical(f, txs), "") << x << "," << J << "," << D << " step " << i;
    }
  }
}

// 65,536 nodes (x = J = 32, Lambda = 64): 2,000 sampled members per step; their transmissions
// are checked against every transmission of their subnets, found in closed form (every
// member of a step talks to all of its subgroup: checked on the samples).
TEST(RampX, OpticalRulesSampledAt65536) {
  const auto t0 = std::chrono::steady_clock::now();
  const RampShape sh = ramp::full_job(32, 32, 2);
  const rampt::Fabric f{32, 32, 2};
  ASSERT_EQ(f.nodes(), 65536u);
  const CollectiveSpec s = rampt::spec(Op::kAllReduce, sh, std::uint64_t{1} << 30);
  const int rows[8] = {1, 2, 3, 4, 4, 3, 2, 1};
  std::mt19937 rng(12345);
  std::uniform_int_distribution<std::uint32_t> pick(0, f.nodes() - 1);
  int violations = 0;
  for (std::uint32_t i = 0; i < 8; ++i) {
    const int row = rows[i];
    for (int sample = 0; sample < 2000; ++sample) {
      const std::uint32_t m = sample == 0 ? 0 : (sample == 1 ? f.nodes() - 1 : pick(rng));
      const rampt::Node a = f.node(m);
      const Step st = Schedule(s, m).step(i);
      std::set<std::uint32_t> want, got = {m}, from = {m};
      for (const rampt::Node& n : f.subgroup(row, a)) want.insert(f.id(n));
      std::map<std::uint32_t, std::uint32_t> by_trx;  // (a)
      for (const Send& snd : st.sends) {
        got.insert(snd.peer);
        const rampt::Node b = f.node(snd.peer);
        const std::uint32_t t = f.trx(row, a, b);
        const ramp::Coord ca{a.g, a.j, a.d, a.p}, cb{b.g, b.j, b.d, b.p};
        if (ramp::transceiver_for_pair(ca, cb, sh) != t) ++violations;
        if (!by_trx.emplace(t, snd.peer).second) ++violations;
        // (b) all sources reaching b on transceiver t are in a's group.
        for (const rampt::Node& c : f.subgroup(row, b)) {
          if (!(c == b) && f.trx(row, c, b) == t && c.g != a.g) ++violations;
        }
        // (c) on subnet (a.g, b.g, t), wavelength lambda_b: the candidate transmitters are the
        // row-k sources in group a.g of the nodes (b.g, j', lambda_b).
        for (std::uint32_t j2 = 0; j2 < f.J; ++j2) {
          const rampt::Node d2{b.g, j2, b.d, b.p};
          const auto c = f.source_in_group(row, d2, a.g);
          if (c && f.trx(row, *c, d2) == t && !(*c == a)) ++violations;
        }
      }
      for (const Recv& rv : st.recvs) from.insert(rv.peer);
      if (got != want || from != want || st.sends.size() + 1 != want.size()) ++violations;
      if (violations > 0) break;
    }
    ASSERT_EQ(violations, 0) << "step " << i;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(secs, 10.0);
}

// One Send per peer in every step of the digit-layout ops at the reference point, and step
// counts (5) at 65,536 nodes.
TEST(RampX, ReferencePointSchedules) {
  const RampShape sh = ramp::full_job(32, 32, 2);
  const std::uint64_t bytes = std::uint64_t{1} << 30;
  for (std::uint32_t member : {0u, 12345u, 65535u}) {
    const Schedule ar(rampt::spec(Op::kAllReduce, sh, bytes), member);
    ASSERT_EQ(ar.steps(), 8u);
    const std::uint32_t peers[8] = {31, 31, 31, 1, 1, 31, 31, 31};
    for (std::uint32_t i = 0; i < 8; ++i) {
      EXPECT_EQ(ar.step(i).sends.size(), peers[i]);
      EXPECT_EQ(ar.step(i).recvs.size(), peers[i]);
    }
    for (Op op : kOps) {
      const Schedule s(rampt::spec(op, sh, bytes, 65535), member);
      EXPECT_LE(s.steps(), rampt::two_stage(op) ? 8u : 4u) << to_string(op);
      std::uint64_t sends = 0;
      for (std::uint32_t i = 0; i < s.steps(); ++i) sends += s.step(i).sends.size();
      EXPECT_LE(sends, 8u * 31 * 128) << to_string(op);  // a few ChunkSets per peer at most
    }
  }
}

// RAMP §6.1's pipelined tree broadcast (eq. 1) with optical multicast: every
// member ends with every chunk (the executor), k + 1 rounds, and per round the
// multicast rules: a transmitter (node, eq. 2 transceiver) sends one transmission
// (one destination group and wavelength, any number of racks), a receiving
// transceiver hears one transmitter, and a wavelength of a subnet carries one
// transmitter (rule c).
TEST(RampX, PipelinedTreeBroadcast) {
  int checked = 0;
  for (auto [x, J, D] : std::vector<std::array<std::uint32_t, 3>>{
           {2, 2, 1}, {2, 2, 2}, {3, 3, 2}, {4, 4, 2}, {4, 2, 2}, {4, 4, 4}, {3, 2, 1}}) {
    const RampShape sh = ramp::full_job(x, J, D);
    ASSERT_TRUE(ramp::tree_broadcast_fits(sh));
    const std::uint32_t n = static_cast<std::uint32_t>(ramp::job_size(sh));
    for (std::uint32_t k : {1u, 3u, 8u}) {
      for (std::uint32_t root : {0u, n / 2 + 1, n - 1}) {
        CollectiveSpec s = rampt::spec(Op::kBroadcast, sh, 1000 + 37 * k, root);
        ramp_x::set_spec(s, sh, k);
        ASSERT_EQ(why_invalid(s), "");
        std::vector<Transfer> log;
        const Outcome out = execute(s, {}, &log);
        ASSERT_EQ(out.error, "") << x << J << D << " k=" << k << " root " << root;
        std::uint32_t most = 0;
        for (std::uint32_t m = 0; m < n; ++m) most = std::max(most, Schedule(s, m).steps());
        EXPECT_EQ(most, k + 1);
        std::map<std::uint64_t, std::vector<Transfer>> rounds;
        for (const Transfer& t : log) rounds[t.time].push_back(t);
        for (const auto& [time, txs] : rounds) {
          std::map<std::uint64_t, std::uint64_t> tx_use, rx_use, wl_use;
          for (const Transfer& t : txs) {
            const ramp::Coord a = ramp::coord_of_node(t.from, sh),
                              b = ramp::coord_of_node(t.to, sh);
            const std::uint32_t trx = (a.g + b.g + a.j) % x;  // eq. 2
            const std::uint64_t lam = b.lambda(x);
            const std::uint64_t where = (std::uint64_t{b.g} << 32) | lam;  // group and wavelength
            auto [ta, fa] = tx_use.emplace(std::uint64_t{t.from} * x + trx, where);
            EXPECT_TRUE(fa || ta->second == where) << "(a) round " << time;
            auto [rb, fb] = rx_use.emplace(std::uint64_t{t.to} * x + trx, t.from);
            EXPECT_TRUE(fb || rb->second == t.from) << "(b) round " << time;
            const std::uint64_t key = ((std::uint64_t{a.g} * x + b.g) * x + trx) * 4096 + lam;
            auto [wc, fc] = wl_use.emplace(key, t.from);
            EXPECT_TRUE(fc || wc->second == t.from) << "(c) round " << time;
          }
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 7 * 3 * 3);
  // Only broadcast, only full jobs that the tree covers.
  CollectiveSpec s = rampt::spec(Op::kBroadcast, ramp::full_job(4, 1, 4), 1000);
  ramp_x::set_spec(s, ramp::full_job(4, 1, 4), 2);
  EXPECT_NE(why_invalid(s), "");
  s = rampt::spec(Op::kAllGather, ramp::full_job(4, 4, 2), 1000);
  ramp_x::set_spec(s, ramp::full_job(4, 4, 2), 2);
  EXPECT_NE(why_invalid(s), "");
  // Eq. 1: k = sqrt((s - 2) m beta / alpha), s = 3.
  EXPECT_EQ(ramp_x::broadcast_stages(1'600'000, 100'000, 1000), 4u);
  EXPECT_EQ(ramp_x::broadcast_stages(1'000, 100'000, 1000), 1u);
  EXPECT_EQ(ramp_x::broadcast_stages(1'000'000'000'000, 1, 16), 16u);
}

// Mutated RAMP schedules are caught by the checks above.
TEST(RampX, ChecksCatchBrokenSchedules) {
  const RampShape sh = ramp::full_job(3, 2, 2);
  const CollectiveSpec s = rampt::spec(Op::kReduceScatter, sh, 360);
  // Wrong reduction arity (x-to-1 expected).
  EXPECT_NE(execute(s,
                    [](std::uint32_t, std::uint32_t, Step& st) {
                      if (st.local == LocalOp::kReduce) st.sources = 2;
                    })
                .error.find("local op"),
            std::string::npos);
  // A transmission on a pair outside the step's subgroups.
  std::vector<Transfer> log = {{0, 1, 0}, {0, 2, 0}};
  EXPECT_NE(rampt::check_invariants(s, log).find("(1)"), std::string::npos);
  // Two nodes of one group sending to one destination on one wavelength in one subnet.
  const rampt::Fabric f{4, 4, 1};
  const rampt::Node dst{1, 0, 0, 0};
  const std::vector<rampt::Tx> clash = {{rampt::Node{0, 0, 0, 0}, dst, 1},
                                        {rampt::Node{0, 1, 0, 0}, rampt::Node{1, 1, 0, 0}, 3}};
  const std::string v = rampt::check_optical(f, clash);
  EXPECT_FALSE(v.empty());
  // The paper's step-3 transceiver (eq. 2) makes receivers collide for even x (docs/models.md).
  const rampt::Fabric f4{4, 4, 1};
  std::vector<rampt::Tx> eq2;
  for (std::uint32_t n = 0; n < f4.nodes(); ++n) {
    for (const rampt::Node& b : f4.subgroup(3, f4.node(n))) {
      if (!(b == f4.node(n))) eq2.push_back(rampt::Tx{f4.node(n), b, 1});  // row 1's rule
    }
  }
  EXPECT_FALSE(rampt::check_optical(f4, eq2).empty());
}

}  // namespace
}  // namespace sipsim::collective
