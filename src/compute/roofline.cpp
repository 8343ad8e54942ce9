#include "sipsim/compute/roofline.hpp"

#include <algorithm>
#include <stdexcept>

#include "rates.hpp"
#include "sipsim/compute/gemm.hpp"

namespace sipsim::compute {

namespace {
using rates::clamp_time;
using rates::time_at_rate;
using rates::time_at_rate_eff;
using rates::U128;

void check_op(const OpCost& op) {
  if (op.micro_batch == 0) throw std::invalid_argument("an op's micro_batch must be >= 1");
  if (static_cast<int>(op.precision) >= kPrecisions) {
    throw std::invalid_argument("unknown op precision");
  }
}

// AMPeD eq. 2's ceil[S_operand / S_FU]: a unit of S_FU bits takes that many
// passes per operation; narrower operands take one.
std::uint32_t passes(std::uint32_t operand_bits, std::uint32_t fu_bits) {
  return (operand_bits + fu_bits - 1) / fu_bits;
}

// Storage width of a precision, AMPeD's S_p / S_act (tf32 is stored as fp32).
std::uint32_t bits_of(Precision p) {
  switch (p) {
    case Precision::kFp32:
    case Precision::kTf32:
      return 32;
    case Precision::kFp16:
    case Precision::kBf16:
      return 16;
    case Precision::kFp8:
      return 8;
  }
  return 32;
}
}  // namespace

std::uint32_t element_bytes(Precision p) {
  switch (p) {
    case Precision::kFp32:
    case Precision::kTf32:
      return 4;
    case Precision::kFp16:
    case Precision::kBf16:
      return 2;
    case Precision::kFp8:
      return 1;
  }
  return 2;
}

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::kFp32:
      return "fp32";
    case Precision::kTf32:
      return "tf32";
    case Precision::kFp16:
      return "fp16";
    case Precision::kBf16:
      return "bf16";
    case Precision::kFp8:
      return "fp8";
  }
  return "?";
}

pdes::Time Device::op_ps(const OpCost&) const {
  throw std::logic_error("this device prices collectives' local operations only, not ops");
}

std::uint64_t efficiency_ppm(const Efficiency& e, std::uint32_t micro_batch) {
  const U128 ub = static_cast<U128>(micro_batch) * kPpm;
  // a * ub / (b + ub) (AMPeD §III-A), rounded down, at least 1 ppm.
  const U128 curve = static_cast<U128>(e.a_ppm) * ub / (e.b_ppm + ub);
  return std::max<std::uint64_t>({static_cast<std::uint64_t>(curve), e.floor_ppm, 1});
}

Roofline::Roofline(const Accelerator& acc) : acc_(acc) {
  if (acc.memory_bytes_per_s == 0 || acc.peak_flops == 0 || acc.element_bytes == 0) {
    throw std::invalid_argument("accelerator rates and element size must be > 0");
  }
  for (int p = 0; p < kPrecisions; ++p) {
    if (acc.matmul_flops[p] == 0 || acc.vector_flops[p] == 0) {
      throw std::invalid_argument("accelerator peaks must be > 0 for every precision");
    }
  }
  if (acc.efficiency.a_ppm == 0 || acc.efficiency.a_ppm > kPpm || acc.efficiency.floor_ppm > kPpm) {
    throw std::invalid_argument("efficiency a must be in (0, 1] and its floor in [0, 1]");
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

pdes::Time Roofline::roofline_body_ps(const OpCost& op) const {
  check_op(op);
  const auto p = static_cast<std::size_t>(op.precision);
  const pdes::Time memory = time_at_rate(op.bytes, acc_.memory_bytes_per_s);
  const pdes::Time compute = op.kind == OpKind::kMatmul
                                 ? time_at_rate_eff(op.flops, acc_.matmul_flops[p],
                                                    efficiency_ppm(acc_.efficiency, op.micro_batch))
                                 : time_at_rate(op.flops, acc_.vector_flops[p]);
  return std::max(memory, compute);
}

pdes::Time Roofline::finish_op(pdes::Time body) const {
  return pdes::saturating_add(acc_.launch_overhead_ps, std::max(acc_.min_op_ps, body));
}

pdes::Time Roofline::op_ps(const OpCost& op) const {
  return finish_op(roofline_body_ps(op));
}

Amped::Amped(const Accelerator& acc) : Roofline(acc) {
  const AmpedUnits& u = acc.amped;
  const auto count_ok = [](std::uint32_t n) { return n >= 1 && n <= kMaxUnitCount; };
  const auto bits_ok = [](std::uint32_t b) { return b >= 8 && b <= 64; };
  if (u.frequency_hz == 0 || u.frequency_hz > kMaxFrequencyHz || !count_ok(u.cores) ||
      !count_ok(u.fu) || !count_ok(u.fu_width) || !count_ok(u.nonlinear_units) ||
      !count_ok(u.nonlinear_width) || !bits_ok(u.fu_bits) || !bits_ok(u.nonlinear_bits)) {
    throw std::invalid_argument(
        "AMPeD's f must be in 1..1e12 Hz, its unit counts and widths in 1..2^20 and its unit "
        "precisions in 8..64 bits");
  }
}

pdes::Time Amped::amped_body_ps(const OpCost& op) const {
  check_op(op);
  const Accelerator& acc = accelerator();
  const AmpedUnits& u = acc.amped;
  const std::uint32_t bits = bits_of(op.precision);
  switch (op.kind) {
    case OpKind::kMatmul: {
      // eq. 2, first term: N_MAC * C_MAC * ceil[max(S_p, S_act) / S_FU_MAC], with
      // eq. 3's C_MAC = 1 / (f N_cores N_FU W_FU eff(ub)); Table IV's W_FU counts
      // FLOPs per cycle, so N_MAC is taken in FLOPs (docs/models.md).
      const U128 rate = static_cast<U128>(u.frequency_hz) * u.cores * u.fu * u.fu_width;
      const U128 work = static_cast<U128>(op.flops) * passes(bits, u.fu_bits);
      const std::uint64_t eff = efficiency_ppm(acc.efficiency, op.micro_batch);
      // The reader bounds f <= 1e12, counts <= 2^20 and S_FU >= 8 bits: rate * eff
      // < 2^120 and work * 1e18 < 2^126, so 128 bits hold both.
      const U128 den = rate * eff;
      return clamp_time((work * pdes::kSecond * kPpm + den - 1) / den);
    }
    case OpKind::kNonlinear: {
      // eq. 2, second term: N_nonlin * C_nonlin * ceil[S_nonlin / S_FU_nonlin],
      // eq. 4's C_nonlin = 1 / (f N_FU_nonlin W_FU_nonlin).
      const U128 rate = static_cast<U128>(u.frequency_hz) * u.nonlinear_units * u.nonlinear_width;
      const U128 work = static_cast<U128>(op.flops) * passes(bits, u.nonlinear_bits);
      return clamp_time((work * pdes::kSecond + rate - 1) / rate);
    }
    case OpKind::kElementwise:
      // eq. 2 prices MACs and nonlinear operations only: element-wise ops
      // (additions, scaling, optimizer updates' arithmetic) use the roofline.
      return roofline_body_ps(op);
  }
  return 0;
}

pdes::Time Amped::op_ps(const OpCost& op) const {
  return finish_op(amped_body_ps(op));
}

std::unique_ptr<Device> make_device(const Accelerator& acc) {
  if (acc.model == Model::kAmped) return std::make_unique<Amped>(acc);
  if (acc.model == Model::kGemm) return std::make_unique<GemmDevice>(acc);
  return std::make_unique<Roofline>(acc);
}

}  // namespace sipsim::compute
