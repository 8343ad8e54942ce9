// A compute op's end under its GPU's slowdown windows (docs/faults.md).
#include "sipsim/workload/slowdown.hpp"

#include <algorithm>
#include <cmath>

namespace sipsim::workload {

pdes::Time slowed_end(pdes::Time start, pdes::Time work, std::span<const Slowdown> windows) {
  pdes::Time t = start, left = work;
  for (const Slowdown& w : windows) {
    if (w.until <= t) continue;
    if (w.at > t) {  // at full speed until the window opens
      if (left <= w.at - t) return t + left;
      left -= w.at - t;
      t = w.at;
    }
    // Inside the window: `factor` ps of work per ps, so `left` work takes
    // left / factor, unless the repair comes first.
    const double inside = std::ceil(static_cast<double>(left) / w.factor);
    if (w.until == pdes::kTimeMax || inside <= static_cast<double>(w.until - t)) {
      return pdes::saturating_add(t, static_cast<pdes::Time>(inside));
    }
    const auto done =
        static_cast<pdes::Time>(std::floor(static_cast<double>(w.until - t) * w.factor));
    left -= std::min(done, left);
    t = w.until;
  }
  return pdes::saturating_add(t, left);
}

}  // namespace sipsim::workload
