#pragma once
// The composition root: a parsed scenario becomes a runnable simulation
// through two registry tables of one line per entry, one of fabrics and one
// of workloads (setup/registry.cpp). Each entry is a plug-in's reader: a
// fabric family's (fabric/<family>/plugin.cpp, fabric/plugin.hpp) or a
// workload's (workload/<name>/setup.cpp, workload/plugin.hpp); nothing else
// tests a type string. Adding a fabric or a workload is its folder plus one
// line here.
//
// Only setup/ and app/ read analytical/: setup/ passes its estimators to the
// workloads (`algorithm: auto` is resolved with the critical-path estimator
// before the simulator is built).
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sipsim/fabric/faults.hpp"
#include "sipsim/fabric/plugin.hpp"
#include "sipsim/scenario/scenario.hpp"
#include "sipsim/workload/plugin.hpp"
#include "sipsim/workload/steps_to_target.hpp"

namespace sipsim::setup {

using BuildOptions = workload::BuildOptions;
using CollectiveJob = workload::CollectiveJob;

// The registry tables, in the order their type names are listed in errors.
struct FabricEntry {
  std::string_view type;
  fabric::PluginReader read;
};
struct WorkloadEntry {
  std::string_view type;
  workload::PluginReader read;
};
const std::vector<FabricEntry>& fabric_registry();
const std::vector<WorkloadEntry>& workload_registry();

// Where a section is, for errors found when building.
struct Section {
  std::string location, key;
};

// A scenario with its sections read by their plug-ins.
struct Setup {
  scenario::Scenario scenario;
  std::unique_ptr<fabric::Plugin> fabric;  // null without a fabric: section
  std::unique_ptr<workload::Plugin> workload;
  std::optional<workload::StepsToTarget> steps_to_target;  // the training section's
  std::vector<fabric::Fault> faults;                       // the faults section's
  Section fabric_at, workload_at, training_at, faults_at;
};

// Reads and checks every key of every section; throws base::ScenarioError
// (file:line:col: key: message) on the first problem.
Setup read(scenario::Scenario scenario);
Setup read(const base::Document& document);

// The fabric's network (errors located at the fabric section).
std::unique_ptr<fabric::Network> build_network(const Setup& setup);
// The simulation (errors located at the section whose parameters fail).
workload::Simulation build(const Setup& setup, const BuildOptions& options = {});

}  // namespace sipsim::setup
