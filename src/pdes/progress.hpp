#pragma once
// Rank 0's progress line (docs/architecture.md): simulated time, events, events per
// second, an ETA and the ranks' imbalance, at most once per interval of wall
// time, never per event.
#include <cstdint>

#include "sipsim/pdes/time.hpp"
#include "wall_clock.hpp"

namespace sipsim::pdes::detail {

class Progress {
 public:
  // `enabled` is false on the ranks that do not print; an interval <= 0
  // turns the line off everywhere.
  Progress(double interval_s, Time end_time, std::uint64_t work_total, bool enabled)
      : interval_s_(interval_s),
        end_time_(end_time),
        work_total_(work_total),
        enabled_(enabled && interval_s > 0) {}

  // The ETA comes from the model's work done when it counts its work
  // (Model::progress_total), else from the simulated time against the end time.
  void maybe_report(Time sim_time, std::uint64_t committed, double imbalance,
                    std::uint64_t work_done);

 private:
  Clock::time_point start_ = Clock::now();
  double last_ = 0;
  double last_report_ = 0, last_frac_ = 0, last_progress_ = 0;
  double interval_s_;
  Time end_time_;
  std::uint64_t work_total_;
  bool enabled_;
};

}  // namespace sipsim::pdes::detail
