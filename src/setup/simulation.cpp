#include "sipsim/setup/simulation.hpp"

#include <optional>

#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/workload/bench/collectives.hpp"
#include "sipsim/pdes/models/phold.hpp"

namespace sipsim::setup {

namespace {
[[noreturn]] void fail_at(const std::string& location, const std::string& key,
                          const std::string& message) {
  throw base::ScenarioError(location, key, message);
}
}  // namespace

workload::Simulation make_simulation(const scenario::Scenario& s) {
  if (const auto* phold = std::get_if<pdes::models::PholdConfig>(&s.workload)) {
    workload::Simulation sim;
    sim.model = std::make_unique<pdes::models::PholdModel>(*phold);
    sim.results = std::make_unique<workload::Results>();
    return sim;
  }
  workload::CollectivesConfig c = std::get<workload::CollectivesConfig>(s.workload);
  std::unique_ptr<fabric::Network> network = scenario::build_network(s);
  if (s.auto_algorithm) {
    // nccl-tests' "auto": the algorithm with the smallest critical-path cost
    // (RAMP §7.4.1: steps with their links' loads), chosen per size, among those
    // valid for this op and group and cheap enough to estimate at this scale.
    const auto members = workload::job_members(c, network->nodes());
    const compute::Roofline device(c.accelerator);
    for (std::uint64_t bytes : workload::sweep_sizes(c)) {
      std::optional<collective::Algorithm> best;
      pdes::Time best_time = pdes::kTimeMax;
      for (const collective::Algorithm algorithm : collective::all_algorithms()) {
        const collective::CollectiveSpec spec =
            workload::make_spec(c, static_cast<std::uint32_t>(members.size()), bytes, algorithm);
        if (!collective::why_invalid(spec).empty()) continue;
        analytical::CollectiveEstimate est;
        try {
          est = analytical::estimate_critical_path(spec, members, *network, device);
        } catch (const analytical::EstimateTooLarge&) {
          continue;
        }
        if (est.total < best_time) {
          best_time = est.total;
          best = spec.algorithm;
        }
      }
      if (!best)
        fail_at(s.workload_location, s.workload_key,
                "no algorithm implements this operation at a size `auto` can estimate; name one");
      c.per_size.push_back(*best);
    }
    c.algorithm = c.per_size.front();
  }
  try {
    return workload::make_collectives_benchmark(c, std::move(network));
  } catch (const std::invalid_argument& e) {
    fail_at(s.workload_location, s.workload_key, e.what());
  }
}

}  // namespace sipsim::setup
