#pragma once
// SiP-ML's degree-aware placement (§3.2, Algorithm 1; docs/models.md, "Op
// graphs and SiP-ML placement"), a pure function from a DAG of ops, their
// durations, the quantum tau, k and Delta to the sub-ops' devices within an
// MP group. It knows no workload: `workload: graph` builds its DagOp view
// from its Graph (graph::place_job).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sipsim/pdes/time.hpp"

namespace sipsim::workload::mapping {

// One op of the DAG, a view into the caller's storage.
struct DagOp {
  std::span<const std::uint32_t> deps;  // producers (indices into the ops)
  std::uint64_t output_bytes = 0;       // the output its consumers read
  // Split into parts, each part needs its producers' whole outputs (a matrix
  // multiply split by output features); else parts map block to block.
  bool gathers = false;
};

struct SubOp {
  std::uint32_t op = 0;           // the op (index into the ops)
  std::uint32_t part = 0;         // which of its op's parts
  std::uint32_t device = 0;       // within the MP group, 0..k-1
  pdes::Time start = 0, end = 0;  // the list-schedule estimate the algorithm keeps
  std::uint64_t output = 0;       // its share of its op's output

  bool operator==(const SubOp&) const = default;
};
struct SubEdge {
  std::uint32_t from = 0, to = 0;  // sub-op indices
  std::uint64_t bytes = 0;         // the producer's output share

  bool operator==(const SubEdge&) const = default;
};
struct PlacementResult {
  std::vector<std::uint32_t> parts;  // per op
  std::vector<std::uint32_t> first;  // per op: its first sub-op
  std::vector<SubOp> subops;         // in placement (topological) order
  std::vector<SubEdge> edges;        // sorted by (from, to)
  std::uint32_t relocations = 0;     // sub-ops moved by the repair passes
  std::uint32_t fallbacks = 0;       // repairs that did not converge (all on one device)
  pdes::Time makespan = 0;           // the estimate's end (no communication)

  bool operator==(const PlacementResult&) const = default;
};

// Splits op i (duration durations[i], whole op on one GPU) into
// clamp(round(duration / quantum), 1, k) equal parts; each part of a
// gathering op depends on every part of its producers (their output shares
// as bytes), a part j of any other op on the producer's parts whose share
// overlaps its own (block mapping; equal part counts: one to one), with
// bytes = the producer's output x the overlap. Places them by Algorithm 1 on a ring of k GPUs where
// two GPUs may exchange data when their ring distance is at most
// floor(delta / 2) (so that a GPU has at most delta MP peers counting both
// directions; docs/models.md), repairing empty candidate sets by the paper's
// backward / forward relocation (with a compressing fallback that always
// ends, counted in `fallbacks`). `order` is a topological order of the ops
// (producers first); sub-ops are placed in it. Throws std::invalid_argument
// when k or the quantum is 0, durations are not one per op, or `order` is not
// a topological order of all the ops.
PlacementResult place(std::span<const DagOp> ops, std::span<const std::uint32_t> order,
                      const std::vector<pdes::Time>& durations, pdes::Time quantum, std::uint32_t k,
                      std::uint32_t delta);

// Whether every edge respects the distance and every producer's estimate
// ends before its consumer starts; "" or the first violation.
std::string check_placement(const PlacementResult& p, std::uint32_t k, std::uint32_t delta);

// What crosses GPUs: a producer sub-op's output goes once to each other
// GPU that runs consumers of it (they share it): the sum of their edges'
// bytes, at most the producer's output share (gathering consumers all need
// the same share). Its gradient comes back the same way, summed on that GPU
// after its consumers' backward. Sorted by (from, to_device).
struct Message {
  std::uint32_t from = 0;       // the producer sub-op
  std::uint32_t to_device = 0;  // the consumers' GPU
  std::uint64_t bytes = 0;
  std::vector<std::uint32_t> consumers;  // sub-ops on to_device, ascending
};
std::vector<Message> messages(const PlacementResult& p);

// Bytes device i sends device j within an MP group per iteration (forward
// activations plus backward gradients, the same bytes back: messages()), row-major k x k:
// what SiP-Ring / SiP-OCS circuit planning needs (SiP-ML §3.3). The DP ring
// (each GPU to its counterpart in the next group) is not in it.
std::vector<std::uint64_t> traffic_matrix(const PlacementResult& p, std::uint32_t k);

}  // namespace sipsim::workload::mapping
