// The reconfigurable circuit fabric (fabric/circuit/circuit_network) under a
// fake controller whose plans, period and legs the tests choose, run through
// the PDES engine with delivery times derived by hand. Runs at 1, 2 and 3
// ranks (ctest): every time below must hold at every rank count.
//
// Units used throughout: a circuit unit of 8 Gb/s carries 1 B per ns, so a
// 1000 B chunk takes 1 us on one unit, 0.5 us on two; every circuit hop adds
// a latency of 1 us.
#include "sipsim/fabric/circuit/circuit_network.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <boost/mpi/communicator.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sipsim/fabric/fabric_model.hpp"
#include "sipsim/pdes/engine.hpp"

namespace sipsim::fabric {
namespace {

using pdes::kNanosecond;
using pdes::Time;

constexpr Time kMicrosecond = 1000 * kNanosecond;
constexpr std::uint64_t kUnitBps = 8'000'000'000;  // 1 B/ns
constexpr Time kLatency = kMicrosecond;
constexpr std::uint64_t kChunk = 1000;

// What the controller was asked at one epoch.
struct Asked {
  Time time = 0;
  std::uint64_t index = 0;
  std::vector<PairTraffic> demand;
  CircuitPlan current;
};

// A controller that plays a script: its first plan, then plans[k] at epoch k
// (nullopt past the list or where it holds one), logging what it is given.
struct Script {
  CircuitPlan first;
  Time period = 0;
  Time delay = 0;
  std::vector<std::optional<CircuitPlan>> plans;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> legs;  // (at, dst) -> target
  // Filled by the controller (the same on every rank).
  std::vector<PairTraffic> job;
  std::vector<Asked> asked;
};

class FakeController final : public CircuitController {
 public:
  explicit FakeController(std::shared_ptr<Script> s) : s_(std::move(s)) {}
  CircuitPlan first_plan(std::span<const PairTraffic> job) override {
    s_->job.assign(job.begin(), job.end());
    return s_->first;
  }
  Time period() const override { return s_->period; }
  Time reconfiguration_delay() const override { return s_->delay; }
  std::optional<CircuitPlan> next_plan(const CircuitPlan& current,
                                       std::span<const PairTraffic> demand,
                                       const pdes::EpochInfo& info) override {
    s_->asked.push_back({info.time, info.index, {demand.begin(), demand.end()}, current});
    return info.index < s_->plans.size() ? s_->plans[info.index] : std::nullopt;
  }
  std::uint32_t leg_target(std::uint32_t at, std::uint32_t dst) const override {
    const auto it = s_->legs.find({at, dst});
    return it == s_->legs.end() ? dst : it->second;
  }
  std::string describe() const override { return "a scripted controller"; }

 private:
  std::shared_ptr<Script> s_;
};

CircuitFabricSpec Spec(std::uint32_t gpus) {
  CircuitFabricSpec s;
  s.gpus = gpus;
  s.unit_rate_bps = kUnitBps;
  s.units_per_gpu = 4;
  s.latency = kLatency;
  s.chunk_bytes = kChunk;
  s.name = "test-circuits";
  return s;
}

std::unique_ptr<Network> Make(std::uint32_t gpus, const std::shared_ptr<Script>& script,
                              std::span<const PairTraffic> job, std::uint64_t chunk = kChunk) {
  CircuitFabricSpec spec = Spec(gpus);
  spec.chunk_bytes = chunk;
  auto net = make_circuit_network(spec, std::make_unique<FakeController>(script));
  net->plan_for_job(job);
  return net;
}

struct Send {
  Time at = 0;
  std::uint32_t src = 0, dst = 0;
  std::uint64_t bytes = 0;
};

constexpr std::uint32_t kStartSend = 7;  // below kFabricKindBase: the driver's own event

// Each send starts at its node at its time (tag = its index); deliveries are
// recorded with their time and their rank among the destination's deliveries.
class Driver final : public FabricModel, public MessageSink {
 public:
  Driver(Network& net, std::vector<Send> sends)
      : FabricModel(net),
        sends_(std::move(sends)),
        at_(sends_.size(), 0),
        order_(sends_.size(), 0) {}
  void setup(const pdes::Partition& p, int rank) override {
    FabricModel::setup(p, rank);
    count_.assign(fabric_.nodes(), 0);
  }
  void init(pdes::Context& ctx) override {
    for (std::uint64_t k = 0; k < sends_.size(); ++k) {
      if (sends_[k].src == ctx.self()) ctx.send(ctx.self(), sends_[k].at, kStartSend, {k});
    }
  }
  void handle(const pdes::Event& e, pdes::Context& ctx) override {
    if (e.kind == kStartSend) {
      const Send& s = sends_[e.data[0]];
      // The fabric takes the message at once.
      EXPECT_EQ(fabric_.send(ctx, s.dst, s.bytes, e.data[0]), ctx.now());
      return;
    }
    fabric_.handle(e, ctx, *this);
  }
  void delivered(const Delivery& d, pdes::Context& ctx) override {
    ASSERT_LT(d.tag, sends_.size());
    const Send& s = sends_[d.tag];
    EXPECT_EQ(d.src_node, s.src) << "message " << d.tag;
    EXPECT_EQ(d.bytes, s.bytes) << "message " << d.tag;
    EXPECT_EQ(ctx.self(), s.dst) << "message " << d.tag;
    EXPECT_EQ(at_[d.tag], 0u) << "message " << d.tag << " delivered twice";
    at_[d.tag] = ctx.now();
    order_[d.tag] = ++count_[ctx.self()];
  }
  // After the run, on every rank: deliveries over all ranks.
  void combine(const boost::mpi::communicator& comm) {
    MPI_Allreduce(MPI_IN_PLACE, at_.data(), static_cast<int>(at_.size()), MPI_UINT64_T, MPI_MAX,
                  comm);
    MPI_Allreduce(MPI_IN_PLACE, order_.data(), static_cast<int>(order_.size()), MPI_UINT64_T,
                  MPI_MAX, comm);
  }
  const std::vector<std::uint64_t>& at() const { return at_; }
  const std::vector<std::uint64_t>& order() const { return order_; }

 private:
  std::vector<Send> sends_;
  std::vector<std::uint64_t> at_, order_;  // 0: not delivered
  std::vector<std::uint64_t> count_;
};

struct Outcome {
  std::vector<std::uint64_t> at, order;
  pdes::RunResult result;
};

// Runs on every rank of `comm` (the world: 1-3 ranks under ctest).
Outcome Simulate(Network& net, std::vector<Send> sends,
                 const boost::mpi::communicator& comm = boost::mpi::communicator()) {
  Driver d(net, std::move(sends));
  pdes::EngineOptions o;
  o.progress_interval_s = 0;
  Outcome r;
  r.result = pdes::run(d, d.partition(comm.size()), comm, o);
  d.combine(comm);
  r.at = d.at();
  r.order = d.order();
  return r;
}

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

std::vector<std::vector<std::uint64_t>> empty_columns(std::size_t n) {
  return std::vector<std::vector<std::uint64_t>>(n);
}

// A counter summed over the ranks (the chunks this rank's GPUs relayed).
std::uint64_t Summed(const Network& net, const std::string& name) {
  std::uint64_t mine = net.counter(name), all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

std::vector<PairTraffic> Job(std::initializer_list<PairTraffic> pairs) {
  return pairs;
}

// ---------------------------------------------------------------------------
// A fixed plan (period 0).

TEST(CircuitNetwork, OneMessageOnAnIdleDirectCircuit) {
  auto script = std::make_shared<Script>();
  script->first.circuits = {{0, 1, 1, 1}, {0, 2, 2, 2}};
  const auto job = Job({{0, 1, 1}, {0, 2, 1}});
  struct Case {
    std::uint32_t dst;
    std::uint64_t bytes;
    Time expected;
  };
  const Case cases[] = {
      // 500 B, one chunk on one unit: 500 ns + 1 us.
      {1, 500, 1'500 * kNanosecond},
      // 0 B: one empty chunk, the latency only.
      {1, 0, kLatency},
      // 1000 B, exactly one chunk: 1 us + 1 us.
      {1, 1000, 2 * kMicrosecond},
      // 2500 B in chunks 1000, 1000, 500 back to back on one unit: the last
      // leaves at 2.5 us and lands 1 us later.
      {1, 2500, 3'500 * kNanosecond},
      // On two units (16 Gb/s) the same chunks take 0.5, 0.5, 0.25 us.
      {2, 2500, 2'250 * kNanosecond},
      // 1 B on two units: 0.5 ns.
      {2, 1, kLatency + 500},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("0 -> " + std::to_string(c.dst) + ", " + std::to_string(c.bytes) + " B");
    auto net = Make(3, script, job);
    EXPECT_EQ(net->uncongested_ps(0, c.dst, c.bytes), c.expected);
    const Outcome r = Simulate(*net, {{0, 0, c.dst, c.bytes}});
    EXPECT_EQ(r.at[0], c.expected);
    EXPECT_EQ(Summed(*net, "relayed_chunks"), 0u);
    EXPECT_EQ(net->path_rate_bps(0, c.dst), c.dst == 1 ? kUnitBps : 2 * kUnitBps);
  }
  EXPECT_TRUE(script->asked.empty());  // no epochs under a fixed plan
  EXPECT_EQ(script->job, job);
}

TEST(CircuitNetwork, RelaysStoreAndForwardOnAFixedPlan) {
  struct Case {
    std::uint32_t first_units, second_units;
    Time expected;
  };
  const Case cases[] = {
      // 0 -> 1 on one unit, 1 -> 2 on two. Chunks 1000, 1000, 500 leave 0 at
      // 0, 1, 2 us (done 1, 2, 2.5 us) and reach 1 at 2, 3, 3.5 us; GPU 1
      // forwards each at once (0.5, 0.5, 0.25 us): the last lands at
      // 3.5 + 0.25 + 1 = 4.75 us.
      {1, 2, 4'750 * kNanosecond},
      // Fast then slow: they reach 1 at 1.5, 2, 2.25 us, and 1 -> 2 is busy
      // 1.5-2.5, 2.5-3.5, 3.5-4 us: the last lands at 5 us.
      {2, 1, 5 * kMicrosecond},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.first_units) + " then " + std::to_string(c.second_units));
    auto script = std::make_shared<Script>();
    script->first.circuits = {{0, 1, c.first_units, c.first_units},
                              {1, 2, c.second_units, c.second_units}};
    auto net = Make(3, script, Job({{0, 2, 2500}}));
    EXPECT_EQ(net->uncongested_ps(0, 2, 2500), c.expected);
    const Outcome r = Simulate(*net, {{0, 0, 2, 2500}});
    EXPECT_EQ(r.at[0], c.expected);
    EXPECT_EQ(Summed(*net, "relayed_chunks"), 3u);
    EXPECT_EQ(net->path_rate_bps(0, 2), kUnitBps);
    std::vector<Network::Resource> path;
    net->path_resources(0, 2, path);
    ASSERT_EQ(path.size(), 2u);
    EXPECT_EQ(path[0].id, 0u);
    EXPECT_EQ(path[1].id, 1u);
  }
}

TEST(CircuitNetwork, RelaysPreferTheLowestPeerAmongEqualPaths) {
  // 0 -> 3 through 1 (one unit) or 2 (four units), both 2 hops: GPU 1, the
  // lower id, relays although 2 is faster. One 500 B chunk: 0.5 + 1 us per hop.
  auto script = std::make_shared<Script>();
  script->first.circuits = {{0, 1, 1, 1}, {0, 2, 4, 4}, {1, 3, 1, 1}, {2, 3, 4, 4}};
  auto net = Make(4, script, Job({{0, 3, 500}}));
  EXPECT_EQ(net->uncongested_ps(0, 3, 500), 3 * kMicrosecond);
  const Outcome r = Simulate(*net, {{0, 0, 3, 500}});
  EXPECT_EQ(r.at[0], 3 * kMicrosecond);
  // A direct circuit wins over a relay.
  script->first.circuits.insert(script->first.circuits.begin() + 2, {0, 3, 1, 1});
  auto direct = Make(4, script, Job({{0, 3, 500}}));
  const Outcome d = Simulate(*direct, {{0, 0, 3, 500}});
  EXPECT_EQ(d.at[0], 1'500 * kNanosecond);
  EXPECT_EQ(Summed(*direct, "relayed_chunks"), 0u);
}

TEST(CircuitNetwork, ARelayForwardsInArrivalOrder) {
  // 0 -> 3 and 2 -> 3 both relay at 1 (no other path); their 1000 B chunks
  // reach 1 at 2 us together, and 1 -> 3 carries them one after the other
  // (the one from GPU 0 first: the kernel orders simultaneous events by
  // source LP), landing at 4 and 5 us.
  auto script = std::make_shared<Script>();
  script->first.circuits = {{0, 1, 1, 1}, {1, 3, 1, 1}, {2, 1, 1, 1}};
  auto net = Make(4, script, Job({{0, 3, 1000}, {2, 3, 1000}}));
  const Outcome r = Simulate(*net, {{0, 2, 3, 1000}, {0, 0, 3, 1000}});
  EXPECT_EQ(r.at, (std::vector<std::uint64_t>{5 * kMicrosecond, 4 * kMicrosecond}));
  EXPECT_EQ(r.order, (std::vector<std::uint64_t>{2, 1}));
  EXPECT_EQ(Summed(*net, "relayed_chunks"), 2u);
}

TEST(CircuitNetwork, ClosedFormsBeforeTheJobsPlanQuoteTheFullBandwidth) {
  // What `algorithm: auto` asks before the workload hands the job's traffic:
  // each GPU's 4 units (32 Gb/s) on its send and its receive side, 1000 B
  // in 250 ns + 1 us.
  for (const Time period : {Time{0}, 10 * kMicrosecond}) {
    auto script = std::make_shared<Script>();
    script->period = period;
    const auto net = make_circuit_network(Spec(4), std::make_unique<FakeController>(script));
    EXPECT_EQ(net->uncongested_ps(0, 3, 1000), 1'250 * kNanosecond);
    EXPECT_EQ(net->path_rate_bps(2, 1), 4 * kUnitBps);
    EXPECT_EQ(net->node_rate_bps(), 4 * kUnitBps);
    std::vector<Network::Resource> path;
    net->path_resources(1, 0, path);
    ASSERT_EQ(path.size(), 2u);
    EXPECT_EQ(path[0].id, 1u);      // GPU 1 sends
    EXPECT_EQ(path[1].id, 4u + 0);  // GPU 0 receives
    for (const auto& r : path) {
      EXPECT_EQ(r.rate_bps, 4 * kUnitBps);
      EXPECT_LT(r.id, net->resource_count());
    }
  }
}

// Random fixed plans on 6 GPUs (a ring of 1-3 units each way round, plus
// random chords): every lone message, over any number of relays and chunk
// sizes, lands when the closed form says.
TEST(CircuitNetwork, LoneMessagesMatchTheClosedFormOnRandomPlans) {
  std::mt19937_64 rng(13);  // the same draws on every rank
  constexpr std::uint32_t kGpus = 6;
  for (int trial = 0; trial < 12; ++trial) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> units;
    for (std::uint32_t v = 0; v < kGpus; ++v) {
      units[{v, (v + 1) % kGpus}] = 1 + static_cast<std::uint32_t>(rng() % 3);
    }
    for (int k = 0; k < 3; ++k) {
      const auto a = static_cast<std::uint32_t>(rng() % kGpus);
      const auto b = static_cast<std::uint32_t>(rng() % kGpus);
      if (a != b) units[{a, b}] = 1 + static_cast<std::uint32_t>(rng() % 4);
    }
    auto script = std::make_shared<Script>();
    for (const auto& [pair, u] : units)
      script->first.circuits.push_back({pair.first, pair.second, u, u});
    const std::uint64_t chunk = std::array<std::uint64_t, 3>{1000, 1500, 4096}[rng() % 3];
    const auto a = static_cast<std::uint32_t>(rng() % kGpus);
    const auto b = static_cast<std::uint32_t>((a + 1 + rng() % (kGpus - 1)) % kGpus);
    const std::uint64_t bytes = rng() % 20'000;
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + std::to_string(a) + " -> " +
                 std::to_string(b) + ", " + std::to_string(bytes) + " B in chunks of " +
                 std::to_string(chunk));
    auto net = Make(kGpus, script, Job({{a, b, 1}}), chunk);
    const Outcome r = Simulate(*net, {{0, a, b, bytes}});
    EXPECT_EQ(r.at[0], net->uncongested_ps(a, b, bytes));
  }
}

// ---------------------------------------------------------------------------
// Plans that change every period.

// 4 GPUs, a period of 10 us, changed circuits dark for 2 us.
std::shared_ptr<Script> Periodic() {
  auto s = std::make_shared<Script>();
  s->period = 10 * kMicrosecond;
  s->delay = 2 * kMicrosecond;
  return s;
}

TEST(CircuitNetwork, APairWithoutACircuitWaitsForTheEpochThatGivesItOne) {
  auto script = Periodic();
  script->first.circuits = {{0, 1, 1, 1}};
  // At 10 us 0 -> 2 gets a new unit (kept 0): dark until 12 us.
  script->plans = {CircuitPlan{{{0, 1, 1, 1}, {0, 2, 1, 0}}}};
  auto net = Make(4, script, Job({{0, 1, 1000}, {0, 2, 500}}));
  EXPECT_EQ(net->next_epoch(0), 10 * kMicrosecond);
  EXPECT_EQ(net->next_epoch(10 * kMicrosecond), 20 * kMicrosecond);
  const Outcome r = Simulate(*net, {{0, 0, 1, 1000}, {0, 0, 2, 500}});
  // 0 -> 1 goes at once: 1 us + 1 us.
  EXPECT_EQ(r.at[0], 2 * kMicrosecond);
  // 0 -> 2 waits for the plan of 10 us, whose new circuit lights at 12 us:
  // 12 us + 0.5 us + 1 us.
  EXPECT_EQ(r.at[1], 13'500 * kNanosecond);
  // Epochs at 10 us (the waiting chunk) and 20 us (GPU 0 wakes there after
  // it started its last chunk at 12 us); none at 30 us.
  EXPECT_EQ(r.result.epochs, 2u);
  EXPECT_EQ(net->counter("epochs"), 2u);
  EXPECT_EQ(net->counter("plans"), 2u);
  EXPECT_EQ(net->counter("circuits_changed"), 1u);
  EXPECT_EQ(net->counter("dark_circuit_ps"), 2 * kMicrosecond);
  // /fabric/plans: the first plan's pairs at 0 (epoch 0), then the pairs
  // the plan of 10 us (1) changed: only 0 -> 2.
  const auto tables = net->report_tables();
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].name, "plans");
  EXPECT_EQ(tables[0].rows, 2u);
  // Rank 0 writes the table: only it keeps the rows.
  const std::vector<std::vector<std::uint64_t>> columns = {
      {0, 10 * kMicrosecond}, {0, 1}, {0, 0}, {1, 2}, {1, 1}, {1, 0}};
  EXPECT_EQ(tables[0].values(), world_rank() == 0 ? columns : empty_columns(6));
}

TEST(CircuitNetwork, KeptUnitsCarryDataWhileTheNewOnesAreDark) {
  auto script = Periodic();
  script->first.circuits = {{0, 1, 1, 1}};
  // At 10 us the pair grows from 1 to 3 units, keeping 1: until 12 us it
  // sends on the kept unit, then on all 3.
  script->plans = {CircuitPlan{{{0, 1, 3, 1}}}};
  auto net = Make(2, script, Job({{0, 1, 3000}}));
  const Outcome r = Simulate(*net, {{10 * kMicrosecond, 0, 1, 3000}});
  // Chunks at 10-11 us and 11-12 us on one unit; the third starts at 12 us
  // on 24 Gb/s: ceil(8000 b / 24 Gb/s) = 333,334 ps, landing at
  // 12 us + 333,334 ps + 1 us.
  EXPECT_EQ(r.at[0], 13 * kMicrosecond + 333'334);
  EXPECT_EQ(net->counter("circuits_changed"), 2u);
  EXPECT_EQ(net->counter("dark_circuit_ps"), 2 * 2 * kMicrosecond);

  // The same plan with kept = 0: nothing moves before 12 us.
  auto dark = Periodic();
  dark->first.circuits = {{0, 1, 1, 1}};
  dark->plans = {CircuitPlan{{{0, 1, 3, 0}}}};
  auto net2 = Make(2, dark, Job({{0, 1, 3000}}));
  const Outcome d = Simulate(*net2, {{10 * kMicrosecond, 0, 1, 3000}});
  // Three chunks of 333,334 ps from 12 us.
  EXPECT_EQ(d.at[0], 12 * kMicrosecond + 3 * 333'334 + kLatency);
  EXPECT_EQ(net2->counter("circuits_changed"), 3u);
}

TEST(CircuitNetwork, ChangingPlansQuoteTheLegsChunksTake) {
  // Under plans that change, 0 -> 4 goes by its legs 0 -> 3 -> 4 (one unit
  // each), not by the plan's other 2-hop path through 2 (four units each),
  // which a fixed plan would take (the lower id). 1000 B: 1 + 1 us per leg.
  auto script = Periodic();
  script->first.circuits = {{0, 2, 4, 4}, {0, 3, 1, 1}, {2, 4, 4, 4}, {3, 4, 1, 1}};
  script->legs = {{{0, 4}, 3}};
  auto net = Make(5, script, Job({{0, 2, 1}, {0, 4, 1000}, {2, 4, 1}}));
  const Outcome r = Simulate(*net, {{0, 0, 4, 1000}});
  EXPECT_EQ(r.at[0], 4 * kMicrosecond);
  // The closed forms follow the same legs.
  EXPECT_EQ(net->uncongested_ps(0, 4, 1000), 4 * kMicrosecond);
  EXPECT_EQ(net->path_rate_bps(0, 4), kUnitBps);
  std::vector<Network::Resource> path;
  net->path_resources(0, 4, path);
  ASSERT_EQ(path.size(), 2u);
  EXPECT_EQ(path[0].id, 1u);  // circuit 0 -> 3
  EXPECT_EQ(path[1].id, 3u);  // circuit 3 -> 4
  // The same plan, fixed: through 2, 0.25 + 1 us per hop.
  auto fixed = std::make_shared<Script>();
  fixed->first = script->first;
  auto net2 = Make(5, fixed, Job({{0, 4, 1000}}));
  EXPECT_EQ(Simulate(*net2, {{0, 0, 4, 1000}}).at[0], 2'500 * kNanosecond);
  EXPECT_EQ(net2->uncongested_ps(0, 4, 1000), 2'500 * kNanosecond);
}

TEST(CircuitNetwork, APairsMessagesArriveInSendOrderAcrossPlans) {
  auto script = Periodic();
  script->first.circuits = {{0, 1, 1, 1}};
  // At 10 us the pair loses its circuit; at 20 us it gets two new units
  // (dark until 22 us).
  script->plans = {CircuitPlan{}, CircuitPlan{{{0, 1, 2, 0}}}};
  auto net = Make(2, script, Job({{0, 1, 1}}));
  const std::vector<Send> sends = {
      {0, 0, 1, 2500},                  // chunks 0-1, 1-2, 2-2.5 us: lands 3.5 us
      {0, 0, 1, 0},                     // 2.5-2.5 us: lands 3.5 us, after it
      {0, 0, 1, 700},                   // 2.5-3.2 us: lands 4.2 us
      {9 * kMicrosecond, 0, 1, 1500},   // 9-10 us, then its 500 B wait for 22 us
      {15 * kMicrosecond, 0, 1, 400},   // waits behind it
      {22'100 * kNanosecond, 0, 1, 0},  // queued behind both
  };
  const Outcome r = Simulate(*net, sends);
  // The 1500 B message: its first chunk left before the plan of 10 us and
  // lands at 11 us; its second leaves at 22 us on 16 Gb/s (250 ns): 23.25 us.
  // The 400 B follow at 22.25-22.45 us (23.45 us) and the empty one lands
  // with them.
  const std::vector<std::uint64_t> at = {3'500 * kNanosecond,  3'500 * kNanosecond,
                                         4'200 * kNanosecond,  23'250 * kNanosecond,
                                         23'450 * kNanosecond, 23'450 * kNanosecond};
  EXPECT_EQ(r.at, at);
  const std::vector<std::uint64_t> order = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(r.order, order);
  EXPECT_EQ(net->counter("plans"), 3u);
  // /fabric/plans: the pair set up, gone at 10 us (0 units), back at 20 us.
  const std::vector<std::vector<std::uint64_t>> columns = {
      {0, 10 * kMicrosecond, 20 * kMicrosecond},
      {0, 1, 2},
      {0, 0, 0},
      {1, 1, 1},
      {1, 0, 2},
      {1, 0, 0}};
  EXPECT_EQ(net->report_tables().at(0).rows, 3u);
  EXPECT_EQ(net->report_tables().at(0).values(), world_rank() == 0 ? columns : empty_columns(6));
}

TEST(CircuitNetwork, TheControllerIsGivenOfferedPlusUndeliveredPerLeg) {
  // 3 GPUs; 0 -> 2 relays at 1 (its legs: 0 -> 1, 1 -> 2), whose circuits
  // the first plan has and no epoch changes.
  auto script = Periodic();
  script->first.circuits = {{0, 1, 1, 1}, {1, 2, 1, 1}};
  script->legs = {{{0, 2}, 1}};
  auto net = Make(3, script, Job({{0, 2, 3000}}));
  EXPECT_EQ(net->epoch_counters(), 2u);  // the legs (0, 1) and (1, 2)
  const Outcome r = Simulate(*net, {{0, 0, 2, 3000}, {8 * kMicrosecond, 0, 2, 3000}});
  // The first message: chunks reach 1 at 2, 3, 4 us and 2 at 4, 5, 6 us.
  // The second: 1 at 10, 11, 12 us; 2 at 12, 13, 14 us.
  EXPECT_EQ(r.at[0], 6 * kMicrosecond);
  EXPECT_EQ(r.at[1], 14 * kMicrosecond);
  EXPECT_EQ(Summed(*net, "relayed_chunks"), 6u);
  ASSERT_EQ(script->asked.size(), 2u);
  // At 10 us: offered in [0, 10 us) on 0 -> 1 all 6000 B, on 1 -> 2 the
  // 3000 B that reached GPU 1; nothing was left undelivered at 0.
  EXPECT_EQ(script->asked[0].time, 10 * kMicrosecond);
  EXPECT_EQ(script->asked[0].index, 0u);
  EXPECT_EQ(script->asked[0].demand, Job({{0, 1, 6000}, {1, 2, 3000}}));
  EXPECT_EQ(script->asked[0].current, script->first);
  // At 20 us: on 0 -> 1 the second message, undelivered at 10 us (its first
  // chunk landed at 10 us, not before), and nothing new; on 1 -> 2 nothing
  // left at 10 us and the 3000 B offered since.
  EXPECT_EQ(script->asked[1].time, 20 * kMicrosecond);
  EXPECT_EQ(script->asked[1].demand, Job({{0, 1, 3000}, {1, 2, 3000}}));
  EXPECT_EQ(net->counter("plans"), 1u);
  EXPECT_EQ(net->counter("circuits_changed"), 0u);
}

// ---------------------------------------------------------------------------
// Errors.

std::string RunError(Network& net, std::vector<Send> sends) {
  // Each rank on its own: the message is the same everywhere.
  const boost::mpi::communicator self(MPI_COMM_SELF, boost::mpi::comm_attach);
  try {
    Simulate(net, std::move(sends), self);
  } catch (const pdes::EngineError& e) {
    return e.what();
  }
  return "";
}

TEST(CircuitNetwork, MalformedPlansAreRefusedNamingTheCircuit) {
  const auto job = Job({{0, 1, 1}});
  const std::pair<std::vector<Circuit>, std::string> bad[] = {
      {{{0, 2, 1, 1}, {0, 1, 1, 1}}, "at circuit 1 (GPU 0 -> GPU 1, 1 units, 1 kept)"},  // unsorted
      {{{0, 1, 1, 1}, {0, 1, 2, 2}}, "at circuit 1 (GPU 0 -> GPU 1, 2 units, 2 kept)"},  // twice
      {{{0, 1, 1, 2}}, "at circuit 0 (GPU 0 -> GPU 1, 1 units, 2 kept)"},  // kept > units
      {{{0, 1, 1, 0}, {1, 1, 1, 1}}, "at circuit 1 (GPU 1 -> GPU 1, 1 units, 1 kept)"},  // self
      {{{0, 1, 0, 0}}, "at circuit 0 (GPU 0 -> GPU 1, 0 units, 0 kept)"},                // no units
      {{{0, 4, 1, 1}}, "at circuit 0 (GPU 0 -> GPU 4, 1 units, 1 kept)"},  // beyond the fabric
  };
  for (const auto& [circuits, where] : bad) {
    SCOPED_TRACE(where);
    auto script = Periodic();
    script->first.circuits = circuits;
    try {
      Make(4, script, job);
      ADD_FAILURE() << "a malformed first plan was accepted";
    } catch (const std::logic_error& e) {
      EXPECT_EQ(std::string(e.what()),
                "test-circuits: the controller's plan is malformed " + where);
    }
    // The same plan at an epoch stops the run naming the epoch.
    script->first.circuits = {{0, 1, 1, 1}};
    script->plans = {CircuitPlan{circuits}};
    auto net = Make(4, script, job);
    const std::string e = RunError(*net, {{10 * kMicrosecond, 0, 1, 100}});
    EXPECT_NE(e.find("epoch 0 at t="), std::string::npos) << e;
    EXPECT_NE(e.find("the controller's plan is malformed " + where), std::string::npos) << e;
  }
}

TEST(CircuitNetwork, ASendOutsideTheJobsTrafficNamesBothGpus) {
  auto script = Periodic();
  script->first.circuits = {{0, 1, 1, 1}, {2, 3, 1, 1}};
  auto net = Make(4, script, Job({{0, 1, 1000}, {2, 3, 1000}}));
  const std::string e = RunError(*net, {{0, 2, 1, 100}});
  EXPECT_NE(e.find("test-circuits: GPU 2 sends to GPU 1, a pair that the job's traffic matrix "
                   "does not have"),
            std::string::npos)
      << e;
}

// A fixed plan without a path for a pair is an error at the send, not a
// program that waits for ever.
TEST(CircuitNetwork, AFixedPlanWithoutAPathNamesThePair) {
  auto script = std::make_shared<Script>();
  script->first.circuits = {{0, 1, 1, 1}};
  auto net = Make(4, script, Job({{0, 1, 1000}, {1, 0, 1000}}));
  const std::string e = RunError(*net, {{0, 1, 0, 100}});
  EXPECT_NE(e.find("test-circuits: the job's circuits leave no path from GPU 1 to GPU 0"),
            std::string::npos)
      << e;
}

TEST(CircuitNetwork, InvalidSpecsAndMissingJob) {
  auto script = std::make_shared<Script>();
  script->first.circuits = {{0, 1, 1, 1}};
  auto expect_invalid = [&](CircuitFabricSpec s, const std::string& what) {
    try {
      make_circuit_network(s, std::make_unique<FakeController>(script));
      ADD_FAILURE() << "accepted: " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), "test-circuits: " + what);
    }
  };
  CircuitFabricSpec s = Spec(1);
  expect_invalid(s, "at least 2 GPUs");
  s = Spec(2);
  s.unit_rate_bps = 0;
  expect_invalid(s, "rate must be > 0");
  s = Spec(2);
  s.latency = 0;
  expect_invalid(s, "latency must be > 0");
  s = Spec(2);
  s.chunk_bytes = 0;
  expect_invalid(s, "chunk must be 1 B .. 2 GiB");
  s.chunk_bytes = (1ULL << 31) + 1;
  expect_invalid(s, "chunk must be 1 B .. 2 GiB");
  // The job's traffic must come before setup, and name GPUs of the fabric.
  auto net = make_circuit_network(Spec(2), std::make_unique<FakeController>(script));
  EXPECT_THROW(net->setup(net->partition(1), 0), std::logic_error);
  EXPECT_THROW(net->plan_for_job(Job({{0, 2, 1}})), std::invalid_argument);
  EXPECT_TRUE(net->plans_for_job());
}

}  // namespace
}  // namespace sipsim::fabric
