#include "sipsim/pdes/models/phold.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/mpi/communicator.hpp>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "sipsim/pdes/engine.hpp"

namespace sipsim::pdes::models {
namespace {

// Wraps PHOLD to count what it sends to whom.
class Counting final : public Model {
 public:
  explicit Counting(const PholdConfig& c) : inner_(make_phold(c)) {}
  std::uint32_t lp_count() const override { return inner_->lp_count(); }
  Time lookahead(const Partition& p) const override { return inner_->lookahead(p); }
  void setup(const Partition& p, int rank) override { inner_->setup(p, rank); }
  void init(Context& ctx) override { inner_->init(ctx); }
  void handle(const Event& e, Context& ctx) override {
    ++events;
    if (e.src != e.dst) ++remote;
    inner_->handle(e, ctx);
  }
  Time next_epoch(Time after) const override { return inner_->next_epoch(after); }
  std::size_t epoch_counters() const override { return inner_->epoch_counters(); }
  void epoch_contribute(Time epoch, std::span<std::uint64_t> counters) override {
    inner_->epoch_contribute(epoch, counters);
  }
  void epoch_plan(const EpochInfo& info, std::span<const std::uint64_t> totals) override {
    inner_->epoch_plan(info, totals);
  }
  std::uint64_t events = 0, remote = 0;

 private:
  std::unique_ptr<Model> inner_;
};

RunResult run_seq(Model& m, Time end) {
  boost::mpi::communicator self(MPI_COMM_SELF, boost::mpi::comm_attach);
  EngineOptions o;
  o.end_time = end;
  o.progress_interval_s = 0;
  o.seed = 3;
  return run(m, partitioners::blocks(m.lp_count(), 1), self, o);
}

TEST(Phold, EventRateFollowsTheIncrementMean) {
  PholdConfig c;
  c.lps = 256;
  c.start_events_per_lp = 2;
  c.lookahead = kMicrosecond;
  c.mean_increment = kMicrosecond;
  Counting m(c);
  const auto r = run_seq(m, 2000 * kMicrosecond);
  // Each of the 512 event chains advances by 1 us + Exp(1 us) per hop: about
  // 1000 hops each in 2000 us.
  EXPECT_NEAR(static_cast<double>(r.committed_events), 512'000.0, 512'000.0 * 0.02);
}

TEST(Phold, RemoteFractionIsRespected) {
  for (double f : {0.0, 0.25, 1.0}) {
    PholdConfig c;
    c.lps = 64;
    c.remote_fraction = f;
    Counting m(c);
    run_seq(m, 5000 * kMicrosecond);
    const double measured = static_cast<double>(m.remote) / static_cast<double>(m.events);
    EXPECT_NEAR(measured, f, 0.01) << "remote_fraction " << f;
  }
}

TEST(Phold, SingleLpOnlySendsToItself) {
  PholdConfig c;
  c.lps = 1;
  c.remote_fraction = 1.0;
  Counting m(c);
  const auto r = run_seq(m, 100 * kMicrosecond);
  EXPECT_GT(r.committed_events, 0u);
  EXPECT_EQ(m.remote, 0u);
}

// PHOLD without `epoch` is the PHOLD of before epochs existed, bit for bit:
// the digest of every LP's history as recorded at db6f4cf, and recorded again
// when the exponential became the ziggurat (issue #11; 33,920 events before).
TEST(Phold, WithoutEpochsHistoriesAreUnchanged) {
  PholdConfig c;
  c.lps = 97;
  c.start_events_per_lp = 2;
  c.remote_fraction = 0.5;
  c.lookahead = 700 * kNanosecond;
  c.mean_increment = kMicrosecond;
  PholdModel m(c);
  const auto r = run_seq(m, 300 * kMicrosecond);
  std::uint64_t h = 0;
  for (std::uint64_t d : r.lp_digest) h = h * 0x100000001B3ull ^ d;
  EXPECT_EQ(r.committed_events, 34133u);
  EXPECT_EQ(r.last_event_time, 299'988'894u);
  EXPECT_EQ(h, 0x620bd1f4639462c0ull);
  EXPECT_EQ(r.epochs, 0u);
}

TEST(Phold, MakePholdPicksTheVariant) {
  PholdConfig c;
  c.lps = 8;
  EXPECT_NE(dynamic_cast<PholdModel*>(make_phold(c).get()), nullptr);
  EXPECT_EQ(dynamic_cast<PholdEpochModel*>(make_phold(c).get()), nullptr);
  EXPECT_THROW(PholdEpochModel{c}, std::invalid_argument);
  c.epoch = kMicrosecond;
  EXPECT_NE(dynamic_cast<PholdEpochModel*>(make_phold(c).get()), nullptr);
  EXPECT_THROW(PholdModel{c}, std::invalid_argument);
}

TEST(Phold, EpochsAreCountedAndPlansChangeTheHistories) {
  PholdConfig c;
  c.lps = 256;
  c.remote_fraction = 0.25;
  Counting plain(c);
  const auto a = run_seq(plain, 1000 * kMicrosecond);
  c.epoch = 50 * kMicrosecond;
  Counting planned(c);
  const auto b = run_seq(planned, 1000 * kMicrosecond);
  EXPECT_EQ(a.epochs, 0u);
  EXPECT_EQ(b.epochs, 19u);  // 50, 100, ..., 950 us
  // Before the first epoch both run the same plan, so the first events agree;
  // after it the histories part.
  EXPECT_NE(a.lp_digest, b.lp_digest);
  // Every event of a period is counted in the planner's totals: with one
  // event chain per LP, each period has about lps * 50 us / 2 us events.
  EXPECT_NEAR(static_cast<double>(b.committed_events), 128'000.0, 128'000.0 * 0.03);
}

// The plan moves events from busy buckets of LPs to idle ones: with epochs,
// the most loaded LP handles fewer events than without.
class Loads final : public Model {
 public:
  explicit Loads(const PholdConfig& c) : inner_(make_phold(c)), per_lp(c.lps, 0) {}
  std::uint32_t lp_count() const override { return inner_->lp_count(); }
  Time lookahead(const Partition& p) const override { return inner_->lookahead(p); }
  void setup(const Partition& p, int rank) override { inner_->setup(p, rank); }
  void init(Context& ctx) override { inner_->init(ctx); }
  void handle(const Event& e, Context& ctx) override {
    ++per_lp[ctx.self()];
    inner_->handle(e, ctx);
  }
  Time next_epoch(Time after) const override { return inner_->next_epoch(after); }
  std::size_t epoch_counters() const override { return inner_->epoch_counters(); }
  void epoch_contribute(Time epoch, std::span<std::uint64_t> counters) override {
    inner_->epoch_contribute(epoch, counters);
  }
  void epoch_plan(const EpochInfo& info, std::span<const std::uint64_t> totals) override {
    inner_->epoch_plan(info, totals);
  }

  std::unique_ptr<Model> inner_;
  std::vector<std::uint64_t> per_lp;
};

TEST(Phold, PlansSpreadTheLoad) {
  PholdConfig c;
  c.lps = 64;
  c.start_events_per_lp = 4;
  c.remote_fraction = 0.1;  // chains mostly stay where they start: uneven loads
  auto spread = [&](Time epoch) {
    c.epoch = epoch;
    Loads m(c);
    run_seq(m, 4000 * kMicrosecond);
    const auto [lo, hi] = std::minmax_element(m.per_lp.begin(), m.per_lp.end());
    return static_cast<double>(*hi - *lo);
  };
  EXPECT_LT(spread(20 * kMicrosecond), spread(0));
}

}  // namespace
}  // namespace sipsim::pdes::models
