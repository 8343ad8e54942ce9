#pragma once
// How far the windowed engine's windows open (windowed.cpp), and every
// number that decides it. A window runs at least to its start plus the
// lookahead. Models that bound their remote events (Model::remote_bound) get
// windows up to the earliest such event over every rank, found by a scan of
// each rank's pending and outgoing events (Scheduler::remote_bound). Where
// the scan does not widen the windows (traffic across the cut all the time),
// it is skipped for a while: a probe of kProbeWindows windows that gains too
// little turns it off for kRestWindows windows. The decision uses reduced
// values only, so every rank takes it alike.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "sipsim/pdes/time.hpp"

namespace sipsim::pdes::detail {

// How far past a rank's next event the scan looks at first, in lookaheads.
// The scan visits every pending event up to there, so without a cap it could
// walk the whole queue each window; then each window lets the next one look
// kScanGrowth times as far as it reached, or half as far as it could look
// itself, so that windows bounded by a model's state (a node computing for
// milliseconds) grow geometrically to their true width and a few narrow
// windows between wide ones (a message crossing ranks) do not make them grow
// again from the start, while the scan visits a few windows' events at most.
inline constexpr Time kScanLookaheads = 64;
inline constexpr Time kScanGrowth = 4;

// Of the events a rank is sending, how many the model is asked to bound; the
// rest count as their time plus the lookahead. Asking about each of the
// thousands a 4,096-GPU all-to-all sends cost ~260 us per window for no wider
// windows; a model whose few remote events the bound helps is asked about all.
inline constexpr std::size_t kOutboxEventsAsked = 64;

// Windows per probe of the scan: a mean gain over several windows, not one
// lucky window, decides; and a probe where the scan does not pay is short.
inline constexpr std::uint64_t kProbeWindows = 64;

// Windows without the scan after a probe that did not pay: kFirstRestWindows
// after a probe that paid, twice as many after each further one that did not,
// up to kRestWindows. Where the scan never widens a window it soon runs in
// 1 window of 241; where it pays in phases (a training job's transfers
// between long stretches of compute) a phase that does not pay costs few
// narrow windows once it is over.
inline constexpr std::uint64_t kFirstRestWindows = 64;
inline constexpr std::uint64_t kRestWindows = 240 * kProbeWindows;

// A probe pays if its windows gained lookahead / kGainDivisor (5%) or more on
// average: below that they save under 5% of the reductions, too few to pay
// for a scan of the outgoing and early pending events in every window.
inline constexpr Time kGainDivisor = 20;

class WindowSearch {
 public:
  // `sharp`: the model bounds its remote events; `always`: scan every window
  // (the bound checks of EngineOptions::check_bounds), never rest.
  WindowSearch(bool sharp, Time lookahead, bool always = false)
      : sharp_(sharp),
        scanning_(sharp),
        always_(always),
        lookahead_(lookahead),
        min_span_(lookahead > kTimeMax / kScanLookaheads ? kTimeMax : kScanLookaheads * lookahead),
        span_(min_span_) {}

  // Whether this round's reduction carries the ranks' remote bounds.
  bool scanning() const { return scanning_; }
  // How far the scan looks, for a rank whose next event is at `next`.
  Time scan_cap(Time next) const { return saturating_add(next, span_); }

  // The end of the window that opens at `start`, where the reduced remote
  // bound is `remote_bound` (before the next epoch and the end time cut it);
  // every call is one window of the probe or of the rest.
  Time widest(Time start, Time remote_bound) {
    const Time plain = saturating_add(start, lookahead_);
    const Time widest = scanning_ ? std::max<Time>(remote_bound, plain) : plain;
    if (sharp_) {
      if (scanning_) {
        const Time reached = widest - start;
        const Time grown =
            reached > kTimeMax / kScanGrowth ? kTimeMax / kScanGrowth : kScanGrowth * reached;
        span_ = std::max({min_span_, grown, span_ / 2});
      }
      gained_ += widest - plain;
      if (++phase_windows_ == (scanning_ ? kProbeWindows : rest_)) {
        if (scanning_) {
          scanning_ = always_ || gained_ >= kProbeWindows * lookahead_ / kGainDivisor;
          if (scanning_) rest_ = kFirstRestWindows;  // it paid: the next rest is short
        } else {
          scanning_ = true;
          rest_ = std::min(kRestWindows, 2 * rest_);  // the next, if this probe fails too
        }
        phase_windows_ = 0;
        gained_ = 0;
      }
    }
    return widest;
  }

 private:
  bool sharp_;
  bool scanning_;
  bool always_;
  Time lookahead_;
  Time min_span_, span_;  // how far the scan looks: at least min_span_
  std::uint64_t phase_windows_ = 0;
  std::uint64_t rest_ = kFirstRestWindows;  // the next rest's length
  Time gained_ = 0;                         // by the windows of this probe
};

}  // namespace sipsim::pdes::detail
