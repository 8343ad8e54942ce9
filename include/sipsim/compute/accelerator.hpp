#pragma once
// An accelerator's figures (docs/models.md, "Devices"): the roofline's peaks
// per precision, memory bandwidth and capacity; AMPeD's functional units
// (AMPeD eq. 2-4, Table IV); the micro-batch efficiency; the op launch
// overhead and minimum op time (SiP-ML §4.2); busy and idle power. Presets
// come from AMPeD Table IV and the vendors' datasheets (src/compute/presets.cpp).
// Rates are integers so that every cost is exact and identical on every rank.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/compute/device.hpp"
#include "sipsim/pdes/time.hpp"

namespace sipsim::compute {

// How op_ps prices an op: the roofline (max of compute and memory time),
// AMPeD's accelerator model (eq. 2-4: functional-unit throughput, no memory
// term), or the GEMM model (the roofline per matrix multiply, with tile and
// wave quantisation on the device's SMs; gemm.hpp).
enum class Model : std::uint8_t { kRoofline, kAmped, kGemm };

// The GEMM model's figures (docs/models.md, "Devices"): the SMs a GEMM's
// output tiles are spread over, the output tile shapes its kernels use, the
// largest fraction of the matrix peak a GEMM reaches (measured on the best
// shape: the "maximum achievable matmul FLOPS"), and the share of the
// achievable rates a training step sustains over its ops (fitted once, on
// the 145.6B row of AMPeD Table II; docs/validation.md).
struct GemmTile {
  std::uint32_t m = 0, n = 0;
};
inline constexpr std::size_t kMaxGemmTiles = 8;
struct GemmUnits {
  std::uint32_t sms = 108;
  std::vector<GemmTile> tiles = {{256, 128}, {128, 256}, {128, 128}};
  std::uint64_t efficiency_ppm = 869'000;
  std::uint64_t sustained_ppm = 1'000'000;  // kPpm
};

// AMPeD's accelerator design parameters (eq. 3-4, Table IV). Table IV counts
// W_FU in FLOPs per cycle of one unit at the unit's precision fu_bits (see
// docs/models.md: f * N_cores * N_FU * W_FU is the datasheet's dense FP16 FLOP/s).
// Bounds that keep AMPeD's integer arithmetic within 128 bits (the reader enforces them).
inline constexpr std::uint64_t kMaxFrequencyHz = 1'000'000'000'000;
inline constexpr std::uint32_t kMaxUnitCount = 1u << 20;
struct AmpedUnits {
  std::uint64_t frequency_hz = 0;     // f
  std::uint32_t cores = 0;            // N_cores
  std::uint32_t fu = 0;               // N_FU per core
  std::uint32_t fu_width = 0;         // W_FU
  std::uint32_t fu_bits = 16;         // S_FU_MAC
  std::uint32_t nonlinear_units = 0;  // N_FU_nonlin (whole device: eq. 4 has no N_cores)
  std::uint32_t nonlinear_width = 0;  // W_FU_nonlin
  std::uint32_t nonlinear_bits = 32;  // S_FU_nonlin
};

// eff(ub) = max(floor, a * ub / (b + ub)) (AMPeD §III-A, eq. 3; the floor is
// §VI's "fixed lower limit"), in parts per million. a = 1, b = 0: eff = 1.
inline constexpr std::uint64_t kPpm = 1'000'000;
struct Efficiency {
  std::uint64_t a_ppm = kPpm;   // (0, 1e6]
  std::uint64_t b_ppm = 0;      // micro-batches x 1e6, >= 0
  std::uint64_t floor_ppm = 0;  // [0, 1e6]
};

// A default-constructed Accelerator is the A100 40 GB at float32 (preset `a100`;
// figures and sources in src/compute/presets.cpp).
struct Accelerator {
  // What collectives' local operations use (unchanged since the roofline of
  // RAMP §7.4.1): memory bandwidth, the element-wise peak at `element_bytes`.
  std::string name = "a100";
  std::uint64_t memory_bytes_per_s = 1'555'000'000'000;  // A100 40GB HBM2: 1555 GB/s
  std::uint64_t peak_flops = 19'500'000'000'000;         // A100 FP32 (non-tensor): 19.5 TFLOP/s
  std::uint32_t element_bytes = 4;                       // float32

  // What op_ps uses. FLOP/s per Precision (fp32, tf32, fp16, bf16, fp8); a part
  // without a format runs it at the rate of the format it falls back to
  // (docs/models.md), never 0.
  Model model = Model::kRoofline;
  std::array<std::uint64_t, kPrecisions> matmul_flops = {  // tensor cores
      19'500'000'000'000, 156'000'000'000'000, 312'000'000'000'000, 312'000'000'000'000,
      312'000'000'000'000};
  std::array<std::uint64_t, kPrecisions> vector_flops = {  // SIMT / vector units
      19'500'000'000'000, 19'500'000'000'000, 78'000'000'000'000, 39'000'000'000'000,
      78'000'000'000'000};
  // The format each precision runs as: itself where the part has units for
  // it, else its fallback, whose rate the peaks above repeat (an A100 has no
  // fp8: an fp8 op runs as fp16). What `sipsim info` says; op_ps needs only
  // the peaks.
  std::array<Precision, kPrecisions> matmul_runs_as = {
      Precision::kFp32, Precision::kTf32, Precision::kFp16, Precision::kBf16, Precision::kFp16};
  std::array<Precision, kPrecisions> vector_runs_as = {
      Precision::kFp32, Precision::kFp32, Precision::kFp16, Precision::kBf16, Precision::kFp16};
  std::uint64_t memory_capacity_bytes = std::uint64_t{40} << 30;
  AmpedUnits amped = {1'410'000'000, 108, 4, 512, 16, 192, 4, 32};  // AMPeD Table IV
  Efficiency efficiency;
  GemmUnits gemm;
  pdes::Time launch_overhead_ps = pdes::kMicrosecond;  // SiP-ML §4.2
  pdes::Time min_op_ps = pdes::kMicrosecond;           // SiP-ML §4.2
  double busy_w = 400;                                 // datasheet TDP
  double idle_w = 50;                                  // stated assumption (docs/models.md)
};

// NVIDIA A100 Tensor Core GPU architecture whitepaper (2020), cited as RAMP
// ref. [53] for §7.5's compute model: 1555 GB/s HBM2 (40 GB part); 19.5 TFLOP/s
// FP32, 78 TFLOP/s FP16 and 39 TFLOP/s BF16 without tensor cores (reductions
// are element-wise additions, which tensor cores do not accelerate).
enum class Dtype { kFloat32, kFloat16, kBfloat16 };
std::uint32_t element_bytes(Dtype dtype);
Precision precision_of(Dtype dtype);
// The A100 40 GB preset with collectives' element type `dtype`.
Accelerator a100(Dtype dtype = Dtype::kFloat32);

// Presets by scenario name: v100, a100 (= a100-40gb), a100-40gb, a100-80gb, h100.
const std::vector<std::string>& preset_names();
// Throws std::invalid_argument for an unknown name.
Accelerator preset(const std::string& name, Dtype dtype = Dtype::kFloat32);

// "roofline", "amped", "gemm".
const char* model_name(Model model);
// "108 SMs, tiles 256x128 128x256 128x128, efficiency 0.869".
std::string gemm_text(const GemmUnits& gemm);

// eff(ub) in ppm, >= 1 for ub >= 1 (AMPeD eq. 3).
std::uint64_t efficiency_ppm(const Efficiency& e, std::uint32_t micro_batch);

// The `compute:` section (docs/scenarios.md); the A100 at float32 when there is none.
Accelerator read_accelerator(const std::optional<base::Value>& section);

}  // namespace sipsim::compute
