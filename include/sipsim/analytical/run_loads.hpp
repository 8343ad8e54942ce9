#pragma once
// The bytes a step's messages put on each resource, added run by run
// (fabric::CostModel::PathRun) in O(1) and read back as the largest load over a
// run in O(1): a difference array per ring, summed once per step, and a
// sparse table of range maxima over the rings the step touched. The
// critical-path estimator uses it where a fabric describes its paths as runs
// (the 2D torus: a route is one run along a row and one along a column).
#include <cstdint>
#include <vector>

#include "sipsim/fabric/cost_model.hpp"

namespace sipsim::analytical {

class RunLoads {
 public:
  explicit RunLoads(std::uint32_t space = 0);

  // `bytes` on every position of `run`. Only before settle().
  void add(const fabric::CostModel::PathRun& run, std::uint64_t bytes);
  // Turns the additions into loads and builds the range maxima.
  void settle();
  // After settle(): the load at one position, and the largest over a run.
  std::uint64_t load(std::uint32_t position) const { return levels_[0][position]; }
  std::uint64_t max_load(const fabric::CostModel::PathRun& run) const;
  // Back to no load (costs the rings touched, not the space).
  void clear();

 private:
  std::uint64_t range_max(std::uint32_t begin, std::uint32_t end) const;

  // levels_[k][i]: the largest load over positions [i, i + 2^k) of i's ring
  // (levels_[0] holds the difference array until settle()).
  std::vector<std::vector<std::uint64_t>> levels_;
  std::vector<char> seen_;  // per ring base: touched this step
  struct Ring {
    std::uint32_t base, size;
  };
  std::vector<Ring> rings_;
  std::uint32_t longest_ = 0;  // the longest range added
};

}  // namespace sipsim::analytical
