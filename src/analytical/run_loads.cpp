#include "sipsim/analytical/run_loads.hpp"

#include <algorithm>
#include <bit>

namespace sipsim::analytical {

RunLoads::RunLoads(std::uint32_t space) : levels_(1), seen_(space, 0) {
  levels_[0].assign(space, 0);
}

// Unsigned wrap-around is harmless: the prefix sums of the differences are the
// (non-negative) loads.
void RunLoads::add(const fabric::CostModel::PathRun& run, std::uint64_t bytes) {
  if (run.length == 0) return;
  std::vector<std::uint64_t>& diff = levels_[0];
  if (!seen_[run.base]) {
    seen_[run.base] = 1;
    rings_.push_back({run.base, run.size});
  }
  auto range = [&](std::uint32_t begin, std::uint32_t end) {  // within the ring
    diff[run.base + begin] += bytes;
    if (end < run.size) diff[run.base + end] -= bytes;
    longest_ = std::max(longest_, end - begin);
  };
  if (run.first + run.length <= run.size) {
    range(run.first, run.first + run.length);
  } else {
    range(run.first, run.size);
    range(0, run.first + run.length - run.size);
  }
}

void RunLoads::settle() {
  std::vector<std::uint64_t>& load = levels_[0];
  for (const Ring& r : rings_) {
    for (std::uint32_t i = r.base + 1; i < r.base + r.size; ++i) load[i] += load[i - 1];
  }
  const int top = longest_ > 1 ? std::bit_width(longest_) - 1 : 0;
  const std::size_t space = load.size();  // `load` moves when levels_ grows
  while (static_cast<int>(levels_.size()) <= top) levels_.emplace_back(space, 0);
  for (int k = 1; k <= top; ++k) {
    const std::uint32_t half = std::uint32_t{1} << (k - 1), span = half << 1;
    const std::vector<std::uint64_t>& below = levels_[k - 1];
    std::vector<std::uint64_t>& level = levels_[k];
    for (const Ring& r : rings_) {
      if (r.size < span) continue;
      for (std::uint32_t i = r.base; i + span <= r.base + r.size; ++i) {
        level[i] = std::max(below[i], below[i + half]);
      }
    }
  }
}

std::uint64_t RunLoads::range_max(std::uint32_t begin, std::uint32_t end) const {
  const int k = std::bit_width(end - begin) - 1;
  const std::vector<std::uint64_t>& level = levels_[k];
  return std::max(level[begin], level[end - (std::uint32_t{1} << k)]);
}

std::uint64_t RunLoads::max_load(const fabric::CostModel::PathRun& run) const {
  if (run.length == 0) return 0;
  const std::uint32_t b = run.base;
  if (run.first + run.length <= run.size) {
    return range_max(b + run.first, b + run.first + run.length);
  }
  return std::max(range_max(b + run.first, b + run.size),
                  range_max(b, b + run.first + run.length - run.size));
}

void RunLoads::clear() {
  std::vector<std::uint64_t>& load = levels_[0];
  for (const Ring& r : rings_) {
    std::fill(load.begin() + r.base, load.begin() + r.base + r.size, 0);
    seen_[r.base] = 0;
  }
  rings_.clear();
  longest_ = 0;
}

}  // namespace sipsim::analytical
