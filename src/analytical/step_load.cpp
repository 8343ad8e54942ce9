#include "sipsim/analytical/step_load.hpp"

#include <algorithm>

namespace sipsim::analytical::detail {

// serialization_ps of a message's bytes at its path's rate, remembered for the
// last size and rate: a step's messages mostly share both.
pdes::Time transfer_of(std::uint64_t bytes, std::uint64_t rate_bps) {
  thread_local std::uint64_t last_bytes = 0, last_rate = 0;
  thread_local pdes::Time last_ps = 0;
  if (rate_bps != last_rate || bytes != last_bytes || rate_bps == 0) {
    last_ps = fabric::serialization_ps(bytes, rate_bps);
    last_bytes = bytes;
    last_rate = rate_bps;
  }
  return last_ps;
}

Priced price(const fabric::CostModel& network, std::uint32_t a, std::uint32_t b,
             std::uint64_t bytes, std::vector<fabric::CostModel::Resource>* resources) {
  const fabric::CostModel::PathQuote q = network.quote(a, b, bytes, resources);
  return {0, q.injection, q.uncongested, transfer_of(bytes, q.rate_bps)};
}

// Loads `step` with the messages of every member's wire step `wire` (one step
// index), by runs where it can (the same loads: each run's positions are its
// resources, and a multicast, whose resources are charged once, goes by
// resource).
void load_step(const std::vector<collective::WireStep>& wire,
               const std::vector<std::uint32_t>& members, const fabric::CostModel& network,
               StepLoad& step) {
  std::vector<Msg>& msgs = step.msgs;
  msgs.clear();
  step.res.clear();
  step.runs.clear();
  step.by_runs = network.run_space() > 0 &&
                 std::none_of(wire.begin(), wire.end(), [](const auto& w) { return w.multicast; });
  for (std::uint32_t m = 0; step.by_runs && m < wire.size(); ++m) {
    for (const collective::WireMessage& w : wire[m].out) {
      const auto begin = static_cast<std::uint32_t>(step.runs.size());
      fabric::CostModel::PathQuote q;
      if (!network.quote_runs(members[m], members[w.peer], w.bytes, q, step.runs)) {
        step.by_runs = false;  // this pair has no runs: the whole step by resource
        break;
      }
      for (std::size_t k = begin; k < step.runs.size(); ++k) {
        step.run_loads.add(step.runs[k], w.bytes);
      }
      msgs.push_back({m,
                      w.peer,
                      w.bytes,
                      begin,
                      static_cast<std::uint32_t>(step.runs.size()),
                      {0, q.injection, q.uncongested, transfer_of(w.bytes, q.rate_bps)}});
    }
  }
  if (step.by_runs) {
    step.run_loads.settle();
    return;
  }
  step.unload();
  msgs.clear();
  step.runs.clear();
  std::vector<fabric::CostModel::Resource>& res = step.res;
  auto charge = [&](std::uint32_t id, std::uint64_t bytes) {
    std::uint64_t& total = step.load[id].total;
    if (total == 0) step.touched.push_back(id);
    total += bytes;
  };
  for (std::uint32_t m = 0; m < wire.size(); ++m) {
    const collective::WireStep& ws = wire[m];
    step.charged.clear();
    for (const collective::WireMessage& w : ws.out) {
      const auto begin = static_cast<std::uint32_t>(res.size());
      const Priced priced = price(network, members[m], members[w.peer], w.bytes, &res);
      if (ws.multicast) {  // its resources charged once
        for (std::size_t k = begin; k < res.size(); ++k) {
          if (step.charged.insert(res[k].id)) charge(res[k].id, w.bytes);
        }
      }
      msgs.push_back({m, w.peer, w.bytes, begin, static_cast<std::uint32_t>(res.size()), priced});
    }
  }
  // The other messages' bytes after all the quotes, each resource's load
  // fetched a few resources ahead: at 65,536 RAMP nodes the loads are 64 MiB
  // read at random, and a quote between two of them kept their cache misses
  // from overlapping. (Sums: the order does not change them.)
  for (const Msg& g : msgs) {
    if (wire[g.from].multicast) continue;
    for (std::uint32_t k = g.res_begin; k < g.res_end; ++k) {
      if (k + kLoadsAhead < res.size()) prefetch_load(step, res[k + kLoadsAhead].id);
      charge(res[k].id, g.bytes);
    }
  }
}

}  // namespace sipsim::analytical::detail
