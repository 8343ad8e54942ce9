#include "sipsim/analytical/collective_estimate.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "collective_walks.hpp"
#include "sipsim/analytical/run_loads.hpp"
#include "sipsim/analytical/step_load.hpp"
#include "sipsim/base/fifo.hpp"
#include "sipsim/collective/step_cost.hpp"

namespace sipsim::analytical {

using detail::for_each_position;
using detail::kLoadsAhead;
using detail::load_all;
using detail::load_step;
using detail::Msg;
using detail::prefetch_load;
using detail::price;
using detail::price_one;
using detail::Priced;
using detail::StepLoad;
using detail::WorstWait;

using detail::fill_wire;
using detail::level_path;
using detail::LevelPrices;
using detail::longest_path;
using detail::Ticker;
using detail::Waits;

namespace {

// Every member's schedule and how the estimator walks them: ring phases
// (member 0's runs merge steps and every member has the same runs) as
// synchronous rounds, one step per run; everything else step by step.
struct Walk {
  std::vector<collective::Schedule> schedules;
  std::vector<collective::Schedule::Run> runs;  // member 0's
  std::uint32_t steps = 0;                      // the most of any member
  bool rounds = false;
  std::uint64_t work = 0;  // member-steps evaluated
};

Walk plan_walk(const collective::CollectiveSpec& spec) {
  using Run = collective::Schedule::Run;
  Walk w;
  const std::uint32_t p = spec.p;
  w.schedules.reserve(p);
  for (std::uint32_t m = 0; m < p; ++m) w.schedules.emplace_back(spec, m);
  for (const auto& s : w.schedules) w.steps = std::max(w.steps, s.steps());
  w.runs = w.schedules[0].runs();
  w.rounds = std::any_of(w.runs.begin(), w.runs.end(), [](const Run& r) { return r.count > 1; });
  for (std::uint32_t m = 1; w.rounds && m < p; ++m) {
    const std::vector<Run> r = w.schedules[m].runs();
    w.rounds = std::equal(
        r.begin(), r.end(), w.runs.begin(), w.runs.end(),
        [](const Run& a, const Run& b) { return a.first == b.first && a.count == b.count; });
  }
  w.work = std::uint64_t{p} * (w.rounds ? w.runs.size() : w.steps);
  return w;
}

}  // namespace

// The idle-fabric longest path, level by level where it can; a ring phase's
// steps (identical on the wire) reuse their first step's wire steps and prices.
CollectiveEstimate estimate_collective(const collective::CollectiveSpec& spec,
                                       const std::vector<std::uint32_t>& members,
                                       const fabric::CostModel& network,
                                       const compute::Device& device, Evaluation order,
                                       const Progress& progress) {
  const Walk walk = plan_walk(spec);
  const std::vector<collective::Schedule>& schedules = walk.schedules;
  std::uint64_t total = 0;
  for (const collective::Schedule& s : schedules) total += s.steps();
  if (order == Evaluation::kLevels) {
    Ticker ticker(progress, total);
    if (auto e = level_path(spec, members, network, device, schedules,
                            walk.rounds ? &walk.runs : nullptr, nullptr, ticker)) {
      return *e;
    }
  }
  Ticker ticker(progress, total);
  return longest_path(spec, members, network, device, schedules, nullptr, ticker);
}

std::uint64_t critical_path_work(const collective::CollectiveSpec& spec) {
  return plan_walk(spec).work;
}

// Each member's runs are at most its steps, and when the walk goes by rounds
// every member has member 0's runs.
std::uint64_t critical_path_work_lower_bound(const collective::CollectiveSpec& spec) {
  std::size_t runs = 0;
  for (const std::uint32_t m : {0u, spec.root, spec.p - 1}) {
    runs = std::max(runs, collective::Schedule(spec, m).runs().size());
  }
  return std::uint64_t{spec.p} * runs;
}

namespace {

// Communicators of one size running the same schedule at once: the first is
// the one estimated (its members), the others load the fabric beside it.
using Comms = std::span<const std::vector<std::uint32_t>>;

// The bytes a resource's load `load` counts for a message of `mine` bytes
// whose sender puts `own` on it in the step: the others' (kAdded), or the
// others' and its own (kOverlapped).
std::uint64_t counted(std::uint64_t load, std::uint64_t own, std::uint64_t mine, Waiting waiting) {
  const std::uint64_t others = load - std::min(load, own);
  return waiting == Waiting::kAdded ? others : others + mine;
}

// A message's wait from its busiest resource's time `worst` (of the counted
// bytes): after its idle-fabric time (kAdded), or what the busiest resource
// needs beyond that time (kOverlapped).
pdes::Time wait_of(WorstWait& worst, const Priced& price, Waiting waiting) {
  const pdes::Time w = worst.ps();
  if (waiting == Waiting::kAdded) return w;
  return w > price.uncongested ? w - price.uncongested : 0;
}

// The prices, waits included, of one step's messages when critical_path
// walks step by step: message k of a member's step waits for the other
// senders' bytes on its busiest resource; its own messages are serialised by
// the longest path, or, where a node's sends start together
// (CostModel::concurrent_sends), wait for each other like any other bytes.
class StepWaits {
 public:
  StepWaits(Comms comms, const fabric::CostModel& network, StepLoad& step, Waiting waiting)
      : comms_(comms),
        network_(network),
        step_(step),
        waiting_(waiting),
        together_(network.concurrent_sends()),
        own_at_(network.run_space(), 0) {}

  // Every member's messages of `wire` (one step), member by member, in order.
  void operator()(const std::vector<collective::WireStep>& wire, std::vector<Priced>& out) {
    out.clear();
    load_step(wire, comms_, true, network_, step_);
    const std::vector<Msg>& msgs = step_.msgs;
    for (std::size_t first = 0; first < msgs.size();) {
      std::size_t last = first;
      while (last < msgs.size() && msgs[last].from == msgs[first].from) ++last;
      if (step_.by_runs && (last == first + 1 || together_)) {
        for (std::size_t g = first; g < last; ++g) lone_by_runs(msgs[g], out);
      } else if (step_.by_runs) {
        sender_by_runs(first, last, out);
      } else {
        sender_by_resources(first, last, out);
      }
      first = last;
    }
    step_.unload();
  }

 private:
  // A lone message's own bytes are its bytes on each of its positions.
  void lone_by_runs(const Msg& g, std::vector<Priced>& out) const {
    const std::vector<fabric::CostModel::PathRun>& path_runs = step_.runs;
    const RunLoads& loads = step_.run_loads;
    WorstWait wait;
    for (std::uint32_t k = g.res_begin; k < g.res_end; ++k) {
      const std::uint64_t l = loads.max_load(path_runs[k]);
      wait.add(counted(l, g.bytes, g.bytes, waiting_), path_runs[k].rate_bps);
    }
    out.push_back(g.price);
    out.back().wait = wait_of(wait, g.price, waiting_);
  }

  // One sender's messages [first, last) by runs: its own bytes at each
  // position (own_at_) are left out of the load it waits for.
  void sender_by_runs(std::size_t first, std::size_t last, std::vector<Priced>& out) {
    const std::vector<Msg>& msgs = step_.msgs;
    const std::vector<fabric::CostModel::PathRun>& path_runs = step_.runs;
    const RunLoads& loads = step_.run_loads;
    for (std::size_t g = first; g < last; ++g) {
      for (std::uint32_t k = msgs[g].res_begin; k < msgs[g].res_end; ++k) {
        for_each_position(path_runs[k], [&](std::uint32_t at) { own_at_[at] += msgs[g].bytes; });
      }
    }
    for (std::size_t g = first; g < last; ++g) {
      WorstWait wait;
      for (std::uint32_t k = msgs[g].res_begin; k < msgs[g].res_end; ++k) {
        for_each_position(path_runs[k], [&](std::uint32_t at) {
          const std::uint64_t l = loads.load(at);
          wait.add(counted(l, own_at_[at], msgs[g].bytes, waiting_), path_runs[k].rate_bps);
        });
      }
      out.push_back(msgs[g].price);
      out.back().wait = wait_of(wait, msgs[g].price, waiting_);
    }
    for (std::size_t g = first; g < last; ++g) {
      for (std::uint32_t k = msgs[g].res_begin; k < msgs[g].res_end; ++k) {
        for_each_position(path_runs[k], [&](std::uint32_t at) { own_at_[at] = 0; });
      }
    }
  }

  // One sender's messages [first, last) by resource: its own bytes beside
  // each resource's load (StepLoad::Load::own); sent together, each
  // message's own bytes only.
  void sender_by_resources(std::size_t first, std::size_t last, std::vector<Priced>& out) {
    const std::vector<Msg>& msgs = step_.msgs;
    const std::vector<fabric::CostModel::Resource>& res = step_.res;
    std::vector<StepLoad::Load>& load = step_.load;
    if (together_) {
      for (std::size_t g = first; g < last; ++g) {
        WorstWait wait;
        for (std::uint32_t k = msgs[g].res_begin; k < msgs[g].res_end; ++k) {
          wait.add(counted(load[res[k].id].total, msgs[g].bytes, msgs[g].bytes, waiting_),
                   res[k].rate_bps);
        }
        out.push_back(msgs[g].price);
        out.back().wait = wait_of(wait, msgs[g].price, waiting_);
      }
      return;
    }
    for (std::size_t g = first; g < last; ++g) {
      for (std::uint32_t k = msgs[g].res_begin; k < msgs[g].res_end; ++k) {
        if (k + kLoadsAhead < res.size()) prefetch_load(step_, res[k + kLoadsAhead].id);
        load[res[k].id].own += msgs[g].bytes;
      }
    }
    for (std::size_t g = first; g < last; ++g) {
      WorstWait wait;
      for (std::uint32_t k = msgs[g].res_begin; k < msgs[g].res_end; ++k) {
        const StepLoad::Load& l = load[res[k].id];
        wait.add(counted(l.total, l.own, msgs[g].bytes, waiting_), res[k].rate_bps);
      }
      out.push_back(msgs[g].price);
      out.back().wait = wait_of(wait, msgs[g].price, waiting_);
    }
    for (std::size_t g = first; g < last; ++g) {
      for (std::uint32_t k = msgs[g].res_begin; k < msgs[g].res_end; ++k) {
        load[res[k].id].own = 0;
      }
    }
  }

  Comms comms_;
  const fabric::CostModel& network_;
  StepLoad& step_;
  Waiting waiting_;
  bool together_;
  std::vector<std::uint64_t> own_at_;  // a sender's bytes, by position
};

// critical_path step by step: level by level where it can (with `idle`, the
// idle-fabric estimate from the same walk), else the longest path over every
// step's waits.
CollectiveEstimate critical_path_by_steps(const collective::CollectiveSpec& spec, Comms comms,
                                          const fabric::CostModel& network,
                                          const compute::Device& device, const Walk& walk,
                                          Evaluation order, const Progress& progress,
                                          std::optional<CollectiveEstimate>* idle,
                                          Waiting waiting = Waiting::kAdded) {
  const std::uint32_t p = spec.p;
  const std::vector<std::uint32_t>& members = comms[0];
  StepLoad step(network);
  StepWaits step_waits(comms, network, step, waiting);
  if (order == Evaluation::kLevels) {
    const LevelPrices level_prices = [&](std::uint32_t,
                                         const std::vector<collective::WireStep>& wire,
                                         std::vector<Priced>& out) { step_waits(wire, out); };
    Ticker ticker(progress, walk.work);
    CollectiveEstimate both_idle;
    if (auto e = level_path(spec, members, network, device, walk.schedules, nullptr, &level_prices,
                            ticker, idle != nullptr ? &both_idle : nullptr)) {
      if (idle != nullptr) *idle = both_idle;
      return *e;
    }
  }
  // The loads of every step first (half the work), then the longest path.
  Ticker ticker(progress, 2 * walk.work);
  Waits waits(p);
  std::vector<collective::WireStep> wire(p);
  std::vector<Priced> out;
  for (std::uint32_t i = 0; i < walk.steps; ++i) {
    fill_wire(walk.schedules, i, wire);
    step_waits(wire, out);
    std::size_t w = 0;
    for (const Msg& g : step.msgs) waits[g.from].push_back(out[w++]);
    ticker.add(p);
  }
  return longest_path(spec, members, network, device, walk.schedules, &waits, ticker);
}

// One round's member times (critical_path_by_rounds), reused round to round.
struct RoundMembers {
  explicit RoundMembers(std::uint32_t p)
      : sent(p), arrived(p), h2t(p), local(p), pred(p), ins(p), outs(p), seen(p) {}
  std::vector<pdes::Time> sent, arrived, h2t, local;
  std::vector<std::uint32_t> pred, ins, outs;
  std::vector<char> seen;
};

// Each member's times in a round whose messages `step` holds (loaded): when
// its sends have left and its data arrived, its h2t, its local operation,
// and whom it receives from.
void time_round(const std::vector<collective::WireStep>& wire, const compute::Device& device,
                const StepLoad& step, Waiting waiting, RoundMembers& r) {
  const std::vector<fabric::CostModel::Resource>& res = step.res;
  const std::vector<fabric::CostModel::PathRun>& path_runs = step.runs;
  const std::uint32_t p = static_cast<std::uint32_t>(r.sent.size());
  for (std::uint32_t m = 0; m < p; ++m) {
    r.sent[m] = r.arrived[m] = r.h2t[m] = 0;
    r.ins[m] = r.outs[m] = 0;
    r.local[m] = collective::local_ps(wire[m], device);
  }
  // A message waits, at worst, for the other bytes on its busiest resource.
  for (const Msg& g : step.msgs) {
    WorstWait worst;
    if (step.by_runs) {
      for (std::uint32_t k = g.res_begin; k < g.res_end; ++k) {
        worst.add(counted(step.run_loads.max_load(path_runs[k]), g.bytes, g.bytes, waiting),
                  path_runs[k].rate_bps);
      }
    } else {
      for (std::uint32_t k = g.res_begin; k < g.res_end; ++k) {
        if (k + kLoadsAhead < res.size()) prefetch_load(step, res[k + kLoadsAhead].id);
        worst.add(counted(step.load[res[k].id].total, g.bytes, g.bytes, waiting), res[k].rate_bps);
      }
    }
    const pdes::Time wait = wait_of(worst, g.price, waiting);
    const pdes::Time transfer = g.price.transfer + wait;
    const pdes::Time arrival = g.price.uncongested + wait;
    const pdes::Time left = g.price.injection + wait;
    ++r.ins[g.to];
    ++r.outs[g.from];
    r.pred[g.to] = g.from;
    if (arrival > r.arrived[g.to]) {
      r.arrived[g.to] = arrival;
      if (arrival >= r.sent[g.to]) r.h2t[g.to] = transfer;
    }
    if (left > r.sent[g.from]) {
      r.sent[g.from] = left;
      if (left > r.arrived[g.from]) r.h2t[g.from] = std::min(transfer, left);
    }
  }
}

// The period of a ring round's repeated steps: the maximum cycle mean, per
// cycle of the predecessor permutation the larger of its largest a_r and its
// mean b_r (critical_path_by_rounds); none where the members do not receive
// from one predecessor each.
std::optional<pdes::Time> ring_period(RoundMembers& r) {
  const auto one = [](std::uint32_t n) { return n == 1; };
  if (!std::all_of(r.ins.begin(), r.ins.end(), one) ||
      !std::all_of(r.outs.begin(), r.outs.end(), one)) {
    return std::nullopt;
  }
  const std::uint32_t p = static_cast<std::uint32_t>(r.sent.size());
  pdes::Time period = 0;
  std::fill(r.seen.begin(), r.seen.end(), 0);
  for (std::uint32_t start = 0; start < p; ++start) {
    if (r.seen[start]) continue;
    pdes::Time a_max = 0, b_sum = 0, length = 0;
    for (std::uint32_t m = start; !r.seen[m]; m = r.pred[m]) {
      r.seen[m] = 1;
      a_max = std::max(a_max, r.sent[m] + r.local[m]);
      b_sum += r.arrived[m] + r.local[m];
      ++length;
    }
    period = std::max({period, a_max, (b_sum + length - 1) / length});
  }
  return period;
}

// critical_path by rounds. A run of n identical ring steps, every member
// receiving from one predecessor: member r's step k ends at
//   E_k(r) = max(E_{k-1}(r) + a_r, E_{k-1}(pred r) + b_r),
// a_r = its send leaving + local operation, b_r = the arrival from its
// predecessor + local operation (a max-plus recurrence). Its growth rate is
// the maximum cycle mean: per cycle of the predecessor permutation, the
// larger of its largest a_r and its mean b_r. So the run takes one
// synchronous step (the pipeline's fill) plus n-1 periods, which lets fast
// hops of a ring run ahead of its slow ones, as in the simulator; a run
// whose members receive from several peers takes n synchronous steps.
// Several communicators at once (`comms`): every one's messages load the
// fabric, and each gets its own estimate, in order.
std::vector<CollectiveEstimate> critical_path_by_rounds(const collective::CollectiveSpec& spec,
                                                        Comms comms,
                                                        const fabric::CostModel& network,
                                                        const compute::Device& device,
                                                        const Walk& walk, const Progress& progress,
                                                        Waiting waiting = Waiting::kAdded) {
  const std::uint32_t p = spec.p;
  const auto k = static_cast<std::uint32_t>(comms.size());
  StepLoad step(network);
  std::vector<CollectiveEstimate> est(k);
  for (CollectiveEstimate& e : est) e.steps = walk.steps;
  std::vector<collective::WireStep> wire(p);
  RoundMembers r(p);
  Ticker ticker(progress, walk.work * k);
  // Communicator c's share of a round: its members' times in `r`.
  const auto add_round = [&](const collective::Schedule::Run& round, CollectiveEstimate& e) {
    time_round(wire, device, step, waiting, r);
    // The slowest member (the lowest index among equals) sets one synchronous step.
    auto end = [&](std::uint32_t m) { return std::max(r.sent[m], r.arrived[m]) + r.local[m]; };
    std::uint32_t crit = 0;
    for (std::uint32_t m = 1; m < p; ++m) {
      if (end(m) > end(crit)) crit = m;
    }
    const pdes::Time first = end(crit);
    const pdes::Time period = (round.count > 1 ? ring_period(r) : std::nullopt).value_or(first);
    const pdes::Time run = first + (round.count - 1) * period;
    const pdes::Time compute = r.local[crit] * round.count;
    e.total += run;
    e.compute += compute;
    e.h2t += std::min(r.h2t[crit] * round.count, run - compute);
    e.messages += step.msgs.size() * std::uint64_t{round.count};
  };
  for (const collective::Schedule::Run& round : walk.runs) {
    fill_wire(walk.schedules, round.first, wire);
    if (k == 1) {
      load_step(wire, comms[0], network, step);
      add_round(round, est[0]);
    } else {  // every communicator's loads, then each one's prices (its paths only in memory)
      load_all(wire, comms, network, step);
      for (std::uint32_t c = 0; c < k; ++c) {
        price_one(wire, comms[c], network, step);
        add_round(round, est[c]);
      }
    }
    step.unload();
    ticker.add(std::uint64_t{p} * k);
  }
  for (CollectiveEstimate& e : est) {
    const pdes::Time busy = e.compute + e.h2t;
    e.h2h = e.total > busy ? e.total - busy : 0;
  }
  return est;
}

// Refuses (EstimateTooLarge) an estimate of `spec` needing `work` member-steps
// above `max_work`; `what` names what multiplied one walk's work.
void refuse_above(const collective::CollectiveSpec& spec, std::uint64_t work,
                  std::uint64_t max_work, std::string_view what = "") {
  if (work <= max_work) return;
  throw EstimateTooLarge(std::string(collective::to_string(spec.algorithm)) + " on " +
                         std::to_string(spec.p) + " members" + std::string(what) + " needs " +
                         std::to_string(work) + " member-steps (limit " + std::to_string(max_work) +
                         ")");
}

// estimate_critical_path, and with `idle`, estimate_collective's levels beside
// it where one level walk gives both and p * steps <= max_work (else *idle is
// left empty).
CollectiveEstimate critical_path(const collective::CollectiveSpec& spec,
                                 const std::vector<std::uint32_t>& members,
                                 const fabric::CostModel& network, const compute::Device& device,
                                 std::uint64_t max_work, Evaluation order, const Progress& progress,
                                 std::optional<CollectiveEstimate>* idle) {
  const Walk walk = plan_walk(spec);
  refuse_above(spec, walk.work, max_work);
  const Comms comms(&members, 1);
  if (walk.rounds) {
    return critical_path_by_rounds(spec, comms, network, device, walk, progress).front();
  }
  const bool want_idle = idle != nullptr && std::uint64_t{spec.p} * walk.steps <= max_work;
  return critical_path_by_steps(spec, comms, network, device, walk, order, progress,
                                want_idle ? idle : nullptr);
}

}  // namespace

CollectiveEstimate estimate_critical_path(const collective::CollectiveSpec& spec,
                                          const std::vector<std::uint32_t>& members,
                                          const fabric::CostModel& network,
                                          const compute::Device& device, std::uint64_t max_work,
                                          Evaluation order, const Progress& progress) {
  return critical_path(spec, members, network, device, max_work, order, progress, nullptr);
}

// Ring rounds price every communicator in one walk; other schedules walk
// once per communicator, the others loading the fabric beside it.
std::vector<CollectiveEstimate> estimate_concurrent_critical_paths(
    const collective::CollectiveSpec& spec, std::span<const std::vector<std::uint32_t>> comms,
    const fabric::CostModel& network, const compute::Device& device, std::uint64_t max_work,
    Waiting waiting) {
  const std::uint64_t k = comms.size();
  if (k == 0) return {};
  for (const std::vector<std::uint32_t>& nodes : comms) {
    if (nodes.size() != spec.p) {
      throw std::invalid_argument("concurrent communicators of " + std::to_string(nodes.size()) +
                                  " members for a collective of " + std::to_string(spec.p));
    }
  }
  const std::string what = " x " + std::to_string(k) + " communicators";
  const Walk walk = plan_walk(spec);
  if (walk.rounds) {
    refuse_above(spec, walk.work * k, max_work, what);
    return critical_path_by_rounds(spec, comms, network, device, walk, {}, waiting);
  }
  refuse_above(spec, walk.work * k * k, max_work, what);
  std::vector<CollectiveEstimate> out;
  std::vector<std::vector<std::uint32_t>> order(comms.begin(), comms.end());
  for (std::size_t c = 0; c < k; ++c) {
    std::swap(order[0], order[c]);  // communicator c first, the others beside it
    out.push_back(critical_path_by_steps(spec, order, network, device, walk, Evaluation::kLevels,
                                         {}, nullptr, waiting));
    std::swap(order[0], order[c]);
  }
  return out;
}

EstimateWithIdle estimate_critical_path_with_idle(const collective::CollectiveSpec& spec,
                                                  const std::vector<std::uint32_t>& members,
                                                  const fabric::CostModel& network,
                                                  const compute::Device& device,
                                                  std::uint64_t max_work,
                                                  const Progress& progress) {
  EstimateWithIdle out;
  out.critical = critical_path(spec, members, network, device, max_work, Evaluation::kLevels,
                               progress, &out.idle);
  // Where one walk could not give both: the idle estimate on its own, after
  // the critical path's memory is freed.
  if (!out.idle && std::uint64_t{spec.p} * out.critical.steps <= max_work) {
    out.idle = estimate_collective(spec, members, network, device, Evaluation::kLevels, progress);
  }
  return out;
}

}  // namespace sipsim::analytical
