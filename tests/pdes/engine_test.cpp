// Engine tests, run by ctest under mpirun on 1, 2 and 3 ranks.
#include "sipsim/pdes/engine.hpp"

#include <gtest/gtest.h>

#include <boost/mpi/collectives/all_gather.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/serialization/vector.hpp>
#include <stdexcept>

#include "sipsim/pdes/models/phold.hpp"

namespace sipsim::pdes {
namespace {

namespace mpi = boost::mpi;

// Per-LP (events, digest) of a run, gathered into LP-id order on every rank.
std::vector<std::pair<std::uint64_t, std::uint64_t>> gather_lps(const mpi::communicator& comm,
                                                                const Partition& p,
                                                                const RunResult& r) {
  std::vector<std::vector<std::uint64_t>> events, digests;
  mpi::all_gather(comm, r.lp_events, events);
  mpi::all_gather(comm, r.lp_digest, digests);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out(p.lp_count());
  for (int rank = 0; rank < comm.size(); ++rank) {
    const auto lps = p.lps_of(rank);
    for (std::size_t i = 0; i < lps.size(); ++i) {
      out[lps[i]] = {events[static_cast<std::size_t>(rank)][i],
                     digests[static_cast<std::size_t>(rank)][i]};
    }
  }
  return out;
}

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
                   ("lookahead violation: LP 0 (rank 0) at t=5000 ps sent an event to LP 7 (rank " +
                    std::to_string(world.size() - 1) +
                    ") for t=5010 ps, earlier than now + lookahead = 6000 ps; the model's "
                    "lookahead promise is wrong")
                       .c_str());
    } else {
      EXPECT_FALSE(e.origin());
      EXPECT_STREQ(e.what(), "stopped: rank 0 reported a model error");
    }
  }
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
      EXPECT_STREQ(e.what(), "LP 5 at t=600 ps: model bug");
    }
  }
}

TEST(Engine, ZeroLookaheadCannotRunWindowed) {
  mpi::communicator world;
  Ticker m(2, 0, 10);
  EngineOptions opt;
  opt.kind = EngineKind::kWindowed;
  EXPECT_THROW(run(m, m.partition(world.size()), world, opt), EngineError);
}

}  // namespace
}  // namespace sipsim::pdes
