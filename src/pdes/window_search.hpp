#pragma once
// How far the windowed engine's windows open (windowed.cpp). Every window
// runs at least to its start plus the lookahead. Models that bound their
// remote events (Model::remote_bound) get windows up to the earliest such
// event over every rank, found by a scan of each rank's pending and outgoing
// events. Where the scan does not widen the windows (traffic across the cut
// all the time), it is skipped for a while: each probe of kProbe windows that
// gains less than 5% of the lookahead on average turns it off for kRest
// windows. The decision uses reduced values only, so every rank takes it
// alike.
#include <algorithm>
#include <cstdint>

#include "sipsim/pdes/time.hpp"

namespace sipsim::pdes::detail {

class WindowSearch {
 public:
  // `sharp`: the model bounds its remote events.
  WindowSearch(bool sharp, Time lookahead)
      : sharp_(sharp), scanning_(sharp), lookahead_(lookahead) {}

  // Whether this round's reduction carries the ranks' remote bounds.
  bool scanning() const { return scanning_; }
  // How far the scan looks, for a rank whose next event is at `next`.
  Time scan_cap(Time next) const {
    return saturating_add(
        next, lookahead_ > kTimeMax / kMaxWindows ? kTimeMax : kMaxWindows * lookahead_);
  }

  // The end of the window that opens at `start`, where the reduced remote
  // bound is `remote_bound` (before the next epoch and the end time cut it);
  // every call is one window of the probe or of the rest.
  Time widest(Time start, Time remote_bound) {
    const Time plain = saturating_add(start, lookahead_);
    const Time widest = scanning_ ? std::max<Time>(remote_bound, plain) : plain;
    if (sharp_) {
      gained_ += widest - plain;
      if (++phase_windows_ == (scanning_ ? kProbe : kRest)) {
        scanning_ = !scanning_ || gained_ >= kProbe * lookahead_ / 20;
        phase_windows_ = 0;
        gained_ = 0;
      }
    }
    return widest;
  }

 private:
  static constexpr Time kMaxWindows = 64;
  static constexpr std::uint64_t kProbe = 1024, kRest = 15 * kProbe;

  bool sharp_;
  bool scanning_;
  Time lookahead_;
  std::uint64_t phase_windows_ = 0;
  Time gained_ = 0;  // by the windows of this probe
};

}  // namespace sipsim::pdes::detail
