#include "epochs.hpp"

#include <algorithm>
#include <exception>
#include <span>
#include <string>

#include "messages.hpp"

namespace sipsim::pdes::detail {

Epochs::Epochs(Model& model, Scheduler& s, std::uint64_t seed, int rank, int ranks)
    : model_(model), s_(s), seed_(seed), rank_(rank), ranks_(ranks) {
  try {
    counters_ = model_.epoch_counters();
  } catch (const std::exception& e) {
    s_.fail(std::string("Model::epoch_counters: ") + describe(e));
  }
  local_.resize(counters_ + 1);
  totals_.resize(counters_ + 1);
  advance(0);
}

void Epochs::run(const Sum& sum, const Gather& gather) {
  const Time epoch = next_;
  std::fill(local_.begin(), local_.end(), 0);
  guarded(epoch, [&] { model_.epoch_contribute(epoch, std::span(local_).subspan(1)); });
  local_[0] = s_.failed() ? 1 : 0;
  sum(local_, totals_);
  if (totals_[0] == 0) {
    RandomStream rng(seed_, kEpochStreamLp, static_cast<std::uint32_t>(index_));
    EpochInfo info{epoch, index_, rng, rank_, ranks_};
    const std::span<const std::uint64_t> totals = std::span(totals_).subspan(1);
    // Every rank gathers, whether or not its share failed: none waits alone.
    share_.assign(1, 0);
    guarded(epoch, [&] {
      const std::vector<std::uint64_t> mine = model_.epoch_share(info, totals);
      share_.insert(share_.end(), mine.begin(), mine.end());
    });
    share_[0] = s_.failed() ? 1 : 0;
    gather(share_, shares_);
    const bool shared = std::all_of(shares_.begin(), shares_.end(),
                                    [](const auto& w) { return !w.empty() && w[0] == 0; });
    if (shared) {
      for (auto& w : shares_) w.erase(w.begin());
      info.shares = shares_;
      guarded(epoch, [&] { model_.epoch_plan(info, totals); });
    }
  }
  ++index_;
  advance(epoch);
}

template <class F>
void Epochs::guarded(Time epoch, F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    s_.fail("epoch " + std::to_string(index_) + " at t=" + time_str(epoch) + ": " + describe(e));
  }
}

void Epochs::advance(Time after) {
  next_ = kTimeMax;
  try {
    const Time next = model_.next_epoch(after);
    if (next <= after) {
      s_.fail("Model::next_epoch(" + time_str(after) + ") returned " + time_str(next) +
              ", not a time after it");
      return;
    }
    next_ = next;
  } catch (const std::exception& e) {
    s_.fail("Model::next_epoch(" + time_str(after) + "): " + describe(e));
  }
}

}  // namespace sipsim::pdes::detail
