// The estimators' two walks over every member's schedule (longest_path,
// level_path): the max-plus dataflow of src/analytical/collective_estimate.cpp.
#include "collective_walks.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "sipsim/analytical/run_loads.hpp"
#include "sipsim/analytical/step_load.hpp"
#include "sipsim/base/fifo.hpp"
#include "sipsim/collective/step_cost.hpp"

namespace sipsim::analytical::detail {

namespace {

struct Member {
  std::uint32_t step = 0;
  pdes::Time step_start = 0;
  pdes::Time lock_t = 0;  // lock-step: when the current step started
  pdes::Time sends_done = 0;
  pdes::Time recv_max = 0;
  std::uint32_t waiting = 0;
  pdes::Time compute = 0, h2t = 0;
  pdes::Time step_local = 0, step_h2t = 0;
  bool done = false;
  std::unordered_map<std::uint32_t, std::uint32_t> need;  // peer -> messages still missing
};

// The member that ends last (the lowest index among equals) defines the
// breakdown, as in the simulator's records; h2h is the rest of its time.
template <class MemberState>
void take_breakdown_of_last(const std::vector<MemberState>& state, CollectiveEstimate& est) {
  for (std::size_t m = 0; m < state.size(); ++m) {
    if (m == 0 || state[m].step_start > est.total) {
      est.total = state[m].step_start;
      est.compute = state[m].compute;
      est.h2t = state[m].h2t;
    }
  }
  const pdes::Time busy = est.compute + est.h2t;
  est.h2h = est.total > busy ? est.total - busy : 0;
}

}  // namespace

// Member by member: a member runs until a receive is missing, and resumes when
// its sender gets there (any schedule that does not deadlock).
CollectiveEstimate longest_path(const collective::CollectiveSpec& spec,
                                const std::vector<std::uint32_t>& members,
                                const fabric::CostModel& network, const compute::Device& device,
                                const std::vector<collective::Schedule>& schedules,
                                const Waits* waits, Ticker& ticker) {
  const std::uint32_t p = spec.p;
  std::vector<std::size_t> sent(p, 0);  // messages member m has sent so far (index into waits)
  std::vector<Member> state(p);
  // Messages sent but not yet consumed, per (src, dst) pair in order: arrival
  // time, bytes and transfer_ps (the receiver's for the same bytes).
  struct InFlight {
    pdes::Time at;
    std::uint64_t bytes;
    pdes::Time transfer;
  };
  std::unordered_map<std::uint64_t, base::Fifo<InFlight>> inflight;
  CollectiveEstimate est;

  std::vector<std::uint32_t> ready(p);
  for (std::uint32_t m = 0; m < p; ++m) ready[m] = p - 1 - m;  // pop_back runs member 0 first

  // The executor's step rules (collective/step_cost.hpp).
  const std::vector<pdes::Time> rounds =
      collective::lockstep_rounds(spec, members, network, device);
  auto finish_step = [&](Member& s) {
    const pdes::Time end = collective::step_end(std::max(s.sends_done, s.recv_max), s.step_local,
                                                s.lock_t, rounds, s.step);
    s.compute += s.step_local;
    s.h2t += s.step_h2t;
    s.step_start = end;
    s.lock_t = end;
    ++s.step;
    ticker.add(1);
  };

  // Sends leave one after another through one injection port, or all at once
  // (CostModel::concurrent_sends: RAMP's transceivers, a routed fabric's links).
  const bool together = network.concurrent_sends();
  while (!ready.empty()) {
    const std::uint32_t m = ready.back();
    ready.pop_back();
    Member& s = state[m];
    const collective::Schedule& sched = schedules[m];
    while (s.step < sched.steps()) {
      const collective::WireStep step = collective::wire_step(sched, s.step);
      pdes::Time tx = s.step_start;
      pdes::Time sends_done = s.step_start;
      collective::StepTransfer transfer(together);
      for (const collective::WireMessage& snd : step.out) {
        const Priced q = waits ? (*waits)[m][sent[m]++]
                               : price(network, members[m], members[snd.peer], snd.bytes);
        const pdes::Time wait = q.wait;
        const pdes::Time start = together ? s.step_start : tx;
        const pdes::Time arrival = start + q.uncongested + wait;
        sends_done = std::max(sends_done, start + q.injection + wait);
        tx = sends_done;
        transfer.send(q.transfer + wait);
        ++est.messages;
        const std::uint64_t key = (std::uint64_t{m} << 32) | snd.peer;
        Member& peer = state[snd.peer];
        auto it = peer.need.find(m);
        if (it != peer.need.end()) {  // the peer is blocked on this very message
          peer.recv_max = std::max(peer.recv_max, arrival);
          if (--it->second == 0) peer.need.erase(it);
          if (--peer.waiting == 0) {
            finish_step(peer);
            ready.push_back(snd.peer);
          }
        } else {
          inflight[key].push_back({arrival, snd.bytes, q.transfer});
        }
      }
      s.sends_done = sends_done;
      s.recv_max = 0;
      s.waiting = 0;
      for (const collective::WireMessage& r : step.in) {
        auto it = inflight.find((std::uint64_t{r.peer} << 32) | m);
        if (it != inflight.end() && !it->second.empty()) {
          const InFlight& f = it->second.front();
          s.recv_max = std::max(s.recv_max, f.at);
          transfer.receive(f.bytes == r.bytes ? f.transfer
                                              : collective::transfer_ps(network, members[r.peer],
                                                                        members[m], r.bytes));
          it->second.pop_front();
          if (it->second.empty()) inflight.erase(it);
        } else {
          transfer.receive(collective::transfer_ps(network, members[r.peer], members[m], r.bytes));
          ++s.need[r.peer];
          ++s.waiting;
        }
      }
      s.step_local = collective::local_ps(step, device);
      s.step_h2t = transfer.h2t();
      if (s.waiting > 0) break;  // resumed when the missing messages are sent
      finish_step(s);
    }
    if (s.step == sched.steps() && !s.done) {
      s.done = true;
      // In lock-step a member that finished early still ends with the others.
      s.step_start += collective::remaining_rounds(rounds, s.step);
    }
  }
  for (std::uint32_t m = 0; m < p; ++m) {
    if (!state[m].done) throw std::logic_error("collective estimate: schedule deadlocks");
    est.steps = std::max(est.steps, schedules[m].steps());
  }
  take_breakdown_of_last(state, est);
  return est;
}

// The wire steps of every member at step i (empty past a member's last step).
void fill_wire(const std::vector<collective::Schedule>& schedules, std::uint32_t i,
               std::vector<collective::WireStep>& wire) {
  for (std::uint32_t m = 0; m < schedules.size(); ++m) {
    if (i < schedules[m].steps()) {
      collective::wire_step_into(schedules[m], i, wire[m]);
    } else {
      wire[m].clear();
    }
  }
}

namespace {

// level_path's lanes: one estimate's member states each (at most two: the
// waits' and the idle fabric's).
constexpr std::size_t kLanes = 2;
using LaneTimes = std::array<pdes::Time, kLanes>;

struct LevelState {
  pdes::Time step_start = 0, lock_t = 0, sends_done = 0, compute = 0, h2t = 0;
};

// A message in flight, with its arrival in each lane (the lanes' messages
// are the same, matched alike; only their times differ).
struct Arrival {
  std::uint32_t from;
  LaneTimes at;
  std::uint64_t bytes;
  pdes::Time transfer;  // transfer_ps of these bytes (the receiver's is the same)
};

// One estimate's member states; `waits`: whether its messages wait (the
// prices' waits) or not (the idle fabric).
struct Lane {
  Lane(std::uint32_t n, bool together, bool with_waits)
      : waits(with_waits),
        state(n),
        transfer(n, collective::StepTransfer(together)),
        slot_at(n),
        sent(n) {}
  bool waits;
  std::vector<LevelState> state;
  std::vector<collective::StepTransfer> transfer;
  std::vector<std::pair<pdes::Time, pdes::Time>> slot_at;  // arrival, transfer
  std::vector<pdes::Time> sent;
  CollectiveEstimate est;
};

std::vector<Lane> make_lanes(std::uint32_t p, bool together, bool idle_lane) {
  std::vector<Lane> lanes;
  lanes.emplace_back(p, together, true);
  if (idle_lane) lanes.emplace_back(p, together, false);
  return lanes;
}

// level_path's walk: what it keeps between levels (one level of wire steps
// and prices, short per-member inboxes, the lanes' member states) and the
// parts of one level. Its loops keep p and the lane count in locals: the
// members' stores of times and indices could otherwise alias them.
class LevelWalk {
 public:
  LevelWalk(const collective::CollectiveSpec& spec, const std::vector<std::uint32_t>& members,
            const fabric::CostModel& network, const compute::Device& device,
            const std::vector<collective::Schedule>& schedules, bool priced, bool idle_lane);

  std::uint32_t steps() const { return steps_; }
  // Whether some member's last step is the one before level i.
  bool ends_at(std::uint32_t i) const { return ends_[i] != 0; }
  void read_level(std::uint32_t i);
  void check_exchange(std::uint32_t i);
  // The prices, waits included, of level i's messages, from its wire steps.
  void price_level(std::uint32_t i, const LevelPrices& prices) { prices(i, wire_, level_prices_); }
  std::optional<std::uint64_t> walk_level(std::uint32_t i);
  CollectiveEstimate finish(CollectiveEstimate* idle);

 private:
  std::uint64_t walk_exchange(std::uint32_t i);
  std::uint64_t send_level(std::uint32_t i, bool by_slot);
  bool receive_level(std::uint32_t i, bool by_slot);
  bool match_inbox(std::uint32_t m, LaneTimes& recv_max);
  void receive(std::uint32_t m, const Arrival& a, const collective::WireMessage& r,
               LaneTimes& recv_max);
  void end_step(std::uint32_t m, std::uint32_t i, const LaneTimes& recv_max);

  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  const std::vector<std::uint32_t>& members_;
  const fabric::CostModel& network_;
  const compute::Device& device_;
  const std::vector<collective::Schedule>& schedules_;
  const std::uint32_t p_;
  const bool together_;  // a member's sends of a step start at once (CostModel::concurrent_sends)
  const bool priced_;    // level prices come from price_level, not read_level
  std::vector<Lane> lanes_;
  const std::size_t nl_;
  std::vector<std::vector<Arrival>> inbox_;  // sent to the member, not yet received, in order
  std::uint64_t pending_ = 0;                // arrivals in the inboxes
  // A level where every member sends one message and receives the one sent to
  // it (a ring's step), with nothing left over from earlier levels, passes
  // each arrival in `slot_` (by receiver) instead of the inboxes.
  std::vector<Arrival> slot_;
  std::vector<std::uint32_t> head_, next_;  // per sender, its first unmatched arrival
  std::vector<char> used_;
  std::vector<collective::WireStep> wire_;
  std::vector<Priced> level_prices_;
  std::vector<pdes::Time> local_;
  // Each member's step count, contiguous: read twice per member and level, it
  // is a cache miss per member in the schedules themselves.
  std::vector<std::uint32_t> own_steps_;
  std::uint32_t steps_ = 0;
  std::vector<pdes::Time> rounds_;
  // Each member's messages at the level (its wire step's, and out_at/in_at:
  // the counts before it), and per level, whether the level is one exchange.
  std::vector<std::uint32_t> out_at_, in_at_;
  std::vector<const collective::WireMessage*> out_p_, in_p_;
  bool exchange_ = false, same_bytes_ = false;
  std::vector<std::uint32_t> dest_;  // in an exchange, whom each member sends to
  std::vector<char> ends_;           // some member's last step is the one before
};

LevelWalk::LevelWalk(const collective::CollectiveSpec& spec,
                     const std::vector<std::uint32_t>& members, const fabric::CostModel& network,
                     const compute::Device& device,
                     const std::vector<collective::Schedule>& schedules, bool priced,
                     bool idle_lane)
    : members_(members),
      network_(network),
      device_(device),
      schedules_(schedules),
      p_(spec.p),
      together_(network.concurrent_sends()),
      priced_(priced),
      lanes_(make_lanes(p_, together_, idle_lane)),
      nl_(lanes_.size()),
      inbox_(p_),
      slot_(p_),
      head_(p_, kNone),
      wire_(p_),
      local_(p_),
      own_steps_(p_),
      rounds_(collective::lockstep_rounds(spec, members, network, device)),
      out_at_(p_ + 1, 0),
      in_at_(p_ + 1, 0),
      out_p_(p_),
      in_p_(p_),
      dest_(p_) {
  for (std::uint32_t m = 0; m < p_; ++m) own_steps_[m] = schedules[m].steps();
  steps_ = p_ > 0 ? *std::max_element(own_steps_.begin(), own_steps_.end()) : 0;
  ends_.assign(steps_ + 1, 0);
  for (std::uint32_t m = 0; m < p_; ++m) ends_[own_steps_[m]] = 1;
}

// Every member's wire step at level i (empty past its last step), its local
// operation and message counts, each read (and, without price_level, its
// messages priced) while it is in cache: at 65,536 members a level's wire
// steps and schedules are far larger than the caches.
void LevelWalk::read_level(std::uint32_t i) {
  const std::uint32_t p = p_;
  if (!priced_) level_prices_.clear();
  for (std::uint32_t m = 0; m < p; ++m) {
    collective::WireStep& w = wire_[m];
    if (i < own_steps_[m]) {
      collective::wire_step_into(schedules_[m], i, w);
    } else {
      w.clear();
    }
    local_[m] = w.local == collective::LocalOp::kNone ? 0 : collective::local_ps(w, device_);
    out_p_[m] = w.out.data();
    in_p_[m] = w.in.data();
    out_at_[m + 1] = out_at_[m] + static_cast<std::uint32_t>(w.out.size());
    in_at_[m + 1] = in_at_[m] + static_cast<std::uint32_t>(w.in.size());
    if (!priced_) {
      for (const collective::WireMessage& snd : w.out) {
        level_prices_.push_back(price(network_, members_[m], members_[snd.peer], snd.bytes));
      }
    }
  }
}

// Whether level i is one exchange (every active member sends one message and
// receives one, from a member that sends only to it), and whether each
// receive's bytes are the bytes sent.
void LevelWalk::check_exchange(std::uint32_t i) {
  const std::uint32_t p = p_;
  exchange_ = same_bytes_ = true;
  for (std::uint32_t m = 0; exchange_ && m < p; ++m) {
    if (i >= own_steps_[m]) continue;
    exchange_ = out_at_[m + 1] - out_at_[m] == 1 && in_at_[m + 1] - in_at_[m] == 1;
    if (!exchange_) break;
    const std::uint32_t from = in_p_[m][0].peer;
    exchange_ = from < p && i < own_steps_[from] && out_at_[from + 1] - out_at_[from] == 1 &&
                out_p_[from][0].peer == m;
    same_bytes_ = same_bytes_ && exchange_ && out_p_[from][0].bytes == in_p_[m][0].bytes;
    dest_[from] = m;
  }
}

// One level in every lane; the members with a step at it, or none where a
// receive comes before its send.
std::optional<std::uint64_t> LevelWalk::walk_level(std::uint32_t i) {
  const bool by_slot = exchange_ && pending_ == 0;
  if (by_slot && same_bytes_) return walk_exchange(i);
  const std::uint64_t active = send_level(i, by_slot);
  if (!receive_level(i, by_slot)) return std::nullopt;
  return active;
}

// The exchange in two sweeps over few arrays (the general loops of send_level
// and receive_level give the same times: one send leaves at the step's start,
// one receive of the bytes sent, the h2t of StepTransfer's one send and
// receive).
std::uint64_t LevelWalk::walk_exchange(std::uint32_t i) {
  const std::uint32_t p = p_;
  std::uint64_t active = 0;
  for (Lane& lane : lanes_) {
    std::vector<LevelState>& state = lane.state;
    const bool waits = lane.waits;
    active = 0;
    for (std::uint32_t m = 0; m < p; ++m) {
      if (i >= own_steps_[m]) continue;
      ++active;
      LevelState& s = state[m];
      const std::uint32_t k = out_at_[m];
      const Priced& q = level_prices_[k];
      const pdes::Time wait = waits ? q.wait : 0;
      s.sends_done = std::max(s.step_start, s.step_start + q.injection + wait);
      lane.sent[m] = q.transfer + wait;
      lane.slot_at[dest_[m]] = {s.step_start + q.uncongested + wait, q.transfer};
    }
    for (std::uint32_t m = 0; m < p; ++m) {
      if (i >= own_steps_[m]) continue;
      LevelState& s = state[m];
      const pdes::Time end = collective::step_end(std::max(s.sends_done, lane.slot_at[m].first),
                                                  local_[m], s.lock_t, rounds_, i);
      s.compute += local_[m];
      s.h2t += std::max(lane.sent[m], lane.slot_at[m].second);
      s.step_start = end;
      s.lock_t = end;
    }
    lane.est.messages += active;
  }
  return active;
}

// Sends: they leave when the member's previous step has ended. Returns the
// members with a step at level i.
std::uint64_t LevelWalk::send_level(std::uint32_t i, bool by_slot) {
  const std::uint32_t p = p_;
  const std::size_t nl = nl_;
  std::uint64_t active = 0;
  for (std::uint32_t m = 0; m < p; ++m) {
    if (i >= own_steps_[m]) continue;
    ++active;
    LaneTimes tx{}, sends_done{};
    for (std::size_t l = 0; l < nl; ++l) {
      lanes_[l].transfer[m] = collective::StepTransfer(together_);
      tx[l] = sends_done[l] = lanes_[l].state[m].step_start;
    }
    for (std::uint32_t k = out_at_[m]; k < out_at_[m + 1]; ++k) {
      const collective::WireMessage& snd = out_p_[m][k - out_at_[m]];
      const Priced& q = level_prices_[k];
      Arrival a{m, {}, snd.bytes, q.transfer};
      for (std::size_t l = 0; l < nl; ++l) {
        Lane& lane = lanes_[l];
        const pdes::Time wait = lane.waits ? q.wait : 0;
        const pdes::Time start = together_ ? lane.state[m].step_start : tx[l];
        a.at[l] = start + q.uncongested + wait;
        sends_done[l] = std::max(sends_done[l], start + q.injection + wait);
        tx[l] = sends_done[l];
        lane.transfer[m].send(q.transfer + wait);
        ++lane.est.messages;
      }
      if (by_slot) {
        slot_[snd.peer] = a;
      } else {
        inbox_[snd.peer].push_back(a);
        ++pending_;
      }
    }
    for (std::size_t l = 0; l < nl; ++l) lanes_[l].state[m].sends_done = sends_done[l];
  }
  return active;
}

// Receives: matched in order per sender among what has been sent so far;
// false where one has not been sent yet.
bool LevelWalk::receive_level(std::uint32_t i, bool by_slot) {
  const std::uint32_t p = p_;
  for (std::uint32_t m = 0; m < p; ++m) {
    if (i >= own_steps_[m]) continue;
    std::vector<Arrival>& box = inbox_[m];
    const std::uint32_t in_count = in_at_[m + 1] - in_at_[m];
    LaneTimes recv_max{};
    if (by_slot) {
      receive(m, slot_[m], in_p_[m][0], recv_max);
    } else if (in_count == 1 && box.size() == 1 && box[0].from == in_p_[m][0].peer) {
      receive(m, box[0], in_p_[m][0], recv_max);  // one message, the one expected
      box.clear();
      --pending_;
    } else if (in_count > 0 || !box.empty()) {
      if (!match_inbox(m, recv_max)) return false;
    }
    end_step(m, i, recv_max);
  }
  return true;
}

// Member m's receives of the level matched in its inbox, in order per sender
// (head_/next_ chain each sender's arrivals); the matched ones leave the
// inbox. False where one is missing.
bool LevelWalk::match_inbox(std::uint32_t m, LaneTimes& recv_max) {
  std::vector<Arrival>& box = inbox_[m];
  const std::uint32_t in_begin = in_at_[m], in_count = in_at_[m + 1] - in_begin;
  next_.resize(box.size());
  used_.assign(box.size(), 0);
  for (std::size_t e = box.size(); e-- > 0;) {
    next_[e] = head_[box[e].from];
    head_[box[e].from] = static_cast<std::uint32_t>(e);
  }
  bool missing = false;
  for (std::uint32_t k = in_begin; k < in_begin + in_count; ++k) {
    const collective::WireMessage& r = in_p_[m][k - in_begin];
    const std::uint32_t e = head_[r.peer];
    if (e == kNone) {
      missing = true;
      break;
    }
    head_[r.peer] = next_[e];
    used_[e] = 1;
    receive(m, box[e], r, recv_max);
  }
  for (const Arrival& a : box) head_[a.from] = kNone;
  if (missing) return false;
  std::size_t kept = 0;
  for (std::size_t e = 0; e < box.size(); ++e) {
    if (!used_[e]) box[kept++] = box[e];
  }
  pending_ -= box.size() - kept;
  box.resize(kept);
  return true;
}

// Member m receives `a` as its receive `r`, in every lane.
void LevelWalk::receive(std::uint32_t m, const Arrival& a, const collective::WireMessage& r,
                        LaneTimes& recv_max) {
  const std::size_t nl = nl_;
  const pdes::Time t = a.bytes == r.bytes ? a.transfer
                                          : collective::transfer_ps(network_, members_[r.peer],
                                                                    members_[m], r.bytes);
  for (std::size_t l = 0; l < nl; ++l) {
    recv_max[l] = std::max(recv_max[l], a.at[l]);
    lanes_[l].transfer[m].receive(t);
  }
}

// Member m's step i ends in every lane.
void LevelWalk::end_step(std::uint32_t m, std::uint32_t i, const LaneTimes& recv_max) {
  const std::size_t nl = nl_;
  for (std::size_t l = 0; l < nl; ++l) {
    LevelState& s = lanes_[l].state[m];
    const pdes::Time end =
        collective::step_end(std::max(s.sends_done, recv_max[l]), local_[m], s.lock_t, rounds_, i);
    s.compute += local_[m];
    s.h2t += lanes_[l].transfer[m].h2t();
    s.step_start = end;
    s.lock_t = end;
  }
}

// In lock-step a member that finished early still ends with the others. The
// member that ends last (the lowest index among equals) defines the
// breakdown, as in the simulator's records.
CollectiveEstimate LevelWalk::finish(CollectiveEstimate* idle) {
  for (Lane& lane : lanes_) {
    lane.est.steps = steps_;
    for (std::uint32_t m = 0; m < p_; ++m) {
      lane.state[m].step_start += collective::remaining_rounds(rounds_, schedules_[m].steps());
    }
    take_breakdown_of_last(lane.state, lane.est);
  }
  if (lanes_.size() > 1) *idle = lanes_[1].est;
  return lanes_[0].est;
}

}  // namespace

// Level by level: every member's step i before any member's step i + 1. The
// estimate is a max-plus dataflow (a step ends at the max of its own previous
// end and its messages' arrivals, each message matched in order per pair), so
// any order that has a message's send evaluated before its receive gives the
// same times as longest_path; this one does when every message is received no
// earlier than the step it is sent at. It keeps only one level of wire steps
// and short per-member inboxes instead of a hash map of every message in
// flight. Returns nothing when a receive comes before its send's step (then
// longest_path applies).
//
// With `idle` (and `prices`), the same walk also gives the idle-fabric
// estimate (estimate_collective's level path): the same messages priced
// without their waits, in a second lane of member states. The wire steps,
// prices and exchange tests, most of the work, are shared.
std::optional<CollectiveEstimate> level_path(const collective::CollectiveSpec& spec,
                                             const std::vector<std::uint32_t>& members,
                                             const fabric::CostModel& network,
                                             const compute::Device& device,
                                             const std::vector<collective::Schedule>& schedules,
                                             const std::vector<collective::Schedule::Run>* runs,
                                             const LevelPrices* prices, Ticker& ticker,
                                             CollectiveEstimate* idle) {
  LevelWalk walk(spec, members, network, device, schedules, prices != nullptr,
                 idle != nullptr && prices != nullptr);
  std::size_t run = 0;  // of `runs`, the one step i is in
  for (std::uint32_t i = 0; i < walk.steps(); ++i) {
    // A step repeating its run's first one (the same on the wire for every
    // member) keeps the wire steps, local operations and idle prices.
    bool repeat = false;
    if (runs != nullptr) {
      while ((*runs)[run].first + (*runs)[run].count <= i) ++run;
      repeat = i > (*runs)[run].first;
    }
    if (!repeat) walk.read_level(i);
    // Checked again where a member's steps end: who is active changes.
    if (!repeat || walk.ends_at(i)) walk.check_exchange(i);
    if (prices) walk.price_level(i, *prices);
    const std::optional<std::uint64_t> active = walk.walk_level(i);
    if (!active) return std::nullopt;
    ticker.add(*active);
  }
  return walk.finish(idle);
}

}  // namespace sipsim::analytical::detail
