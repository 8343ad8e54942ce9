#include "sipsim/analytical/collective_estimate.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <optional>
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
using detail::load_step;
using detail::Msg;
using detail::prefetch_load;
using detail::price;
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
                                       const fabric::Network& network,
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

// estimate_critical_path, and with `idle`, estimate_collective's levels beside
// it where one level walk gives both and p * steps <= max_work (else *idle is
// left empty).
CollectiveEstimate critical_path(const collective::CollectiveSpec& spec,
                                 const std::vector<std::uint32_t>& members,
                                 const fabric::Network& network, const compute::Device& device,
                                 std::uint64_t max_work, Evaluation order, const Progress& progress,
                                 std::optional<CollectiveEstimate>* idle) {
  using Run = collective::Schedule::Run;
  const std::uint32_t p = spec.p;
  const Walk walk = plan_walk(spec);
  const std::vector<collective::Schedule>& schedules = walk.schedules;
  const std::vector<collective::Schedule::Run>& runs = walk.runs;
  const std::uint32_t steps = walk.steps;
  const bool rounds = walk.rounds;
  const std::uint64_t work = walk.work;
  if (work > max_work) {
    throw EstimateTooLarge(std::string(collective::to_string(spec.algorithm)) + " on " +
                           std::to_string(p) + " members needs " + std::to_string(work) +
                           " member-steps (limit " + std::to_string(max_work) + ")");
  }
  const bool want_idle = idle != nullptr && std::uint64_t{p} * steps <= max_work;

  StepLoad step(network);
  const std::vector<Msg>& msgs = step.msgs;
  const std::vector<fabric::Network::Resource>& res = step.res;
  const std::vector<fabric::Network::PathRun>& path_runs = step.runs;
  std::vector<StepLoad::Load>& load = step.load;

  if (!rounds) {
    // Message k of a member's step waits for the other senders' bytes on its
    // busiest resource; its own messages are serialised by the longest path.
    std::vector<std::uint64_t> own_at(network.run_space(), 0);  // by position
    auto step_waits = [&](const std::vector<collective::WireStep>& wire, std::vector<Priced>& out) {
      out.clear();
      load_step(wire, members, network, step);
      const RunLoads& loads = step.run_loads;
      for (std::size_t first = 0; first < msgs.size();) {
        std::size_t last = first;
        while (last < msgs.size() && msgs[last].from == msgs[first].from) ++last;
        if (step.by_runs && last == first + 1) {
          // A lone message's own bytes are its bytes on each of its positions.
          const Msg& g = msgs[first];
          WorstWait wait;
          for (std::uint32_t k = g.res_begin; k < g.res_end; ++k) {
            const std::uint64_t l = loads.max_load(path_runs[k]);
            wait.add(l - std::min(l, g.bytes), path_runs[k].rate_bps);
          }
          out.push_back(g.price);
          out.back().wait = wait.ps();
        } else if (step.by_runs) {
          for (std::size_t g = first; g < last; ++g) {
            for (std::uint32_t k = msgs[g].res_begin; k < msgs[g].res_end; ++k) {
              for_each_position(path_runs[k],
                                [&](std::uint32_t at) { own_at[at] += msgs[g].bytes; });
            }
          }
          for (std::size_t g = first; g < last; ++g) {
            WorstWait wait;
            for (std::uint32_t k = msgs[g].res_begin; k < msgs[g].res_end; ++k) {
              for_each_position(path_runs[k], [&](std::uint32_t at) {
                const std::uint64_t l = loads.load(at);
                wait.add(l - std::min(l, own_at[at]), path_runs[k].rate_bps);
              });
            }
            out.push_back(msgs[g].price);
            out.back().wait = wait.ps();
          }
          for (std::size_t g = first; g < last; ++g) {
            for (std::uint32_t k = msgs[g].res_begin; k < msgs[g].res_end; ++k) {
              for_each_position(path_runs[k], [&](std::uint32_t at) { own_at[at] = 0; });
            }
          }
        } else {
          for (std::size_t g = first; g < last; ++g) {
            for (std::uint32_t k = msgs[g].res_begin; k < msgs[g].res_end; ++k) {
              if (k + kLoadsAhead < res.size()) prefetch_load(step, res[k + kLoadsAhead].id);
              load[res[k].id].own += msgs[g].bytes;
            }
          }
          for (std::size_t g = first; g < last; ++g) {
            WorstWait wait;
            for (std::uint32_t k = msgs[g].res_begin; k < msgs[g].res_end; ++k) {
              const StepLoad::Load& l = load[res[k].id];
              wait.add(l.total - std::min(l.total, l.own), res[k].rate_bps);
            }
            out.push_back(msgs[g].price);
            out.back().wait = wait.ps();
          }
          for (std::size_t g = first; g < last; ++g) {
            for (std::uint32_t k = msgs[g].res_begin; k < msgs[g].res_end; ++k) {
              load[res[k].id].own = 0;
            }
          }
        }
        first = last;
      }
      step.unload();
    };
    if (order == Evaluation::kLevels) {
      const LevelPrices level_prices = [&](std::uint32_t,
                                           const std::vector<collective::WireStep>& wire,
                                           std::vector<Priced>& out) { step_waits(wire, out); };
      Ticker ticker(progress, work);
      CollectiveEstimate both_idle;
      if (auto e = level_path(spec, members, network, device, schedules, nullptr, &level_prices,
                              ticker, want_idle ? &both_idle : nullptr)) {
        if (want_idle) *idle = both_idle;
        return *e;
      }
    }
    // The loads of every step first (half the work), then the longest path.
    Ticker ticker(progress, 2 * work);
    Waits waits(p);
    std::vector<collective::WireStep> wire(p);
    std::vector<Priced> out;
    for (std::uint32_t i = 0; i < steps; ++i) {
      fill_wire(schedules, i, wire);
      step_waits(wire, out);
      std::size_t w = 0;
      for (const Msg& g : msgs) waits[g.from].push_back(out[w++]);
      ticker.add(p);
    }
    return longest_path(spec, members, network, device, schedules, &waits, ticker);
  }

  // A run of n identical ring steps, every member receiving from one
  // predecessor: member r's step k ends at
  //   E_k(r) = max(E_{k-1}(r) + a_r, E_{k-1}(pred r) + b_r),
  // a_r = its send leaving + local operation, b_r = the arrival from its
  // predecessor + local operation (a max-plus recurrence). Its growth rate is
  // the maximum cycle mean: per cycle of the predecessor permutation, the
  // larger of its largest a_r and its mean b_r. So the run takes one
  // synchronous step (the pipeline's fill) plus n-1 periods, which lets fast
  // hops of a ring run ahead of its slow ones, as in the simulator; a run
  // whose members receive from several peers takes n synchronous steps.
  CollectiveEstimate est;
  est.steps = steps;
  std::vector<collective::WireStep> wire(p);
  std::vector<pdes::Time> sent(p), arrived(p), h2t(p), local(p);
  std::vector<std::uint32_t> pred(p), ins(p), outs(p);
  std::vector<char> seen(p);
  Ticker ticker(progress, work);
  for (const Run& round : runs) {
    fill_wire(schedules, round.first, wire);
    load_step(wire, members, network, step);
    for (std::uint32_t m = 0; m < p; ++m) {
      sent[m] = arrived[m] = h2t[m] = 0;
      ins[m] = outs[m] = 0;
      local[m] = collective::local_ps(wire[m], device);
    }
    // A message waits, at worst, for the other bytes on its busiest resource.
    for (const Msg& g : msgs) {
      WorstWait worst;
      if (step.by_runs) {
        for (std::uint32_t k = g.res_begin; k < g.res_end; ++k) {
          worst.add(step.run_loads.max_load(path_runs[k]) - g.bytes, path_runs[k].rate_bps);
        }
      } else {
        for (std::uint32_t k = g.res_begin; k < g.res_end; ++k) {
          if (k + kLoadsAhead < res.size()) prefetch_load(step, res[k + kLoadsAhead].id);
          worst.add(load[res[k].id].total - g.bytes, res[k].rate_bps);
        }
      }
      const pdes::Time wait = worst.ps();
      const pdes::Time transfer = g.price.transfer + wait;
      const pdes::Time arrival = g.price.uncongested + wait;
      const pdes::Time left = g.price.injection + wait;
      ++ins[g.to];
      ++outs[g.from];
      pred[g.to] = g.from;
      if (arrival > arrived[g.to]) {
        arrived[g.to] = arrival;
        if (arrival >= sent[g.to]) h2t[g.to] = transfer;
      }
      if (left > sent[g.from]) {
        sent[g.from] = left;
        if (left > arrived[g.from]) h2t[g.from] = std::min(transfer, left);
      }
    }
    step.unload();
    // The slowest member (the lowest index among equals) sets one synchronous step.
    auto end = [&](std::uint32_t m) { return std::max(sent[m], arrived[m]) + local[m]; };
    std::uint32_t crit = 0;
    for (std::uint32_t m = 1; m < p; ++m) {
      if (end(m) > end(crit)) crit = m;
    }
    const pdes::Time first = end(crit);
    pdes::Time period = first;
    const bool permutation = std::all_of(ins.begin(), ins.end(), [](auto n) { return n == 1; }) &&
                             std::all_of(outs.begin(), outs.end(), [](auto n) { return n == 1; });
    if (permutation && round.count > 1) {
      period = 0;
      std::fill(seen.begin(), seen.end(), 0);
      for (std::uint32_t start = 0; start < p; ++start) {
        if (seen[start]) continue;
        pdes::Time a_max = 0, b_sum = 0, length = 0;
        for (std::uint32_t r = start; !seen[r]; r = pred[r]) {
          seen[r] = 1;
          a_max = std::max(a_max, sent[r] + local[r]);
          b_sum += arrived[r] + local[r];
          ++length;
        }
        period = std::max({period, a_max, (b_sum + length - 1) / length});
      }
    }
    const pdes::Time run = first + (round.count - 1) * period;
    const pdes::Time compute = local[crit] * round.count;
    est.total += run;
    est.compute += compute;
    est.h2t += std::min(h2t[crit] * round.count, run - compute);
    est.messages += msgs.size() * std::uint64_t{round.count};
    ticker.add(p);
  }
  const pdes::Time busy = est.compute + est.h2t;
  est.h2h = est.total > busy ? est.total - busy : 0;
  return est;
}

}  // namespace

CollectiveEstimate estimate_critical_path(const collective::CollectiveSpec& spec,
                                          const std::vector<std::uint32_t>& members,
                                          const fabric::Network& network,
                                          const compute::Device& device, std::uint64_t max_work,
                                          Evaluation order, const Progress& progress) {
  return critical_path(spec, members, network, device, max_work, order, progress, nullptr);
}

EstimateWithIdle estimate_critical_path_with_idle(const collective::CollectiveSpec& spec,
                                                  const std::vector<std::uint32_t>& members,
                                                  const fabric::Network& network,
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
