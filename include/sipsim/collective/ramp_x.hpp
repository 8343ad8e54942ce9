#pragma once
// RAMP-x's face outside its own file (RAMP §6; docs/models.md, "RAMP-x collectives"): the
// parameters it carries in the generic AlgorithmParams and CollectiveSpec (their
// payload, payload.hpp), and the formulas code outside the algorithm needs. The
// RAMP geometry they read (coordinates, transceivers, job placement, the multicast
// tree's shape) is a fabric fact and lives in fabric/ramp/geometry.hpp.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "sipsim/collective/schedule.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"

namespace sipsim::collective::ramp_x {

// What a communicator offers RAMP-x (AlgorithmParams::payload): the job the
// fabric placed (RAMP §6.3), and RAMP §6.1 eq. 1's pipelined tree broadcast: a
// stage's set-up latency (I/O + propagation) and a transceiver group's data
// rate. A zero rate, or !tree_broadcast, runs broadcast as scatter + all-gather.
struct JobParams {
  fabric::ramp::RampShape shape;
  bool tree_broadcast = true;  // the workload's choice (ramp_broadcast)
  std::uint64_t tree_alpha_ps = 0;
  std::uint64_t tree_group_rate_bps = 0;
  friend bool operator==(const JobParams&, const JobParams&) = default;
};

// The RAMP-x parameters `params` carry (the defaults when they carry none).
const JobParams& job_params(const AlgorithmParams& params);
// The fabric placed a RAMP-x job of `shape` (RAMP §6.3) whose tree broadcast's
// stages cost `tree_alpha_ps` and carry their chunk at `tree_group_rate_bps`
// (0: no tree). Keeps the workload's tree_broadcast choice.
void set_job(AlgorithmParams& params, const fabric::ramp::RampShape& shape,
             std::uint64_t tree_alpha_ps = 0, std::uint64_t tree_group_rate_bps = 0);
// The workload's choice of broadcast: RAMP §6.1's pipelined tree (true) or
// scatter + all-gather over the RAMP-x steps.
void set_tree_broadcast(AlgorithmParams& params, bool tree);

// RAMP-x's part of one collective (CollectiveSpec::payload): the job's shape, and
// for broadcast k >= 1 runs RAMP §6.1's pipelined tree of k stages (eq. 1;
// broadcast_stages) with optical multicast; 0 runs scatter + all-gather over the
// RAMP-x steps. The tree needs a full job with x*J >= Lambda.
struct SpecParams {
  fabric::ramp::RampShape shape;
  std::uint32_t stages = 0;
  friend bool operator==(const SpecParams&, const SpecParams&) = default;
};

// The RAMP-x part of `spec` (the defaults when it has none). Read on every step.
inline const SpecParams& spec_params(const CollectiveSpec& spec) {
  static constexpr SpecParams kNone{};
  const SpecParams* p = spec.payload.get<SpecParams>();
  return p != nullptr ? *p : kNone;
}
// Sets it: a spec made by hand (make_spec sets it from the communicator's JobParams).
void set_spec(CollectiveSpec& spec, const fabric::ramp::RampShape& shape, std::uint32_t stages = 0);

// RAMP §6.1's pipelined tree broadcast (fabric::ramp::tree_broadcast_fits).
// Eq. 1: the number of stages k of the pipeline that minimises (k + s - 2)(alpha +
// m*beta/k): k = sqrt((s - 2) * m * beta / alpha), with m*beta the time the whole
// message takes on one transceiver group (`message_ps`; a multicast sends all of it
// on every transceiver, so beta is the inverse of a transceiver group's rate, not of
// the node's total capacity as the paper's text reads) and alpha the stage's set-up
// latency (I/O + propagation). At least 1, at most one stage per slot of data.
inline std::uint32_t broadcast_stages(std::uint64_t message_ps, std::uint64_t alpha_ps,
                                      std::uint64_t max_stages) {
  constexpr double s = 3;  // the tree's diameter
  const double k =
      alpha_ps == 0
          ? 1.0
          : std::sqrt((s - 2) * static_cast<double>(message_ps) / static_cast<double>(alpha_ps));
  const auto rounded = static_cast<std::uint64_t>(std::llround(std::max(1.0, k)));
  return static_cast<std::uint32_t>(
      std::clamp<std::uint64_t>(rounded, 1, std::max<std::uint64_t>(1, max_stages)));
}

}  // namespace sipsim::collective::ramp_x
