#pragma once
// Roofline accelerator model (Williams et al., CACM 2009) for the local
// operations of collectives (RAMP §7.4.1: memory bandwidth, peak compute). A
// k-to-1 reduction of n bytes per input reads k*n bytes, writes n bytes and
// performs (k-1) * n / element_size additions: its time is the larger of the
// memory time and the compute time. Everything is integer arithmetic, so a
// cost is exact and identical on every rank.
#include <cstdint>
#include <optional>
#include <string>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/compute/device.hpp"
#include "sipsim/pdes/time.hpp"

namespace sipsim::compute {

struct Accelerator {
  std::string name = "a100";
  std::uint64_t memory_bytes_per_s = 1'555'000'000'000;  // A100 40GB HBM2: 1555 GB/s
  std::uint64_t peak_flops = 19'500'000'000'000;         // A100 FP32 (non-tensor): 19.5 TFLOP/s
  std::uint32_t element_bytes = 4;                       // float32
};

// NVIDIA A100 Tensor Core GPU architecture whitepaper (2020), cited as RAMP
// ref. [53] for §7.5's compute model: 1555 GB/s HBM2 (40 GB part); 19.5 TFLOP/s
// FP32, 78 TFLOP/s FP16 and 39 TFLOP/s BF16 without tensor cores (reductions
// are element-wise additions, which tensor cores do not accelerate).
enum class Dtype { kFloat32, kFloat16, kBfloat16 };
std::uint32_t element_bytes(Dtype dtype);
Accelerator a100(Dtype dtype = Dtype::kFloat32);

// The `compute:` section (preset a100, dtype, memory_bandwidth, peak_tflops);
// the A100 at float32 when there is none.
Accelerator read_accelerator(const std::optional<base::Value>& section);

class Roofline final : public Device {
 public:
  explicit Roofline(const Accelerator& acc);
  const Accelerator& accelerator() const { return acc_; }
  // k-to-1 reduction (k >= 2) of `bytes` per input.
  pdes::Time reduce_ps(std::uint32_t sources, std::uint64_t bytes) const override;
  // A device-memory copy of `bytes` (read + write).
  pdes::Time copy_ps(std::uint64_t bytes) const override;

 private:
  Accelerator acc_;
};

}  // namespace sipsim::compute
