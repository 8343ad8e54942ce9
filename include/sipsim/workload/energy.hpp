#pragma once
// Energy of training iterations (docs/models.md, "Energy"): each GPU draws the
// accelerator preset's busy power while it computes and its idle power for the
// rest of its span of the iteration; the fabric spends its energy per bit
// (fabric::Report::energy_pj_per_bit) on every bit sent. Workloads with a
// per-GPU breakdown (transformer, later DLRM) call these from their results.
#include <cstdint>
#include <span>

#include "sipsim/compute/accelerator.hpp"
#include "sipsim/fabric/report.hpp"
#include "sipsim/workload/interpreter.hpp"

namespace sipsim::workload {

struct EnergyModel {
  double busy_w = 0;
  double idle_w = 0;
  fabric::EnergyPerBit fabric;  // NaN pJ when the fabric has no sourced figure
};
EnergyModel energy_model(const compute::Accelerator& accelerator, const fabric::Report& fabric);

// Joules of one GPU over `b`: busy_w over the compute columns (forward,
// backward, weight-gradient, optimizer, compute), idle_w over the others.
double device_energy_j(const EnergyModel& m, const Breakdown& b);
// Joules of `bytes` sent over the fabric; NaN when its figure is unknown.
double fabric_energy_j(const EnergyModel& m, std::uint64_t bytes);

struct IterationEnergy {
  double device_j = 0;  // all GPUs
  double fabric_j = 0;  // NaN when unknown
  double total_j = 0;   // device + fabric; NaN when the fabric's is unknown
};
// One iteration from its GPUs' breakdowns and the bytes the fabric carried in it.
IterationEnergy iteration_energy(const EnergyModel& m, std::span<const Breakdown> gpus,
                                 std::uint64_t fabric_bytes);

}  // namespace sipsim::workload
