#pragma once
// A scenario file's top level (docs/architecture.md): name, seed, simulation settings,
// and the fabric, compute and workload sections, which their modules read
// (setup/ dispatches each to its registry entry). scenario/ only parses: no
// placement, no estimates, no model building. docs/scenarios.md is the
// reference for every key.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/pdes/engine.hpp"
#include "sipsim/pdes/time.hpp"

namespace sipsim::scenario {

struct SimulationSettings {
  pdes::Time end_time = pdes::kTimeMax;  // simulation.end_time
  pdes::EngineKind engine = pdes::EngineKind::kAuto;
  double progress_interval_s = 5.0;
};

struct Scenario {
  std::string name;
  std::uint64_t seed = 1;
  SimulationSettings simulation;
  // The sections, with their file positions for errors (they keep the
  // document alive).
  std::optional<base::Value> fabric;    // absent for workloads without one (PHOLD)
  std::optional<base::Value> compute;   // absent: the default device
  std::optional<base::Value> workload;  // always present after load_scenario
  std::optional<base::Value> output;    // the output section, when given
  std::optional<base::Value> training;  // the training section (time to accuracy), when given
  std::optional<base::Value> faults;    // the faults section (read by setup/), when given
  std::string trace = "none";           // output.trace: none, ops, collectives
  std::string path;                     // as given on the command line
  std::string yaml_text;                // the file's text, recorded in the run file
  std::vector<std::string> overrides;
};

// Reads the top level and the simulation section; throws base::ScenarioError
// (file:line:col: key.path: message) on the first problem.
Scenario load_scenario(const base::Document& document);

}  // namespace sipsim::scenario
