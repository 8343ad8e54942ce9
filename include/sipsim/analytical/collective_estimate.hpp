#pragma once
// Closed-form (alpha-beta-gamma) cost of a collective on an idle fabric, as
// `sipsim analyze` reports it and `algorithm: auto` uses it to choose.
//
// Every member's schedule is evaluated as a longest path: a step starts when
// the member's previous step ended; its sends leave one after another (each
// occupies the sender's port for bytes/rate), or all at once where the
// fabric's node sends on several links (CostModel::concurrent_sends); a
// message arrives
// network.uncongested_ps(a, b, bytes) after it starts (alpha + bytes*beta,
// chunk pipelining included on routed fabrics); the step ends when its
// receives have arrived and its sends have left, plus the roofline cost of the
// local operation (gamma). Contention between different senders is ignored:
// on a fabric where no two messages share a port at the same time (ring on
// elect-flat) the simulator reproduces this to the picosecond.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "sipsim/collective/schedule.hpp"
#include "sipsim/compute/device.hpp"
#include "sipsim/fabric/cost_model.hpp"

namespace sipsim::analytical {

struct CollectiveEstimate {
  pdes::Time total = 0;     // the last member's end
  pdes::Time compute = 0;   // along the last member's timeline
  pdes::Time h2t = 0;       // data transfer, as in the simulator's records
  pdes::Time h2h = 0;       // total - compute - h2t
  std::uint32_t steps = 0;  // most steps of any member
  std::uint64_t messages = 0;
};

// Whether a collective runs in lock-step (RAMP §6.2.3; collective::lockstep_rounds).
inline bool lockstep(const collective::CollectiveSpec& spec) {
  return collective::traits(spec.algorithm).lockstep;
}

// How the estimators walk the members' steps; both give the same estimate
// (tests/analytical: LevelSweep). kLevels evaluates every member's step i
// before any step i + 1 where each message is received no earlier than the
// step it is sent at (else it falls back to kMembers); kMembers runs each
// member until it waits for a message.
enum class Evaluation { kLevels, kMembers };

// Progress within one estimate, for a caller that reports it (an estimate at
// 65,536 members can take seconds): called every kProgressEvery member-steps
// evaluated with those done so far and the estimate's total.
using Progress = std::function<void(std::uint64_t done, std::uint64_t total)>;
inline constexpr std::uint64_t kProgressEvery = std::uint64_t{1} << 16;

CollectiveEstimate estimate_collective(const collective::CollectiveSpec& spec,
                                       const std::vector<std::uint32_t>& members,
                                       const fabric::CostModel& network,
                                       const compute::Device& device,
                                       Evaluation order = Evaluation::kLevels,
                                       const Progress& progress = {});

// RAMP §7.4.1's critical-path estimator, the model behind the paper's
// comparisons at 65,536 nodes (§8). The messages of every member's step k
// load the resources they cross (network.path_resources: ports, links,
// transceivers); a message takes its idle-fabric time plus the time the other
// senders' bytes on its busiest resource need (the step's "effective load").
// Two evaluations:
//  - ring phases (collective::Schedule::runs merges their identical steps):
//    one step is loaded and the run of n steps takes that step once plus n-1
//    periods of the max-plus recurrence of a ring (its maximum cycle mean),
//    which is what makes a 65,536-member ring cheap;
//  - everything else: the idle estimate's longest path (below) with each
//    message delayed by its step's load.
// Exact where no resource is shared and hops are uniform (ring on elect-flat,
// RAMP-x on RAMP); elsewhere compared with the simulator in docs/validation.md.
// The work is p member-steps per evaluated step; above `max_work` the
// estimate refuses (EstimateTooLarge) instead of running for hours.
class EstimateTooLarge : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Member-steps the critical-path estimator evaluates for `spec`: the count
// estimate_critical_path compares with `max_work`. Builds every member's
// schedule (O(p), about 0.1 s at 65,536 members), none of the estimate.
std::uint64_t critical_path_work(const collective::CollectiveSpec& spec);
// A lower bound of critical_path_work from three members' schedules (0, the
// root, p - 1): at least a quarter of it for every algorithm (tested in
// tests/setup/setup_test.cpp), in O(steps) instead of O(p).
std::uint64_t critical_path_work_lower_bound(const collective::CollectiveSpec& spec);
inline constexpr std::uint64_t kDefaultMaxWork = std::uint64_t{1} << 28;
CollectiveEstimate estimate_critical_path(const collective::CollectiveSpec& spec,
                                          const std::vector<std::uint32_t>& members,
                                          const fabric::CostModel& network,
                                          const compute::Device& device,
                                          std::uint64_t max_work = kDefaultMaxWork,
                                          Evaluation order = Evaluation::kLevels,
                                          const Progress& progress = {});

// How a message's wait for the other bytes on its busiest resource combines
// with its idle-fabric time: added after it (kAdded, RAMP §7.4.1, every
// estimate's), or overlapping it (kOverlapped: the message takes the larger
// of its idle-fabric time and the busiest resource's time for the others'
// bytes and its own), which on a multi-hop path whose per-hop latency
// dominates (a relayed circuit) does not count the sharing twice.
enum class Waiting { kAdded, kOverlapped };

// The critical path of each of the communicators `comms` (of spec.p members
// each; member m of communicator c is node comms[c][m]) while all of them run
// `spec` at the same time: every one's step-k messages load the resources,
// so a message also waits for the other communicators' bytes on its busiest
// resource. `replay-shapes` prices what the communicators of one shape cost
// each other with it (docs/models.md, "Replayed by shape"). One walk prices
// every communicator of a ring phase (critical_path_work times comms.size()
// member-steps); other schedules take one walk per communicator
// (comms.size() squared times). One communicator: estimate_critical_path.
std::vector<CollectiveEstimate> estimate_concurrent_critical_paths(
    const collective::CollectiveSpec& spec, std::span<const std::vector<std::uint32_t>> comms,
    const fabric::CostModel& network, const compute::Device& device,
    std::uint64_t max_work = kDefaultMaxWork, Waiting waiting = Waiting::kAdded);

// estimate_critical_path (levels) and, where p * steps <= max_work,
// estimate_collective's idle-fabric estimate (levels) beside it, the same
// numbers as the two calls: where the critical path walks level by level one
// walk gives both (the wire steps and prices are most of the work).
struct EstimateWithIdle {
  CollectiveEstimate critical;
  std::optional<CollectiveEstimate> idle;
};
EstimateWithIdle estimate_critical_path_with_idle(const collective::CollectiveSpec& spec,
                                                  const std::vector<std::uint32_t>& members,
                                                  const fabric::CostModel& network,
                                                  const compute::Device& device,
                                                  std::uint64_t max_work = kDefaultMaxWork,
                                                  const Progress& progress = {});

}  // namespace sipsim::analytical
