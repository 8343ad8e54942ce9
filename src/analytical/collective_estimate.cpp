#include "sipsim/analytical/collective_estimate.hpp"

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "sipsim/collective/ramp.hpp"

namespace sipsim::analytical {

namespace {

pdes::Time local_cost(const collective::WireStep& step, const compute::Roofline& roofline) {
  switch (step.local) {
    case collective::LocalOp::kReduce:
      return roofline.reduce_ps(step.sources, step.local_bytes);
    case collective::LocalOp::kCopy:
      return roofline.copy_ps(step.local_bytes);
    case collective::LocalOp::kNone:
      return 0;
  }
  return 0;
}

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

}  // namespace

namespace {
// Duration of one member's step on an idle fabric, its transfers in parallel.
pdes::Time parallel_step_ps(const collective::Schedule& sched, std::uint32_t i,
                            const std::vector<std::uint32_t>& members,
                            const fabric::Network& network, const compute::Roofline& roofline) {
  if (i >= sched.steps()) return 0;
  const collective::WireStep step = collective::wire_step(sched, i);
  const std::uint32_t self = members[sched.member()];
  pdes::Time longest = 0;
  for (const auto& m : step.out) {
    longest = std::max(longest, network.injection_ps(self, members[m.peer], m.bytes));
  }
  for (const auto& m : step.in) {
    longest = std::max(longest, network.uncongested_ps(members[m.peer], self, m.bytes));
  }
  return longest + local_cost(step, roofline);
}
}  // namespace

std::vector<pdes::Time> lockstep_rounds(const collective::CollectiveSpec& spec,
                                        const std::vector<std::uint32_t>& members,
                                        const fabric::Network& network,
                                        const compute::Roofline& roofline) {
  std::vector<pdes::Time> rounds;
  if (!lockstep(spec)) return rounds;
  const collective::RampShape& shape = spec.ramp;
  const collective::ramp::Offsets root = collective::ramp::offsets_of_member(spec.root, shape);
  for (unsigned mask = 0; mask < 16; ++mask) {
    collective::ramp::Offsets rep = root;
    for (unsigned k = 0; k < 4; ++k) {
      if ((mask >> k & 1u) && shape.active[k] > 1) rep[k] = (root[k] + 1) % shape.active[k];
    }
    const collective::Schedule sched(spec, collective::ramp::member_of_offsets(rep, shape));
    if (rounds.size() < sched.steps()) rounds.resize(sched.steps(), 0);
    for (std::uint32_t i = 0; i < sched.steps(); ++i) {
      rounds[i] = std::max(rounds[i], parallel_step_ps(sched, i, members, network, roofline));
    }
  }
  return rounds;
}

CollectiveEstimate estimate_collective(const collective::CollectiveSpec& spec,
                                       const std::vector<std::uint32_t>& members,
                                       const fabric::Network& network,
                                       const compute::Roofline& roofline) {
  const std::uint32_t p = spec.p;
  std::vector<collective::Schedule> schedules;
  schedules.reserve(p);
  for (std::uint32_t m = 0; m < p; ++m) schedules.emplace_back(spec, m);
  std::vector<Member> state(p);
  // Arrival times of messages sent but not yet consumed, per (src, dst) pair in order.
  std::unordered_map<std::uint64_t, std::deque<pdes::Time>> inflight;
  CollectiveEstimate est;

  std::vector<std::uint32_t> ready(p);
  for (std::uint32_t m = 0; m < p; ++m) ready[m] = p - 1 - m;  // pop_back runs member 0 first

  const bool locked = lockstep(spec);
  const std::vector<pdes::Time> lock_len = lockstep_rounds(spec, members, network, roofline);
  auto finish_step = [&](Member& s) {
    pdes::Time end = std::max(s.sends_done, s.recv_max) + s.step_local;
    if (locked && s.step < lock_len.size()) end = std::max(end, s.lock_t + lock_len[s.step]);
    s.compute += s.step_local;
    s.h2t += s.step_h2t;
    s.step_start = end;
    s.lock_t = end;
    ++s.step;
  };

  while (!ready.empty()) {
    const std::uint32_t m = ready.back();
    ready.pop_back();
    Member& s = state[m];
    const collective::Schedule& sched = schedules[m];
    while (s.step < sched.steps()) {
      const collective::WireStep step = collective::wire_step(sched, s.step);
      // Sends leave one after another through one injection port, or all at
      // once through parallel ports (RAMP's transceivers).
      pdes::Time tx = s.step_start;
      pdes::Time sends_done = s.step_start;
      pdes::Time send_h2t = 0, recv_h2t = 0;
      for (const collective::WireMessage& snd : step.out) {
        const std::uint32_t a = members[m], b = members[snd.peer];
        const pdes::Time start = network.parallel_ports() ? s.step_start : tx;
        const pdes::Time arrival = start + network.uncongested_ps(a, b, snd.bytes);
        sends_done = std::max(sends_done, start + network.injection_ps(a, b, snd.bytes));
        tx = sends_done;
        const pdes::Time t = fabric::serialization_ps(snd.bytes, network.path_rate_bps(a, b));
        send_h2t = network.parallel_ports() ? std::max(send_h2t, t) : send_h2t + t;
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
          inflight[key].push_back(arrival);
        }
      }
      s.sends_done = sends_done;
      s.recv_max = 0;
      s.waiting = 0;
      for (const collective::WireMessage& r : step.in) {
        recv_h2t = std::max(
            recv_h2t,
            fabric::serialization_ps(r.bytes, network.path_rate_bps(members[r.peer], members[m])));
        auto it = inflight.find((std::uint64_t{r.peer} << 32) | m);
        if (it != inflight.end() && !it->second.empty()) {
          s.recv_max = std::max(s.recv_max, it->second.front());
          it->second.pop_front();
          if (it->second.empty()) inflight.erase(it);
        } else {
          ++s.need[r.peer];
          ++s.waiting;
        }
      }
      s.step_local = local_cost(step, roofline);
      s.step_h2t = std::max(send_h2t, recv_h2t);
      if (s.waiting > 0) break;  // resumed when the missing messages are sent
      finish_step(s);
    }
    if (s.step == sched.steps() && !s.done) {
      s.done = true;
      // In lock-step a member that finished early still ends with the others.
      for (std::uint32_t i = s.step; locked && i < lock_len.size(); ++i) {
        s.step_start += lock_len[i];
      }
    }
  }
  // The member that ends last (the lowest index among equals) defines the
  // breakdown, as in the simulator's records.
  for (std::uint32_t m = 0; m < p; ++m) {
    const Member& s = state[m];
    if (!s.done) throw std::logic_error("collective estimate: schedule deadlocks");
    est.steps = std::max(est.steps, schedules[m].steps());
    if (m == 0 || s.step_start > est.total) {
      est.total = s.step_start;
      est.compute = s.compute;
      est.h2t = s.h2t;
    }
  }
  const pdes::Time busy = est.compute + est.h2t;
  est.h2h = est.total > busy ? est.total - busy : 0;
  return est;
}

}  // namespace sipsim::analytical
