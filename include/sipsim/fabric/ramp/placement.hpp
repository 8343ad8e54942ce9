#pragma once
// Placing a job with several axes of parallelism on RAMP (RAMP §6.3 applied
// to a training job; docs/models.md, "RAMP-x for training communicators").
//
// A training job of n = n_0 * n_1 * ... GPUs (axes innermost first, e.g. TP,
// DP, PP) takes the sub-box of RAMP §6.3 for n members, active sizes
// (s1, s2, s3, s4) (shape_for). Each axis takes a factor of every step's size,
// innermost axis first, from step 1 up to step 4 (as §6.3 fills a job's
// steps): axis a's sizes t_a,k divide s_k and multiply to n_a. GPU (r_0, r_1, ...) sits at the
// offsets
//   c_k = sum_a off(r_a)_k * prod_{b inner to a} t_b,k,
// off(r) being member r's offsets in its axis's own shape (offsets_of_member).
// Every group of one axis (the other ranks fixed) is then a RAMP-x job of
// shape t_a, translated and, along a step whose size other axes share,
// strided: its members' step-k pairs are step-k moves of the fabric, so the
// step's transceiver rule applies to them as to a job placed alone.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sipsim/fabric/ramp/geometry.hpp"

namespace sipsim::fabric::ramp {

// A fabric whose jobs take sub-boxes (RAMP §6.3): its geometry (x, J and
// D = Lambda / x) and what a stage of the pipelined tree broadcast costs
// there (RAMP §6.1 eq. 1: the I/O and propagation latency, and one
// transceiver group's rate, which carries the stage's chunk).
struct SubBoxes {
  std::uint32_t x = 0, J = 0, D = 0;
  std::uint64_t stage_latency_ps = 0;
  std::uint64_t stage_rate_bps = 0;
};

struct AxesPlacement {
  RampShape job;                                   // the whole job's sub-box (serves §6.2.2)
  std::vector<std::array<std::uint32_t, 4>> axes;  // per axis, its active sizes t_a
  std::vector<std::uint32_t> nodes;                // per GPU (axis 0 fastest), its fabric node
  // Axis a's shape: the fabric's (x, J, D) with active sizes t_a.
  RampShape axis_shape(std::size_t a) const {
    return RampShape{job.x, job.J, job.D, {axes[a][0], axes[a][1], axes[a][2], axes[a][3]}};
  }
};

// nullopt when the job does not factor on the fabric (shape_for) or an axis's
// size is not a product of factors of the steps' sizes left to it.
std::optional<AxesPlacement> place_axes(std::uint32_t x, std::uint32_t J, std::uint32_t D,
                                        std::span<const std::uint32_t> axis_sizes);

}  // namespace sipsim::fabric::ramp
