#include "epochs.hpp"

#include <algorithm>
#include <exception>
#include <span>
#include <string>

#include "messages.hpp"

namespace sipsim::pdes::detail {

Epochs::Epochs(Model& model, Scheduler& s, std::uint64_t seed) : model_(model), s_(s), seed_(seed) {
  try {
    counters_ = model_.epoch_counters();
  } catch (const std::exception& e) {
    s_.fail(std::string("Model::epoch_counters: ") + describe(e));
  }
  local_.resize(counters_ + 1);
  totals_.resize(counters_ + 1);
  advance(0);
}

void Epochs::run(const Sum& sum) {
  const Time epoch = next_;
  std::fill(local_.begin(), local_.end(), 0);
  guarded(epoch, [&] { model_.epoch_contribute(epoch, std::span(local_).subspan(1)); });
  local_[0] = s_.failed() ? 1 : 0;
  sum(local_, totals_);
  if (totals_[0] == 0) {
    RandomStream rng(seed_, kEpochStreamLp, static_cast<std::uint32_t>(index_));
    const EpochInfo info{epoch, index_, rng};
    guarded(epoch,
            [&] { model_.epoch_plan(info, std::span<const std::uint64_t>(totals_).subspan(1)); });
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
