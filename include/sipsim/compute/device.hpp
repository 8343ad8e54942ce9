#pragma once
// What work costs on an accelerator (docs/architecture.md): the interface every device
// model implements. The collective executor prices a step's local operation
// through it (docs/models.md, "Collectives"), so a collective's compute follows the device the
// scenario describes; the training workloads price their ops through op_ps.
// Costs are integer picoseconds, identical on every rank.
#include <cstdint>
#include <span>

#include "sipsim/pdes/time.hpp"

namespace sipsim::compute {

// Operand precision of an op. tf32 is the tensor-core format (fp32 storage).
enum class Precision : std::uint8_t { kFp32, kTf32, kFp16, kBf16, kFp8 };
inline constexpr int kPrecisions = 5;
const char* precision_name(Precision p);
// Bytes of one element (fp32, tf32: 4; fp16, bf16: 2; fp8: 1).
std::uint32_t element_bytes(Precision p);

// Which units an op runs on: matrix multiplies on the tensor cores (AMPeD's
// MAC units), element-wise arithmetic on the vector units, nonlinear functions
// (exp, tanh, ...) on AMPeD's nonlinear units.
enum class OpKind : std::uint8_t { kMatmul, kElementwise, kNonlinear };

// One matrix multiply C[m x n] = A[m x k] B[k x n], `batch` times (a batched
// GEMM: attention's per-head products): 2 * batch * m * n * k FLOPs.
struct Gemm {
  std::uint64_t m = 0, n = 0, k = 0;
  std::uint64_t batch = 1;
  std::uint64_t flops() const { return 2 * batch * m * n * k; }
};

// One op to price. `flops` counts floating-point operations (a multiply-add is
// two); for a nonlinear op it counts the nonlinear operations. `bytes` is the
// device-memory traffic (reads + writes). `micro_batch` (>= 1) feeds the
// micro-batch efficiency eff(ub) of matrix multiplies (AMPeD eq. 3). A matrix
// multiply op may name its GEMMs' shapes (their FLOPs sum to `flops`): the
// shape-aware device (`gemm`) prices each shape, the others price `flops`.
struct OpCost {
  std::uint64_t flops = 0;
  std::uint64_t bytes = 0;
  Precision precision = Precision::kFp16;
  OpKind kind = OpKind::kMatmul;
  std::uint32_t micro_batch = 1;
  std::span<const Gemm> gemms{};
};

class Device {
 public:
  virtual ~Device() = default;
  // A k-to-1 reduction (k = sources >= 2) of `bytes` per input; 0 for k < 2.
  virtual pdes::Time reduce_ps(std::uint32_t sources, std::uint64_t bytes) const = 0;
  // A device-memory copy of `bytes`.
  virtual pdes::Time copy_ps(std::uint64_t bytes) const = 0;
  // One op, launch overhead and minimum op time included (docs/models.md,
  // "Devices"). Devices that only price collectives' local operations (test
  // doubles) keep this default, which throws std::logic_error.
  virtual pdes::Time op_ps(const OpCost& op) const;
};

}  // namespace sipsim::compute
