#pragma once
// What one step of a collective costs (docs/models.md, "Collectives"), written once: the
// executor that simulates a collective and the estimators that predict it
// (analytical/) use these same rules.
//
// A member's step: its sends leave (one after another through one injection
// port, or all at once through parallel ports such as RAMP's transceivers, or
// a routed fabric's links: CostModel::concurrent_sends),
// its receives arrive; once its data is in and its sends have left, the step's
// local operation runs (priced by the device model), and the step ends. In
// lock-step (RAMP §6.2.3) a step also lasts at least its round.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "sipsim/collective/schedule.hpp"
#include "sipsim/compute/device.hpp"
#include "sipsim/fabric/cost_model.hpp"

namespace sipsim::collective {

// The step's local operation: reduce of `sources` inputs, copy, or nothing.
pdes::Time local_ps(const WireStep& step, const compute::Device& device);

// Data-transfer time of a message a -> b: its bytes at the path's bottleneck
// rate (RAMP §7.4's effective bandwidth of a step).
pdes::Time transfer_ps(const fabric::CostModel& network, std::uint32_t a, std::uint32_t b,
                       std::uint64_t bytes);

// A step's data-transfer time (the h2t of the records): its sends in turn, or
// at once (CostModel::concurrent_sends), or its longest receive, whichever is
// longer.
class StepTransfer {
 public:
  explicit StepTransfer(bool sends_together) : parallel_(sends_together) {}
  void send(pdes::Time t) { sent_ = parallel_ ? std::max(sent_, t) : sent_ + t; }
  void receive(pdes::Time t) { received_ = std::max(received_, t); }
  pdes::Time h2t() const { return std::max(sent_, received_); }

 private:
  bool parallel_;
  pdes::Time sent_ = 0, received_ = 0;
};

// When a step ends: `ready` (its data in, its sends gone) plus its local
// operation, and in lock-step no earlier than `round_start` + the round's length.
inline pdes::Time step_end(pdes::Time ready, pdes::Time local, pdes::Time round_start,
                           const std::vector<pdes::Time>& rounds, std::uint32_t step) {
  const pdes::Time end = ready + local;
  return step < rounds.size() ? std::max(end, round_start + rounds[step]) : end;
}

// In lock-step a member that has finished its own steps still ends with the
// others: the rounds from `step` on.
inline pdes::Time remaining_rounds(const std::vector<pdes::Time>& rounds, std::uint32_t step) {
  pdes::Time t = 0;
  for (std::size_t i = step; i < rounds.size(); ++i) t += rounds[i];
  return t;
}

// RAMP §6.2.3: RAMP-x moves every node through the algorithmic steps in
// lock-step (the time-slot map gives each step a fixed duration): round i
// lasts as long as the slowest member needs for it on an idle fabric (its
// longest transfer — a step's transfers run in parallel on distinct
// transceivers — plus its local operation), over the members the algorithm
// names as bounding its rounds (all by default). Empty when the algorithm is
// not lock-step (AlgorithmTraits::lockstep).
std::vector<pdes::Time> lockstep_rounds(const CollectiveSpec& spec,
                                        const std::vector<std::uint32_t>& members,
                                        const fabric::CostModel& network,
                                        const compute::Device& device);

}  // namespace sipsim::collective
