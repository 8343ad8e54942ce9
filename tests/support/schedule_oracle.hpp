#pragma once
// The data-level schedule oracle, shared by the collective tests (docs/architecture.md): an
// abstract executor runs every member's schedule concurrently on contributor sets and checks
// message matching, byte accounting, the local operation rule, deadlock freedom and the final state
// of each operation. Also the operations, algorithms and specs the tests share.
#include <cstdint>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "sipsim/collective/algorithm.hpp"
#include "sipsim/collective/schedule.hpp"

namespace sipsim::collective::oracle {

// Every operation, in enum order.
inline constexpr Op kOps[] = {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather,
                              Op::kAllToAll,  Op::kBroadcast,     Op::kReduce,
                              Op::kGather,    Op::kScatter,       Op::kBarrier};
// Every algorithm but RAMP-x, whose specs need a RAMP job (optical_rules.hpp: rampt::spec).
inline const Algorithm kAlgorithms[] = {algorithm("ring"),
                                        algorithm("bidirectional-ring"),
                                        algorithm("hierarchical-ring"),
                                        algorithm("torus2d"),
                                        algorithm("halving-doubling"),
                                        algorithm("bruck"),
                                        algorithm("direct"),
                                        algorithm("binomial-tree"),
                                        algorithm("double-binary-tree"),
                                        algorithm("direct-concurrent"),
                                        algorithm("multicast-tree"),
                                        algorithm("ring-relay")};

// The support matrix of the brief, kept independent of the implementation's own table.
bool expected_support(Algorithm a, Op op);

bool rooted(Op op);
// hierarchical-ring, torus2d and multicast-tree, which read dims.
bool two_dims(Algorithm a);

std::string describe(const CollectiveSpec& s);

// A spec of `op` with `a`; dims {d0, d1} ({1, p} when d0 = 0 for the two-dimensional
// algorithms).
CollectiveSpec make_spec(Op op, Algorithm a, std::uint32_t p, std::uint64_t bytes = 1000,
                         std::uint32_t root = 0, std::uint32_t d0 = 0, std::uint32_t d1 = 0);

// ---------------------------------------------------------------------------------------------
// The abstract executor.

// Changes a member's step before it runs (the oracle's own tests break schedules with it).
using Mutator = std::function<void(std::uint32_t member, std::uint32_t step, Step&)>;

// A message as posted: sender, receiver, the sender's step start time (its round).
struct Transfer {
  std::uint32_t from = 0, to = 0;
  std::uint64_t time = 0;
};

struct Outcome {
  std::string error;         // "" when everything checked out
  std::uint64_t rounds = 0;  // critical path, one unit per step (all steps cost the same)
  std::uint64_t messages = 0;
};

// Runs every member's schedule of `spec` and checks it; every posted message is appended to
// `log` when given.
Outcome execute(const CollectiveSpec& spec, Mutator mutate = {},
                std::vector<Transfer>* log = nullptr);

// Every valid (op, algorithm, dims, root) for group size p.
std::vector<CollectiveSpec> all_specs(std::uint32_t p, const std::vector<std::uint64_t>& sizes,
                                      const std::vector<Algorithm>& algorithms);

}  // namespace sipsim::collective::oracle
