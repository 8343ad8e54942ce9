#include "sipsim/compute/gemm.hpp"

#include <algorithm>
#include <stdexcept>

#include "rates.hpp"

namespace sipsim::compute {

namespace {
using rates::time_at_rate;
using rates::time_at_rate_eff;
using rates::U128;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return (a + b - 1) / b;
}
}  // namespace

GemmDevice::GemmDevice(const Accelerator& acc) : Roofline(acc) {
  const GemmUnits& g = acc.gemm;
  if (g.sms == 0 || g.sms > 65'536 || g.tiles.empty() || g.tiles.size() > kMaxGemmTiles ||
      g.efficiency_ppm == 0 || g.efficiency_ppm > kPpm || g.sustained_ppm == 0 ||
      g.sustained_ppm > kPpm) {
    throw std::invalid_argument(
        "the GEMM model needs 1..65536 SMs, 1..8 tile shapes, and an efficiency and a sustained "
        "share in (0, 1]");
  }
  for (const GemmTile& t : g.tiles) {
    if (t.m == 0 || t.n == 0 || t.m > 4096 || t.n > 4096) {
      throw std::invalid_argument("a GEMM tile's sides must be in 1..4096");
    }
  }
}

pdes::Time GemmDevice::gemm_ps(const Gemm& g, Precision precision) const {
  if (g.m == 0 || g.n == 0 || g.k == 0 || g.batch == 0) return 0;
  const Accelerator& acc = accelerator();
  const GemmUnits& u = acc.gemm;
  const std::uint64_t peak = acc.matmul_flops[static_cast<std::size_t>(precision)];
  // Every wave takes as long as a full one: sms tiles of t.m x t.n outputs,
  // each 2k FLOPs per output, at the achievable fraction of the peak.
  pdes::Time compute = pdes::kTimeMax;
  for (const GemmTile& t : u.tiles) {
    const U128 tiles = static_cast<U128>(g.batch) * ceil_div(g.m, t.m) * ceil_div(g.n, t.n);
    const U128 waves = (tiles + u.sms - 1) / u.sms;
    const U128 work = waves * u.sms * t.m * t.n * 2 * g.k;
    compute = std::min(compute, time_at_rate_eff(work, peak, u.efficiency_ppm));
  }
  // The roofline's memory side: A and B read once, C written once.
  const U128 elements = static_cast<U128>(g.batch) * (g.m * g.k + g.k * g.n + g.m * g.n);
  const pdes::Time memory =
      time_at_rate(elements * element_bytes(precision), acc.memory_bytes_per_s);
  return std::max(compute, memory);
}

pdes::Time GemmDevice::gemm_body_ps(const OpCost& op) const {
  if (op.kind != OpKind::kMatmul) return roofline_body_ps(op);
  const Accelerator& acc = accelerator();
  if (op.gemms.empty()) {
    // No shape: the flops at the achievable fraction of the peak, or the bytes.
    const pdes::Time compute =
        time_at_rate_eff(op.flops, acc.matmul_flops[static_cast<std::size_t>(op.precision)],
                         acc.gemm.efficiency_ppm);
    return std::max(compute, time_at_rate(op.bytes, acc.memory_bytes_per_s));
  }
  std::uint64_t flops = 0;
  pdes::Time total = 0;
  for (const Gemm& g : op.gemms) {
    flops += g.flops();
    total = pdes::saturating_add(total, gemm_ps(g, op.precision));
  }
  if (flops != op.flops) {
    throw std::logic_error("an op's GEMM shapes do not add up to its FLOPs");
  }
  return total;
}

pdes::Time GemmDevice::op_ps(const OpCost& op) const {
  // The body at the sustained share of the achievable rates.
  const U128 body = gemm_body_ps(op);
  const std::uint64_t share = accelerator().gemm.sustained_ppm;
  return finish_op(rates::clamp_time((body * kPpm + share - 1) / share));
}

}  // namespace sipsim::compute
