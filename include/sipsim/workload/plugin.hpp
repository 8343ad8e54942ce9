#pragma once
// The workload plug-in interface: each workload folder implements it in its
// setup.cpp, one class per `workload: type`, and exports a reader that
// setup/'s table lists in one line. The reader reads and checks its section
// against the fabric, maps the job onto it (workload/mapping/) and tells the
// fabric what the job asks of it (fabric::Plugin::serve); build() then makes
// the simulation.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/compute/accelerator.hpp"
#include "sipsim/fabric/plugin.hpp"
#include "sipsim/workload/bench/collectives.hpp"
#include "sipsim/workload/estimators.hpp"
#include "sipsim/workload/results.hpp"

namespace sipsim::workload {

// What Plugin::build does besides building.
struct BuildOptions {
  // Resolve `algorithm: auto` with the critical-path estimator (minutes at
  // 65,536 nodes). false (`sipsim validate`): check only that every size has
  // an algorithm that is valid and small enough to estimate, which is the one
  // way the resolution can fail, and build with such an algorithm.
  bool resolve_auto = true;
};

// What a workload's reader may look at besides its own section.
struct Context {
  fabric::Plugin* fabric;                   // null without a fabric: section
  const base::Value* fabric_section;        // null likewise
  const base::Value& section;               // the workload's
  const compute::Accelerator& accelerator;  // the compute: section's
  pdes::Time end_time;                      // simulation.end_time
  const std::string& scenario_path;         // files the section names are relative to it
};

// What the estimators need of a collectives workload (`analyze`, `compare`, `info`).
struct CollectiveJob {
  CollectivesConfig config;
  std::vector<std::uint32_t> members;
  bool auto_algorithm = false;
};

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view type() const = 0;
  // Builds the model on `network` (null for workloads without a fabric);
  // throws std::invalid_argument for parameters only the model can refuse.
  virtual Simulation build(std::unique_ptr<fabric::Network> network, const BuildOptions& options,
                           const Estimators& estimators) const = 0;
  // The collective job the workload runs, or null.
  virtual const CollectiveJob* collective_job() const { return nullptr; }
  // `sipsim analyze` for workloads without a collective job: a closed-form
  // expectation, and whether it needs the fabric's network (else null).
  virtual bool closed_form_needs_network() const { return false; }
  virtual std::string closed_form(const fabric::Network* /*network*/,
                                  const Estimators& /*estimators*/) const {
    return "";
  }
  // `sipsim info`: what the workload read (lines ending in a newline), or "".
  virtual std::string info() const { return ""; }
};

// A workload's reader of its section (the keys after `type`), for setup/'s table.
using PluginReader = std::unique_ptr<Plugin> (*)(base::MapReader& section, const Context& context);

}  // namespace sipsim::workload
