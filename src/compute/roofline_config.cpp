// The keys of a scenario's `compute:` section (docs/scenarios.md).
#include <cmath>
#include <sstream>
#include <string>

#include "sipsim/compute/accelerator.hpp"

namespace sipsim::compute {

namespace {

const std::vector<std::string> kPrecisionKeys = {"fp32", "tf32", "fp16", "bf16", "fp8"};

// A number of TFLOP/s, in FLOP/s.
std::uint64_t read_tflops(const base::Value& v) {
  const double t = v.as_double();
  if (!(t >= 1e-12) || t > 1e6)
    v.fail("must be a number of TFLOP/s from 1e-12 (one FLOP/s) to 1e6");
  return static_cast<std::uint64_t>(t * 1e12);
}

// A number within [lo, hi] (`what` names the range in the error).
double read_number(const base::Value& v, double lo, double hi, const char* what) {
  const double x = v.as_double();
  if (!(x >= lo) || x > hi) v.fail(std::string("must be ") + what);
  return x;
}

std::uint64_t to_ppm(double x) {
  return static_cast<std::uint64_t>(std::llround(x * static_cast<double>(kPpm)));
}

// matmul_tflops / vector_tflops: some of fp32, tf32, fp16, bf16, fp8. A
// format given a rate is the part's own (no longer runs as its fallback).
void read_peaks(const base::Value& value, std::array<std::uint64_t, kPrecisions>& peaks,
                std::array<Precision, kPrecisions>& runs_as) {
  base::MapReader m = value.as_map();
  for (int p = 0; p < kPrecisions; ++p) {
    if (auto v = m.optional(kPrecisionKeys[static_cast<std::size_t>(p)])) {
      peaks[static_cast<std::size_t>(p)] = read_tflops(*v);
      runs_as[static_cast<std::size_t>(p)] = static_cast<Precision>(p);
    }
  }
  m.finish();
}

void read_amped(const base::Value& value, AmpedUnits& u) {
  base::MapReader m = value.as_map();
  if (auto f = m.optional("frequency")) {
    u.frequency_hz = static_cast<std::uint64_t>(std::llround(read_number(
        *f, 1, static_cast<double>(kMaxFrequencyHz), "a clock in cycles/s from 1 to 1e12")));
  }
  u.cores = m.get_u32("cores", u.cores, 1, kMaxUnitCount);
  u.fu = m.get_u32("fu", u.fu, 1, kMaxUnitCount);
  u.fu_width = m.get_u32("fu_width", u.fu_width, 1, kMaxUnitCount);
  u.fu_bits = m.get_u32("fu_bits", u.fu_bits, 8, 64);
  u.nonlinear_units = m.get_u32("nonlinear_units", u.nonlinear_units, 1, kMaxUnitCount);
  u.nonlinear_width = m.get_u32("nonlinear_width", u.nonlinear_width, 1, kMaxUnitCount);
  u.nonlinear_bits = m.get_u32("nonlinear_bits", u.nonlinear_bits, 8, 64);
  m.finish();
}

void read_efficiency(const base::Value& value, Efficiency& e) {
  base::MapReader m = value.as_map();
  if (auto a = m.optional("a"))
    e.a_ppm = to_ppm(read_number(*a, 1e-6, 1, "a number from 1e-6 to 1"));
  if (auto b = m.optional("b")) e.b_ppm = to_ppm(read_number(*b, 0, 1e9, "a number from 0 to 1e9"));
  if (auto f = m.optional("floor"))
    e.floor_ppm = to_ppm(read_number(*f, 0, 1, "a number from 0 to 1"));
  m.finish();
}

// gemm: {sms, tiles: [[m, n], ...], efficiency, sustained}.
void read_gemm(const base::Value& value, GemmUnits& g) {
  base::MapReader m = value.as_map();
  g.sms = m.get_u32("sms", g.sms, 1, 65'536);
  if (auto tiles = m.optional("tiles")) {
    const std::vector<base::Value> list = tiles->as_list();
    if (list.empty() || list.size() > kMaxGemmTiles)
      tiles->fail("must list 1 to 8 tile shapes [m, n]");
    g.tiles.clear();
    for (const base::Value& t : list) {
      const std::vector<base::Value> sides = t.as_list();
      if (sides.size() != 2) t.fail("must be a tile shape [m, n]");
      g.tiles.push_back({sides[0].as_u32(1, 4096), sides[1].as_u32(1, 4096)});
    }
  }
  if (auto e = m.optional("efficiency"))
    g.efficiency_ppm = to_ppm(read_number(*e, 1e-6, 1, "a number from 1e-6 to 1"));
  if (auto e = m.optional("sustained"))
    g.sustained_ppm = to_ppm(read_number(*e, 1e-6, 1, "a number from 1e-6 to 1"));
  m.finish();
}

void read_power(const base::Value& value, Accelerator& acc) {
  base::MapReader m = value.as_map();
  if (auto b = m.optional("busy")) acc.busy_w = read_number(*b, 0, 1e6, "watts from 0 to 1e6");
  if (auto i = m.optional("idle")) {
    acc.idle_w = read_number(*i, 0, 1e6, "watts from 0 to 1e6");
    if (acc.idle_w > acc.busy_w) {
      std::ostringstream busy;
      busy << acc.busy_w;
      i->fail("must not exceed the busy power (" + busy.str() + " W)");
    }
  } else if (acc.idle_w > acc.busy_w) {
    m.value().fail("busy power is below the preset's idle power; give idle too");
  }
  m.finish();
}

}  // namespace

Accelerator read_accelerator(const std::optional<base::Value>& value) {
  if (!value) return a100();
  base::MapReader m = value->as_map();
  std::string preset_name = "a100";
  if (auto p = m.optional("preset")) preset_name = p->as_enum(preset_names());
  Dtype dtype = Dtype::kFloat32;
  if (auto d = m.optional("dtype")) {
    const std::string name = d->as_enum({"float32", "float16", "bfloat16"});
    dtype = name == "float16"    ? Dtype::kFloat16
            : name == "bfloat16" ? Dtype::kBfloat16
                                 : Dtype::kFloat32;
  }
  Accelerator acc = preset(preset_name, dtype);
  const auto dtype_index = static_cast<std::size_t>(precision_of(dtype));
  if (auto model = m.optional("model")) {
    const std::string name = model->as_enum({"roofline", "amped", "gemm"});
    acc.model = name == "amped" ? Model::kAmped : name == "gemm" ? Model::kGemm : Model::kRoofline;
  }
  if (auto bw = m.optional("memory_bandwidth")) {
    acc.memory_bytes_per_s = bw->as_bandwidth_bps() / 8;
    if (acc.memory_bytes_per_s == 0) bw->fail("must be at least 8bps (one byte per second)");
    acc.name = "custom";
  }
  if (auto cap = m.optional("memory_capacity")) {
    acc.memory_capacity_bytes = cap->as_bytes();
    if (acc.memory_capacity_bytes == 0) cap->fail("must be at least 1 byte");
    acc.name = "custom";
  }
  if (auto peaks = m.optional("matmul_tflops")) {
    read_peaks(*peaks, acc.matmul_flops, acc.matmul_runs_as);
    acc.name = "custom";
  }
  if (auto peaks = m.optional("vector_tflops")) {
    read_peaks(*peaks, acc.vector_flops, acc.vector_runs_as);
    acc.peak_flops = acc.vector_flops[dtype_index];
    acc.name = "custom";
  }
  // The element-wise peak at `dtype`: collectives' reductions and vector ops.
  if (auto tf = m.optional("peak_tflops")) {
    acc.peak_flops = read_tflops(*tf);
    acc.vector_flops[dtype_index] = acc.peak_flops;
    acc.vector_runs_as[dtype_index] = precision_of(dtype);
    acc.name = "custom";
  }
  if (auto units = m.optional("amped")) {
    read_amped(*units, acc.amped);
    acc.name = "custom";
  }
  if (auto e = m.optional("efficiency")) read_efficiency(*e, acc.efficiency);
  if (auto g = m.optional("gemm")) {
    read_gemm(*g, acc.gemm);
    acc.name = "custom";
  }
  acc.launch_overhead_ps = m.get_time_ps("launch_overhead", acc.launch_overhead_ps);
  acc.min_op_ps = m.get_time_ps("min_op_time", acc.min_op_ps);
  if (auto power = m.optional("power")) read_power(*power, acc);
  m.finish();
  return acc;
}

}  // namespace sipsim::compute
