#pragma once
// Placement (workload/mapping/): a job's parallel groups become fabric nodes
// and per-group algorithm parameters. The fabric's facts (fabric/plugin.hpp)
// choose the Mapper:
// - contiguous: GPU g on node g, every group's hierarchy from the fabric's
//   structure (its tiers, its torus), else the most square split;
// - folded ring (SiP-Ring, SiP-ML §3.2, §5): every axis folded, its rings'
//   neighbours within 2 hops of each other on the fibre;
// - RAMP sub-box (RAMP §6.3): the job on the sub-box that activates the
//   fewest RAMP-x steps, its groups running RAMP-x;
// and SiP-ML's degree-aware Algorithm 1 places an op graph's sub-ops
// (mapping/degree_aware.hpp).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "sipsim/collective/algorithm.hpp"
#include "sipsim/collective/schedule.hpp"
#include "sipsim/fabric/plugin.hpp"

namespace sipsim::workload::mapping {

// A job of one group (the collective benchmark, DLRM) that the fabric places.
struct GroupPlacement {
  std::vector<std::uint32_t> nodes;    // by member
  collective::Algorithm algorithm;     // the fabric's own (RAMP-x)
  collective::AlgorithmParams params;  // with that algorithm's payload
  fabric::Service service;             // what the fabric serves when it runs alone
};

// A job with axes of parallelism, `sizes` innermost first: GPU g's rank on
// axis 0 is g % sizes[0], on axis 1 (g / sizes[0]) % sizes[1], ...
struct AxesMapping {
  std::vector<std::uint32_t> nodes;                 // per GPU; empty: GPU g on node g
  bool folded = false;                              // laid out folded on a ring fabric
  std::vector<collective::AlgorithmParams> params;  // per axis
  // The fabric's own algorithm for the groups (RAMP-x on RAMP), which they
  // run unless the scenario names another; the service the fabric then
  // gives the job (its sub-box and its innermost groups').
  std::optional<collective::Algorithm> algorithm;
  fabric::Service service;
};

class Mapper {
 public:
  explicit Mapper(const fabric::Plugin& fabric) : fabric_(fabric) {}
  virtual ~Mapper() = default;

  // The shapes a group of p nodes (consecutive when `contiguous`) gives the
  // hierarchical algorithms: the fabric's torus and levels, else the most
  // square split for both.
  collective::AlgorithmParams group_params(std::uint32_t p, bool contiguous) const;
  // A one-group job of n members on nodes the fabric chooses, `params` with
  // the fabric's payload added; nullopt: the scenario's group is used.
  // Throws std::invalid_argument when the fabric cannot place n nodes.
  virtual std::optional<GroupPlacement> place_group(
      std::uint32_t /*n*/, const collective::AlgorithmParams& /*params*/) const {
    return std::nullopt;
  }
  // Every axis on consecutive nodes (axis 0 contiguous), by default.
  virtual AxesMapping map_axes(std::span<const std::uint32_t> sizes) const;

 protected:
  const fabric::Plugin& fabric_;
};

// The mapper the fabric's facts choose.
std::unique_ptr<Mapper> make_mapper(const fabric::Plugin& fabric);

// The most square split of p: a x (p / a) with the largest divisor a <= sqrt(p).
collective::Dims most_square(std::uint32_t p);

// Every axis folded (ring_fold.hpp) on a ring of `ring_nodes`: the GPU with
// ranks (r0, r1, r2) sits at f(r0, n0) + n0 * (f(r1, n1) + n1 * f(r2, n2)),
// f = folded_slot, except that an axis whose groups span the whole ring
// stays straight (it closes around the fibre). A permutation of 0 .. n-1.
std::vector<std::uint32_t> folded_nodes(std::span<const std::uint32_t> sizes,
                                        std::uint32_t ring_nodes);

}  // namespace sipsim::workload::mapping
