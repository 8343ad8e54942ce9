#include "sipsim/setup/setup.hpp"

#include <new>

#include "sipsim/analytical/estimators.hpp"

namespace sipsim::setup {

namespace {

template <class Entry>
std::vector<std::string> types_of(const std::vector<Entry>& registry) {
  std::vector<std::string> out;
  for (const Entry& e : registry) out.emplace_back(e.type);
  return out;
}

template <class Entry>
const Entry& entry(const std::vector<Entry>& registry, std::string_view type) {
  for (const Entry& e : registry) {
    if (e.type == type) return e;
  }
  throw std::logic_error("no registry entry for '" + std::string(type) + "'");
}

}  // namespace

Setup read(scenario::Scenario scenario) {
  Setup out;
  out.scenario = std::move(scenario);
  const scenario::Scenario& s = out.scenario;
  if (s.fabric) {
    base::MapReader f = s.fabric->as_map();
    const std::string type = f.required("type").as_enum(types_of(fabric_registry()));
    out.fabric = entry(fabric_registry(), type).read(f);
    f.finish();
    out.fabric_at = {s.fabric->location(), s.fabric->path()};
  }
  const compute::Accelerator accelerator = compute::read_accelerator(s.compute);
  const base::Value& section = *s.workload;
  base::MapReader w = section.as_map();
  const std::string type = w.required("type").as_enum(types_of(workload_registry()));
  const workload::Context context{out.fabric.get(), s.fabric ? &*s.fabric : nullptr, section,
                                  accelerator,      s.simulation.end_time,           s.path};
  out.workload = entry(workload_registry(), type).read(w, context);
  w.finish();
  out.workload_at = {section.location(), section.path()};
  if (s.faults) {
    out.faults = fabric::read_faults(
        *s.faults, out.fabric ? out.fabric->nodes() : 0, s.simulation.end_time,
        out.fabric ? out.fabric->fault_targets() : fabric::FaultTargets{}, s.seed);
    out.faults_at = {s.faults->location(), s.faults->path()};
    // The fabric's own kinds go to its plug-in, before it builds.
    std::vector<fabric::Fault> on_fabric;
    for (const fabric::Fault& f : out.faults) {
      if (f.where) on_fabric.push_back(f);
    }
    if (!on_fabric.empty()) out.fabric->set_faults(std::move(on_fabric));
  }
  if (s.training) {
    out.steps_to_target = workload::read_training(*s.training);
    const base::Value at = s.training->as_map().required("steps_to_target");
    out.training_at = {at.location(), at.path()};
  }
  return out;
}

Setup read(const base::Document& document) {
  return read(scenario::load_scenario(document));
}

namespace {
// A scenario can ask for more than the machine has (2^32 - 1 PHOLD LPs).
constexpr const char* kNoMemory = "not enough memory to build it on this machine";
}  // namespace

std::unique_ptr<fabric::Network> build_network(const Setup& setup) {
  if (!setup.fabric) return nullptr;
  try {
    return setup.fabric->build();
  } catch (const std::invalid_argument& e) {
    throw base::ScenarioError(setup.fabric_at.location, setup.fabric_at.key, e.what());
  } catch (const std::bad_alloc&) {
    throw base::ScenarioError(setup.fabric_at.location, setup.fabric_at.key, kNoMemory);
  }
}

workload::Simulation build(const Setup& setup, const BuildOptions& options) {
  std::unique_ptr<fabric::Network> network = build_network(setup);
  workload::Simulation sim;
  try {
    const analytical::Estimators estimators;
    sim = setup.workload->build(std::move(network), options, estimators);
    // Not for `validate` (options.resolve_auto false): estimates take time.
    if (options.resolve_auto && sim.results) sim.results->use_estimators(estimators);
  } catch (const std::invalid_argument& e) {
    throw base::ScenarioError(setup.workload_at.location, setup.workload_at.key, e.what());
  } catch (const std::bad_alloc&) {
    throw base::ScenarioError(setup.workload_at.location, setup.workload_at.key, kNoMemory);
  }
  if (setup.steps_to_target) {
    try {
      sim.results->set_steps_to_target(*setup.steps_to_target);
    } catch (const std::invalid_argument& e) {
      throw base::ScenarioError(setup.training_at.location, setup.training_at.key, e.what());
    }
  }
  if (!setup.faults.empty()) {
    std::vector<workload::Slowdown> slowdowns;
    for (const fabric::Fault& f : setup.faults) {
      if (f.kind == fabric::FaultKind::kGpuSlowdown) {
        slowdowns.push_back({f.gpu, f.at, f.until, f.factor});
      }
    }
    const std::optional<fabric::Fault> failure = fabric::first_gpu_failure(setup.faults);
    try {
      sim.results->set_faults(std::move(slowdowns),
                              failure ? std::optional(failure->at) : std::nullopt);
    } catch (const std::invalid_argument& e) {
      throw base::ScenarioError(setup.faults_at.location, setup.faults_at.key, e.what());
    }
  }
  const std::string& trace = setup.scenario.trace;
  if (trace != "none") {
    try {
      sim.results->set_trace(trace == "ops"           ? workload::TraceLevel::kOps
                             : trace == "collectives" ? workload::TraceLevel::kCollectives
                                                      : workload::TraceLevel::kSteps);
    } catch (const std::invalid_argument& e) {
      throw base::ScenarioError(setup.scenario.output->location(),
                                setup.scenario.output->path() + ".trace", e.what());
    }
  }
  return sim;
}

}  // namespace sipsim::setup
