// Accelerator presets (docs/models.md, "Devices"). Every figure names its source.
// Peaks are dense (no structured sparsity). A format a part lacks falls back:
// fp8 to fp16 (no fp8 units before Hopper), tf32 to fp32 (tf32 exists only in
// Ampere's and Hopper's tensor cores), bf16 on the V100 to fp32 (no bf16 units);
// vector (non-tensor) fp8 to fp16 and tf32 to fp32.
#include <cstdio>
#include <stdexcept>

#include "sipsim/compute/accelerator.hpp"

namespace sipsim::compute {

namespace {

constexpr std::uint64_t kTera = 1'000'000'000'000;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// TFLOP/s with one decimal, as the datasheets print them, in FLOP/s.
constexpr std::uint64_t tflops(std::uint64_t tenths) {
  return tenths * (kTera / 10);
}

// The GEMM model's figures of a part with `sms` SMs reaching `efficiency_ppm`
// of its matmul peak: cuBLAS's 256 x 128 and 128 x 128 output tiles and the
// transpose (NVIDIA, Matrix Multiplication Background User's Guide), and the
// sustained share 0.779 fitted on AMPeD Table II's 145.6B row (A100 80 GB,
// docs/validation.md), which the other parts take as an assumption.
GemmUnits gemm_units(std::uint32_t sms, std::uint64_t efficiency_ppm) {
  return {sms, {{256, 128}, {128, 256}, {128, 128}}, efficiency_ppm, 779'000};
}

// Order of Precision: fp32, tf32, fp16, bf16, fp8.
Accelerator v100() {
  Accelerator a;
  a.name = "v100";
  // NVIDIA Tesla V100 datasheet (2020), V100 SXM2 32 GB: FP32 15.7 TFLOP/s,
  // Tensor 125 TFLOP/s (FP16 in, FP32 accumulate), 32 GB HBM2 at 900 GB/s, max
  // power 300 W. Non-tensor FP16: 2 x FP32 (paired FP16, Volta whitepaper 2017).
  a.memory_bytes_per_s = 900'000'000'000;
  a.memory_capacity_bytes = 32 * kGiB;
  a.matmul_flops = {tflops(157), tflops(157), tflops(1250), tflops(157), tflops(1250)};
  a.vector_flops = {tflops(157), tflops(157), tflops(314), tflops(157), tflops(314)};
  a.matmul_runs_as = a.vector_runs_as = {Precision::kFp32, Precision::kFp32, Precision::kFp16,
                                         Precision::kFp32, Precision::kFp16};
  // AMPeD Table IV has no V100; the same reading of the Volta whitepaper: 1530 MHz
  // boost, 80 SMs, 8 tensor cores each, 128 FLOPs/cycle per tensor core (64 FP16
  // FMA): 1.53e9 * 80 * 8 * 128 = 125.3 TFLOP/s. Nonlinear units: Table IV's A100
  // N_FU_nonlin per SM (192 / 108) times 80 SMs = 142, width 4.
  a.amped = {1'530'000'000, 80, 8, 128, 16, 142, 4, 32};
  // GEMM model: 80 SMs (Volta whitepaper); no published maximum achievable
  // matmul FLOPS: the A100's fraction, a stated assumption (docs/models.md).
  a.gemm = gemm_units(80, 869'000);
  a.busy_w = 300;
  a.idle_w = 40;
  return a;
}

Accelerator a100_base() {
  Accelerator a;
  // NVIDIA A100 Tensor Core GPU datasheet (2021) and architecture whitepaper
  // (2020, Table 1), SXM4: FP32 19.5, TF32 Tensor 156, BF16/FP16 Tensor 312
  // TFLOP/s; non-tensor FP16 78 and BF16 39 TFLOP/s; max TDP 400 W.
  a.matmul_flops = {tflops(195), tflops(1560), tflops(3120), tflops(3120), tflops(3120)};
  a.vector_flops = {tflops(195), tflops(195), tflops(780), tflops(390), tflops(780)};
  // AMPeD Table IV, "Nvidia A100": f = 1.41e9, N_cores 108, N_FU 4, W_FU 512,
  // N_FU_nonlin 192, W_FU_nonlin 4 (1.41e9 * 108 * 4 * 512 = 311.9 TFLOP/s).
  a.amped = {1'410'000'000, 108, 4, 512, 16, 192, 4, 32};
  // GEMM model: 108 SMs (whitepaper Table 1); maximum achievable matmul FLOPS
  // 271.2 of 312 TFLOP/s (86.9%), BF16, 1024 x 10240 x 5120 (S. Bekman,
  // Machine Learning Engineering, "Accelerators").
  a.gemm = gemm_units(108, 869'000);
  a.busy_w = 400;
  a.idle_w = 50;
  return a;
}

Accelerator a100_40gb(const std::string& name) {
  Accelerator a = a100_base();
  a.name = name;
  // 40 GB HBM2 at 1555 GB/s (datasheet, A100 40GB SXM).
  a.memory_bytes_per_s = 1'555'000'000'000;
  a.memory_capacity_bytes = 40 * kGiB;
  return a;
}

Accelerator a100_80gb() {
  Accelerator a = a100_base();
  a.name = "a100-80gb";
  // 80 GB HBM2e at 2039 GB/s (datasheet, A100 80GB SXM).
  a.memory_bytes_per_s = 2'039'000'000'000;
  a.memory_capacity_bytes = 80 * kGiB;
  return a;
}

Accelerator h100() {
  Accelerator a;
  a.name = "h100";
  // NVIDIA H100 Tensor Core GPU datasheet (2023) and architecture whitepaper
  // (2022), H100 SXM5: FP32 66.9, TF32 Tensor 494.7, BF16/FP16 Tensor 989.4,
  // FP8 Tensor 1978.9 TFLOP/s (the datasheet's 989 / 1979 / 3958 are with
  // sparsity); non-tensor FP16 and BF16 133.8 TFLOP/s; 80 GB HBM3 at 3.35 TB/s;
  // max TDP 700 W.
  a.memory_bytes_per_s = 3'350'000'000'000;
  a.memory_capacity_bytes = 80 * kGiB;
  a.matmul_flops = {tflops(669), tflops(4947), tflops(9894), tflops(9894), tflops(19789)};
  a.vector_flops = {tflops(669), tflops(669), tflops(1338), tflops(1338), tflops(1338)};
  a.matmul_runs_as = {Precision::kFp32, Precision::kTf32, Precision::kFp16, Precision::kBf16,
                      Precision::kFp8};
  // AMPeD Table IV, "Nvidia H100": f = 1.8e9, N_cores 132, N_FU 4, W_FU 1024,
  // N_FU_nonlin 320, W_FU_nonlin 4 (1.8e9 * 132 * 4 * 1024 = 973.1 TFLOP/s).
  a.amped = {1'800'000'000, 132, 4, 1024, 16, 320, 4, 32};
  // GEMM model: 132 SMs (H100 SXM5, whitepaper); maximum achievable matmul
  // FLOPS 794.5 of 989 TFLOP/s (80.3%), BF16, 2048 x 2048 x 13312 (Bekman, as for the A100).
  a.gemm = gemm_units(132, 803'000);
  a.busy_w = 700;
  a.idle_w = 70;
  return a;
}

}  // namespace

std::uint32_t element_bytes(Dtype dtype) {
  return dtype == Dtype::kFloat32 ? 4 : 2;
}

Precision precision_of(Dtype dtype) {
  switch (dtype) {
    case Dtype::kFloat32:
      return Precision::kFp32;
    case Dtype::kFloat16:
      return Precision::kFp16;
    case Dtype::kBfloat16:
      return Precision::kBf16;
  }
  return Precision::kFp32;
}

namespace {

// The presets by name, in the order errors list them.
struct PresetRow {
  const char* name;
  Accelerator (*make)();
};
const PresetRow kPresets[] = {
    {"v100", v100},
    {"a100", [] { return a100_40gb("a100"); }},
    {"a100-40gb", [] { return a100_40gb("a100-40gb"); }},
    {"a100-80gb", a100_80gb},
    {"h100", h100},
};

}  // namespace

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> out;
    for (const PresetRow& row : kPresets) out.emplace_back(row.name);
    return out;
  }();
  return kNames;
}

Accelerator preset(const std::string& name, Dtype dtype) {
  const PresetRow* row = nullptr;
  for (const PresetRow& r : kPresets) {
    if (name == r.name) row = &r;
  }
  if (row == nullptr) throw std::invalid_argument("unknown accelerator preset '" + name + "'");
  Accelerator a = row->make();
  // Collectives' reductions: element-wise additions at `dtype` on the vector units.
  a.element_bytes = element_bytes(dtype);
  a.peak_flops = a.vector_flops[static_cast<std::size_t>(precision_of(dtype))];
  return a;
}

const char* model_name(Model model) {
  switch (model) {
    case Model::kRoofline:
      return "roofline";
    case Model::kAmped:
      return "amped";
    case Model::kGemm:
      return "gemm";
  }
  return "?";
}

std::string gemm_text(const GemmUnits& gemm) {
  std::string out = std::to_string(gemm.sms) + " SMs, tiles";
  for (const GemmTile& t : gemm.tiles) {
    out += " " + std::to_string(t.m) + "x" + std::to_string(t.n);
  }
  char efficiency[32];
  std::snprintf(efficiency, sizeof efficiency, ", efficiency %.3f",
                static_cast<double>(gemm.efficiency_ppm) / static_cast<double>(kPpm));
  return out + efficiency;
}

Accelerator a100(Dtype dtype) {
  return preset("a100", dtype);
}

}  // namespace sipsim::compute
