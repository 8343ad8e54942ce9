#include "sipsim/pdes/models/phold.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sipsim/pdes/random.hpp"

namespace sipsim::pdes::models {

namespace {

constexpr std::uint32_t kPholdEvent = 1;

// A hash of (LP, count) for the plan's fingerprint word: a sum of these over
// the LPs changes when any one LP's count does.
std::uint64_t lp_fingerprint(LpId lp, std::uint64_t events) {
  std::uint64_t x =
      (std::uint64_t{lp} + 1) * 0x9E3779B97F4A7C15ull ^ events * 0xC2B2AE3D27D4EB4Full;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  return x ^ (x >> 29);
}

}  // namespace

PholdModel::PholdModel(const PholdConfig& config) : PholdModel(config, Planned{}) {
  if (config.epoch != 0) {
    throw std::invalid_argument("PHOLD with epochs is PholdEpochModel (make_phold picks)");
  }
}

PholdModel::PholdModel(const PholdConfig& config, Planned)
    : config_(config),
      remote_threshold_(
          static_cast<std::uint64_t>(std::ldexp(std::clamp(config.remote_fraction, 0.0, 1.0), 32))),
      mean_ps_(static_cast<double>(config.mean_increment)),
      buckets_(std::min(config.lps, PholdEpochModel::kPlanBuckets)) {
  if (config.lps == 0) throw std::invalid_argument("PHOLD needs at least one LP");
}

void PholdModel::init(Context& ctx) {
  for (std::uint32_t i = 0; i < config_.start_events_per_lp; ++i) send_next<false>(ctx);
}

void PholdModel::handle(const Event&, Context& ctx) {
  send_next<false>(ctx);
}

template <bool kPlanned>
void PholdModel::send_next(Context& ctx) {
  const PhiloxBlock r = ctx.rng().next_block();
  // Exp(1) by the ziggurat: r[0..1] serve its first draw, the ~1% of samples
  // that need more take them from the LP's stream (deterministic either way).
  const double x = ExpZiggurat::sample((std::uint64_t{r[1]} << 32) | r[0], ctx.rng());
  const auto increment = static_cast<Time>(std::llround(x * mean_ps_));
  LpId dst = ctx.self();
  if (config_.lps > 1 && r[2] < remote_threshold<kPlanned>(ctx.self())) {
    // Uniform over the other lps - 1 LPs (multiply-shift on 32 bits).
    auto pick = static_cast<LpId>((std::uint64_t{r[3]} * (config_.lps - 1)) >> 32);
    if constexpr (kPlanned) {
      const std::uint64_t rotated = std::uint64_t{pick} + offset_;
      pick = static_cast<LpId>(rotated >= config_.lps - 1 ? rotated - (config_.lps - 1) : rotated);
    }
    dst = pick >= ctx.self() ? pick + 1 : pick;
  }
  ctx.send(dst, config_.lookahead + increment, kPholdEvent);
}

PholdEpochModel::PholdEpochModel(const PholdConfig& config) : PholdModel(config, Planned{}) {
  if (config.epoch == 0) throw std::invalid_argument("PHOLD's epoch variant needs epoch > 0");
}

void PholdEpochModel::setup(const Partition& partition, int rank) {
  local_ = partition.lps_of(rank);
  period_events_.assign(local_.size(), 0);
  bucket_threshold_.assign(buckets_, remote_threshold_);  // the plan before the first epoch
  offset_ = 0;
}

void PholdEpochModel::init(Context& ctx) {
  for (std::uint32_t i = 0; i < config_.start_events_per_lp; ++i) send_next<true>(ctx);
}

void PholdEpochModel::handle(const Event&, Context& ctx) {
  ++period_events_[ctx.self_index()];
  send_next<true>(ctx);
}

Time PholdEpochModel::next_epoch(Time after) const {
  const Time k = after / config_.epoch + 1;
  return k > kTimeMax / config_.epoch ? kTimeMax : k * config_.epoch;
}

std::size_t PholdEpochModel::epoch_counters() const {
  return std::size_t{buckets_} + 1;
}

void PholdEpochModel::epoch_contribute(Time, std::span<std::uint64_t> counters) {
  for (std::size_t i = 0; i < local_.size(); ++i) {
    counters[local_[i] % buckets_] += period_events_[i];
    counters[buckets_] += lp_fingerprint(local_[i], period_events_[i]);
    period_events_[i] = 0;
  }
}

// Integer arithmetic only, from the totals and the epoch's stream: every rank
// computes the same plan.
void PholdEpochModel::epoch_plan(const EpochInfo& info, std::span<const std::uint64_t> totals) {
  std::uint64_t events = 0;
  for (std::uint32_t b = 0; b < buckets_; ++b) events += totals[b];
  // Busy buckets (above the mean) send twice the configured share of their
  // events away, the others half of it: load spreads from busy LPs.
  constexpr std::uint64_t kAlways = std::uint64_t{1} << 32;
  for (std::uint32_t b = 0; b < buckets_; ++b) {
    const bool busy = totals[b] * buckets_ > events;
    bucket_threshold_[b] = busy ? std::min(kAlways, 2 * remote_threshold_) : remote_threshold_ / 2;
  }
  if (config_.lps > 1) {
    const std::uint64_t others = config_.lps - 1;
    offset_ =
        static_cast<std::uint32_t>((info.rng.below(others) + totals[buckets_] % others) % others);
  }
}

std::unique_ptr<Model> make_phold(const PholdConfig& config) {
  if (config.epoch == 0) return std::make_unique<PholdModel>(config);
  return std::make_unique<PholdEpochModel>(config);
}

}  // namespace sipsim::pdes::models
