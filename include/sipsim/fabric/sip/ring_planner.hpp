#pragma once
// SiP-Ring's wavelength planner (SiP-ML App. A.1; docs/models.md, "SiP-Ring
// wavelength planner (App. A.1)"): from the traffic of the last period, which
// lightpaths (src, dst, direction, wavelength) the ring sets up next epoch.
// A pure function of its inputs, so every rank computes the same plan.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sipsim::fabric {

// One fibre per direction. Segment s joins GPU s and GPU (s + 1) mod N; a
// clockwise lightpath from u over h hops uses segments u .. u+h-1, a
// counter-clockwise one segments u-1 .. u-h (mod N).
enum class RingDirection : std::uint8_t { kClockwise, kCounterClockwise };

struct Lightpath {
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  RingDirection direction = RingDirection::kClockwise;
  std::uint32_t wavelength = 0;  // 0 .. W-1
  friend bool operator==(const Lightpath&, const Lightpath&) = default;
};

// `count` lightpaths of a pair in one direction, on the consecutive
// wavelengths first .. first + count - 1: the planner's output, W times
// smaller than the lightpaths it stands for.
struct WavelengthGrant {
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  RingDirection direction = RingDirection::kClockwise;
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  friend bool operator==(const WavelengthGrant&, const WavelengthGrant&) = default;
};

struct RingDemand {
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  double bytes = 0;
  friend bool operator==(const RingDemand&, const RingDemand&) = default;
};

// How each step's min-cost flow (A.1 step 2) is solved. With one unit of
// supply on arcs that all run forward from the cut it is a shortest path in
// a DAG: dynamic programming in ring order finds the same optimum as LEMON's
// network simplex, in O(V + E) per solve (the tests compare the two plans).
enum class RingSolver : std::uint8_t { kShortestPath, kNetworkSimplex };

struct RingPlanInput {
  std::uint32_t gpus = 0;         // N
  std::uint32_t wavelengths = 0;  // W per GPU
  std::uint32_t reach = 15;       // max hops of a lightpath (degree reach + 1)
  // N x N, row-major: bytes src -> dst sent in the last period (diagonal ignored).
  std::span<const double> traffic;
  // The same as a list (sorted by (src, dst), each pair once), which the
  // planner reads instead of `traffic` when it is not empty: O(pairs), not
  // O(N^2), per plan.
  std::span<const RingDemand> demands;
  std::uint64_t seed = 0;
  std::uint64_t epoch = 0;
  RingSolver solver = RingSolver::kShortestPath;
  // Fibres other ranks planned (plan_ring_fibres of the same input), any
  // number per entry: they are taken as they are, the rest planned here.
  std::span<const std::vector<std::uint64_t>> planned;
};

struct RingPlan {
  // Sorted by (src, dst, direction, first); a pair's grants neither overlap
  // nor touch (adjacent ranges are merged). Only pairs with demand get one.
  std::vector<WavelengthGrant> grants;
  // Demands farther than the reach in both directions: they get no lightpath
  // (the fabric relays them or lets them wait).
  std::vector<RingDemand> unreachable;
  // Wavelengths [0, clockwise_wavelengths) are planned on the clockwise
  // fibre, the rest on the counter-clockwise one.
  std::uint32_t clockwise_wavelengths = 0;
  std::size_t steps = 0;   // "remove and repeat" iterations (A.1 step 3)
  std::size_t solves = 0;  // network-simplex runs (> steps when a cut has several edges)
  friend bool operator==(const RingPlan&, const RingPlan&) = default;
};

// The Philox stream of the randomized rounding: RandomStream(seed,
// kRingPlannerStream, epoch mod 2^32); no LP of a model has this id.
inline constexpr std::uint32_t kRingPlannerStream = 0x52494E47u;  // "RING"

// Throws std::invalid_argument on a traffic span that is not N x N, negative
// or non-finite bytes, reach 0 or W 0 with N > 1.
RingPlan plan_ring_wavelengths(const RingPlanInput& input);

// Planning split over ranks: A.1 steps 1-3 of the fibres this rank takes
// (clockwise on rank 0 mod ranks, counter-clockwise on rank 1 mod ranks), as
// words for another rank's RingPlanInput::planned. Nothing on one rank. The
// fibres are independent until step 4's rounding, so the plan is the same
// however they were split. Throws as plan_ring_wavelengths does.
std::vector<std::uint64_t> plan_ring_fibres(const RingPlanInput& input, int rank, int ranks);

// The plan's lightpaths one by one, sorted by (direction, wavelength, src).
std::vector<Lightpath> lightpaths_of(const RingPlan& plan);

// The three rules of a plan: no wavelength twice on a (direction, segment);
// per GPU and wavelength at most one peer sent to and one received from; no
// lightpath longer than the reach (or a wavelength >= W). nullopt when all hold,
// else the first violation.
std::optional<std::string> check_ring_plan(std::span<const Lightpath> lightpaths,
                                           std::uint32_t gpus, std::uint32_t wavelengths,
                                           std::uint32_t reach);
std::optional<std::string> check_ring_plan(const RingPlan& plan, std::uint32_t gpus,
                                           std::uint32_t wavelengths, std::uint32_t reach);

// Hops from src to dst in a direction (0 .. N-1).
std::uint32_t ring_hops(std::uint32_t gpus, std::uint32_t src, std::uint32_t dst,
                        RingDirection direction);

}  // namespace sipsim::fabric
