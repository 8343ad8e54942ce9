// The `compute:` section (docs/scenarios.md): every key, and a located error
// for every bad key or value.
#include <gtest/gtest.h>

#include <string>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/compute/accelerator.hpp"

namespace sipsim::compute {
namespace {

constexpr std::uint64_t kT = 1'000'000'000'000;

Accelerator read(const std::string& yaml) {
  const base::Document doc = base::Document::load_string(yaml, "s.yaml");
  base::MapReader root = doc.root().as_map();
  return read_accelerator(root.optional("compute"));
}

std::string error_of(const std::string& yaml) {
  try {
    read(yaml);
  } catch (const base::ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

std::size_t idx(Precision p) {
  return static_cast<std::size_t>(p);
}

TEST(ComputeConfig, NoSectionIsTheA100) {
  const Accelerator a = read_accelerator(std::nullopt);
  const Accelerator b = a100();
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.peak_flops, b.peak_flops);
  EXPECT_EQ(a.memory_bytes_per_s, b.memory_bytes_per_s);
  EXPECT_EQ(a.matmul_flops, b.matmul_flops);
  const Accelerator c = read("compute: {preset: a100}\n");
  EXPECT_EQ(c.name, "a100");
  EXPECT_EQ(c.peak_flops, b.peak_flops);
  EXPECT_EQ(c.model, Model::kRoofline);
}

TEST(ComputeConfig, PresetsAndDtype) {
  EXPECT_EQ(read("compute: {preset: h100}\n").memory_bytes_per_s, 3'350'000'000'000u);
  EXPECT_EQ(read("compute: {preset: v100, dtype: float16}\n").peak_flops, 31'400'000'000'000u);
  EXPECT_EQ(read("compute: {preset: a100-80gb}\n").name, "a100-80gb");
  EXPECT_EQ(read("compute: {preset: a100-40gb, dtype: bfloat16}\n").peak_flops, 39 * kT);
  EXPECT_EQ(read("compute: {model: amped}\n").model, Model::kAmped);
}

TEST(ComputeConfig, Overrides) {
  const Accelerator a = read(
      "compute:\n"
      "  preset: a100-80gb\n"
      "  dtype: float16\n"
      "  model: amped\n"
      "  memory_bandwidth: 2TB/s\n"
      "  memory_capacity: 96GiB\n"
      "  matmul_tflops: {fp16: 400, fp8: 800}\n"
      "  vector_tflops: {fp16: 100, fp32: 25}\n"
      "  amped: {frequency: 2.0e9, cores: 100, fu: 2, fu_width: 1000, fu_bits: 8,\n"
      "          nonlinear_units: 10, nonlinear_width: 2, nonlinear_bits: 16}\n"
      "  efficiency: {a: 0.9, b: 2.5, floor: 0.3}\n"
      "  launch_overhead: 5us\n"
      "  min_op_time: 2us\n"
      "  power: {busy: 450, idle: 60.5}\n");
  EXPECT_EQ(a.name, "custom");
  EXPECT_EQ(a.model, Model::kAmped);
  EXPECT_EQ(a.memory_bytes_per_s, 2 * kT);
  EXPECT_EQ(a.memory_capacity_bytes, 96ull << 30);
  EXPECT_EQ(a.matmul_flops[idx(Precision::kFp16)], 400 * kT);
  EXPECT_EQ(a.matmul_flops[idx(Precision::kFp8)], 800 * kT);
  EXPECT_EQ(a.matmul_flops[idx(Precision::kBf16)], 312 * kT);  // kept
  EXPECT_EQ(a.vector_flops[idx(Precision::kFp16)], 100 * kT);
  EXPECT_EQ(a.vector_flops[idx(Precision::kFp32)], 25 * kT);
  EXPECT_EQ(a.peak_flops, 100 * kT);  // the element-wise peak at dtype float16
  EXPECT_EQ(a.element_bytes, 2u);
  EXPECT_EQ(a.amped.frequency_hz, 2'000'000'000u);
  EXPECT_EQ(a.amped.cores, 100u);
  EXPECT_EQ(a.amped.fu, 2u);
  EXPECT_EQ(a.amped.fu_width, 1000u);
  EXPECT_EQ(a.amped.fu_bits, 8u);
  EXPECT_EQ(a.amped.nonlinear_units, 10u);
  EXPECT_EQ(a.amped.nonlinear_width, 2u);
  EXPECT_EQ(a.amped.nonlinear_bits, 16u);
  EXPECT_EQ(a.efficiency.a_ppm, 900'000u);
  EXPECT_EQ(a.efficiency.b_ppm, 2'500'000u);
  EXPECT_EQ(a.efficiency.floor_ppm, 300'000u);
  EXPECT_EQ(a.launch_overhead_ps, 5 * pdes::kMicrosecond);
  EXPECT_EQ(a.min_op_ps, 2 * pdes::kMicrosecond);
  EXPECT_EQ(a.busy_w, 450);
  EXPECT_EQ(a.idle_w, 60.5);
  // peak_tflops is the element-wise peak at dtype, the same figure as vector_tflops.<dtype>.
  const Accelerator b = read("compute: {dtype: bfloat16, peak_tflops: 50}\n");
  EXPECT_EQ(b.peak_flops, 50 * kT);
  EXPECT_EQ(b.vector_flops[idx(Precision::kBf16)], 50 * kT);
  // Zero launch overhead and minimum: the model's own time.
  const Accelerator c = read("compute: {launch_overhead: 0s, min_op_time: 0s}\n");
  EXPECT_EQ(c.launch_overhead_ps, 0u);
  EXPECT_EQ(c.min_op_ps, 0u);
  EXPECT_EQ(c.name, "a100");  // runtime keys leave the part as it is
}

// The formats a part lacks run as their fallback (what `sipsim info` says):
// the A100 has no fp8; a rate the scenario gives makes a format the part's own.
TEST(ComputeConfig, FormatsAPartLacksRunAsTheirFallback) {
  const Accelerator a = read("compute: {preset: a100}\n");
  EXPECT_EQ(a.matmul_runs_as[idx(Precision::kFp8)], Precision::kFp16);
  EXPECT_EQ(a.matmul_runs_as[idx(Precision::kTf32)], Precision::kTf32);
  EXPECT_EQ(a.vector_runs_as[idx(Precision::kTf32)], Precision::kFp32);
  EXPECT_EQ(a.vector_runs_as[idx(Precision::kFp8)], Precision::kFp16);
  const Accelerator v = read("compute: {preset: v100}\n");
  EXPECT_EQ(v.matmul_runs_as[idx(Precision::kBf16)], Precision::kFp32);
  const Accelerator h = read("compute: {preset: h100}\n");
  EXPECT_EQ(h.matmul_runs_as[idx(Precision::kFp8)], Precision::kFp8);
  EXPECT_EQ(h.vector_runs_as[idx(Precision::kFp8)], Precision::kFp16);
  const Accelerator own = read("compute: {matmul_tflops: {fp8: 500}, vector_tflops: {tf32: 30}}\n");
  EXPECT_EQ(own.matmul_runs_as[idx(Precision::kFp8)], Precision::kFp8);
  EXPECT_EQ(own.vector_runs_as[idx(Precision::kTf32)], Precision::kTf32);
  const Accelerator peak = read("compute: {preset: v100, dtype: bfloat16, peak_tflops: 20}\n");
  EXPECT_EQ(peak.vector_runs_as[idx(Precision::kBf16)], Precision::kBf16);
}

TEST(ComputeConfig, LocatedErrors) {
  EXPECT_EQ(error_of("compute: {preset: a200}\n"),
            "s.yaml:1:19: compute.preset: unknown value 'a200'; expected one of v100, a100, "
            "a100-40gb, a100-80gb, "
            "h100; did you mean 'a100'?");
  EXPECT_EQ(
      error_of("compute: {model: ampd}\n"),
      "s.yaml:1:18: compute.model: unknown value 'ampd'; expected one of roofline, amped, gemm; "
      "did you mean 'amped'?");
  EXPECT_EQ(error_of("compute: {presets: h100}\n"),
            "s.yaml:1:11: compute.presets: unknown key; did you mean 'preset'?");
  EXPECT_EQ(error_of("compute: {memory_capacity: 0B}\n"),
            "s.yaml:1:28: compute.memory_capacity: must be at least 1 byte");
  EXPECT_EQ(error_of("compute: {matmul_tflops: {fp64: 10}}\n"),
            "s.yaml:1:27: compute.matmul_tflops.fp64: unknown key; did you mean 'fp32'?");
  EXPECT_EQ(error_of("compute: {vector_tflops: {fp16: 0}}\n"),
            "s.yaml:1:33: compute.vector_tflops.fp16: must be a number of TFLOP/s from 1e-12 "
            "(one FLOP/s) to 1e6");
  EXPECT_EQ(error_of("compute: {peak_tflops: -1}\n"),
            "s.yaml:1:24: compute.peak_tflops: must be a number of TFLOP/s from 1e-12 (one "
            "FLOP/s) to 1e6");
  EXPECT_EQ(error_of("compute: {amped: {frequency: 0}}\n"),
            "s.yaml:1:30: compute.amped.frequency: must be a clock in cycles/s from 1 to 1e12");
  EXPECT_EQ(error_of("compute: {amped: {fu_bits: 4}}\n"),
            "s.yaml:1:28: compute.amped.fu_bits: must be between 8 and 64");
  EXPECT_EQ(error_of("compute: {amped: {cores: 0}}\n"),
            "s.yaml:1:26: compute.amped.cores: must be between 1 and 1048576");
  EXPECT_EQ(error_of("compute: {amped: {width: 4}}\n"),
            "s.yaml:1:19: compute.amped.width: unknown key");
  EXPECT_EQ(error_of("compute: {efficiency: {a: 0}}\n"),
            "s.yaml:1:27: compute.efficiency.a: must be a number from 1e-6 to 1");
  EXPECT_EQ(error_of("compute: {efficiency: {b: -1}}\n"),
            "s.yaml:1:27: compute.efficiency.b: must be a number from 0 to 1e9");
  EXPECT_EQ(error_of("compute: {efficiency: {floor: 1.5}}\n"),
            "s.yaml:1:31: compute.efficiency.floor: must be a number from 0 to 1");
  EXPECT_EQ(error_of("compute: {launch_overhead: 1}\n")
                .rfind("s.yaml:1:28: compute.launch_overhead: ", 0),
            0u);
  EXPECT_EQ(
      error_of("compute: {min_op_time: fast}\n").rfind("s.yaml:1:24: compute.min_op_time: ", 0),
      0u);
  EXPECT_EQ(error_of("compute: {power: {busy: 300, idle: 400}}\n"),
            "s.yaml:1:36: compute.power.idle: must not exceed the busy power (300 W)");
  EXPECT_EQ(error_of("compute: {power: {busy: 20}}\n"),
            "s.yaml:1:18: compute.power: busy power is below the preset's idle power; give idle "
            "too");
  EXPECT_EQ(error_of("compute: {power: {busy: -5}}\n"),
            "s.yaml:1:25: compute.power.busy: must be watts from 0 to 1e6");
  EXPECT_EQ(error_of("compute: {power: {peak: 5}}\n"),
            "s.yaml:1:19: compute.power.peak: unknown key");
  EXPECT_EQ(error_of("compute: {dtype: fp8}\n"),
            "s.yaml:1:18: compute.dtype: unknown value 'fp8'; expected one of float32, float16, "
            "bfloat16");
  EXPECT_EQ(error_of("compute: [a100]\n").rfind("s.yaml:1:10: compute: ", 0), 0u);
}

}  // namespace
}  // namespace sipsim::compute
