#pragma once
// Roofline accelerator model (Williams et al., CACM 2009). For the local
// operations of collectives (RAMP §7.4.1: memory bandwidth, peak compute), a
// k-to-1 reduction of n bytes per input reads k*n bytes, writes n bytes and
// performs (k-1) * n / element_size additions: its time is the larger of the
// memory time and the compute time. An op (op_ps) likewise takes the larger of
// its FLOPs at the peak for its kind and precision (matrix multiplies scaled by
// eff(ub)) and its bytes at the memory bandwidth, plus the launch overhead, and
// at least the minimum op time. Everything is integer arithmetic, so a cost is
// exact and identical on every rank.
#include <cstdint>
#include <memory>

#include "sipsim/compute/accelerator.hpp"
#include "sipsim/compute/device.hpp"
#include "sipsim/pdes/time.hpp"

namespace sipsim::compute {

class Roofline : public Device {
 public:
  explicit Roofline(const Accelerator& acc);
  const Accelerator& accelerator() const { return acc_; }
  // k-to-1 reduction (k >= 2) of `bytes` per input.
  pdes::Time reduce_ps(std::uint32_t sources, std::uint64_t bytes) const override;
  // A device-memory copy of `bytes` (read + write).
  pdes::Time copy_ps(std::uint64_t bytes) const override;
  pdes::Time op_ps(const OpCost& op) const override;
  // The op's time on the roofline, without launch overhead or minimum.
  pdes::Time roofline_body_ps(const OpCost& op) const;

 protected:
  // launch overhead + max(minimum op time, body) (SiP-ML §4.2).
  pdes::Time finish_op(pdes::Time body) const;

 private:
  Accelerator acc_;
};

// AMPeD's accelerator model (eq. 2-4) for ops; collectives' local operations
// stay on the roofline, so a scenario's collectives cost the same under both.
class Amped final : public Roofline {
 public:
  explicit Amped(const Accelerator& acc);
  pdes::Time op_ps(const OpCost& op) const override;
  // eq. 2's term for the op, without launch overhead or minimum.
  pdes::Time amped_body_ps(const OpCost& op) const;
};

// The device the accelerator's `model` names.
std::unique_ptr<Device> make_device(const Accelerator& acc);

}  // namespace sipsim::compute
