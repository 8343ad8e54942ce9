// The event loop, the checks of what a model promised, and a model's view of
// them (Context).
#include "scheduler.hpp"

#include <algorithm>
#include <exception>
#include <utility>

#include "messages.hpp"
#include "window_search.hpp"

namespace sipsim::pdes {
namespace detail {

namespace {

// Order-sensitive mix of an LP's history: equal digests at every rank count
// are strong evidence that each LP saw the same events in the same order.
inline std::uint64_t mix(std::uint64_t h, const Event& e) {
  std::uint64_t x = e.time ^ (((std::uint64_t{e.src} << 32) | e.kind) * 0x9E3779B97F4A7C15ull) ^
                    (e.seq * 0xC2B2AE3D27D4EB4Full);
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return (h ^ x) * 0x94D049BB133111EBull + 0x2545F4914F6CDD1Dull;
}

}  // namespace

Scheduler::Scheduler(Model& model, const Partition& partition, int rank,
                     const EngineOptions& options, Time lookahead)
    : model_(model),
      partition_(partition),
      rank_(rank),
      local_(partition.lps_of(rank)),
      lookahead_(lookahead),
      outbox_(static_cast<std::size_t>(partition.ranks())),
      ctx_(*this) {
  lps_.resize(local_.size());
  for (std::size_t i = 0; i < local_.size(); ++i) {
    lps_[i].rng = RandomStream(options.seed, local_[i]);
  }
}

LpRecord& Scheduler::enter(LpId lp, std::uint32_t local_index, Time now) {
  LpRecord& rec = lps_[local_index];
  ctx_.record_ = &rec;
  ctx_.now_ = now;
  ctx_.self_ = lp;
  ctx_.self_index_ = local_index;
  return rec;
}

// A model that throws must not leave other ranks waiting in a collective:
// the error is recorded and reported at the next synchronisation.
template <class F>
void Scheduler::guarded(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    fail("LP " + std::to_string(ctx_.self_) + " at t=" + time_str(ctx_.now_) + ": " + describe(e));
  }
}

void Scheduler::init_all() {
  checking_lookahead_ = false;
  for (std::size_t i = 0; i < local_.size() && !error_; ++i) {
    enter(local_[i], static_cast<std::uint32_t>(i), 0);
    guarded([&] { model_.init(ctx_); });
  }
  checking_lookahead_ = true;
  peak_pending_ = std::max<std::uint64_t>(peak_pending_, queue_.size());
}

std::uint64_t Scheduler::process_until(Time bound, std::uint64_t max_events) {
  std::uint64_t n = 0;
  guarded([&] { run_events(bound, max_events, n); });
  top_free_ = false;
  committed_ += n;
  if (queue_.size() > peak_pending_) peak_pending_ = queue_.size();
  return n;
}

// Not inlined into guarded(): there GCC 12 keeps `this` on the stack, which
// costs ~12 instructions more per event (callgrind, PHOLD 4K).
[[gnu::noinline]] void Scheduler::run_events(Time bound, std::uint64_t max_events,
                                             std::uint64_t& n) {
  while (n < max_events && !error_ && !queue_.empty() && queue_.top().time < bound) {
    const Event ev = queue_.top();
    // The next event is one of these: warm their LPs' records now, or
    // each event waits for a cache miss once the LPs outgrow the caches.
    // (A loop, not a lambda: GCC 12 drops prefetches in lambdas it finds pure.)
    for (const Event& next : queue_.next_candidates()) {
      const auto* rec = reinterpret_cast<const char*>(&lps_[partition_.local_index(next.dst)]);
      __builtin_prefetch(rec);
      __builtin_prefetch(rec + sizeof(LpRecord) - 1);
    }
    top_free_ = true;
    const std::uint32_t li = partition_.local_index(ev.dst);
    LpRecord& rec = enter(ev.dst, li, ev.time);
    ++rec.events;
    rec.digest = mix(rec.digest, ev);
    last_time_ = ev.time;
    model_.handle(ev, ctx_);
    if (top_free_) queue_.pop();
    top_free_ = false;
    ++n;
  }
}

void Scheduler::send(LpId dst, Time delay, std::uint32_t kind, const Payload& data,
                     std::uint32_t aux) {
  if (error_) return;
  const LpId src = ctx_.self_;
  const Time now = ctx_.now_;
  if (dst >= partition_.lp_count()) {
    fail("LP " + std::to_string(src) + " at t=" + time_str(now) + " sent an event to LP " +
         std::to_string(dst) + ", but the model has only " + std::to_string(partition_.lp_count()) +
         " LPs");
    return;
  }
  if (delay > kTimeMax - now) {
    fail("LP " + std::to_string(src) + " at t=" + time_str(now) +
         " scheduled an event beyond the end of simulated time");
    return;
  }
  const Event ev{now + delay, dst, src, ctx_.record_->sent++, kind, aux, data};
  const int owner = partition_.owner(dst);
  if (owner == rank_) {
    if (top_free_) {
      queue_.replace_top(ev);
      top_free_ = false;
    } else {
      queue_.push(ev);
    }
    return;
  }
  if (checking_lookahead_ && delay < lookahead_) {
    fail("lookahead violation: LP " + std::to_string(src) + " (rank " + std::to_string(rank_) +
         ") at t=" + time_str(now) + " sent an event to LP " + std::to_string(dst) + " (rank " +
         std::to_string(owner) + ") for t=" + time_str(ev.time) +
         ", earlier than now + lookahead = " + time_str(now + lookahead_) +
         "; the model's lookahead promise is wrong");
    return;
  }
  // The other ranks run this window up to the horizon: an event before it
  // would reach a rank that has already run past it (remote_bound promised
  // too much). Caught here, at its source, whether or not it would have
  // arrived too late.
  if (checking_lookahead_ && ev.time < horizon_) {
    fail("causality violation: LP " + std::to_string(src) + " (rank " + std::to_string(rank_) +
         ") at t=" + time_str(now) + " sent an event to LP " + std::to_string(dst) + " (rank " +
         std::to_string(owner) + ") for t=" + time_str(ev.time) +
         ", before the end of the window every rank runs, " + time_str(horizon_) +
         "; the model's remote_bound or remote_floor promise is wrong");
    return;
  }
  outbox_[static_cast<std::size_t>(owner)].push_back(ev);
}

void Scheduler::fail(std::string message) {
  if (!error_) error_ = std::move(message);
}

void Scheduler::receive(std::span<const Event> events) {
  const bool in_time = std::all_of(events.begin(), events.end(),
                                   [this](const Event& ev) { return ev.time >= horizon_; });
  if (in_time) {
    queue_.push_all(events);
    return;
  }
  for (const Event& ev : events) {
    if (ev.time < horizon_) {
      fail("causality violation: LP " + std::to_string(ev.src) + " sent an event to LP " +
           std::to_string(ev.dst) + " (rank " + std::to_string(rank_) +
           ") for t=" + time_str(ev.time) + ", but that rank had run to " + time_str(horizon_) +
           "; the model's remote_bound or lookahead promise is wrong");
      continue;
    }
    queue_.push(ev);
  }
}

// Visits only the pending events early enough to matter: every bound is at
// least the event's time plus the lookahead. Of the events being sent, the
// model is asked about the first kOutboxEventsAsked (window_search.hpp).
// Every event this rank will receive or run is at or after the horizon, and
// anything it sends to another rank at least a lookahead after it runs.
Time Scheduler::remote_bound(Time cap) {
  Time best =
      std::min(cap, std::max(model_.remote_floor(horizon_), saturating_add(horizon_, lookahead_)));
  const auto see = [&](const Event& e) {
    best = std::min(best, std::max(model_.remote_bound(e), saturating_add(e.time, lookahead_)));
  };
  std::size_t asked = 0;
  for (const auto& box : outbox_) {
    for (const Event& e : box) {
      if (asked++ < kOutboxEventsAsked) {
        see(e);
      } else {
        best = std::min(best, saturating_add(e.time, lookahead_));
      }
    }
  }
  if (queue_.empty()) return best;
  see(queue_.top());
  if (best > lookahead_) queue_.for_each_before(best - lookahead_, see);
  return best;
}

void Scheduler::collect(RunResult& result) const {
  result.lp_events.resize(lps_.size());
  result.lp_digest.resize(lps_.size());
  for (std::size_t i = 0; i < lps_.size(); ++i) {
    result.lp_events[i] = lps_[i].events;
    result.lp_digest[i] = lps_[i].digest;
  }
  result.peak_pending = peak_pending_;
  result.queue_bytes = queue_.capacity_bytes();
}

}  // namespace detail

RandomStream& Context::rng() {
  return record_->rng;
}

void Context::send(LpId dst, Time delay, std::uint32_t kind, const Payload& data,
                   std::uint32_t aux) {
  scheduler_->send(dst, delay, kind, data, aux);
}

}  // namespace sipsim::pdes
