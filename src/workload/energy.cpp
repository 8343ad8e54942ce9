#include "sipsim/workload/energy.hpp"

namespace sipsim::workload {

EnergyModel energy_model(const compute::Accelerator& accelerator, const fabric::Report& fabric) {
  return {accelerator.busy_w, accelerator.idle_w, fabric.energy_pj_per_bit()};
}

double device_energy_j(const EnergyModel& m, const Breakdown& b) {
  pdes::Time busy = 0, rest = 0;
  for (std::size_t c = 0; c < kBreakdownColumns; ++c) {
    const bool compute = c < kCategories && !is_communication(static_cast<Category>(c));
    (compute ? busy : rest) += b[c];
  }
  return m.busy_w * pdes::to_seconds(busy) + m.idle_w * pdes::to_seconds(rest);
}

double fabric_energy_j(const EnergyModel& m, std::uint64_t bytes) {
  return static_cast<double>(bytes) * 8 * m.fabric.pj * 1e-12;
}

IterationEnergy iteration_energy(const EnergyModel& m, std::span<const Breakdown> gpus,
                                 std::uint64_t fabric_bytes) {
  IterationEnergy e;
  for (const Breakdown& b : gpus) e.device_j += device_energy_j(m, b);
  e.fabric_j = fabric_energy_j(m, fabric_bytes);
  e.total_j = e.device_j + e.fabric_j;
  return e;
}

}  // namespace sipsim::workload
