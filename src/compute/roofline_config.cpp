// The keys of a scenario's `compute:` section (docs/scenarios.md).
#include <string>

#include "sipsim/compute/roofline.hpp"

namespace sipsim::compute {

Accelerator read_accelerator(const std::optional<base::Value>& value) {
  Accelerator acc = a100();
  if (!value) return acc;
  base::MapReader m = value->as_map();
  if (auto preset = m.optional("preset")) preset->as_enum({"a100"});
  Dtype dtype = Dtype::kFloat32;
  if (auto d = m.optional("dtype")) {
    const std::string name = d->as_enum({"float32", "float16", "bfloat16"});
    dtype = name == "float16"    ? Dtype::kFloat16
            : name == "bfloat16" ? Dtype::kBfloat16
                                 : Dtype::kFloat32;
  }
  acc = a100(dtype);
  if (auto bw = m.optional("memory_bandwidth")) {
    acc.memory_bytes_per_s = bw->as_bandwidth_bps() / 8;
    if (acc.memory_bytes_per_s == 0) bw->fail("must be at least 8bps (one byte per second)");
    acc.name = "custom";
  }
  if (auto tf = m.optional("peak_tflops")) {
    const double t = tf->as_double();
    if (!(t >= 1e-12) || t > 1e6) {
      tf->fail("must be a number of TFLOP/s from 1e-12 (one FLOP/s) to 1e6");
    }
    acc.peak_flops = static_cast<std::uint64_t>(t * 1e12);
    acc.name = "custom";
  }
  m.finish();
  return acc;
}

}  // namespace sipsim::compute
