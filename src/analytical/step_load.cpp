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

namespace {

// A message's price from its path's quote, before any wait.
Priced priced(const fabric::CostModel::PathQuote& q, std::uint64_t bytes) {
  return {0, q.injection, q.uncongested, transfer_of(bytes, q.rate_bps)};
}

// Member m's message `w`, priced from `q`, its runs from `begin` to the end of step.runs.
void add_run_msg(StepLoad& step, std::uint32_t m, const collective::WireMessage& w,
                 std::uint32_t begin, const fabric::CostModel::PathQuote& q) {
  step.msgs.push_back({m, w.peer, w.bytes, begin, static_cast<std::uint32_t>(step.runs.size()),
                       priced(q, w.bytes)});
}

}  // namespace

Priced price(const fabric::CostModel& network, std::uint32_t a, std::uint32_t b,
             std::uint64_t bytes, std::vector<fabric::CostModel::Resource>* resources) {
  return priced(network.quote(a, b, bytes, resources), bytes);
}

namespace {

// Charges `bytes` on resource `id` of the step's loads.
void charge(StepLoad& step, std::uint32_t id, std::uint64_t bytes) {
  std::uint64_t& total = step.load[id].total;
  if (total == 0) step.touched.push_back(id);
  total += bytes;
}

// The step by runs: false (and the loads half made) where a pair has none.
bool load_by_runs(const std::vector<collective::WireStep>& wire,
                  std::span<const std::vector<std::uint32_t>> comms, bool price_first,
                  const fabric::CostModel& network, StepLoad& step) {
  const auto p = static_cast<std::uint32_t>(wire.size());
  for (std::uint32_t c = 0; c < comms.size(); ++c) {
    const std::vector<std::uint32_t>& nodes = comms[c];
    for (std::uint32_t m = 0; m < p; ++m) {
      for (const collective::WireMessage& w : wire[m].out) {
        const auto begin = static_cast<std::uint32_t>(step.runs.size());
        fabric::CostModel::PathQuote q;
        if (!network.quote_runs(nodes[m], nodes[w.peer], w.bytes, q, step.runs)) return false;
        for (std::size_t k = begin; k < step.runs.size(); ++k) {
          step.run_loads.add(step.runs[k], w.bytes);
        }
        if (c > 0 || !price_first) {
          step.runs.resize(begin);  // loads only
          continue;
        }
        add_run_msg(step, m, w, begin, q);
      }
    }
  }
  return true;
}

// The step by resource: a multicast's resources charged once per sender.
void load_by_resources(const std::vector<collective::WireStep>& wire,
                       std::span<const std::vector<std::uint32_t>> comms, bool price_first,
                       const fabric::CostModel& network, StepLoad& step) {
  const auto p = static_cast<std::uint32_t>(wire.size());
  std::vector<Msg>& msgs = step.msgs;
  std::vector<fabric::CostModel::Resource>& res = step.res;
  for (std::uint32_t c = 0; c < comms.size(); ++c) {
    const std::vector<std::uint32_t>& nodes = comms[c];
    for (std::uint32_t m = 0; m < p; ++m) {
      const collective::WireStep& ws = wire[m];
      step.charged.clear();
      for (const collective::WireMessage& w : ws.out) {
        const auto begin = static_cast<std::uint32_t>(res.size());
        const Priced priced = price(network, nodes[m], nodes[w.peer], w.bytes, &res);
        const bool load_only = c > 0 || !price_first;
        if (ws.multicast || load_only) {  // charged now (a multicast's resources once)
          for (std::size_t k = begin; k < res.size(); ++k) {
            if (!ws.multicast || step.charged.insert(res[k].id)) charge(step, res[k].id, w.bytes);
          }
        }
        if (load_only) {
          res.resize(begin);
          continue;
        }
        msgs.push_back({m, w.peer, w.bytes, begin, static_cast<std::uint32_t>(res.size()), priced});
      }
    }
  }
  // The priced messages' bytes after all the quotes, each resource's load
  // fetched a few resources ahead: at 65,536 RAMP nodes the loads are 64 MiB
  // read at random, and a quote between two of them kept their cache misses
  // from overlapping. (Sums: the order does not change them.)
  for (const Msg& g : msgs) {
    if (wire[g.from].multicast) continue;
    for (std::uint32_t k = g.res_begin; k < g.res_end; ++k) {
      if (k + kLoadsAhead < res.size()) prefetch_load(step, res[k + kLoadsAhead].id);
      charge(step, res[k].id, g.bytes);
    }
  }
}

}  // namespace

// Loads `step` with the messages of every member's wire step `wire` (one step
// index), by runs where it can (the same loads: each run's positions are its
// resources, and a multicast, whose resources are charged once, goes by
// resource).
void load_step(const std::vector<collective::WireStep>& wire,
               std::span<const std::vector<std::uint32_t>> comms, bool price_first,
               const fabric::CostModel& network, StepLoad& step) {
  step.msgs.clear();
  step.res.clear();
  step.runs.clear();
  step.by_runs = network.run_space() > 0 &&
                 std::none_of(wire.begin(), wire.end(), [](const auto& w) { return w.multicast; });
  if (step.by_runs && load_by_runs(wire, comms, price_first, network, step)) {
    step.run_loads.settle();
    return;
  }
  // A pair without runs: the whole step by resource.
  step.by_runs = false;
  step.unload();
  step.msgs.clear();
  step.runs.clear();
  load_by_resources(wire, comms, price_first, network, step);
}

void load_all(const std::vector<collective::WireStep>& wire,
              std::span<const std::vector<std::uint32_t>> comms, const fabric::CostModel& network,
              StepLoad& step) {
  load_step(wire, comms, false, network, step);
}

void price_one(const std::vector<collective::WireStep>& wire,
               const std::vector<std::uint32_t>& nodes, const fabric::CostModel& network,
               StepLoad& step) {
  step.msgs.clear();
  step.res.clear();
  step.runs.clear();
  for (std::uint32_t m = 0; m < wire.size(); ++m) {
    for (const collective::WireMessage& w : wire[m].out) {
      if (step.by_runs) {
        const auto begin = static_cast<std::uint32_t>(step.runs.size());
        fabric::CostModel::PathQuote q;
        network.quote_runs(nodes[m], nodes[w.peer], w.bytes, q, step.runs);  // load_all had them
        add_run_msg(step, m, w, begin, q);
      } else {
        const auto begin = static_cast<std::uint32_t>(step.res.size());
        const Priced priced = price(network, nodes[m], nodes[w.peer], w.bytes, &step.res);
        step.msgs.push_back(
            {m, w.peer, w.bytes, begin, static_cast<std::uint32_t>(step.res.size()), priced});
      }
    }
  }
}

void load_step(const std::vector<collective::WireStep>& wire,
               const std::vector<std::uint32_t>& members, const fabric::CostModel& network,
               StepLoad& step) {
  load_step(wire, std::span<const std::vector<std::uint32_t>>(&members, 1), true, network, step);
}

}  // namespace sipsim::analytical::detail
