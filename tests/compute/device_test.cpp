// Device models by hand: every preset's figures, roofline and AMPeD op times
// (AMPeD eq. 2-4), the micro-batch efficiency, launch overhead and minimum op time.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>

#include "sipsim/compute/accelerator.hpp"
#include "sipsim/compute/roofline.hpp"

namespace sipsim::compute {
namespace {

using pdes::kMicrosecond;
constexpr pdes::Time kMs = pdes::kMillisecond;
constexpr std::uint64_t kT = 1'000'000'000'000;  // FLOP/s per TFLOP/s
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

std::size_t idx(Precision p) {
  return static_cast<std::size_t>(p);
}

// No launch overhead or minimum: the model's own time.
Accelerator bare(const std::string& name) {
  Accelerator a = preset(name);
  a.launch_overhead_ps = 0;
  a.min_op_ps = 0;
  return a;
}

OpCost op(std::uint64_t flops, std::uint64_t bytes, Precision p, OpKind k, std::uint32_t ub = 1) {
  OpCost c;
  c.flops = flops;
  c.bytes = bytes;
  c.precision = p;
  c.kind = k;
  c.micro_batch = ub;
  return c;
}

TEST(Presets, A100AliasIsTodaysDefault) {
  const Accelerator a = a100();
  EXPECT_EQ(a.name, "a100");
  EXPECT_EQ(a.memory_bytes_per_s, 1'555'000'000'000u);
  EXPECT_EQ(a.peak_flops, 19'500'000'000'000u);
  EXPECT_EQ(a.element_bytes, 4u);
  EXPECT_EQ(a100(Dtype::kFloat16).peak_flops, 78 * kT);
  EXPECT_EQ(a100(Dtype::kFloat16).element_bytes, 2u);
  EXPECT_EQ(a100(Dtype::kBfloat16).peak_flops, 39 * kT);
  const Accelerator forty = preset("a100-40gb");
  EXPECT_EQ(forty.name, "a100-40gb");
  EXPECT_EQ(forty.memory_bytes_per_s, a.memory_bytes_per_s);
  EXPECT_EQ(forty.matmul_flops, a.matmul_flops);
  EXPECT_EQ(forty.vector_flops, a.vector_flops);
  EXPECT_EQ(forty.memory_capacity_bytes, a.memory_capacity_bytes);
  // A default-constructed Accelerator (what callers without a compute: section use).
  const Accelerator d;
  EXPECT_EQ(d.name, a.name);
  EXPECT_EQ(d.memory_bytes_per_s, a.memory_bytes_per_s);
  EXPECT_EQ(d.peak_flops, a.peak_flops);
  EXPECT_EQ(d.element_bytes, a.element_bytes);
  EXPECT_EQ(d.matmul_flops, a.matmul_flops);
  EXPECT_EQ(d.vector_flops, a.vector_flops);
  EXPECT_EQ(d.memory_capacity_bytes, a.memory_capacity_bytes);
  EXPECT_EQ(d.amped.frequency_hz, a.amped.frequency_hz);
  EXPECT_EQ(d.amped.nonlinear_units, a.amped.nonlinear_units);
  EXPECT_EQ(d.busy_w, a.busy_w);
  EXPECT_EQ(d.idle_w, a.idle_w);
  // Collectives' local operations cost what they cost before presets existed.
  const Roofline r(a);
  EXPECT_EQ(r.reduce_ps(2, 1 << 20), 2'022'977u);  // ceil(3 MiB / 1555 GB/s)
  EXPECT_EQ(r.copy_ps(1 << 20), 1'348'651u);       // ceil(2 MiB / 1555 GB/s)
  EXPECT_EQ(r.reduce_ps(1, 1 << 20), 0u);
}

TEST(Presets, V100) {
  const Accelerator a = preset("v100");
  EXPECT_EQ(a.memory_bytes_per_s, 900'000'000'000u);
  EXPECT_EQ(a.memory_capacity_bytes, 32 * kGiB);
  const std::array<std::uint64_t, kPrecisions> mm = {15'700'000'000'000, 15'700'000'000'000,
                                                     125 * kT, 15'700'000'000'000, 125 * kT};
  const std::array<std::uint64_t, kPrecisions> vec = {15'700'000'000'000, 15'700'000'000'000,
                                                      31'400'000'000'000, 15'700'000'000'000,
                                                      31'400'000'000'000};
  EXPECT_EQ(a.matmul_flops, mm);
  EXPECT_EQ(a.vector_flops, vec);
  EXPECT_EQ(a.peak_flops, 15'700'000'000'000u);
  EXPECT_EQ(a.amped.frequency_hz, 1'530'000'000u);
  EXPECT_EQ(a.amped.cores, 80u);
  EXPECT_EQ(a.amped.fu, 8u);
  EXPECT_EQ(a.amped.fu_width, 128u);
  EXPECT_EQ(a.amped.nonlinear_units, 142u);
  EXPECT_EQ(a.busy_w, 300);
  EXPECT_EQ(a.idle_w, 40);
}

TEST(Presets, A100s) {
  for (const char* name : {"a100-40gb", "a100-80gb"}) {
    const Accelerator a = preset(name);
    const std::array<std::uint64_t, kPrecisions> mm = {19'500'000'000'000, 156 * kT, 312 * kT,
                                                       312 * kT, 312 * kT};
    const std::array<std::uint64_t, kPrecisions> vec = {19'500'000'000'000, 19'500'000'000'000,
                                                        78 * kT, 39 * kT, 78 * kT};
    EXPECT_EQ(a.matmul_flops, mm) << name;
    EXPECT_EQ(a.vector_flops, vec) << name;
    // AMPeD Table IV.
    EXPECT_EQ(a.amped.frequency_hz, 1'410'000'000u);
    EXPECT_EQ(a.amped.cores, 108u);
    EXPECT_EQ(a.amped.fu, 4u);
    EXPECT_EQ(a.amped.fu_width, 512u);
    EXPECT_EQ(a.amped.fu_bits, 16u);
    EXPECT_EQ(a.amped.nonlinear_units, 192u);
    EXPECT_EQ(a.amped.nonlinear_width, 4u);
    EXPECT_EQ(a.amped.nonlinear_bits, 32u);
    EXPECT_EQ(a.busy_w, 400);
    EXPECT_EQ(a.idle_w, 50);
    EXPECT_EQ(a.model, Model::kRoofline);
    EXPECT_EQ(a.launch_overhead_ps, kMicrosecond);
    EXPECT_EQ(a.min_op_ps, kMicrosecond);
  }
  EXPECT_EQ(preset("a100-40gb").memory_capacity_bytes, 40 * kGiB);
  EXPECT_EQ(preset("a100-80gb").memory_capacity_bytes, 80 * kGiB);
  EXPECT_EQ(preset("a100-80gb").memory_bytes_per_s, 2'039'000'000'000u);
}

TEST(Presets, H100) {
  const Accelerator a = preset("h100", Dtype::kBfloat16);
  EXPECT_EQ(a.memory_bytes_per_s, 3'350'000'000'000u);
  EXPECT_EQ(a.memory_capacity_bytes, 80 * kGiB);
  const std::array<std::uint64_t, kPrecisions> mm = {66'900'000'000'000, 494'700'000'000'000,
                                                     989'400'000'000'000, 989'400'000'000'000,
                                                     1'978'900'000'000'000};
  const std::array<std::uint64_t, kPrecisions> vec = {66'900'000'000'000, 66'900'000'000'000,
                                                      133'800'000'000'000, 133'800'000'000'000,
                                                      133'800'000'000'000};
  EXPECT_EQ(a.matmul_flops, mm);
  EXPECT_EQ(a.vector_flops, vec);
  EXPECT_EQ(a.peak_flops, 133'800'000'000'000u);  // bf16 element-wise
  EXPECT_EQ(a.element_bytes, 2u);
  EXPECT_EQ(a.amped.frequency_hz, 1'800'000'000u);
  EXPECT_EQ(a.amped.cores, 132u);
  EXPECT_EQ(a.amped.fu_width, 1024u);
  EXPECT_EQ(a.amped.nonlinear_units, 320u);
  EXPECT_EQ(a.busy_w, 700);
  EXPECT_EQ(a.idle_w, 70);
  EXPECT_THROW(preset("tpu"), std::invalid_argument);
}

TEST(Efficiency, Curve) {
  EXPECT_EQ(efficiency_ppm(Efficiency{}, 1), kPpm);  // a = 1, b = 0: always 1
  EXPECT_EQ(efficiency_ppm(Efficiency{}, 4096), kPpm);
  const Efficiency e{800'000, 4 * kPpm, 250'000};  // a 0.8, b 4, floor 0.25
  EXPECT_EQ(efficiency_ppm(e, 1), 250'000u);       // 0.8 / 5 = 0.16: the floor
  EXPECT_EQ(efficiency_ppm(e, 4), 400'000u);       // 0.8 * 4 / 8
  EXPECT_EQ(efficiency_ppm(e, 16), 640'000u);      // 0.8 * 16 / 20
  EXPECT_EQ(efficiency_ppm(e, 1000), 796'812u);    // 0.8 * 1000 / 1004, rounded down
  const Efficiency tiny{1, 1'000'000 * kPpm, 0};
  EXPECT_EQ(efficiency_ppm(tiny, 1), 1u);  // never 0
}

TEST(Roofline, OpTimes) {
  const Roofline r(bare("a100-40gb"));
  // Compute-bound matmul: 624 GFLOP at 312 TFLOP/s = 2 ms; 1555 MB at 1555 GB/s = 1 ms.
  EXPECT_EQ(r.op_ps(op(624'000'000'000, 1'555'000'000, Precision::kFp16, OpKind::kMatmul)),
            2 * kMs);
  EXPECT_EQ(r.op_ps(op(624'000'000'000, 1'555'000'000, Precision::kBf16, OpKind::kMatmul)),
            2 * kMs);
  EXPECT_EQ(r.op_ps(op(156'000'000'000, 0, Precision::kTf32, OpKind::kMatmul)), 1 * kMs);
  EXPECT_EQ(r.op_ps(op(19'500'000'000, 0, Precision::kFp32, OpKind::kMatmul)), 1 * kMs);
  EXPECT_EQ(r.op_ps(op(312'000'000'000, 0, Precision::kFp8, OpKind::kMatmul)), 1 * kMs);
  // Memory-bound element-wise op: 78 GFLOP at 78 TFLOP/s = 1 ms; 3110 MB = 2 ms.
  EXPECT_EQ(r.op_ps(op(78'000'000'000, 3'110'000'000, Precision::kFp16, OpKind::kElementwise)),
            2 * kMs);
  EXPECT_EQ(r.op_ps(op(39'000'000'000, 0, Precision::kBf16, OpKind::kElementwise)), kMs);
  // Nonlinear ops use the vector peak on the roofline.
  EXPECT_EQ(r.op_ps(op(78'000'000'000, 0, Precision::kFp16, OpKind::kNonlinear)), kMs);
  // Rounded up to the picosecond: one FLOP at 312 TFLOP/s.
  EXPECT_EQ(r.op_ps(op(1, 0, Precision::kFp16, OpKind::kMatmul)), 1u);
  EXPECT_EQ(r.op_ps(op(0, 0, Precision::kFp16, OpKind::kMatmul)), 0u);
  // The 80 GB part differs in memory only.
  const Roofline r80(bare("a100-80gb"));
  EXPECT_EQ(r80.op_ps(op(0, 2'039'000'000, Precision::kFp16, OpKind::kElementwise)), kMs);
  const Roofline h(bare("h100"));
  EXPECT_EQ(h.op_ps(op(1'978'900'000'000, 0, Precision::kFp8, OpKind::kMatmul)), kMs);
  EXPECT_EQ(h.op_ps(op(0, 3'350'000'000, Precision::kFp8, OpKind::kMatmul)), kMs);
  const Roofline v(bare("v100"));
  EXPECT_EQ(v.op_ps(op(125'000'000'000, 0, Precision::kFp16, OpKind::kMatmul)), kMs);
  EXPECT_EQ(v.op_ps(op(15'700'000'000, 0, Precision::kBf16, OpKind::kMatmul)), kMs);
  EXPECT_EQ(v.op_ps(op(0, 900'000'000, Precision::kFp32, OpKind::kElementwise)), kMs);
}

TEST(Roofline, EfficiencyScalesMatmulsOnly) {
  Accelerator a = bare("a100-40gb");
  a.efficiency = {800'000, 4 * kPpm, 250'000};
  const Roofline r(a);
  // 312 GFLOP: 1 ms at peak; / 0.64 at ub 16 = 1.5625 ms; / 0.25 (floor) at ub 1.
  EXPECT_EQ(r.op_ps(op(312'000'000'000, 0, Precision::kFp16, OpKind::kMatmul, 16)), 1'562'500'000u);
  EXPECT_EQ(r.op_ps(op(312'000'000'000, 0, Precision::kFp16, OpKind::kMatmul, 1)), 4 * kMs);
  EXPECT_EQ(r.op_ps(op(78'000'000'000, 0, Precision::kFp16, OpKind::kElementwise, 1)), kMs);
  // Memory time is not scaled: 4 ms of memory against 1.5625 ms of compute.
  EXPECT_EQ(r.op_ps(op(312'000'000'000, 6'220'000'000, Precision::kFp16, OpKind::kMatmul, 16)),
            4 * kMs);
  EXPECT_THROW(r.op_ps(op(1, 0, Precision::kFp16, OpKind::kMatmul, 0)), std::invalid_argument);
}

TEST(LaunchAndMinimum, SipMlRuntime) {
  // Presets: 1 us launch latency and 1 us minimum op time (SiP-ML §4.2).
  const Roofline r(preset("a100-40gb"));
  EXPECT_EQ(r.op_ps(op(0, 0, Precision::kFp16, OpKind::kMatmul)), 2 * kMicrosecond);
  EXPECT_EQ(r.op_ps(op(1000, 0, Precision::kFp16, OpKind::kMatmul)), 2 * kMicrosecond);
  EXPECT_EQ(r.op_ps(op(624'000'000'000, 0, Precision::kFp16, OpKind::kMatmul)),
            2 * kMs + kMicrosecond);
  Accelerator a = preset("a100-40gb");
  a.launch_overhead_ps = 5 * kMicrosecond;
  a.min_op_ps = 3 * kMicrosecond;
  const Roofline r2(a);
  EXPECT_EQ(r2.op_ps(op(1, 0, Precision::kFp16, OpKind::kMatmul)), 8 * kMicrosecond);
  // 3.12 GFLOP = 10 us.
  EXPECT_EQ(r2.op_ps(op(3'120'000'000, 0, Precision::kFp16, OpKind::kMatmul)), 15 * kMicrosecond);
  const Amped m(a);
  EXPECT_EQ(m.op_ps(op(1, 0, Precision::kFp16, OpKind::kNonlinear)), 8 * kMicrosecond);
  // Saturates instead of wrapping.
  a.launch_overhead_ps = pdes::kTimeMax;
  EXPECT_EQ(Roofline(a).op_ps(op(1, 0, Precision::kFp16, OpKind::kMatmul)), pdes::kTimeMax);
}

TEST(Amped, A100Equations) {
  const Amped m(bare("a100-40gb"));
  // eq. 3: f N_cores N_FU W_FU = 1.41e9 * 108 * 4 * 512 = 311,869,440,000,000 FLOP/s.
  constexpr std::uint64_t kMacMs = 311'869'440'000;  // FLOPs in 1 ms
  EXPECT_EQ(m.op_ps(op(kMacMs, 0, Precision::kFp16, OpKind::kMatmul)), kMs);
  EXPECT_EQ(m.op_ps(op(kMacMs, 0, Precision::kBf16, OpKind::kMatmul)), kMs);
  // eq. 2's ceil[max(S_p, S_act) / S_FU]: 32-bit operands take 2 passes of a
  // 16-bit unit; 8-bit ones take one (no speed-up).
  EXPECT_EQ(m.op_ps(op(kMacMs, 0, Precision::kFp32, OpKind::kMatmul)), 2 * kMs);
  EXPECT_EQ(m.op_ps(op(kMacMs, 0, Precision::kTf32, OpKind::kMatmul)), 2 * kMs);
  EXPECT_EQ(m.op_ps(op(kMacMs, 0, Precision::kFp8, OpKind::kMatmul)), kMs);
  // No memory term in eq. 2.
  EXPECT_EQ(m.op_ps(op(kMacMs, 100'000'000'000, Precision::kFp16, OpKind::kMatmul)), kMs);
  // eq. 4: f N_FU_nonlin W_FU_nonlin = 1.41e9 * 192 * 4 = 1.08288e12 /s; 32-bit units.
  EXPECT_EQ(m.op_ps(op(1'082'880'000, 0, Precision::kFp16, OpKind::kNonlinear)), kMs);
  EXPECT_EQ(m.op_ps(op(1'082'880'000, 0, Precision::kFp32, OpKind::kNonlinear)), kMs);
  // Element-wise ops are not in eq. 2: the roofline prices them.
  EXPECT_EQ(m.op_ps(op(78'000'000'000, 3'110'000'000, Precision::kFp16, OpKind::kElementwise)),
            2 * kMs);
  // Rounded up: one FLOP takes 0.0032 ps.
  EXPECT_EQ(m.op_ps(op(1, 0, Precision::kFp16, OpKind::kMatmul)), 1u);
  // Collectives' local operations stay on the roofline.
  const Roofline r(bare("a100-40gb"));
  EXPECT_EQ(m.reduce_ps(3, 1 << 20), r.reduce_ps(3, 1 << 20));
  EXPECT_EQ(m.copy_ps(12345), r.copy_ps(12345));
}

TEST(Amped, EfficiencyAndOtherPresets) {
  Accelerator a = bare("a100-80gb");
  a.efficiency = {500'000, 0, 0};  // eff = 0.5 for every ub
  const Amped m(a);
  EXPECT_EQ(m.op_ps(op(311'869'440'000, 0, Precision::kFp16, OpKind::kMatmul, 8)), 2 * kMs);
  // eq. 3 scales only the MAC units: nonlinear ops keep eq. 4's rate.
  EXPECT_EQ(m.op_ps(op(1'082'880'000, 0, Precision::kFp16, OpKind::kNonlinear, 8)), kMs);
  // H100: 1.8e9 * 132 * 4 * 1024 = 973,209,600,000,000 FLOP/s; 1.8e9 * 320 * 4.
  const Amped h(bare("h100"));
  EXPECT_EQ(h.op_ps(op(973'209'600'000, 0, Precision::kFp16, OpKind::kMatmul)), kMs);
  EXPECT_EQ(h.op_ps(op(973'209'600'000, 0, Precision::kFp8, OpKind::kMatmul)), kMs);
  EXPECT_EQ(h.op_ps(op(2'304'000'000, 0, Precision::kFp16, OpKind::kNonlinear)), kMs);
  // V100: 1.53e9 * 80 * 8 * 128 = 125,337,600,000,000 FLOP/s.
  const Amped v(bare("v100"));
  EXPECT_EQ(v.op_ps(op(125'337'600'000, 0, Precision::kFp16, OpKind::kMatmul)), kMs);
}

TEST(Devices, FactoryAndChecks) {
  Accelerator a = preset("a100-40gb");
  EXPECT_NE(dynamic_cast<const Amped*>(make_device([&] {
                                         Accelerator b = a;
                                         b.model = Model::kAmped;
                                         return b;
                                       }())
                                           .get()),
            nullptr);
  const std::unique_ptr<Device> roof = make_device(a);
  EXPECT_EQ(dynamic_cast<const Amped*>(roof.get()), nullptr);
  EXPECT_EQ(roof->op_ps(op(0, 0, Precision::kFp16, OpKind::kMatmul)), 2 * kMicrosecond);
  Accelerator bad = a;
  bad.matmul_flops[idx(Precision::kFp8)] = 0;
  EXPECT_THROW(Roofline{bad}, std::invalid_argument);
  bad = a;
  bad.efficiency.a_ppm = 0;
  EXPECT_THROW(Roofline{bad}, std::invalid_argument);
  bad = a;
  bad.amped.fu_bits = 4;
  EXPECT_NO_THROW(Roofline{bad});  // the roofline ignores AMPeD's units
  EXPECT_THROW(Amped{bad}, std::invalid_argument);
  bad = a;
  bad.amped.frequency_hz = 0;
  EXPECT_THROW(Amped{bad}, std::invalid_argument);
}

// A device that prices only collectives' local operations.
class CollectivesOnly final : public Device {
 public:
  pdes::Time reduce_ps(std::uint32_t, std::uint64_t) const override { return 1; }
  pdes::Time copy_ps(std::uint64_t) const override { return 1; }
};

TEST(Devices, DefaultOpPricingRefuses) {
  const CollectivesOnly d;
  EXPECT_THROW(d.op_ps(OpCost{}), std::logic_error);
}

TEST(Devices, Deterministic) {
  const Amped m(preset("h100"));
  const Roofline r(preset("h100"));
  for (std::uint64_t f = 1; f < (std::uint64_t{1} << 62); f = f * 3 + 7) {
    const OpCost c = op(f, f / 3, Precision::kBf16, OpKind::kMatmul, 7);
    EXPECT_EQ(m.op_ps(c), m.op_ps(c));
    EXPECT_LE(r.op_ps(c), r.op_ps(op(f + 1, f / 3, Precision::kBf16, OpKind::kMatmul, 7)));
  }
  // The largest op saturates at kTimeMax rather than wrapping.
  const OpCost huge = op(~std::uint64_t{0}, ~std::uint64_t{0}, Precision::kFp32, OpKind::kMatmul);
  Accelerator slow = bare("v100");
  slow.efficiency = {1, 0, 0};  // eff = 1e-6
  EXPECT_EQ(Amped(slow).op_ps(huge), pdes::kTimeMax);
  EXPECT_EQ(Roofline(bare("v100")).op_ps(huge), pdes::kTimeMax);
}

}  // namespace
}  // namespace sipsim::compute
