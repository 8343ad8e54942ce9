#pragma once
// How far a run scales: the windowed engine's parallel efficiency at other
// rank counts, predicted from one finished run's figures by the model of
// docs/scaling.md ("The model"). The same model, with fits over several runs
// and every constant's source printed, is `python3 -m sipsim.scaling`; this
// is its one-run case, for the run summary and `sipsim info --run`, and a
// test keeps the two equal.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace sipsim::pdes {

// A finished run's figures (the /meta attributes of docs/output.md).
struct ScalingFigures {
  int ranks = 1;                           // m
  bool windowed = false;                   // a sequential run has no windows to scale
  std::uint64_t events = 0;                // E, committed
  std::uint64_t windows = 0;               // W
  std::uint64_t critical_path_events = 0;  // C: sum over windows of the busiest rank's
  double wall_seconds = 0;
  double busy_seconds_mean = 0;
  double critical_path_seconds = 0;
  double remote_fraction = 0;  // f_m
};

struct ScalingPrediction {
  int ranks = 1;  // P
  double wall_seconds = 0;
  double speedup = 0;     // T1 / wall
  double efficiency = 0;  // T1 / (P wall)
};

// The rank counts the run summary and `info` predict, and the efficiency
// below which ranks are said not to pay (half the machine waits).
inline constexpr std::array<int, 4> kAdvisedRanks{2, 16, 64, 256};
inline constexpr double kPaysEfficiency = 0.5;

// e_P, the expected largest of P independent standard normals (e_1 = 0,
// e_2 = 1/sqrt(pi), e_3 = 3/(2 sqrt(pi))).
double expected_max_normal(int p);

// Whether `run` has what the model needs: windows and committed events.
bool predictable(const ScalingFigures& run);

// The model at each rank count of `ranks`, fitted to `run` alone
// (docs/scaling.md): on m >= 2 ranks the cost of an event is the mean busy
// time x m / E and T1 = E x that (estimated), the window's fixed cost at m
// is the cited allreduce plus the assumed messages and the exchange cost x
// is fitted to what is left of wall - critical path; on one windowed rank
// the run gives c, the set-up and T1, and x is assumed. Empty unless
// predictable(run).
std::vector<ScalingPrediction> predict_scaling(const ScalingFigures& run,
                                               std::span<const int> ranks);

// The largest power of two up to 256 at which the predicted efficiency is
// at least kPaysEfficiency (1 when none is, 0 when not predictable).
int ranks_that_pay(const ScalingFigures& run);

}  // namespace sipsim::pdes
