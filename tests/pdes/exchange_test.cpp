// The windowed engine's exchange (one reduction per window, then point-to-point
// messages to the peers actually sent to), run by ctest at 1, 2, 4 and 7 ranks:
// irregular peers, windows where no rank sends, and messages far past MPI's
// eager limit must give every LP the history of the sequential engine.
#include <gtest/gtest.h>

#include <boost/mpi/collectives/all_gather.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/serialization/vector.hpp>
#include <cstdint>
#include <utility>
#include <vector>

#include "lp_gather.hpp"
#include "sipsim/pdes/engine.hpp"
#include "sipsim/pdes/window_histogram.hpp"

namespace sipsim::pdes {
namespace {

namespace mpi = boost::mpi;

std::uint64_t hash(std::uint64_t a, std::uint64_t b) {
  std::uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull);
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  return x ^ (x >> 29);
}

// Every LP ticks once per lookahead (kind 0); at a tick it sends 0-2 messages
// (kind 1) to LPs drawn from a hash, 1-3 lookaheads ahead, except at ticks
// k % 5 == 3 (no rank sends anything then). Every 7th tick (but 28) LP 0 sends a burst
// of 20,000 events (1.3 MB) to the last LP.
class Scatter : public Model {
 public:
  static constexpr Time kLookahead = 1000;
  static constexpr std::uint64_t kTicks = 40;
  static constexpr std::uint32_t kBurst = 20'000;

  std::uint32_t lp_count() const override { return 50; }
  Time lookahead(const Partition&) const override { return kLookahead; }
  void init(Context& ctx) override { ctx.send(ctx.self(), kLookahead * (ctx.self() % 3), 0); }
  void handle(const Event& ev, Context& ctx) override {
    if (ev.kind != 0) return;
    const std::uint64_t tick = ctx.now() / kLookahead;
    if (tick + 1 < kTicks) ctx.send(ctx.self(), kLookahead, 0);
    if (tick % 5 == 3) return;
    const std::uint64_t h = hash(ctx.self(), tick);
    for (std::uint64_t i = 0; i < h % 3; ++i) {
      const auto dst = static_cast<LpId>((h >> (8 + 8 * i)) % lp_count());
      ctx.send(dst, kLookahead * (1 + (h >> (32 + 4 * i)) % 3), 1, {tick, i, 0, 0});
    }
    if (ctx.self() == 0 && tick % 7 == 0) {
      for (std::uint32_t i = 0; i < kBurst; ++i) ctx.send(lp_count() - 1, kLookahead, 1, {i});
    }
  }
};

TEST(Exchange, IrregularPeersEmptyWindowsAndBigMessagesMatchSequential) {
  mpi::communicator world;
  mpi::communicator self(MPI_COMM_SELF, mpi::comm_attach);
  EngineOptions opt;
  opt.progress_interval_s = 0;

  Scatter seq_model;
  const auto seq_part = partitioners::blocks(seq_model.lp_count(), 1);
  opt.kind = EngineKind::kSequential;
  const RunResult seq = run(seq_model, seq_part, self, opt);

  Scatter one_model;
  opt.kind = EngineKind::kWindowed;
  const RunResult one = run(one_model, seq_part, self, opt);

  Scatter par_model;
  const auto par_part = par_model.partition(world.size());
  const RunResult par = run(par_model, par_part, world, opt);

  EXPECT_GT(seq.committed_events, 5 * Scatter::kBurst);
  EXPECT_EQ(par.committed_events, seq.committed_events);
  EXPECT_EQ(par.last_event_time, seq.last_event_time);
  EXPECT_EQ(gather_lps(world, par_part, par), gather_lps(self, seq_part, seq));
  // Windows open at the next event anywhere: the same count at any rank count.
  EXPECT_EQ(par.windows, one.windows);
  EXPECT_GE(par.windows, Scatter::kTicks);
  if (world.size() > 1) {
    EXPECT_GT(par.remote_events, 5 * Scatter::kBurst);
  } else {
    EXPECT_EQ(par.remote_events, 0u);
  }
}

// A run whose window statistics are counted by hand: `lps` LPs each handle one
// event per lookahead for `ticks` ticks and pass it to the next LP (mod lps).
class Relay : public Model {
 public:
  static constexpr Time kLookahead = 500;
  Relay(std::uint32_t lps, std::uint64_t ticks) : lps_(lps), ticks_(ticks) {}
  std::uint32_t lp_count() const override { return lps_; }
  Time lookahead(const Partition&) const override { return kLookahead; }
  void init(Context& ctx) override { ctx.send(ctx.self(), 0, 0); }
  void handle(const Event&, Context& ctx) override {
    if (ctx.now() / kLookahead + 1 < ticks_) ctx.send((ctx.self() + 1) % lps_, kLookahead, 0);
  }

 private:
  std::uint32_t lps_;
  std::uint64_t ticks_;
};

TEST(ScalingStats, CountsMatchTheHandModel) {
  mpi::communicator world;
  const int ranks = world.size();
  constexpr std::uint32_t kLps = 97;  // prime: uneven blocks
  constexpr std::uint64_t kTicks = 30;
  Relay m(kLps, kTicks);
  const Partition p = m.partition(ranks);
  EngineOptions opt;
  opt.progress_interval_s = 0;
  opt.kind = EngineKind::kWindowed;
  const RunResult r = run(m, p, world, opt);

  // Every window holds one tick: each rank handles one event per local LP.
  std::uint64_t largest = 0, crossings = 0;
  std::vector<std::uint64_t> block(static_cast<std::size_t>(ranks));
  for (int rank = 0; rank < ranks; ++rank) {
    block[static_cast<std::size_t>(rank)] = p.lps_of(rank).size();
    largest = std::max<std::uint64_t>(largest, p.lps_of(rank).size());
  }
  for (LpId lp = 0; lp < kLps; ++lp) {
    if (p.owner(lp) != p.owner((lp + 1) % kLps)) ++crossings;
  }
  EXPECT_EQ(r.committed_events, kLps * kTicks);
  EXPECT_EQ(r.windows, kTicks);
  EXPECT_EQ(r.remote_events, crossings * (kTicks - 1));
  EXPECT_EQ(r.critical_path_events, largest * kTicks);
  ASSERT_EQ(r.rank_events.size(), block.size());
  ASSERT_EQ(r.rank_window_max.size(), block.size());
  std::vector<std::uint64_t> histogram(r.window_histogram.size());
  const std::size_t k = r.window_histogram.size();
  ASSERT_EQ(r.rank_window_histogram.size(), k * block.size());
  for (std::size_t rank = 0; rank < block.size(); ++rank) {
    EXPECT_EQ(r.rank_events[rank], block[rank] * kTicks);
    EXPECT_EQ(r.rank_window_max[rank], block[rank]);
    // Every window of this rank falls in the bucket of its block size.
    const std::size_t b = WindowHistogram::bucket_of(block[rank]);
    ASSERT_LT(b, k);
    for (std::size_t i = 0; i < k; ++i) {
      EXPECT_EQ(r.rank_window_histogram[rank * k + i], i == b ? kTicks : 0) << rank << " " << i;
    }
    ++histogram[b];
  }
  for (auto& h : histogram) h *= kTicks;
  EXPECT_EQ(r.window_histogram, histogram);
  const WindowSummary s = summarize(r.window_histogram, r.committed_events, largest);
  EXPECT_EQ(s.samples, kTicks * block.size());
  EXPECT_DOUBLE_EQ(s.mean, static_cast<double>(kLps) / ranks);
  EXPECT_EQ(s.max, largest);
  EXPECT_LE(r.busy_seconds_max, r.critical_path_seconds + 1e-9);
  EXPECT_EQ(r.rank_busy_seconds.size(), block.size());
}

TEST(ScalingStats, SequentialIsOneWindow) {
  mpi::communicator self(MPI_COMM_SELF, mpi::comm_attach);
  Relay m(10, 5);
  EngineOptions opt;
  opt.progress_interval_s = 0;
  opt.kind = EngineKind::kSequential;
  const RunResult r = run(m, m.partition(1), self, opt);
  EXPECT_EQ(r.windows, 1u);
  EXPECT_EQ(r.critical_path_events, 50u);
  EXPECT_EQ(r.rank_events, std::vector<std::uint64_t>{50});
  EXPECT_EQ(r.rank_window_max, std::vector<std::uint64_t>{50});
}

TEST(WindowHistogram, BucketsAreExactBelow64AndWithin1In32Above) {
  for (std::uint64_t v = 0; v < 64; ++v) {
    EXPECT_EQ(WindowHistogram::bucket_of(v), v);
    EXPECT_EQ(WindowHistogram::bucket_low(v), v);
  }
  const std::vector<std::uint64_t> values{64,  65,   100,       127,
                                          128, 1000, 123456789, ~std::uint64_t{0}};
  for (std::uint64_t v : values) {
    const std::size_t b = WindowHistogram::bucket_of(v);
    ASSERT_LT(b, WindowHistogram::kBuckets);
    const std::uint64_t low = WindowHistogram::bucket_low(b);
    EXPECT_LE(low, v);
    EXPECT_LE(v - low, low / 32);
    EXPECT_EQ(WindowHistogram::bucket_of(low), b);
    if (b > 0) {
      EXPECT_EQ(WindowHistogram::bucket_of(low - 1), b - 1);
    }
  }
  // Quantiles: the smallest value with at least ceil(q n) samples at or below.
  WindowHistogram h;
  for (std::uint64_t v = 1; v <= 100; ++v) h.add(v % 50);
  const WindowSummary s = summarize(h.counts(), h.sum(), h.max());
  EXPECT_EQ(s.samples, 100u);
  EXPECT_EQ(s.p50, 24u);
  EXPECT_EQ(s.p99, 49u);
  EXPECT_EQ(s.max, 49u);
}

}  // namespace
}  // namespace sipsim::pdes
