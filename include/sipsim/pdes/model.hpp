#pragma once
// What a simulation model gives the kernel, and what the kernel gives a model
// while it handles an event. pdes/ knows nothing about networks or training.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sipsim/pdes/event.hpp"
#include "sipsim/pdes/partition.hpp"
#include "sipsim/pdes/partitioners/blocks.hpp"
#include "sipsim/pdes/random.hpp"

namespace sipsim::pdes {

namespace detail {
class Scheduler;
struct LpRecord;
}  // namespace detail

using Payload = std::array<std::uint64_t, 4>;

// The planner's random stream at epoch k is RandomStream(seed, kEpochStreamLp,
// k mod 2^32): a reserved LP id that no LP has (ids are below lp_count() <=
// 2^32 - 1), so its draws are the same on every rank and independent of every
// LP's stream.
inline constexpr LpId kEpochStreamLp = 0xFFFFFFFF;

// Handed to Model::epoch_share and Model::epoch_plan; valid only during that call.
struct EpochInfo {
  Time time;            // the epoch: every event before it has run, none at or after it
  std::uint64_t index;  // 0, 1, ... in the order the run reaches epochs
  RandomStream& rng;    // keyed by (seed, kEpochStreamLp, index): identical on every rank
  int rank = 0;         // this rank, of `ranks`
  int ranks = 1;
  // In epoch_plan: every rank's epoch_share, in rank order (empty in epoch_share).
  std::span<const std::vector<std::uint64_t>> shares = {};
};

// Handed to Model::init and Model::handle; valid only during that call.
class Context {
 public:
  Time now() const { return now_; }
  LpId self() const { return self_; }
  // Index of self() among this rank's LPs (Partition::local_index).
  std::uint32_t self_index() const { return self_index_; }
  // The LP's own random stream, keyed by (seed, self()).
  RandomStream& rng();

  // Schedules an event at now() + delay on `dst`. A remote `dst` needs
  // delay >= the lookahead the model promised; the engine stops the run with
  // an error naming both LPs and times otherwise.
  void send(LpId dst, Time delay, std::uint32_t kind, const Payload& data = {},
            std::uint32_t aux = 0);
  template <class T>
  void send_payload(LpId dst, Time delay, std::uint32_t kind, const T& value,
                    std::uint32_t aux = 0) {
    Event tmp{};
    tmp.set_payload(value);
    send(dst, delay, kind, tmp.data, aux);
  }

 private:
  friend class detail::Scheduler;
  explicit Context(detail::Scheduler& scheduler) : scheduler_(&scheduler) {}
  detail::Scheduler* scheduler_;
  detail::LpRecord* record_ = nullptr;
  Time now_ = 0;
  LpId self_ = 0;
  std::uint32_t self_index_ = 0;
};

class Model {
 public:
  virtual ~Model() = default;

  virtual std::uint32_t lp_count() const = 0;
  // Which rank runs which LP; models that know their locality override this so
  // that the links the partition cuts are the slow ones.
  virtual Partition partition(int ranks) const { return partitioners::blocks(lp_count(), ranks); }
  // The smallest latency of any link between LPs that `partition` places on
  // different ranks: the width of the conservative window.
  virtual Time lookahead(const Partition& partition) const = 0;
  // Once per rank before init(): allocate the state of this rank's LPs.
  virtual void setup(const Partition& /*partition*/, int /*rank*/) {}
  // Once per local LP (ctx.self()) at time 0: schedule its first events.
  virtual void init(Context& ctx) = 0;
  virtual void handle(const Event& event, Context& ctx) = 0;

  // Progress (rank 0's progress line): the model's work in units of its
  // choice (e.g. ops of the nodes' programs), the same total on every rank,
  // and how many of them this rank's LPs have done. 0: no estimate (the
  // engine then reports progress against simulation.end_time, if set).
  virtual std::uint64_t progress_total() const { return 0; }
  virtual std::uint64_t progress_done() const { return 0; }

  // Epochs (docs/architecture.md), for a global controller such as a wavelength
  // planner, a circuit allocator or a fault schedule. At an epoch every event
  // before it has run on every rank and none at or after it; each rank then
  // contributes counters, the engine sums them exactly over the ranks, and
  // every rank runs epoch_plan on the same totals; then the run goes on.
  // Windows never straddle an epoch. An epoch is run only if some event at or
  // after it is committed (not after the last event, not at or after
  // end_time). The defaults declare no epochs and cost nothing per event.
  //
  // The first epoch strictly after `after` (kTimeMax: none); the engine starts
  // from next_epoch(0), so the plan before the first epoch is set in setup().
  // Every rank must give the same answer: a function of `after` and the
  // configuration only.
  virtual Time next_epoch(Time /*after*/) const { return kTimeMax; }
  // How many counters each rank contributes; fixed for the run, equal on
  // every rank.
  virtual std::size_t epoch_counters() const { return 0; }
  // This rank's counters (zeroed by the engine), e.g. the traffic its LPs saw
  // since the last epoch. Summed over the ranks modulo 2^64, so the totals do
  // not depend on the partition.
  virtual void epoch_contribute(Time /*epoch*/, std::span<std::uint64_t> /*counters*/) {}
  // Runs on every rank with the same totals and random stream, so every rank
  // computes the same plan. A planner cannot send events: its plan takes
  // effect through model state, after the fabric's reconfiguration delay,
  // which is what keeps the lookahead positive. An exception stops the run
  // on every rank like any model error, naming the epoch.
  virtual void epoch_plan(const EpochInfo& /*info*/, std::span<const std::uint64_t> /*totals*/) {}
  // Planning split over the ranks, optional: called on every rank before
  // epoch_plan, with the same totals, for this rank's share of the work
  // (info.rank of info.ranks; info.rng is epoch_plan's, not to be drawn
  // from here). The engine gathers the shares, and epoch_plan finds them all
  // in info.shares. The plan must not depend on how the work was split; on
  // one rank, the one share is all of it. The default shares nothing.
  virtual std::vector<std::uint64_t> epoch_share(const EpochInfo& /*info*/,
                                                 std::span<const std::uint64_t> /*totals*/) {
    return {};
  }

  // Wider windows (the windowed engine). A window may run up to the earliest
  // time any pending event can put an event on another rank, not just the
  // next event plus the lookahead. A model that knows where its events lead
  // (a chunk on its way to a node of the same rank, a node several links away
  // from the cut) says so: remote_bound(e), called after setup() on any
  // pending or in-flight event of any rank, is a lower bound on the time of
  // every event on a rank other than e.dst's that e can lead to; it must be
  // at least e.time + lookahead. The engine checks every received event
  // against the window it promised (an error naming both LPs otherwise).
  virtual bool bounds_remote_events() const { return false; }
  virtual Time remote_bound(const Event& e) const { return e.time; }
  // The part of the bound that lies in the LPs' state rather than in their
  // pending events (a node computing for milliseconds sends nothing before it
  // is done, whatever its pending events): a lower bound on the time of every
  // event on another rank that this rank's LPs can send from their present
  // state, whatever events at or after `from` they are yet to receive. Then
  // remote_bound(e) need only cover what e leads to outside that state (a
  // message's way through the fabric). Called after setup() by the windowed
  // engine, once per rank and window, with `from` the window's start or
  // later. The default leaves it all to remote_bound(e).
  virtual Time remote_floor(Time /*from*/) { return kTimeMax; }
  // Checks every bound the model derives (the debug mode of `sipsim run
  // --check-bounds`): the model then verifies, as it runs, that what its
  // state did respects what remote_floor promised, and throws otherwise.
  virtual void check_bounds(bool /*on*/) {}
};

}  // namespace sipsim::pdes
