#pragma once
// One rank's share of a run: its LPs' records, its pending events and the
// events it sends to other ranks; the event loop, and the checks of what a
// model promised (known LPs, lookahead, causality). Both engines drive it
// (sequential.cpp, windowed.cpp); it never communicates itself.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sipsim/pdes/engine.hpp"
#include "sipsim/pdes/event_queue.hpp"
#include "sipsim/pdes/model.hpp"

namespace sipsim::pdes::detail {

// Per-LP bookkeeping the kernel keeps for every local LP.
struct LpRecord {
  std::uint64_t events = 0;
  std::uint64_t digest = 0x243F6A8885A308D3ull;
  std::uint64_t sent = 0;  // next source sequence number
  RandomStream rng;
};

// A model error (an exception, a broken promise) is recorded, not thrown: the
// engine reports it at its next synchronisation, so that no rank is left
// waiting in a collective.
class Scheduler {
 public:
  Scheduler(Model& model, const Partition& partition, int rank, const EngineOptions& options,
            Time lookahead);

  // Every local LP schedules its first events. Remote events sent here are
  // exchanged before any window opens, so they need no lookahead.
  void init_all();

  // Processes local events with time < bound, at most max_events of them.
  // Returns the number processed.
  std::uint64_t process_until(Time bound, std::uint64_t max_events);

  // Context::send: to this rank's queue or to the outbox of the owner's rank.
  void send(LpId dst, Time delay, std::uint32_t kind, const Payload& data, std::uint32_t aux);

  // Records a model error of this rank; the first one wins.
  void fail(std::string message);

  // Events from another rank. None may be earlier than the window this rank
  // has run (the horizon): that would break causality (a model's
  // remote_bound promised too much, or its lookahead).
  void receive(std::span<const Event> events);
  void set_horizon(Time t) { horizon_ = t; }

  // The earliest time at which an event on another rank can follow from this
  // rank's state (Model::remote_floor), its pending events or the ones it is
  // sending (Model::remote_bound), or `cap` if that is earlier.
  Time remote_bound(Time cap);
  // The events sent to each rank since the last exchange, by rank.
  std::vector<std::vector<Event>>& outbox() { return outbox_; }

  Time next_time() const { return queue_.empty() ? kTimeMax : queue_.top().time; }
  bool failed() const { return error_.has_value(); }
  const std::string& error() const { return *error_; }
  std::uint64_t committed() const { return committed_; }
  Time last_time() const { return last_time_; }
  std::uint64_t peak_pending() const { return peak_pending_; }
  std::uint64_t queue_bytes() const { return queue_.capacity_bytes(); }

  // This rank's per-LP counts and digests, and its queue's peak and size.
  void collect(RunResult& result) const;

 private:
  LpRecord& enter(LpId lp, std::uint32_t local_index, Time now);
  // process_until's loop; `n` counts the events run, also when one throws.
  void run_events(Time bound, std::uint64_t max_events, std::uint64_t& n);
  template <class F>
  void guarded(F&& f);

  Model& model_;
  const Partition& partition_;
  int rank_;
  std::span<const LpId> local_;
  Time lookahead_;
  std::vector<LpRecord> lps_;
  EventQueue queue_;
  std::vector<std::vector<Event>> outbox_;
  Context ctx_;
  bool top_free_ = false;
  bool checking_lookahead_ = true;
  Time horizon_ = 0;  // this rank has run every event before it
  std::optional<std::string> error_;
  std::uint64_t committed_ = 0;
  Time last_time_ = 0;
  std::uint64_t peak_pending_ = 0;
};

}  // namespace sipsim::pdes::detail
