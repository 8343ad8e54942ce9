#pragma once
// The estimators' walks over every member's schedule, shared by
// estimate_collective and estimate_critical_path (collective_estimate.cpp):
// member by member (longest_path) or level by level (level_path).
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/analytical/step_load.hpp"
#include "sipsim/collective/schedule.hpp"

namespace sipsim::analytical::detail {

// Message k of member m's steps, priced with its step's load, or none.
using Waits = std::vector<std::vector<Priced>>;  // [member][message of any step, in order]
// Counts member-steps evaluated and calls the caller's Progress every
// kProgressEvery of them.
class Ticker {
 public:
  Ticker(const Progress& progress, std::uint64_t total) : progress_(progress), total_(total) {}
  void add(std::uint64_t member_steps) {
    done_ += member_steps;
    if (progress_ && done_ >= next_) {
      next_ = done_ + kProgressEvery;
      progress_(done_, total_);
    }
  }

 private:
  const Progress& progress_;
  std::uint64_t total_, done_ = 0, next_ = kProgressEvery;
};

// The prices, waits included, of one level's messages (every member's out
// messages of the level's step, member by member, in order), given every
// member's wire step at that level (empty past a member's last step).
using LevelPrices = std::function<void(
    std::uint32_t level, const std::vector<collective::WireStep>&, std::vector<Priced>&)>;

// The wire steps of every member at step i (empty past a member's last step).
void fill_wire(const std::vector<collective::Schedule>& schedules, std::uint32_t i,
               std::vector<collective::WireStep>& wire);

// Member by member: a member runs until a receive is missing, and resumes when
// its sender gets there (any schedule that does not deadlock). With `waits`,
// each message's wait comes from there.
CollectiveEstimate longest_path(const collective::CollectiveSpec& spec,
                                const std::vector<std::uint32_t>& members,
                                const fabric::CostModel& network, const compute::Device& device,
                                const std::vector<collective::Schedule>& schedules,
                                const Waits* waits, Ticker& ticker);

// Level by level: every member's step i before any member's step i + 1; empty
// when a receive comes before its send's step (then longest_path applies).
// With `idle` (and `prices`), the idle-fabric estimate from the same walk.
std::optional<CollectiveEstimate> level_path(const collective::CollectiveSpec& spec,
                                             const std::vector<std::uint32_t>& members,
                                             const fabric::CostModel& network,
                                             const compute::Device& device,
                                             const std::vector<collective::Schedule>& schedules,
                                             const std::vector<collective::Schedule::Run>* runs,
                                             const LevelPrices* prices, Ticker& ticker,
                                             CollectiveEstimate* idle = nullptr);

}  // namespace sipsim::analytical::detail
