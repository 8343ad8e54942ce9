#pragma once
// The composition root (DESIGN.md §1): a parsed scenario becomes a runnable
// simulation through two explicit registry tables, one of fabrics and one of
// workloads (setup/fabrics.cpp, setup/workloads.cpp). Each entry reads its own
// section with its module's reader (fabric/<family>/..._config.cpp,
// workload/..., pdes/models/...) and knows how to build it; nothing else tests
// a type string. Adding a fabric or a workload is its module plus one row.
//
// Only setup/ and app/ read analytical/: `algorithm: auto` is resolved here,
// with the critical-path estimator, before the simulator is built.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sipsim/collective/schedule.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/scenario/scenario.hpp"
#include "sipsim/workload/bench/collectives.hpp"
#include "sipsim/workload/results.hpp"

namespace sipsim::setup {

// What setup::build does besides building.
struct BuildOptions {
  // Resolve `algorithm: auto` with the critical-path estimator (minutes at
  // 65,536 nodes). false (`sipsim validate`): check only that every size has
  // an algorithm that is valid and small enough to estimate, which is the one
  // way the resolution can fail, and build with such an algorithm.
  bool resolve_auto = true;
};

// A fabric section, read and checked.
class FabricSetup {
 public:
  virtual ~FabricSetup() = default;
  virtual std::string_view type() const = 0;
  virtual std::uint32_t nodes() const = 0;
  // The slowest rate any message's data may flow at (the slowest link, port
  // or transceiver slot): the bound on a collective's simulated time.
  virtual std::uint64_t slowest_rate_bps() const = 0;
  // Throws std::invalid_argument for parameters only the model can refuse
  // (none from a section its reader accepted).
  virtual std::unique_ptr<fabric::Network> build() const = 0;

  // The shapes of the hierarchy a group of p nodes sits in, for the
  // hierarchical algorithms (consecutive nodes when `contiguous`): the 2D
  // torus's {X, Y} and the hierarchical ring's levels, innermost first. By
  // default the most square split, and the same for the hierarchy.
  virtual collective::AlgorithmParams algorithm_params(std::uint32_t p, bool contiguous) const;
  // A fabric that places collective jobs itself (RAMP §6.3) returns the nodes
  // of an n-member job, by member, and sets the job's parameters in `params`
  // (the payload of the algorithm family it places for, through that family's
  // setter, e.g. ramp_x::set_job); throws std::invalid_argument, leaving
  // `params` as they were, when it cannot place n nodes. nullopt: the
  // scenario's group is used.
  virtual std::optional<std::vector<std::uint32_t>> place_job(
      std::uint32_t n, collective::AlgorithmParams& params) const;
  // The placed job is the only one on the fabric, with an algorithm that the
  // fabric serves (RAMP §6.2.2 eq. 3-4: extra transceiver groups).
  virtual void serve_job(const collective::AlgorithmParams& /*params*/) {}
  // A fabric that places a job with several axes of parallelism itself (RAMP
  // §6.3 per axis, fabric/ramp/placement.hpp): `sizes` innermost first (GPU
  // g's rank on axis 0 is g % sizes[0], ...). nullopt: the GPUs take the
  // first nodes in order, with the algorithm_params of each group size.
  struct AxesPlacement {
    std::vector<std::uint32_t> nodes;                 // per GPU
    std::vector<collective::AlgorithmParams> params;  // per axis
    collective::AlgorithmParams job;                  // the whole job
    collective::Algorithm algorithm;                  // the fabric's algorithm for the groups
  };
  // The job runs several collectives at once (training): RAMP-x keeps the
  // optical rules within one collective's step, not between concurrent ones,
  // so RAMP serialises a transfer that would break them and counts it
  // (fabric.permissive), unless the scenario set permissive itself.
  virtual void serve_concurrent_collectives() {}
  // The placed training job's groups run the fabric's algorithm: the fabric
  // serves them (RAMP: the job's sub-box and its innermost groups, §6.2.2).
  virtual void serve_axes(const AxesPlacement& /*placement*/) {}
  virtual std::optional<AxesPlacement> place_axes(std::span<const std::uint32_t> /*sizes*/) const {
    return std::nullopt;
  }
  // A fabric of direct circuits whose nodes each reach a limited number of
  // peers at once (SiP-OCS: Q circuits; SiP-Ring: its degree, from the power
  // budget, SiP-ML §5): that number, which the training workloads' mappings
  // must respect (SiP-ML §3.2). nullopt: no limit.
  virtual std::optional<std::uint32_t> degree_limit() const { return std::nullopt; }
  // The nodes sit in order on a ring on which a path of h hops occupies h
  // segments (SiP-Ring): a workload lays a group out folded, so that its own
  // ring's neighbours stay within 2 hops (SiP-ML §5: placement keeps
  // communicating GPUs close). false: node order is free.
  virtual bool ring_embedding() const { return false; }
  // Extra text for `sipsim info` (RAMP's power budget, power and cost), or "".
  virtual std::string physical_report() const { return ""; }

  // The section, for errors found when building.
  std::string location, key;
};

// What the estimators need of a collectives workload (`analyze`, `compare`, `info`).
struct CollectiveJob {
  workload::CollectivesConfig config;
  std::vector<std::uint32_t> members;
  bool auto_algorithm = false;
};

// A workload section, read and checked against its fabric.
class WorkloadSetup {
 public:
  virtual ~WorkloadSetup() = default;
  virtual std::string_view type() const = 0;
  // Builds the model on `network` (null for workloads without a fabric);
  // throws std::invalid_argument for parameters only the model can refuse.
  virtual workload::Simulation build(std::unique_ptr<fabric::Network> network,
                                     const BuildOptions& options) const = 0;
  // The collective job the workload runs, or null.
  virtual const CollectiveJob* collective_job() const { return nullptr; }
  // `sipsim analyze` for workloads without a collective job: a closed-form
  // expectation, one line.
  virtual std::string analysis(const scenario::SimulationSettings& /*simulation*/) const {
    return "";
  }

  std::string location, key;
};

// What a workload's reader may look at besides its own section.
struct WorkloadContext {
  const scenario::Scenario& scenario;
  FabricSetup* fabric;  // null without a fabric: section
  const base::Value& section;
  const compute::Accelerator& accelerator;  // the compute: section
};

// The registry tables, in the order their type names are listed in errors.
struct FabricEntry {
  std::string_view type;
  std::unique_ptr<FabricSetup> (*read)(base::MapReader& section);
};
struct WorkloadEntry {
  std::string_view type;
  std::unique_ptr<WorkloadSetup> (*read)(base::MapReader& section, const WorkloadContext& context);
};
const std::vector<FabricEntry>& fabric_registry();
const std::vector<WorkloadEntry>& workload_registry();

// A scenario with its sections read by their modules.
struct Setup {
  scenario::Scenario scenario;
  std::unique_ptr<FabricSetup> fabric;  // null without a fabric: section
  std::unique_ptr<WorkloadSetup> workload;
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
