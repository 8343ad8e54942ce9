// The collectives workload end to end on the sequential engine: exactness
// against the closed form on an idle fabric, congestion where it must appear,
// and every (op, algorithm) pair running to completion on every fabric kind.
#include "sipsim/workload/bench/collectives.hpp"

#include <gtest/gtest.h>

#include <boost/mpi/communicator.hpp>
#include <cmath>
#include <tuple>

#include "../../support/test_fabrics.hpp"
#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/collective/ramp_x.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/fabric/flat/elect_flat.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"
#include "sipsim/fabric/ramp/transport.hpp"
#include "sipsim/fabric/routed/routed_network.hpp"
#include "sipsim/fabric/sip/sipac.hpp"
#include "sipsim/pdes/engine.hpp"

namespace sipsim::workload {
namespace {

using collective::algorithm;
using collective::Algorithm;
using collective::Op;
using pdes::kMicrosecond;
using pdes::kNanosecond;
using pdes::Time;

struct SimRun {
  std::vector<CollectiveRecord> records;
  pdes::RunResult result;
};

SimRun simulate(const CollectivesConfig& c, std::unique_ptr<fabric::Network> net) {
  boost::mpi::communicator self(MPI_COMM_SELF, boost::mpi::comm_attach);
  CollectivesBenchmark bench(c, std::move(net));
  const auto model = bench.take_model();
  pdes::EngineOptions o;
  o.progress_interval_s = 0;
  SimRun r;
  r.result = pdes::run(*model, model->partition(1), self, o);
  bench.collect(self);
  EXPECT_EQ(bench.unfinished(self), "");
  r.records = bench.records();
  return r;
}

CollectivesConfig config(Op op, Algorithm a, std::uint64_t bytes) {
  CollectivesConfig c;
  c.op = op;
  c.algorithm = a;
  c.min_bytes = c.max_bytes = bytes;
  c.iterations = 1;
  c.warmup = 0;
  return c;
}

constexpr std::uint64_t k400G = 400'000'000'000;

// Ring all-reduce on an idle elect-flat: 2(p-1) steps of alpha + (S/p)/B, plus
// the p-1 two-input reductions of S/p bytes (issue #3's exactness criterion).
TEST(Collectives, RingAllReduceOnElectFlatEqualsTheClosedForm) {
  const std::uint32_t p = 16;
  const std::uint64_t S = std::uint64_t{1} << 24;  // divisible by p: every chunk S/p
  const Time alpha = 1 * kMicrosecond;
  auto c = config(Op::kAllReduce, algorithm("ring"), S);
  const SimRun r = simulate(c, fabric::make_elect_flat(p, k400G, alpha));
  ASSERT_EQ(r.records.size(), 1u);
  const Time simulated = r.records[0].end - r.records[0].start;

  const compute::Roofline roofline(c.accelerator);
  const Time step = alpha + fabric::serialization_ps(S / p, k400G);
  const Time closed = 2 * (p - 1) * step + (p - 1) * roofline.reduce_ps(2, S / p);
  EXPECT_EQ(simulated, closed);

  auto net = fabric::make_elect_flat(p, k400G, alpha);
  collective::CollectiveSpec spec;
  spec.op = Op::kAllReduce;
  spec.algorithm = algorithm("ring");
  spec.p = p;
  spec.bytes = S;
  std::vector<std::uint32_t> members(p);
  for (std::uint32_t i = 0; i < p; ++i) members[i] = i;
  const auto est = analytical::estimate_collective(spec, members, *net, roofline);
  EXPECT_EQ(est.total, simulated);
  EXPECT_EQ(r.records[0].compute, (p - 1) * roofline.reduce_ps(2, S / p));
}

// The concurrent direct exchange on an idle elect-flat: each member posts its p-1 messages of
// S/p at once; its one port sends them back to back (member r to r+1, r+2, ... in the same
// order everywhere, so no receiver gets two at a time), and the last arrives alpha after it
// left: alpha + (p-1) S/p/B, against direct's (p-1)(alpha + S/p/B). Reduce-scatter adds one
// p-input reduction of S/p; the estimator agrees to the picosecond.
TEST(Collectives, ConcurrentDirectOnElectFlatEqualsTheClosedForm) {
  const std::uint32_t p = 16;
  const std::uint64_t S = std::uint64_t{1} << 24;
  const Time alpha = 1 * kMicrosecond;
  const Time chunk = fabric::serialization_ps(S / p, k400G);
  for (const Op op : {Op::kAllToAll, Op::kReduceScatter, Op::kAllGather}) {
    auto c = config(op, algorithm("direct-concurrent"), S);
    const compute::Roofline roofline(c.accelerator);
    const SimRun r = simulate(c, fabric::make_elect_flat(p, k400G, alpha));
    ASSERT_EQ(r.records.size(), 1u);
    const Time simulated = r.records[0].end - r.records[0].start;
    const Time reduction = op == Op::kReduceScatter ? roofline.reduce_ps(p, S / p) : 0;
    EXPECT_EQ(simulated, alpha + (p - 1) * chunk + reduction) << collective::to_string(op);
    const SimRun pairwise =
        simulate(config(op, algorithm("direct"), S), fabric::make_elect_flat(p, k400G, alpha));
    EXPECT_EQ(
        pairwise.records[0].end - pairwise.records[0].start - simulated,
        (p - 2) * alpha +
            (op == Op::kReduceScatter ? (p - 1) * roofline.reduce_ps(2, S / p) - reduction : 0))
        << collective::to_string(op);
    auto net = fabric::make_elect_flat(p, k400G, alpha);
    collective::CollectiveSpec spec;
    spec.op = op;
    spec.algorithm = algorithm("direct-concurrent");
    spec.p = p;
    spec.bytes = S;
    std::vector<std::uint32_t> members(p);
    for (std::uint32_t i = 0; i < p; ++i) members[i] = i;
    EXPECT_EQ(analytical::estimate_collective(spec, members, *net, roofline).total, simulated)
        << collective::to_string(op);
  }
}

// With sizes that do not divide evenly, the estimator still matches exactly.
TEST(Collectives, EstimatorMatchesSimulationOnIdleElectFlat) {
  for (std::uint64_t bytes : {1ull, 1000ull, 999'983ull}) {
    for (Algorithm a : {algorithm("ring"), algorithm("halving-doubling")}) {
      auto c = config(Op::kAllReduce, a, bytes);
      const std::uint32_t p = 8;
      const SimRun r = simulate(c, fabric::make_elect_flat(p, k400G, 700 * kNanosecond));
      auto net = fabric::make_elect_flat(p, k400G, 700 * kNanosecond);
      collective::CollectiveSpec spec;
      spec.op = c.op;
      spec.algorithm = a;
      spec.p = p;
      spec.bytes = bytes;
      std::vector<std::uint32_t> members(p);
      for (std::uint32_t i = 0; i < p; ++i) members[i] = i;
      const auto est =
          analytical::estimate_collective(spec, members, *net, compute::Roofline(c.accelerator));
      EXPECT_EQ(est.total, r.records[0].end - r.records[0].start)
          << collective::to_string(a) << " " << bytes;
    }
  }
}

// The node I/O latency of a routed fabric (RAMP §7.5) is paid once per message: a ring
// all-reduce on a ring of 8 nodes one hop apart costs 2(p-1) x (io + S/p/B + hop) plus the
// reductions, and both estimators agree with the simulation.
TEST(Collectives, RoutedIoLatencyIsPaidOncePerStep) {
  const std::uint32_t p = 8;
  const std::uint64_t S = 8 * 4096;
  const Time io = 100 * kNanosecond, hop = 10 * kNanosecond;
  auto make = [&] {
    fabric::Torus2dSpec t;
    t.dims[0] = p;
    t.dims[1] = 1;
    t.link_rate_bps = k400G;
    t.hop_latency = hop;
    return fabric::make_routed(fabric::make_torus2d(t), 1 << 20, io);
  };
  auto c = config(Op::kAllReduce, algorithm("ring"), S);
  const SimRun r = simulate(c, make());
  const Time simulated = r.records[0].end - r.records[0].start;
  const compute::Roofline roofline(c.accelerator);
  const Time step = io + fabric::serialization_ps(S / p, k400G) + hop;
  EXPECT_EQ(simulated, 2 * (p - 1) * step + (p - 1) * roofline.reduce_ps(2, S / p));
  collective::CollectiveSpec spec;
  spec.op = Op::kAllReduce;
  spec.algorithm = algorithm("ring");
  spec.p = p;
  spec.bytes = S;
  std::vector<std::uint32_t> members(p);
  for (std::uint32_t i = 0; i < p; ++i) members[i] = i;
  const auto net = make();
  EXPECT_EQ(analytical::estimate_collective(spec, members, *net, roofline).total, simulated);
  EXPECT_EQ(analytical::estimate_critical_path(spec, members, *net, roofline).total, simulated);
}

// The multicast trees on an idle SiPAC_1(r=4) (16 units, 6 lightpaths of R = 100 Gb/s each),
// every send one lightpath hop:
//  - broadcast of 128 KiB: L = 2 trees of S = 4 segments of b = 16 KiB; no lightpath carries
//    two segments in one step, so each of the S + L steps takes io + b/R:
//    (S + L)(io + b/R) without propagation delay (with it, a unit's step waits for its
//    latest receive, so the trees' different path lengths add up along the pipeline);
//  - all-gather of 16 x 4 KiB: L = 2 trees of half blocks; in step i each tree multicasts
//    4^i half blocks to the 3 peers of the unit's WSS on its own level (the trees' levels
//    differ): sum over i of io + 4^i x 2 KiB / R + lat.
// The critical-path estimate agrees to the picosecond.
TEST(Collectives, MulticastTreeOnSipacEqualsTheClosedForm) {
  const std::uint32_t p = 16;
  const std::uint64_t R = 100'000'000'000;
  const Time io = 100 * kNanosecond;
  auto make = [&](Time lat) {
    fabric::SipacSpec s;
    s.ports = 4;
    s.level = 1;
    s.bandwidth_bps = 6 * R;
    s.propagation = lat;
    return fabric::make_routed(fabric::make_sipac(s), 1 << 20, io);
  };
  const std::uint64_t bcast = 128 << 10, block = 4 << 10;
  const Time lat = 10 * kNanosecond;
  const Time expected_bcast = (4 + 2) * (io + fabric::serialization_ps(16 << 10, R));
  const Time expected_ag = 2 * (io + lat) + fabric::serialization_ps(block / 2, R) +
                           fabric::serialization_ps(4 * block / 2, R);
  for (const auto& [op, bytes, hop, expected] :
       {std::tuple{Op::kBroadcast, bcast, Time{0}, expected_bcast},
        std::tuple{Op::kAllGather, p * block, lat, expected_ag}}) {
    auto c = config(op, algorithm("multicast-tree"), bytes);
    c.params.hierarchy = collective::Dims{4, 4};
    c.root = 5;
    const SimRun r = simulate(c, make(hop));
    ASSERT_EQ(r.records.size(), 1u);
    EXPECT_EQ(r.records[0].end - r.records[0].start, expected) << collective::to_string(op);
    collective::CollectiveSpec spec =
        collective::make_spec(op, c.algorithm, p, bytes, c.root, c.params);
    std::vector<std::uint32_t> members(p);
    for (std::uint32_t i = 0; i < p; ++i) members[i] = i;
    const compute::Roofline roofline(c.accelerator);
    EXPECT_EQ(analytical::estimate_critical_path(spec, members, *make(hop), roofline).total,
              expected)
        << collective::to_string(op);
  }
}

// Incast: every member sends its block to the root at once; the root's
// receive port serialises them: (p-1) blocks at B after one latency.
TEST(Collectives, IncastSerialisesAtTheReceiversPort) {
  const std::uint32_t p = 9;
  const std::uint64_t S = 9 * 100'000;  // gather: S at the root, S/p from each
  const Time alpha = 500 * kNanosecond;
  auto c = config(Op::kGather, algorithm("direct"), S);
  const SimRun r = simulate(c, fabric::make_elect_flat(p, k400G, alpha));
  const Time t = r.records[0].end - r.records[0].start;
  EXPECT_GE(t, alpha + (p - 1) * fabric::serialization_ps(S / p, k400G));
  EXPECT_LT(t, alpha + p * fabric::serialization_ps(S / p, k400G));
}

fabric::ClusterSpec cluster_spec(std::uint64_t nic_rate, std::uint32_t servers = 4) {
  return testing::cluster_spec(nic_rate, servers);
}

// An all-to-all across servers (one GPU per server) crosses only NICs: at
// 200 Gb/s (1:12 against NVLink) it is >= 10x slower than with 2.4 Tb/s NICs
// (the 1:1 variant), RAMP §7.5 / Fig. 21.
TEST(Collectives, OversubscribedClusterIsTenTimesSlowerForAllToAll) {
  auto c = config(Op::kAllToAll, algorithm("direct"), 64 << 20);
  c.group = {0, 0, 8};
  const SimRun slow = simulate(
      c, fabric::make_routed(fabric::make_cluster(cluster_spec(200'000'000'000), 32), 1 << 16));
  const SimRun fast = simulate(
      c, fabric::make_routed(fabric::make_cluster(cluster_spec(2'400'000'000'000), 32), 1 << 16));
  const double ratio = static_cast<double>(slow.records[0].end - slow.records[0].start) /
                       static_cast<double>(fast.records[0].end - fast.records[0].start);
  EXPECT_GE(ratio, 10.0);
  EXPECT_LE(ratio, 12.0);
}

// Every valid (op, algorithm) pair completes, on a flat and a routed fabric,
// and its record is consistent; a deadlocking schedule would never finish.
TEST(Collectives, EveryOpAndAlgorithmCompletesOnEveryFabricKind) {
  int ran = 0;
  for (const std::string& op_name : collective::op_names()) {
    for (const std::string& algo_name : collective::algorithm_names()) {
      auto c =
          config(*collective::parse_op(op_name), *collective::parse_algorithm(algo_name), 12'345);
      c.iterations = 2;
      c.warmup = 1;
      c.root = 3;
      c.params.hierarchy = collective::Dims{2, 2, 4};
      c.params.torus = collective::Dims{4, 4};
      if (c.op == Op::kBarrier) c.min_bytes = c.max_bytes = 0;
      collective::CollectiveSpec spec;
      spec.op = c.op;
      spec.algorithm = c.algorithm;
      spec.p = 16;
      spec.bytes = c.min_bytes;
      spec.root = c.root;
      spec = collective::make_spec(c.op, c.algorithm, 16, c.min_bytes, c.root, c.params);
      if (!collective::why_invalid(spec).empty()) continue;
      for (int kind = 0; kind < 2; ++kind) {
        auto net =
            kind == 0 ? fabric::make_elect_flat(16, k400G, kMicrosecond)
                      : fabric::make_routed(fabric::make_cluster(cluster_spec(k400G, 2), 16), 4096);
        const SimRun r = simulate(c, std::move(net));
        ASSERT_EQ(r.records.size(), 3u) << op_name << " " << algo_name;
        for (const auto& rec : r.records) {
          EXPECT_GT(rec.end, rec.start) << op_name << " " << algo_name;
          EXPECT_LE(rec.compute, rec.end - rec.start) << op_name << " " << algo_name;
          EXPECT_GE(rec.h2h + rec.h2t + rec.compute, rec.end - rec.start)
              << op_name << " " << algo_name;
          if (rec.h2h > 0) {
            EXPECT_EQ(rec.h2h + rec.h2t + rec.compute, rec.end - rec.start);
          }
        }
        // Back to back: each iteration starts after the previous one started.
        EXPECT_LE(r.records[0].start, r.records[1].start);
        EXPECT_LE(r.records[1].start, r.records[2].start);
        ++ran;
      }
    }
  }
  EXPECT_GE(ran, 2 * 40);
}

// RAMP is contention-free under RAMP-x, so the simulator must reproduce the
// per-step estimate (H2H + data transfer + x-to-1 reduction, RAMP §7.4) exactly,
// with optical rules checked (strict mode) on every transfer; with and without
// the job's extra transceiver groups (RAMP §6.2.2 eq. 3-4: the 32- and 8-node
// jobs have a step of 2 members, which gets 2 groups).
TEST(Collectives, RampXEqualsTheEstimatorOnRamp) {
  fabric::RampSpec plain;
  plain.x = 4;
  plain.J = 4;
  plain.Lambda = 8;
  const fabric::ramp::RampShape full = fabric::ramp::full_job(4, 4, 2);
  int with_extra = 0;
  for (const std::string& name : collective::op_names()) {
    const Op op = *collective::parse_op(name);
    for (std::uint32_t n : {128u, 32u, 8u}) {
      auto c = config(op, algorithm("ramp-x"), op == Op::kBarrier ? 0 : 1 << 20);
      c.root = 5;
      const fabric::ramp::RampShape shape = fabric::ramp::shape_for(4, 4, 2, n);
      collective::ramp_x::set_job(c.params, shape);
      c.nodes = fabric::ramp::job_nodes(shape);
      for (int k = 1; k <= 4; ++k) with_extra += fabric::ramp::extra_groups(k, shape) > 0;
      for (bool job : {false, true}) {
        fabric::RampSpec spec = plain;
        if (job) spec.job = shape;
        const SimRun r = simulate(c, fabric::make_ramp(spec));
        auto net = fabric::make_ramp(spec);
        collective::CollectiveSpec s;
        s.op = op;
        s.algorithm = algorithm("ramp-x");
        s.p = n;
        s.bytes = c.min_bytes;
        collective::ramp_x::set_spec(s, shape);
        s.root = c.root;
        const auto est =
            analytical::estimate_collective(s, c.nodes, *net, compute::Roofline(c.accelerator));
        EXPECT_EQ(r.records[0].end - r.records[0].start, est.total)
            << collective::to_string(op) << " on " << n << " nodes" << (job ? ", job set" : "");
        const bool two_phase = op == Op::kAllReduce || op == Op::kReduce || op == Op::kBroadcast;
        EXPECT_LE(est.steps, two_phase ? 8u : 4u) << name;
      }
    }
  }
  EXPECT_EQ(with_extra, 2 * 9);
  EXPECT_EQ(full.active[0] * full.active[1] * full.active[2] * full.active[3], 128u);
}

// RAMP §6.2.2 eq. 3-5 on a 1,024-node RAMP (x = J = 8, Lambda = 16): a 16-node job is
// {8, 2, 1, 1}; its step 2 (d = 2) gets 1 + 3 transceiver groups (eq. 3 allows 4 extra, but
// t0 + 4*2 = t0 mod 8), so B_IO_eff = B*b*(1 + 3)*(d - 1) (eq. 5) and a step-2 transfer of
// 38,000 B takes 10 slots instead of 40: 600 ns less per step-2 round, nothing else changes.
// Every operation: simulated time == estimate, strict optical rules.
TEST(Collectives, RampXExtraTransceiversFollowEq5) {
  fabric::RampSpec plain;
  plain.x = 8;
  plain.J = 8;
  plain.Lambda = 16;
  fabric::RampSpec spec = plain;
  spec.job = fabric::ramp::shape_for(8, 8, 2, 16);
  ASSERT_EQ(spec.job->active[0], 8u);
  ASSERT_EQ(spec.job->active[1], 2u);
  ASSERT_EQ(fabric::ramp::extra_groups(1, *spec.job), 0u);
  ASSERT_EQ(fabric::ramp::extra_groups(2, *spec.job), 3u);
  const std::vector<std::uint32_t> nodes = fabric::ramp::job_nodes(*spec.job);
  {
    auto with = fabric::make_ramp(spec), without = fabric::make_ramp(plain);
    // Offsets (c1, c2, c3, c4) = (0, 0, 0, 0) and (0, 1, 0, 0): a step-2 pair.
    const fabric::ramp::RampShape& job = *spec.job;
    const std::uint32_t a =
        fabric::ramp::node_id(fabric::ramp::coord_of_offsets({0, 0, 0, 0}, job), job);
    const std::uint32_t b =
        fabric::ramp::node_id(fabric::ramp::coord_of_offsets({0, 1, 0, 0}, job), job);
    const std::uint64_t slot_bps = fabric::ramp_slot_bytes(spec) * 8 * pdes::kSecond / spec.slot;
    EXPECT_EQ(with->path_rate_bps(a, b), slot_bps * spec.b * (1 + 3));
    EXPECT_EQ(with->path_rate_bps(a, b) * (2 - 1), 4 * without->path_rate_bps(a, b));  // eq. 5
    EXPECT_EQ(without->injection_ps(a, b, 38'000) - with->injection_ps(a, b, 38'000),
              30 * 20 * kNanosecond);
  }
  const std::uint64_t m = 16 * 38'000;  // step 2 sends m/16 to its one peer
  for (const std::string& name : collective::op_names()) {
    const Op op = *collective::parse_op(name);
    auto c = config(op, algorithm("ramp-x"), op == Op::kBarrier ? 0 : m);
    c.root = 3;
    collective::ramp_x::set_job(c.params, *spec.job);
    c.nodes = nodes;
    collective::CollectiveSpec s;
    s.op = op;
    s.algorithm = algorithm("ramp-x");
    s.p = 16;
    s.bytes = c.min_bytes;
    collective::ramp_x::set_spec(s, *spec.job);
    s.root = c.root;
    const compute::Roofline roofline(c.accelerator);
    Time took[2] = {0, 0};
    for (int with = 0; with < 2; ++with) {
      const SimRun r = simulate(c, fabric::make_ramp(with ? spec : plain));
      took[with] = r.records[0].end - r.records[0].start;
      auto net = fabric::make_ramp(with ? spec : plain);
      EXPECT_EQ(took[with], analytical::estimate_collective(s, nodes, *net, roofline).total)
          << name << (with ? " with" : " without") << " extra groups";
    }
    if (op == Op::kAllReduce || op == Op::kReduceScatter || op == Op::kAllGather) {
      const Time rounds = op == Op::kAllReduce ? 2 : 1;  // step-2 rounds of m/16 per peer
      EXPECT_EQ(took[0] - took[1], rounds * 600 * kNanosecond) << name;
    } else {
      EXPECT_LE(took[1], took[0]) << name;
    }
  }
}

// RAMP §6.1's pipelined tree broadcast: eq. 1's k stages of multicasts, k + 1
// lock-step rounds, strict optical rules in the transport, and the simulated
// time equal to both estimators. One multicast transmission per transceiver
// and stage reaches a whole group's racks: far fewer transfers than copies.
TEST(Collectives, RampTreeBroadcastMulticasts) {
  fabric::RampSpec spec;
  spec.x = 4;
  spec.J = 4;
  spec.Lambda = 8;
  for (std::uint64_t bytes : {std::uint64_t{4096}, std::uint64_t{1} << 22}) {
    auto c = config(Op::kBroadcast, algorithm("ramp-x"), bytes);
    c.root = 37;
    const fabric::ramp::RampShape full = fabric::ramp::full_job(4, 4, 2);
    const Time alpha = spec.io_latency + spec.propagation;
    const std::uint64_t rate = fabric::ramp_slot_bytes(spec) * 8 * pdes::kSecond / spec.slot;
    collective::ramp_x::set_job(c.params, full, alpha, rate);
    c.nodes = fabric::ramp::job_nodes(full);
    const collective::CollectiveSpec s = make_spec(c, 128, bytes, algorithm("ramp-x"));
    const std::uint32_t stages = collective::ramp_x::spec_params(s).stages;
    // Eq. 1 with s = 3: k = sqrt(m beta / alpha).
    const double k = std::sqrt(static_cast<double>(fabric::serialization_ps(bytes, rate)) /
                               static_cast<double>(alpha));
    EXPECT_EQ(stages, std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::llround(k))));
    boost::mpi::communicator self(MPI_COMM_SELF, boost::mpi::comm_attach);
    CollectivesBenchmark bench(c, fabric::make_ramp(spec));
    const auto model = bench.take_model();
    pdes::EngineOptions o;
    o.progress_interval_s = 0;
    pdes::run(*model, model->partition(1), self, o);
    bench.collect(self);
    const auto records = bench.records();
    const Time t = records[0].end - records[0].start;
    const auto check = fabric::make_ramp(spec);
    const compute::Roofline roofline(c.accelerator);
    const auto idle = analytical::estimate_collective(s, c.nodes, *check, roofline);
    const auto crit = analytical::estimate_critical_path(s, c.nodes, *check, roofline);
    EXPECT_EQ(t, idle.total) << bytes;
    EXPECT_EQ(t, crit.total) << bytes;
    EXPECT_EQ(idle.steps, stages + 1);
    // Per stage: the root's 4 transmissions (one per group) + 7 forwarders' 4.
    const fabric::Network& net = bench.network();
    EXPECT_EQ(net.counter("transfers"), std::uint64_t{stages} * (4 + 7 * 4));
    EXPECT_EQ(net.counter("rule_b_conflicts") + net.counter("rule_c_conflicts"), 0u);
  }
}

TEST(Collectives, SweepSizesAndGroups) {
  CollectivesConfig c;
  c.min_bytes = 1024;
  c.max_bytes = 1 << 20;
  c.factor = 4;
  EXPECT_EQ(sweep_sizes(c),
            (std::vector<std::uint64_t>{1024, 4096, 16384, 65536, 262144, 1048576}));
  EXPECT_EQ(group_nodes({2, 3, 4}, 16), (std::vector<std::uint32_t>{2, 6, 10}));
  EXPECT_EQ(group_nodes({1, 0, 5}, 16), (std::vector<std::uint32_t>{1, 6, 11}));
  EXPECT_THROW(group_nodes({0, 17, 1}, 16), std::invalid_argument);
}

}  // namespace
}  // namespace sipsim::workload
