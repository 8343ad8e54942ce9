#include "sipsim/pdes/models/phold.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sipsim::pdes::models {

namespace {
constexpr std::uint32_t kPholdEvent = 1;
}

PholdModel::PholdModel(const PholdConfig& config)
    : config_(config),
      remote_threshold_(
          static_cast<std::uint64_t>(std::ldexp(std::clamp(config.remote_fraction, 0.0, 1.0), 32))),
      mean_ps_(static_cast<double>(config.mean_increment)) {
  if (config.lps == 0) throw std::invalid_argument("PHOLD needs at least one LP");
}

void PholdModel::init(Context& ctx) {
  for (std::uint32_t i = 0; i < config_.start_events_per_lp; ++i) send_next(ctx);
}

void PholdModel::handle(const Event&, Context& ctx) {
  send_next(ctx);
}

void PholdModel::send_next(Context& ctx) {
  const PhiloxBlock r = ctx.rng().next_block();
  const double u = RandomStream::to_unit((std::uint64_t{r[1]} << 32) | r[0]);
  const auto increment = static_cast<Time>(std::llround(-std::log1p(-u) * mean_ps_));
  LpId dst = ctx.self();
  if (config_.lps > 1 && r[2] < remote_threshold_) {
    // Uniform over the other lps - 1 LPs (multiply-shift on 32 bits).
    const auto pick = static_cast<LpId>((std::uint64_t{r[3]} * (config_.lps - 1)) >> 32);
    dst = pick >= ctx.self() ? pick + 1 : pick;
  }
  ctx.send(dst, config_.lookahead + increment, kPholdEvent);
}

}  // namespace sipsim::pdes::models
