#include "sipsim/fabric/ramp/placement.hpp"

#include <numeric>
#include <stdexcept>

namespace sipsim::fabric::ramp {

std::optional<AxesPlacement> place_axes(std::uint32_t x, std::uint32_t J, std::uint32_t D,
                                        std::span<const std::uint32_t> axis_sizes) {
  std::uint64_t n = 1;
  for (std::uint32_t s : axis_sizes) {
    if (s == 0) return std::nullopt;
    n *= s;
  }
  if (n < 2 || n > fabric_nodes(RampShape{x, J, D, {}})) return std::nullopt;
  AxesPlacement out;
  try {
    out.job = shape_for(x, J, D, static_cast<std::uint32_t>(n));
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  // Each axis takes its factors from the steps' sizes left, step 1 first, as
  // §6.3 fills a job's steps: the innermost (TP, the most frequent) group
  // then gets the largest first steps, which carry a reduce-scatter's full
  // data, and a step it shares with the next axis comes last, when its data
  // is already divided by the steps before.
  std::array<std::uint32_t, 4> left = {out.job.active[0], out.job.active[1], out.job.active[2],
                                       out.job.active[3]};
  for (std::uint32_t size : axis_sizes) {
    std::array<std::uint32_t, 4> t = {1, 1, 1, 1};
    for (int k = 0; k < 4 && size > 1; ++k) {
      const std::uint32_t f = std::gcd(left[k], size);
      t[k] = f;
      left[k] /= f;
      size /= f;
    }
    if (size != 1) return std::nullopt;
    out.axes.push_back(t);
  }
  // Strides: the product of the inner axes' sizes along each step.
  std::vector<std::array<std::uint32_t, 4>> stride(out.axes.size());
  std::array<std::uint32_t, 4> inner = {1, 1, 1, 1};
  for (std::size_t a = 0; a < out.axes.size(); ++a) {
    stride[a] = inner;
    for (int k = 0; k < 4; ++k) inner[k] *= out.axes[a][k];
  }
  out.nodes.resize(n);
  for (std::uint64_t gpu = 0; gpu < n; ++gpu) {
    Offsets c{};
    std::uint64_t rest = gpu;
    for (std::size_t a = 0; a < out.axes.size(); ++a) {
      const auto rank = static_cast<std::uint32_t>(rest % axis_sizes[a]);
      rest /= axis_sizes[a];
      const Offsets off = offsets_of_member(rank, out.axis_shape(a));
      for (int k = 0; k < 4; ++k) c[k] += off[k] * stride[a][k];
    }
    out.nodes[gpu] = node_id(coord_of_offsets(c, out.job), out.job);
  }
  return out;
}

}  // namespace sipsim::fabric::ramp
