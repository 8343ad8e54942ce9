#pragma once
// A scenario file turned into typed, validated settings (DESIGN.md §1).
// docs/scenarios.md is the reference for every key.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "sipsim/pdes/engine.hpp"
#include "sipsim/scenario/yaml_reader.hpp"
#include "sipsim/workload/phold.hpp"

namespace sipsim::scenario {

struct SimulationSettings {
  pdes::Time end_time = pdes::kTimeMax;  // simulation.end_time
  pdes::EngineKind engine = pdes::EngineKind::kAuto;
  double progress_interval_s = 5.0;
};

using WorkloadConfig = std::variant<workload::PholdConfig>;

struct Scenario {
  std::string name;
  std::uint64_t seed = 1;
  SimulationSettings simulation;
  WorkloadConfig workload;
  std::string path;       // as given on the command line
  std::string yaml_text;  // the file's text, recorded in the run file
  std::vector<std::string> overrides;
};

// Throws ScenarioError (file:line:col: key.path: message) on the first problem.
Scenario load_scenario(const Document& document);

}  // namespace sipsim::scenario
