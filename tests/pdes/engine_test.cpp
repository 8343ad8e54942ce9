// Engine tests, run by ctest under mpirun on 1, 2 and 3 ranks.
#include "sipsim/pdes/engine.hpp"

#include <gtest/gtest.h>

#include <boost/mpi/collectives/all_gather.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/serialization/vector.hpp>
#include <csignal>
#include <new>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "lp_gather.hpp"
#include "sipsim/base/interrupt.hpp"
#include "sipsim/pdes/models/phold.hpp"

namespace sipsim::pdes {
namespace {

namespace mpi = boost::mpi;

models::PholdConfig small_phold() {
  models::PholdConfig c;
  c.lps = 97;  // prime: uneven blocks
  c.start_events_per_lp = 2;
  c.remote_fraction = 0.5;
  c.lookahead = 700 * kNanosecond;
  c.mean_increment = kMicrosecond;
  return c;
}

// The windowed engine on all ranks gives every LP the same history as the
// sequential engine on one.
TEST(Engine, WindowedEqualsSequentialPerLp) {
  mpi::communicator world;
  mpi::communicator self(MPI_COMM_SELF, mpi::comm_attach);
  EngineOptions opt;
  opt.seed = 11;
  opt.end_time = 300 * kMicrosecond;
  opt.progress_interval_s = 0;

  models::PholdModel seq_model(small_phold());
  const auto seq_part = partitioners::blocks(seq_model.lp_count(), 1);
  opt.kind = EngineKind::kSequential;
  const RunResult seq = run(seq_model, seq_part, self, opt);
  const auto seq_lps = gather_lps(self, seq_part, seq);

  models::PholdModel par_model(small_phold());
  const auto par_part = par_model.partition(world.size());
  opt.kind = EngineKind::kWindowed;
  const RunResult par = run(par_model, par_part, world, opt);
  const auto par_lps = gather_lps(world, par_part, par);

  EXPECT_GT(seq.committed_events, 20'000u);
  EXPECT_EQ(par.committed_events, seq.committed_events);
  EXPECT_EQ(par.last_event_time, seq.last_event_time);
  EXPECT_LT(seq.last_event_time, opt.end_time);
  EXPECT_EQ(par_lps, seq_lps);
  EXPECT_EQ(par.lookahead, 700 * kNanosecond);
  if (world.size() > 1) {
    EXPECT_GT(par.remote_events, 0u);
  }
}

TEST(Engine, DifferentSeedsGiveDifferentHistories) {
  mpi::communicator self(MPI_COMM_SELF, mpi::comm_attach);
  EngineOptions opt;
  opt.end_time = 50 * kMicrosecond;
  opt.progress_interval_s = 0;
  models::PholdModel m(small_phold());
  const auto p = partitioners::blocks(m.lp_count(), 1);
  opt.seed = 1;
  const auto a = run(m, p, self, opt);
  opt.seed = 2;
  const auto b = run(m, p, self, opt);
  EXPECT_NE(a.lp_digest, b.lp_digest);
}

// LP 0 ticks every `period`; everything else is idle.
class Ticker : public Model {
 public:
  Ticker(std::uint32_t lps, Time lookahead, Time period)
      : lps_(lps), lookahead_(lookahead), period_(period) {}
  std::uint32_t lp_count() const override { return lps_; }
  Time lookahead(const Partition&) const override { return lookahead_; }
  void init(Context& ctx) override {
    if (ctx.self() == 0) ctx.send(0, period_, 1);
  }
  void handle(const Event&, Context& ctx) override { ctx.send(0, period_, 1); }

 private:
  std::uint32_t lps_;
  Time lookahead_, period_;
};

TEST(Engine, EventsAtOrAfterTheEndTimeAreNotProcessed) {
  mpi::communicator world;
  Ticker m(4, 10, 10);
  EngineOptions opt;
  opt.end_time = 100;
  opt.progress_interval_s = 0;
  const auto r = run(m, m.partition(world.size()), world, opt);
  EXPECT_EQ(r.committed_events, 9u);  // t = 10, 20, ..., 90
  EXPECT_EQ(r.last_event_time, 90u);
}

TEST(Engine, IdleStretchesAreSkipped) {
  mpi::communicator world;
  // One event per simulated second with a 1 ns lookahead: stepping through
  // the idle time would take 10^9 windows per event.
  Ticker m(8, kNanosecond, kSecond);
  EngineOptions opt;
  opt.kind = EngineKind::kWindowed;
  opt.end_time = 5 * kSecond + 1;
  opt.progress_interval_s = 0;
  const auto r = run(m, m.partition(world.size()), world, opt);
  EXPECT_EQ(r.committed_events, 5u);
  EXPECT_EQ(r.windows, 5u);
}

// LP 0 sends to the last LP with less delay than the lookahead it promised.
class Liar : public Model {
 public:
  std::uint32_t lp_count() const override { return 8; }
  Time lookahead(const Partition&) const override { return 1000; }
  void init(Context& ctx) override {
    if (ctx.self() == 0) ctx.send(0, 5000, 1);
  }
  void handle(const Event&, Context& ctx) override {
    if (ctx.self() == 0) ctx.send(7, 10, 2);
  }
};

TEST(Engine, LookaheadViolationStopsEveryRank) {
  mpi::communicator world;
  if (world.size() == 1) GTEST_SKIP() << "needs LPs 0 and 7 on different ranks";
  Liar m;
  EngineOptions opt;
  opt.end_time = kMicrosecond;
  opt.progress_interval_s = 0;
  try {
    run(m, m.partition(world.size()), world, opt);
    FAIL() << "the violation went unnoticed";
  } catch (const EngineError& e) {
    if (world.rank() == 0) {
      EXPECT_TRUE(e.origin());
      EXPECT_STREQ(e.what(),
                   ("lookahead violation: LP 0 (rank 0) at t=5ns sent an event to LP 7 (rank " +
                    std::to_string(world.size() - 1) +
                    ") for t=5.01ns, earlier than now + lookahead = 6ns; the model's "
                    "lookahead promise is wrong")
                       .c_str());
    } else {
      EXPECT_FALSE(e.origin());
      EXPECT_STREQ(e.what(), "stopped: rank 0 reported a model error");
    }
  }
}

// Each LP works alone in short self-scheduled steps and now and then hands
// on to the next LP, never sooner than `handoff` (>= the lookahead): a model
// that can say so (remote_bound) lets the windows span more than the lookahead.
class Relay : public Model {
 public:
  Relay(Time handoff, Time promised) : handoff_(handoff), promised_(promised) {}
  std::uint32_t lp_count() const override { return 12; }
  Time lookahead(const Partition&) const override { return kMicrosecond; }
  void init(Context& ctx) override { ctx.send(ctx.self(), 1 + ctx.self(), 1); }
  void handle(const Event&, Context& ctx) override {
    const std::uint64_t r = ctx.rng().next_u64();
    if (r % 16 == 0) {
      ctx.send((ctx.self() + 1) % lp_count(), handoff_ + r % 1000, 1);
    } else {
      ctx.send(ctx.self(), 1 + r % (50 * kNanosecond), 1);
    }
  }
  bool bounds_remote_events() const override { return promised_ > 0; }
  Time remote_bound(const Event& e) const override { return e.time + promised_; }

 private:
  Time handoff_, promised_;
};

TEST(Engine, RemoteBoundsWidenWindowsAndChangeNoHistory) {
  mpi::communicator world;
  EngineOptions opt;
  opt.kind = EngineKind::kWindowed;
  opt.end_time = kMillisecond;
  opt.progress_interval_s = 0;
  Relay plain(8 * kMicrosecond, 0), sharp(8 * kMicrosecond, 8 * kMicrosecond);
  const auto p = plain.partition(world.size());
  const RunResult a = run(plain, p, world, opt);
  const RunResult b = run(sharp, p, world, opt);
  EXPECT_GT(a.committed_events, 10'000u);
  EXPECT_EQ(gather_lps(world, p, a), gather_lps(world, p, b));
  EXPECT_LE(a.mean_window, kMicrosecond);  // the last window stops at the end time
  EXPECT_GT(a.mean_window, 990 * kNanosecond);
  EXPECT_GE(b.mean_window, 4 * kMicrosecond);  // the next event plus 8 us, or the end
  EXPECT_LT(4 * b.windows, a.windows);
}

// Runs a model whose bound promises too much: the sending rank finds the
// early event, naming both LPs and the window it broke; the lowest prints.
void expect_broken_promise_caught(Model& liar) {
  mpi::communicator world;
  EngineOptions opt;
  opt.end_time = 200 * kMicrosecond;
  opt.progress_interval_s = 0;
  try {
    run(liar, liar.partition(world.size()), world, opt);
    FAIL() << "the broken promise went unnoticed";
  } catch (const EngineError& e) {
    const std::string what = e.what();
    EXPECT_TRUE((what.starts_with("causality violation: LP ") &&
                 what.find(" sent an event to LP ") != std::string::npos &&
                 what.find("before the end of the window every rank runs") != std::string::npos) ||
                (!e.origin() && what.starts_with("stopped: rank ")))
        << what;
  }
}

TEST(Engine, ARemoteBoundThatPromisesTooMuchIsCaught) {
  mpi::communicator world;
  if (world.size() == 1) GTEST_SKIP() << "needs events between ranks";
  Relay liar(2 * kMicrosecond, 8 * kMicrosecond);  // hands on after 2 us, promises 8
  expect_broken_promise_caught(liar);
}

// The same relay whose state, not its events, makes the promise
// (Model::remote_floor): an LP hands on no sooner than 8 us after anything
// it receives, so the floor is the window's start plus 8 us.
class StateRelay : public Relay {
 public:
  StateRelay(Time handoff, Time floor) : Relay(handoff, floor), floor_(floor) {}
  Time remote_bound(const Event&) const override { return kTimeMax; }
  Time remote_floor(Time from) override { return from + floor_; }

 private:
  Time floor_;
};

TEST(Engine, StateFloorsWidenWindowsAndChangeNoHistory) {
  mpi::communicator world;
  EngineOptions opt;
  opt.kind = EngineKind::kWindowed;
  opt.end_time = kMillisecond;
  opt.progress_interval_s = 0;
  Relay plain(8 * kMicrosecond, 0);
  StateRelay floored(8 * kMicrosecond, 8 * kMicrosecond);
  const auto p = plain.partition(world.size());
  const RunResult a = run(plain, p, world, opt);
  opt.check_bounds = true;  // every window scanned
  const RunResult b = run(floored, p, world, opt);
  EXPECT_EQ(gather_lps(world, p, a), gather_lps(world, p, b));
  EXPECT_LT(4 * b.windows, a.windows);
}

TEST(Engine, AFloorThatPromisesTooMuchIsCaughtWhereTheEventIsSent) {
  mpi::communicator world;
  if (world.size() == 1) GTEST_SKIP() << "needs events between ranks";
  StateRelay liar(2 * kMicrosecond, 8 * kMicrosecond);  // hands on after 2 us, promises 8
  expect_broken_promise_caught(liar);
}

class Thrower : public Model {
 public:
  std::uint32_t lp_count() const override { return 6; }
  Time lookahead(const Partition&) const override { return 100; }
  void init(Context& ctx) override { ctx.send(ctx.self(), 100 * (ctx.self() + 1), 1); }
  void handle(const Event&, Context& ctx) override {
    if (ctx.self() == 5) throw std::runtime_error("model bug");
  }
};

TEST(Engine, ModelExceptionStopsEveryRank) {
  mpi::communicator world;
  Thrower m;
  EngineOptions opt;
  opt.progress_interval_s = 0;
  const auto p = m.partition(world.size());
  try {
    run(m, p, world, opt);
    FAIL() << "the exception went unnoticed";
  } catch (const EngineError& e) {
    if (world.rank() == p.owner(5)) {
      EXPECT_STREQ(e.what(), "LP 5 at t=600ps: model bug");
    }
  }
}

// Gathers every rank's `v` and expects them all equal; returns rank 0's.
std::vector<std::uint64_t> same_on_every_rank(const mpi::communicator& comm,
                                              const std::vector<std::uint64_t>& v) {
  std::vector<std::vector<std::uint64_t>> all;
  mpi::all_gather(comm, v, all);
  for (int r = 1; r < comm.size(); ++r) {
    EXPECT_EQ(all[static_cast<std::size_t>(r)], all[0]) << "rank " << r << " differs from rank 0";
  }
  return all[0];
}

// Every LP ticks every 10 ps; the last LP asks the run to stop (as the signal
// handler of `sipsim run` does) when it reaches `stop_at`, on its rank only.
class Interrupter : public Model {
 public:
  explicit Interrupter(Time stop_at) : stop_at_(stop_at) {}
  std::uint32_t lp_count() const override { return 6; }
  Time lookahead(const Partition&) const override { return 10; }
  void init(Context& ctx) override { ctx.send(ctx.self(), 10, 1); }
  void handle(const Event&, Context& ctx) override {
    if (ctx.self() == lp_count() - 1 && ctx.now() >= stop_at_) base::request_interrupt(SIGTERM);
    ctx.send(ctx.self(), 10, 1);
  }

 private:
  Time stop_at_;
};

// A signal seen by one rank stops all of them, after the same window: all
// report the same simulated time, and the run is far from its end.
TEST(Engine, InterruptOnOneRankStopsEveryRankAtTheSameTime) {
  mpi::communicator world;
  mpi::communicator self(MPI_COMM_SELF, mpi::comm_attach);
  for (const bool sequential : {true, false}) {
    SCOPED_TRACE(sequential ? "sequential" : "windowed");
    const mpi::communicator& comm = sequential ? self : world;
    Interrupter m(100 * kNanosecond);
    EngineOptions opt;
    opt.kind = sequential ? EngineKind::kSequential : EngineKind::kWindowed;
    opt.end_time = kSecond;
    opt.progress_interval_s = 0;
    base::clear_interrupt();
    std::vector<std::uint64_t> stopped;
    try {
      run(m, m.partition(comm.size()), comm, opt);
      ADD_FAILURE() << "the interrupt went unnoticed";
    } catch (const Interrupted& e) {
      EXPECT_EQ(e.signal(), SIGTERM);
      EXPECT_GE(e.time(), 100 * kNanosecond);
      EXPECT_LT(e.time(), 200 * kNanosecond);
      EXPECT_EQ(std::string(e.what()).rfind("interrupted by SIGTERM at simulated time ", 0), 0u)
          << e.what();
      stopped = {e.time()};
    }
    base::clear_interrupt();
    same_on_every_rank(comm, stopped);
  }
}

TEST(Engine, AnInterruptBeforeTheRunStopsItAtOnce) {
  mpi::communicator world;
  Interrupter m(kSecond);
  EngineOptions opt;
  opt.end_time = kSecond;
  opt.progress_interval_s = 0;
  base::request_interrupt(SIGINT);
  EXPECT_THROW(run(m, m.partition(world.size()), world, opt), Interrupted);
  base::clear_interrupt();
}

// std::bad_alloc while one rank sets up its LPs stops every rank before the
// first window, which the others would otherwise wait in.
class SetupFails : public Model {
 public:
  explicit SetupFails(int rank) : rank_(rank) {}
  std::uint32_t lp_count() const override { return 6; }
  Time lookahead(const Partition&) const override { return 10; }
  void setup(const Partition&, int rank) override {
    if (rank == rank_) throw std::bad_alloc();
  }
  void init(Context&) override {}
  void handle(const Event&, Context&) override {}

 private:
  int rank_;
};

TEST(Engine, OutOfMemoryInSetUpOnOneRankStopsEveryRank) {
  mpi::communicator world;
  SetupFails m(world.size() - 1);
  EngineOptions opt;
  opt.progress_interval_s = 0;
  try {
    run(m, m.partition(world.size()), world, opt);
    FAIL() << "the failure went unnoticed";
  } catch (const EngineError& e) {
    const bool origin = world.rank() == world.size() - 1;
    EXPECT_EQ(e.origin(), origin);
    if (origin) {
      EXPECT_STREQ(e.what(), "setting up the model: out of memory (std::bad_alloc)");
    }
  }
}

TEST(Engine, KernelMemoryCountsThePartitionOnEveryRankAndAShareOfTheLps) {
  const std::uint64_t lps = 1'000'000;
  EXPECT_GE(kernel_memory(lps, 4), 12 * lps);  // the whole partition
  EXPECT_GT(kernel_memory(lps, 1), kernel_memory(lps, 4));
  EXPECT_GT(kernel_memory(lps, 1) - kernel_memory(lps, 2), 0u);
  // Large enough to be refused up front rather than allocated: 2^32 LPs.
  EXPECT_GT(kernel_memory(std::uint64_t{1} << 32, 1), std::uint64_t{100} << 30);
}

TEST(Engine, ZeroLookaheadCannotRunWindowed) {
  mpi::communicator world;
  Ticker m(2, 0, 10);
  EngineOptions opt;
  opt.kind = EngineKind::kWindowed;
  EXPECT_THROW(run(m, m.partition(world.size()), world, opt), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Epochs (docs/architecture.md)

// Every LP sends to a random LP every lookahead + U[0, 3 lookahead); epochs
// every `period`. It checks the kernel's promise at each event: the last plan
// that ran is the one of the last epoch at or before the event's time (so no
// event at or after an epoch ran before its plan, none before it after). The
// counters are the events each LP handled in the period; the plan, drawn
// from the totals and the epoch's stream, shifts every LP's destinations.
class EpochProbe : public Model {
 public:
  EpochProbe(std::uint32_t lps, Time lookahead, Time period)
      : lps_(lps), lookahead_(lookahead), period_(period) {}
  std::uint32_t lp_count() const override { return lps_; }
  Time lookahead(const Partition&) const override { return lookahead_; }
  void setup(const Partition& p, int rank) override {
    local_ = p.lps_of(rank);
    period_events_.assign(local_.size(), 0);
    offset_ = 0;
    last_plan_ = 0;
    violations = 0;
    plans.clear();
  }
  void init(Context& ctx) override { send(ctx); }
  void handle(const Event& e, Context& ctx) override {
    if (last_plan_ != e.time / period_ * period_) ++violations;
    ++period_events_[ctx.self_index()];
    send(ctx);
  }
  Time next_epoch(Time after) const override { return (after / period_ + 1) * period_; }
  std::size_t epoch_counters() const override { return lps_; }
  void epoch_contribute(Time epoch, std::span<std::uint64_t> counters) override {
    if (epoch != last_plan_ + period_) ++violations;
    for (std::size_t i = 0; i < local_.size(); ++i) {
      counters[local_[i]] = period_events_[i];
      period_events_[i] = 0;
    }
  }
  // Each rank's share: its rank, then its LPs' totals. The plan uses the
  // shares' LP totals, which add up to every LP's whatever the split.
  std::vector<std::uint64_t> epoch_share(const EpochInfo& info,
                                         std::span<const std::uint64_t> totals) override {
    std::vector<std::uint64_t> share = {static_cast<std::uint64_t>(info.rank)};
    for (const LpId lp : local_) share.push_back(totals[lp]);
    return share;
  }
  void epoch_plan(const EpochInfo& info, std::span<const std::uint64_t> totals) override {
    std::uint64_t sum = 0;
    if (info.shares.size() != static_cast<std::size_t>(info.ranks)) ++violations;
    for (std::size_t r = 0; r < info.shares.size(); ++r) {
      if (info.shares[r].empty() || info.shares[r][0] != r) ++violations;
      sum = std::accumulate(info.shares[r].begin() + 1, info.shares[r].end(), sum);
    }
    if (sum != std::accumulate(totals.begin(), totals.end(), std::uint64_t{0})) ++violations;
    const std::uint64_t draw = info.rng.next_u64();
    offset_ = static_cast<std::uint32_t>((draw + sum + totals[info.index % lps_]) % lps_);
    last_plan_ = info.time;
    plans.insert(plans.end(), {info.time, info.index, draw});
    plans.insert(plans.end(), totals.begin(), totals.end());
  }

  std::uint64_t violations = 0;
  std::vector<std::uint64_t> plans;  // per plan: time, index, first draw, totals

 private:
  void send(Context& ctx) {
    const auto dst = static_cast<LpId>((ctx.rng().below(lps_) + offset_) % lps_);
    ctx.send(dst, lookahead_ + ctx.rng().below(3 * lookahead_), 1);
  }

  std::uint32_t lps_;
  Time lookahead_, period_;
  std::span<const LpId> local_;
  std::vector<std::uint64_t> period_events_;
  std::uint32_t offset_ = 0;
  Time last_plan_ = 0;
};

TEST(Epochs, AreHitExactlyWithTheSameTotalsEverywhere) {
  mpi::communicator world;
  mpi::communicator self(MPI_COMM_SELF, mpi::comm_attach);
  constexpr Time kPeriod = 5 * kMicrosecond;
  EngineOptions opt;
  opt.seed = 5;
  opt.end_time = 203 * kMicrosecond;
  opt.progress_interval_s = 0;

  EpochProbe seq_model(61, 700 * kNanosecond, kPeriod);
  const auto seq_part = partitioners::blocks(seq_model.lp_count(), 1);
  opt.kind = EngineKind::kSequential;
  const RunResult seq = run(seq_model, seq_part, self, opt);
  const auto seq_lps = gather_lps(self, seq_part, seq);

  EpochProbe par_model(61, 700 * kNanosecond, kPeriod);
  const auto par_part = par_model.partition(world.size());
  opt.kind = EngineKind::kWindowed;
  const RunResult par = run(par_model, par_part, world, opt);
  const auto par_lps = gather_lps(world, par_part, par);

  EXPECT_EQ(seq_model.violations, 0u);
  EXPECT_EQ(par_model.violations, 0u);
  // Epochs at 5, 10, ..., 200 us: all before the last event, none at or after
  // the end time.
  EXPECT_EQ(seq.epochs, 40u);
  EXPECT_EQ(par.epochs, 40u);
  EXPECT_EQ(seq.epochs, seq.last_event_time / kPeriod);
  // The planner saw the same totals on every rank, and the same as on one.
  EXPECT_EQ(same_on_every_rank(world, par_model.plans), seq_model.plans);
  ASSERT_EQ(seq_model.plans.size(), 40u * (3 + 61));
  std::uint64_t planned = 0;
  for (std::size_t k = 0; k < 40; ++k) {
    const auto* plan = &seq_model.plans[k * (3 + 61)];
    EXPECT_EQ(plan[0], (k + 1) * kPeriod);
    EXPECT_EQ(plan[1], k);
    const std::uint64_t events = std::accumulate(plan + 3, plan + 3 + 61, std::uint64_t{0});
    EXPECT_GT(events, 100u) << "epoch " << k;
    planned += events;
  }
  EXPECT_LT(planned, seq.committed_events);  // the events after 200 us are in no epoch
  EXPECT_EQ(par.committed_events, seq.committed_events);
  EXPECT_EQ(par_lps, seq_lps);
  // The plans matter: without epochs every LP's history is different.
  EpochProbe no_epochs(61, 700 * kNanosecond, kTimeMax);
  opt.kind = EngineKind::kSequential;
  const RunResult plain = run(no_epochs, seq_part, self, opt);
  EXPECT_EQ(plain.epochs, 0u);
  EXPECT_NE(gather_lps(self, seq_part, plain), seq_lps);
}

// PHOLD's epoch variant: per-LP histories identical at every rank count and
// between the engines, and different from PHOLD without epochs.
TEST(Epochs, PholdWithEpochsIsRankInvariant) {
  mpi::communicator world;
  mpi::communicator self(MPI_COMM_SELF, mpi::comm_attach);
  EngineOptions opt;
  opt.seed = 11;
  opt.end_time = 300 * kMicrosecond;
  opt.progress_interval_s = 0;
  models::PholdConfig c = small_phold();
  c.epoch = 10 * kMicrosecond;

  models::PholdEpochModel seq_model(c);
  const auto seq_part = partitioners::blocks(seq_model.lp_count(), 1);
  opt.kind = EngineKind::kSequential;
  const RunResult seq = run(seq_model, seq_part, self, opt);
  const auto seq_lps = gather_lps(self, seq_part, seq);

  models::PholdEpochModel par_model(c);
  const auto par_part = par_model.partition(world.size());
  opt.kind = EngineKind::kWindowed;
  const RunResult par = run(par_model, par_part, world, opt);

  EXPECT_EQ(seq.epochs, 29u);  // 10, 20, ..., 290 us
  EXPECT_EQ(par.epochs, seq.epochs);
  EXPECT_EQ(par.committed_events, seq.committed_events);
  EXPECT_EQ(par.last_event_time, seq.last_event_time);
  EXPECT_EQ(gather_lps(world, par_part, par), seq_lps);

  models::PholdModel plain(small_phold());
  opt.kind = EngineKind::kSequential;
  EXPECT_NE(gather_lps(self, seq_part, run(plain, seq_part, self, opt)), seq_lps);
}

// Ticker with epochs every `period` and no counters; counts the plans.
class EpochTicker : public Model {
 public:
  EpochTicker(Time lookahead, Time tick, Time period, std::uint32_t ticks = ~0u)
      : lookahead_(lookahead), tick_(tick), period_(period), ticks_(ticks) {}
  std::uint32_t lp_count() const override { return 4; }
  Time lookahead(const Partition&) const override { return lookahead_; }
  void setup(const Partition&, int) override {
    plans = 0;
    sent_ = 0;
  }
  void init(Context& ctx) override {
    if (ctx.self() == 0) tick(ctx);
  }
  void handle(const Event&, Context& ctx) override { tick(ctx); }
  Time next_epoch(Time after) const override { return (after / period_ + 1) * period_; }
  void epoch_plan(const EpochInfo& info, std::span<const std::uint64_t> totals) override {
    EXPECT_TRUE(totals.empty());
    EXPECT_EQ(info.index, plans);
    ++plans;
  }
  std::uint64_t plans = 0;

 private:
  void tick(Context& ctx) {
    if (sent_++ < ticks_) ctx.send(0, tick_, 1);
  }
  Time lookahead_, tick_, period_;
  std::uint32_t ticks_;
  std::uint32_t sent_ = 0;
};

TEST(Epochs, AtOrAfterTheEndAndAfterTheLastEventAreNotRun) {
  mpi::communicator world;
  EngineOptions opt;
  opt.progress_interval_s = 0;
  for (EngineKind kind : {EngineKind::kAuto, EngineKind::kWindowed}) {
    opt.kind = kind;
    // Ticks at 10, ..., 90 (100 is the end time); epochs at 50 and 100.
    EpochTicker ends(10, 10, 50);
    opt.end_time = 100;
    auto r = run(ends, ends.partition(world.size()), world, opt);
    EXPECT_EQ(r.committed_events, 9u);
    EXPECT_EQ(r.epochs, 1u);
    EXPECT_EQ(ends.plans, 1u);
    // Ticks at 10, 20, 30 and no more; epochs at 25, 50, ...: only 25 runs.
    EpochTicker stops(10, 10, 25, 3);
    opt.end_time = kTimeMax;
    r = run(stops, stops.partition(world.size()), world, opt);
    EXPECT_EQ(r.committed_events, 3u);
    EXPECT_EQ(r.epochs, 1u);
    EXPECT_EQ(stops.plans, 1u);
  }
}

TEST(Epochs, RunInIdleStretchesWithoutExtraWindows) {
  mpi::communicator world;
  // One tick per simulated second, 1 ns lookahead, epochs every 250 ms with
  // no counters: 20 epochs up to the last tick at 5 s, 5 windows.
  EpochTicker m(kNanosecond, kSecond, kSecond / 4);
  EngineOptions opt;
  opt.kind = EngineKind::kWindowed;
  opt.end_time = 5 * kSecond + 1;
  opt.progress_interval_s = 0;
  const auto r = run(m, m.partition(world.size()), world, opt);
  EXPECT_EQ(r.committed_events, 5u);
  EXPECT_EQ(r.windows, 5u);
  EXPECT_EQ(r.epochs, 20u);
  EXPECT_EQ(m.plans, 20u);
}

// Epochs every 100 ps; the planner (on `rank`, or every rank if -1) throws at
// epoch 2, or the contribution does, or the share.
class EpochThrower : public Model {
 public:
  EpochThrower(int rank, bool in_contribute, bool in_share = false)
      : bad_rank_(rank), in_contribute_(in_contribute), in_share_(in_share) {}
  std::uint32_t lp_count() const override { return 6; }
  Time lookahead(const Partition&) const override { return 100; }
  void setup(const Partition&, int rank) override {
    rank_ = rank;
    plans = 0;
  }
  void init(Context& ctx) override { ctx.send(ctx.self(), 30 * (ctx.self() + 1), 1); }
  void handle(const Event&, Context& ctx) override { ctx.send(ctx.self(), 70, 1); }
  Time next_epoch(Time after) const override { return (after / 100 + 1) * 100; }
  std::size_t epoch_counters() const override { return 2; }
  void epoch_contribute(Time epoch, std::span<std::uint64_t>) override {
    if (in_contribute_ && epoch == 300 && rank_ == bad_rank_) {
      throw std::runtime_error("contribution bug");
    }
  }
  std::vector<std::uint64_t> epoch_share(const EpochInfo& info,
                                         std::span<const std::uint64_t>) override {
    if (in_share_ && info.index == 2 && rank_ == bad_rank_) throw std::runtime_error("share bug");
    return {1, 2, 3};
  }
  void epoch_plan(const EpochInfo& info, std::span<const std::uint64_t>) override {
    ++plans;
    if (!in_contribute_ && !in_share_ && info.index == 2 && (bad_rank_ < 0 || rank_ == bad_rank_)) {
      throw std::runtime_error("planner bug");
    }
  }
  std::uint64_t plans = 0;

 private:
  int bad_rank_;
  bool in_contribute_, in_share_;
  int rank_ = 0;
};

TEST(Epochs, APlannerThatThrowsStopsEveryRank) {
  mpi::communicator world;
  EngineOptions opt;
  opt.progress_interval_s = 0;
  opt.end_time = 10'000;
  {
    EpochThrower m(-1, false);  // every rank throws: the lowest one reports
    try {
      run(m, m.partition(world.size()), world, opt);
      ADD_FAILURE() << "the planner's exception went unnoticed";
    } catch (const EngineError& e) {
      EXPECT_STREQ(e.what(), "epoch 2 at t=300ps: planner bug");
      EXPECT_EQ(e.origin(), world.rank() == 0);
    }
  }
  const int last = world.size() - 1;
  {
    EpochThrower m(last, false);  // only the last rank throws
    try {
      run(m, m.partition(world.size()), world, opt);
      ADD_FAILURE() << "the planner's exception went unnoticed";
    } catch (const EngineError& e) {
      if (world.rank() == last) {
        EXPECT_TRUE(e.origin());
        EXPECT_STREQ(e.what(), "epoch 2 at t=300ps: planner bug");
      } else {
        EXPECT_FALSE(e.origin());
        EXPECT_EQ(e.what(), "stopped: rank " + std::to_string(last) + " reported a model error");
      }
    }
  }
  {
    EpochThrower m(last, true);  // a contribution throws: no rank plans epoch 2
    try {
      run(m, m.partition(world.size()), world, opt);
      ADD_FAILURE() << "the contribution's exception went unnoticed";
    } catch (const EngineError& e) {
      EXPECT_EQ(m.plans, 2u);
      if (world.rank() == last) {
        EXPECT_STREQ(e.what(), "epoch 2 at t=300ps: contribution bug");
      }
    }
  }
  {
    EpochThrower m(last, false, true);  // a share throws: every rank still gathers, none plans
    try {
      run(m, m.partition(world.size()), world, opt);
      ADD_FAILURE() << "the share's exception went unnoticed";
    } catch (const EngineError& e) {
      EXPECT_EQ(m.plans, 2u);
      if (world.rank() == last) {
        EXPECT_STREQ(e.what(), "epoch 2 at t=300ps: share bug");
      }
    }
  }
}

// next_epoch that does not advance, or that depends on the rank.
class BadEpochs : public Ticker {
 public:
  explicit BadEpochs(bool by_rank) : Ticker(4, 10, 10), by_rank_(by_rank) {}
  void setup(const Partition&, int rank) override { rank_ = rank; }
  Time next_epoch(Time after) const override {
    if (by_rank_) return after + 25 + static_cast<Time>(rank_);
    return after < 40 ? 40 : after;
  }

 private:
  bool by_rank_;
  int rank_ = 0;
};

TEST(Epochs, ModelErrorsInNextEpochStopTheRun) {
  mpi::communicator world;
  EngineOptions opt;
  opt.progress_interval_s = 0;
  opt.end_time = 1000;
  BadEpochs stuck(false);
  try {
    run(stuck, stuck.partition(world.size()), world, opt);
    ADD_FAILURE() << "a next_epoch that does not advance went unnoticed";
  } catch (const EngineError& e) {
    EXPECT_STREQ(e.what(), "Model::next_epoch(40ps) returned 40ps, not a time after it");
  }
  if (world.size() == 1) return;
  BadEpochs by_rank(true);
  try {
    run(by_rank, by_rank.partition(world.size()), world, opt);
    ADD_FAILURE() << "ranks that disagree on epochs went unnoticed";
  } catch (const EngineError& e) {
    EXPECT_EQ(e.origin(), world.rank() == 0);
    EXPECT_EQ(std::string(e.what()),
              "the ranks disagree on the model's epochs (next epoch 25ps to " +
                  std::to_string(25 + world.size() - 1) +
                  "ps, 0 to 0 counters): Model::next_epoch and epoch_counters must not depend "
                  "on the rank");
  }
}

}  // namespace
}  // namespace sipsim::pdes
