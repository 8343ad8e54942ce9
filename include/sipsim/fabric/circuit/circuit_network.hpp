#pragma once
// Reconfigurable circuit fabrics (docs/architecture.md fabric/circuit/, §2 epochs):
// GPUs joined by direct optical circuits that a global controller plans for
// the job (SiP-OCS, SiP-ML App. A.2) or re-plans every period from the
// traffic it observed (SiP-Ring, App. A.1; SiP-OCS's dynamic mode, §4.3).
// The GPUs are the only LPs. A message is cut into chunks; a chunk takes the
// circuit to its destination if the plan has one. Otherwise, under a plan
// fixed for the job, the circuit towards it on a shortest path of the plan's
// circuits (relaying through GPUs, store and forward); under plans that
// change, it waits at its GPU for a plan with a circuit to its leg's end
// (CircuitController::leg_target; docs/models.md, "Circuit fabrics").
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/network.hpp"

namespace sipsim::fabric {

// `units` circuits (lightpaths, OCS circuits) from GPU src to GPU dst, each
// of the fabric's unit rate. `kept` of them carried the same pair in the
// previous plan and stay lit through the reconfiguration; the others are dark
// for the reconfiguration time.
struct Circuit {
  std::uint32_t src = 0, dst = 0;
  std::uint32_t units = 0;
  std::uint32_t kept = 0;
  friend bool operator==(const Circuit&, const Circuit&) = default;
};

// A plan: circuits sorted by (src, dst), units > 0, no pair twice.
struct CircuitPlan {
  std::vector<Circuit> circuits;
  friend bool operator==(const CircuitPlan&, const CircuitPlan&) = default;
};

// One row of the controller's log in /fabric/plans: a pair whose circuits a
// plan changed (or set up: the first plan lists every pair), with its new
// units (0: gone) and how many of them stayed lit.
struct PlanRecord {
  pdes::Time time = 0;  // the epoch (0: the plan the run starts with)
  std::uint64_t epoch = 0;
  std::uint32_t src = 0, dst = 0, units = 0, kept = 0;
};

// The global controller: the same object, inputs and draws on every rank, so
// every rank holds the same plan (docs/architecture.md).
class CircuitController {
 public:
  virtual ~CircuitController() = default;
  // The plan in force from time 0, from the job's traffic in one iteration.
  virtual CircuitPlan first_plan(std::span<const PairTraffic> job) = 0;
  // Re-planning period (0: the first plan holds for the whole run).
  virtual pdes::Time period() const { return 0; }
  // How long changed circuits are dark after an epoch.
  virtual pdes::Time reconfiguration_delay() const { return 0; }
  // At an epoch: the plan from `demand` (bytes per pair offered in the last
  // period plus those still undelivered, pairs with none left out, sorted),
  // with `kept` filled against `current`; nullopt keeps the current plan.
  virtual std::optional<CircuitPlan> next_plan(const CircuitPlan& current,
                                               std::span<const PairTraffic> demand,
                                               const pdes::EpochInfo& info) = 0;
  // Before next_plan, on every rank, with the same arguments: this rank's
  // share of planning it (pdes::Model::epoch_share); next_plan finds every
  // rank's in info.shares. The default shares nothing.
  virtual std::vector<std::uint64_t> plan_share(const CircuitPlan& /*current*/,
                                                std::span<const PairTraffic> /*demand*/,
                                                const pdes::EpochInfo& /*info*/) {
    return {};
  }
  // Where a chunk at GPU `at` for `dst` must go next on a circuit of its
  // own, under plans that change: `dst` itself where the fabric can give the
  // pair a circuit, else a GPU on the way (SiP-Ring: beyond the reach, the
  // GPU at the reach). The walk from a source ends at dst. The controller
  // counts traffic on these legs.
  virtual std::uint32_t leg_target(std::uint32_t /*at*/, std::uint32_t dst) const { return dst; }
  virtual std::string describe() const = 0;
  virtual std::vector<std::pair<std::string, std::string>> facts() const { return {}; }
};

struct CircuitFabricSpec {
  std::uint32_t gpus = 0;
  std::uint64_t unit_rate_bps = 0;  // one circuit / wavelength
  std::uint32_t units_per_gpu = 0;  // circuits a GPU sends on at once (SiP-OCS: Q; SiP-Ring: W)
  pdes::Time latency = 0;  // per circuit hop (propagation, SiP-ML Table 1's fabric latency)
  std::uint64_t chunk_bytes = 1 << 20;
  std::string name;       // "sip-ocs", "sip-ring": errors and descriptions
  bool log_plans = true;  // /fabric/plans (a row per pair and change: large at 1,024 GPUs)
};

// The transport's keys every circuit fabric's section has: latency (> 0: it
// is the lookahead between ranks), chunk (1 B .. 2 GiB, default
// `default_chunk`) and log_plans (default true). The caller fills the rest.
CircuitFabricSpec read_circuit_transport(base::MapReader& section, std::uint64_t default_chunk);

// Most re-planning periods one chunk may span on one circuit: each period is
// an epoch of the whole run (docs/architecture.md), so a rate at which a chunk takes
// thousands of periods makes a run of billions of epochs that never ends.
inline constexpr std::uint64_t kMaxPeriodsPerChunk = 10'000;
// Why one chunk taking more than kMaxPeriodsPerChunk periods on a circuit of
// `rate_bps` is refused, with the least rate that would do; "" when it takes
// fewer, or when period is 0 (one plan). The reader fails at its rate key.
std::string periods_per_chunk_problem(std::uint64_t rate_bps, std::uint64_t chunk_bytes,
                                      pdes::Time period, const char* circuit);

// What a controller re-plans from at an epoch: `demand` (sorted by pair), plus
// every pair of `job` without any as 1 byte, so that a planner which serves
// every pair with traffic first leaves the job's idle pairs a circuit where
// ports are left, and a pair whose traffic starts does not wait a period for
// one. Sorted by pair.
std::vector<PairTraffic> with_idle_job_pairs(std::span<const PairTraffic> demand,
                                             std::span<const PairTraffic> job);

std::unique_ptr<Network> make_circuit_network(const CircuitFabricSpec& spec,
                                              std::unique_ptr<CircuitController> controller);

}  // namespace sipsim::fabric
