#pragma once
// The model's epochs (docs/architecture.md): where the next one is, and running it.
// Both engines run them at the same times; only how the ranks' counters are
// summed differs (an allreduce, or this rank's own).
#include <cstdint>
#include <functional>
#include <vector>

#include "scheduler.hpp"
#include "sipsim/pdes/model.hpp"

namespace sipsim::pdes::detail {

// Every call into the model is guarded: an exception becomes a model error of
// this rank, which the engine reports at its next check like any other.
class Epochs {
 public:
  Epochs(Model& model, Scheduler& s, std::uint64_t seed, int rank, int ranks);

  Time next() const { return next_; }
  std::uint64_t count() const { return index_; }
  std::size_t counters() const { return counters_; }

  // Adds up the ranks' words of `local` into `totals` (same size) exactly.
  using Sum = std::function<void(const std::vector<std::uint64_t>& local,
                                 std::vector<std::uint64_t>& totals)>;
  // Gives every rank's `mine`, in rank order, in `all`.
  using Gather = std::function<void(const std::vector<std::uint64_t>& mine,
                                    std::vector<std::vector<std::uint64_t>>& all)>;
  // Runs the epoch at next(), then moves to the one after it. Word 0 of the
  // sum counts the ranks whose contribution failed, and then no rank runs
  // the planner; so does word 0 of each gathered share, for a share that failed.
  void run(const Sum& sum, const Gather& gather);

 private:
  template <class F>
  void guarded(Time epoch, F&& f);
  void advance(Time after);

  Model& model_;
  Scheduler& s_;
  std::uint64_t seed_;
  int rank_, ranks_;
  std::size_t counters_ = 0;
  Time next_ = kTimeMax;
  std::uint64_t index_ = 0;
  std::vector<std::uint64_t> local_, totals_, share_;
  std::vector<std::vector<std::uint64_t>> shares_;
};

}  // namespace sipsim::pdes::detail
