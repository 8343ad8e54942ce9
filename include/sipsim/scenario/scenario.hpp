#pragma once
// A scenario file turned into typed, validated settings (DESIGN.md §1).
// docs/scenarios.md is the reference for every key.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/circuit/topoopt.hpp"
#include "sipsim/fabric/electrical/bcube.hpp"
#include "sipsim/fabric/electrical/cluster.hpp"
#include "sipsim/fabric/electrical/torus2d.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/fabric/ramp/physical.hpp"
#include "sipsim/fabric/ramp/transport.hpp"
#include "sipsim/pdes/engine.hpp"
#include "sipsim/pdes/models/phold.hpp"
#include "sipsim/workload/bench/collectives.hpp"

namespace sipsim::scenario {

struct SimulationSettings {
  pdes::Time end_time = pdes::kTimeMax;  // simulation.end_time
  pdes::EngineKind engine = pdes::EngineKind::kAuto;
  double progress_interval_s = 5.0;
};

// fabric: — which network the nodes sit on (DESIGN.md §3).
struct ElectFlatConfig {
  std::uint32_t nodes = 0;
  std::uint64_t bandwidth_bps = 0;
  pdes::Time latency = 0;
};
struct RoutedConfig {
  std::string type;  // cluster, torus2d, bcube, topoopt
  std::uint32_t nodes = 0;
  std::uint64_t chunk_bytes = 1 << 20;
  pdes::Time io_latency = 0;  // per message at the sending node
  fabric::ClusterSpec cluster;
  fabric::Torus2dSpec torus;
  fabric::BcubeSpec bcube;
  fabric::TopooptSpec topoopt;
};
struct RampConfig {
  fabric::RampSpec spec;
  // Per-component inputs of the physical models (RAMP §4.2–4.3): fabric.physical.
  fabric::ramp::RampGeometry geometry;
  fabric::ramp::OpticalParams optics;
  fabric::ramp::CostInputs cost;
  fabric::ramp::PowerInputs power;
  bool ignore_power_budget = false;  // fabric.ignore_power_budget: run a configuration
                                     // whose optical power budget fails (RAMP §4.2)
  bool extra_transceivers = true;    // fabric.extra_transceivers: give a ramp-x job's
                                     // spec.job (RAMP §6.2.2 eq. 3-4)
};
using FabricConfig = std::variant<std::monostate, ElectFlatConfig, RoutedConfig, RampConfig>;

// Builds the network a fabric config describes.
std::unique_ptr<fabric::Network> make_network(const FabricConfig& config);
std::string fabric_type(const FabricConfig& config);

using WorkloadConfig = std::variant<pdes::models::PholdConfig, workload::CollectivesConfig>;

struct Scenario {
  std::string name;
  std::uint64_t seed = 1;
  SimulationSettings simulation;
  WorkloadConfig workload;
  FabricConfig fabric;          // std::monostate for workloads without a network (PHOLD)
  bool auto_algorithm = false;  // workload.algorithm: auto — resolved by the analyzer
  // Where the fabric and workload sections are, for errors found when they
  // are built ("file:line:col" and the key path).
  std::string fabric_location, fabric_key, workload_location, workload_key;
  std::string path;       // as given on the command line
  std::string yaml_text;  // the file's text, recorded in the run file
  std::vector<std::string> overrides;
};

// Throws ScenarioError (file:line:col: key.path: message) on the first problem.
Scenario load_scenario(const base::Document& document);

// The scenario's network; parameter errors found while building it are
// ScenarioErrors located at the fabric section.
std::unique_ptr<fabric::Network> build_network(const Scenario& scenario);

}  // namespace sipsim::scenario
