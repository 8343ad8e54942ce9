#include "sipsim/workload/quiet_time.hpp"

#include <algorithm>
#include <stdexcept>

namespace sipsim::workload {

pdes::Time QuietTime::until_crossing(const Program& p, std::uint32_t i) const {
  if (crossing[i] != 0) return 0;
  const Op& op = p.op(i);
  return pdes::saturating_add(op.kind == OpKind::kCompute ? op.duration : 0, after[i]);
}

// Users come after the ops they depend on, so one pass from the last op back
// sees every user's value first. An op without users ends the iteration's
// path; the next iteration starts with the roots, whose least value R does
// not depend on the wrap (a wrapping path is a whole iteration plus R at
// least), so a first pass finds R and a second uses it.
QuietTime quiet_time(const Program& p, std::vector<std::uint8_t> crossing) {
  if (crossing.size() != p.size()) {
    throw std::invalid_argument("quiet_time: one crossing flag per op is needed");
  }
  QuietTime q{std::move(crossing), std::vector<pdes::Time>(p.size(), pdes::kTimeMax)};
  pdes::Time restart = pdes::kTimeMax;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::uint32_t i = p.size(); i-- > 0;) {
      const auto users = p.users(i);
      pdes::Time best = users.empty() ? restart : pdes::kTimeMax;
      for (const std::uint32_t u : users) best = std::min(best, q.until_crossing(p, u));
      q.after[i] = best;
    }
    for (const std::uint32_t r : p.roots()) restart = std::min(restart, q.until_crossing(p, r));
  }
  return q;
}

}  // namespace sipsim::workload
