#include "progress.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>

#include "sipsim/base/units.hpp"

namespace sipsim::pdes::detail {

void Progress::maybe_report(Time sim_time, std::uint64_t committed, double imbalance,
                            std::uint64_t work_done) {
  if (!enabled_) return;
  const double now = seconds_since(start_);
  if (now - last_ < interval_s_) return;
  last_ = now;
  const double rate = now > 0 ? static_cast<double>(committed) / now : 0.0;
  double frac = -1;
  if (work_total_ > 0) {
    frac = static_cast<double>(work_done) / static_cast<double>(work_total_);
  } else if (end_time_ != kTimeMax) {
    frac = static_cast<double>(sim_time) / static_cast<double>(end_time_);
  }
  // The ETA is the rest at the pace since the last line, not since the
  // start: a run whose work stalls (an op waiting on a fabric far slower
  // than its compute) must not be promised its early pace.
  std::string eta = "unknown";
  if (frac > last_frac_) last_progress_ = now;
  if (frac > 0 && frac < 1) {
    const double dfrac = frac - last_frac_, dt = now - last_report_;
    eta = dfrac > 0 && dt > 0
              ? fmt::format("{:.0f} s", dt * (1 - frac) / dfrac)
              : fmt::format("unknown (no progress in {:.0f} s)", now - last_progress_);
  }
  last_frac_ = std::max(last_frac_, frac);
  last_report_ = now;
  spdlog::info("sim {}{} | {} events | {:.3g} M events/s | ETA {} | imbalance {:.2f}",
               base::format_time_ps(sim_time),
               frac >= 0 ? fmt::format(" ({:.1f}% done)", 100.0 * frac) : std::string(), committed,
               rate / 1e6, eta, imbalance);
}

}  // namespace sipsim::pdes::detail
