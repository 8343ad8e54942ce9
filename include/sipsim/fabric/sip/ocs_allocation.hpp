#pragma once
// SiP-OCS one-shot circuit allocation (SiP-ML §3.3, App. A.2; docs/models.md,
// "SiP-OCS circuit allocation (App. A.2)"): N GPUs, Q optical circuit switches
// of N ports, an N x N traffic matrix; choose the Q permutations that maximise
// min over pairs with traffic of (circuits i->j) / TM_ij, i.e. minimise the
// longest transfer at B/Q per circuit.
#include <span>
#include <utility>
#include <vector>

namespace sipsim::fabric {

enum class OcsMethod {
  ilp,        // App. A.2 ILP solved by GLPK; gpus <= kOcsIlpMaxGpus
  heuristic,  // max-min water-filling + bipartite edge colouring; any size
};

// The ILP's size limit and default time limit (see docs/models.md).
inline constexpr int kOcsIlpMaxGpus = 64;

struct OcsAllocationOptions {
  OcsMethod method = OcsMethod::heuristic;
  double ilp_time_limit_s = 30;  // GLPK branch-and-bound limit
  // Failed ports (gpu, switch) (docs/faults.md): a GPU has Q less its failed
  // ports to give its pairs, and no circuit uses a failed port.
  std::vector<std::pair<int, int>> failed_ports;
};

// Circuits are directed, as A.2 writes them (its constraints (1)-(2) bound the
// transmit and receive side of each port separately and do not force
// P_ijk = P_jik): permutation[k][i] = j means GPU i transmits to GPU j on
// OCS k. permutation[k][i] = i is a port left idle (looped back).
struct OcsAllocation {
  int gpus = 0;
  int switches = 0;
  std::vector<std::vector<int>> permutation;  // [switch][gpu] -> gpu
  std::vector<int> circuits;                  // [i * gpus + j] = sum_k P_ijk (i != j)
  // A.2's objective: min over TM_ij > 0 of circuits(i, j) / TM_ij, in
  // circuits per byte; 0 when a pair with traffic has no circuit; +inf when
  // the matrix has no traffic.
  double circuits_per_byte = 0;
  // False only when the ILP stopped at its time limit before proving optimality.
  bool proven_optimal = true;
  // With failed ports: circuits the counts asked for that no switch could
  // carry (a GPU's working switches may be its partner's failed ones).
  int dropped = 0;

  [[nodiscard]] int circuits_between(int i, int j) const {
    return circuits[static_cast<std::size_t>(i) * static_cast<std::size_t>(gpus) +
                    static_cast<std::size_t>(j)];
  }
  // Longest transfer time (s) when each GPU has gpu_bytes_per_s in total, i.e.
  // gpu_bytes_per_s / Q per circuit: max_ij TM_ij / (circuits_ij * B / Q).
  // +inf when a pair with traffic has no circuit; 0 without traffic.
  [[nodiscard]] double bottleneck_seconds(double gpu_bytes_per_s) const;
};

// traffic is row-major N x N in bytes (TM_ij: bytes GPU i sends to GPU j; the
// diagonal is ignored). Deterministic for a given input (the ILP too, unless it
// hits its time limit). Throws std::invalid_argument on bad sizes or negative /
// non-finite traffic, on ilp with gpus > kOcsIlpMaxGpus, and
// std::runtime_error when GLPK fails.
[[nodiscard]] OcsAllocation allocate_ocs_circuits(int gpus, int switches,
                                                  std::span<const double> traffic,
                                                  const OcsAllocationOptions& options = {});

// A.2's objective for given circuit counts (row-major N x N), as above.
[[nodiscard]] double ocs_circuits_per_byte(int gpus, std::span<const int> circuits,
                                           std::span<const double> traffic);

}  // namespace sipsim::fabric
