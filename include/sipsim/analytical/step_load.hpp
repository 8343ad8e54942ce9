#pragma once
// The critical-path estimator's view of one step (RAMP §7.4.1): every
// member's messages of the step, their idle-fabric prices, and the bytes they
// put on each resource they cross, by resource or, where the fabric describes
// paths as runs (CostModel::quote_runs), by run (RunLoads). Internal to
// analytical/ (collective_estimate.cpp).
#include <algorithm>
#include <cstdint>
#include <span>
#include <unordered_set>
#include <vector>

#include "sipsim/analytical/run_loads.hpp"
#include "sipsim/collective/schedule.hpp"
#include "sipsim/fabric/cost_model.hpp"

namespace sipsim::analytical::detail {

// What a message costs: its idle-fabric times (one CostModel::quote), its
// data-transfer time (collective::transfer_ps) and its wait for its step's load.
struct Priced {
  pdes::Time wait = 0, injection = 0, uncongested = 0, transfer = 0;
};
// serialization_ps of a message's bytes at its path's rate, remembered for the
// last size and rate: a step's messages mostly share both.
pdes::Time transfer_of(std::uint64_t bytes, std::uint64_t rate_bps);
// A message's idle-fabric price (one CostModel::quote; its resources appended
// to `resources` when given), without a wait.
Priced price(const fabric::CostModel& network, std::uint32_t a, std::uint32_t b,
             std::uint64_t bytes, std::vector<fabric::CostModel::Resource>* resources = nullptr);

// The longest of serialization_ps(bytes_k, rate_k) over a path's resources,
// with one division per run of equal rates (serialization_ps grows with the
// bytes): a long route's links mostly share one rate.
class WorstWait {
 public:
  void add(std::uint64_t bytes, std::uint64_t rate_bps) {
    if (rate_bps != rate_) {
      flush();
      rate_ = rate_bps;
    }
    bytes_ = std::max(bytes_, bytes);
  }
  pdes::Time ps() {
    flush();
    return wait_;
  }

 private:
  void flush() {
    if (bytes_ > 0) wait_ = std::max(wait_, transfer_of(bytes_, rate_));
    bytes_ = 0;
  }
  std::uint64_t rate_ = 0, bytes_ = 0;
  pdes::Time wait_ = 0;
};

struct Msg {
  std::uint32_t from, to;  // group members
  std::uint64_t bytes;
  std::uint32_t res_begin, res_end;
  Priced price;  // without the wait
};

// A multicast's resources, charged once. Emptied id by id: clearing the set
// costs its (grown) bucket array, for every member.
struct Charged {
  std::unordered_set<std::uint32_t> set;
  std::vector<std::uint32_t> ids;
  void clear() {
    for (const std::uint32_t id : ids) set.erase(id);
    ids.clear();
  }
  bool insert(std::uint32_t id) {
    if (!set.insert(id).second) return false;
    ids.push_back(id);
    return true;
  }
};

// The loads of one step's messages: per resource (`load`, ids listed in
// `touched`), or, where the fabric describes paths as runs and no member
// multicasts, per run (`run_loads`); each message's resources or runs are
// [res_begin, res_end) of `res` or `runs`.
struct StepLoad {
  explicit StepLoad(const fabric::CostModel& network)
      : load(network.resource_count()), run_loads(network.run_space()) {}
  std::vector<Msg> msgs;
  std::vector<fabric::CostModel::Resource> res;
  std::vector<fabric::CostModel::PathRun> runs;
  bool by_runs = false;
  // Per resource: the step's bytes, and (the critical-path estimator's) one
  // member's own bytes beside them, so that reading both is one cache miss.
  struct Load {
    std::uint64_t total = 0, own = 0;
  };
  std::vector<Load> load;
  std::vector<std::uint32_t> touched;
  Charged charged;
  RunLoads run_loads;
  void unload() {
    for (std::uint32_t id : touched) load[id].total = 0;
    touched.clear();
    run_loads.clear();
  }
};

// Resources ahead whose load a walk over a step's resources fetches early.
inline constexpr std::uint32_t kLoadsAhead = 16;
inline void prefetch_load(const StepLoad& step, std::uint32_t id) {
  __builtin_prefetch(&step.load[id]);
}

// Calls f(position) for each position of a run, in order.
template <class F>
void for_each_position(const fabric::CostModel::PathRun& r, F&& f) {
  for (std::uint32_t k = 0, pos = r.first; k < r.length; ++k, ++pos) {
    if (pos == r.size) pos = 0;
    f(r.base + pos);
  }
}

// Loads `step` with the messages of every member's wire step `wire` (one step
// index), by runs where it can (the same loads: each run's positions are its
// resources, and a multicast, whose resources are charged once, goes by
// resource).
void load_step(const std::vector<collective::WireStep>& wire,
               const std::vector<std::uint32_t>& members, const fabric::CostModel& network,
               StepLoad& step);
// The same for communicators of one size running `wire` at once (member m of
// communicator c at comms[c][m]): all of them load the resources, and with
// `price_first` the first one's messages are in `step.msgs`.
void load_step(const std::vector<collective::WireStep>& wire,
               std::span<const std::vector<std::uint32_t>> comms, bool price_first,
               const fabric::CostModel& network, StepLoad& step);
// In two phases, for many communicators, whose paths together would not fit
// in memory: load_all charges every communicator's messages (by runs where
// every pair has them, `step.by_runs`) and keeps none; price_one then puts
// one communicator's messages, with their runs or resources, in
// `step.msgs` (members numbered 0..p-1), priced but not charged again.
void load_all(const std::vector<collective::WireStep>& wire,
              std::span<const std::vector<std::uint32_t>> comms, const fabric::CostModel& network,
              StepLoad& step);
void price_one(const std::vector<collective::WireStep>& wire,
               const std::vector<std::uint32_t>& nodes, const fabric::CostModel& network,
               StepLoad& step);

}  // namespace sipsim::analytical::detail
