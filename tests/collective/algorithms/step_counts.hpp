#pragma once
// Step counts against the textbook values, shared by the per-family tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>

#include "sipsim/collective/schedule.hpp"
#include "support/schedule_oracle.hpp"

namespace sipsim::collective::oracle {

inline std::uint32_t ceil_log2(std::uint64_t x) {
  return x <= 1 ? 0u : static_cast<std::uint32_t>(std::bit_width(x - 1));
}
inline std::uint32_t max_steps(const CollectiveSpec& spec) {
  std::uint32_t m = 0;
  for (std::uint32_t r = 0; r < spec.p; ++r) m = std::max(m, Schedule(spec, r).steps());
  return m;
}
inline std::uint32_t min_steps(const CollectiveSpec& spec) {
  std::uint32_t m = UINT32_MAX;
  for (std::uint32_t r = 0; r < spec.p; ++r) m = std::min(m, Schedule(spec, r).steps());
  return m;
}
// Every member has exactly n steps and the critical path is n rounds.
inline void expect_uniform(const CollectiveSpec& spec, std::uint64_t n) {
  EXPECT_EQ(max_steps(spec), n) << describe(spec);
  EXPECT_EQ(min_steps(spec), n) << describe(spec);
  const Outcome out = execute(spec);
  EXPECT_EQ(out.error, "") << describe(spec);
  EXPECT_EQ(out.rounds, n) << describe(spec);
}

// The group sizes the step-count tests use: powers of two and not.
inline constexpr std::uint32_t kStepCountSizes[] = {2u, 3u, 5u, 8u, 12u, 16u, 31u, 32u};

}  // namespace sipsim::collective::oracle
