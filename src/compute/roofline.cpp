#include "sipsim/compute/roofline.hpp"

#include <algorithm>
#include <stdexcept>

namespace sipsim::compute {

namespace {
__extension__ typedef unsigned __int128 U128;

// ceil(amount * 1e12 / rate) ps.
pdes::Time time_at_rate(U128 amount, std::uint64_t rate) {
  return static_cast<pdes::Time>((amount * pdes::kSecond + rate - 1) / rate);
}
}  // namespace

std::uint32_t element_bytes(Dtype dtype) {
  return dtype == Dtype::kFloat32 ? 4 : 2;
}

Accelerator a100(Dtype dtype) {
  Accelerator a;
  a.name = "a100";
  a.element_bytes = element_bytes(dtype);
  // Peak non-tensor throughput by element type (whitepaper, Table 1).
  switch (dtype) {
    case Dtype::kFloat32:
      a.peak_flops = 19'500'000'000'000;
      break;
    case Dtype::kFloat16:
      a.peak_flops = 78'000'000'000'000;
      break;
    case Dtype::kBfloat16:
      a.peak_flops = 39'000'000'000'000;
      break;
  }
  return a;
}

Roofline::Roofline(const Accelerator& acc) : acc_(acc) {
  if (acc.memory_bytes_per_s == 0 || acc.peak_flops == 0 || acc.element_bytes == 0) {
    throw std::invalid_argument("accelerator rates and element size must be > 0");
  }
}

pdes::Time Roofline::reduce_ps(std::uint32_t sources, std::uint64_t bytes) const {
  if (sources < 2 || bytes == 0) return 0;
  const U128 moved = static_cast<U128>(bytes) * (sources + 1u);
  const U128 flops = static_cast<U128>(bytes / acc_.element_bytes) * (sources - 1u);
  return std::max(time_at_rate(moved, acc_.memory_bytes_per_s),
                  time_at_rate(flops, acc_.peak_flops));
}

pdes::Time Roofline::copy_ps(std::uint64_t bytes) const {
  return time_at_rate(static_cast<U128>(bytes) * 2u, acc_.memory_bytes_per_s);
}

}  // namespace sipsim::compute
