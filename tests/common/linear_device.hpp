#pragma once
// A device for hand-computed training tests: an op costs (FLOPs + bytes)
// nanoseconds, and collectives' local operations are free (as AMPeD's eq. 6
// and 11, which have no reduction term).
#include "sipsim/compute/device.hpp"
#include "sipsim/pdes/time.hpp"

namespace sipsim::testing {

class LinearDevice final : public compute::Device {
 public:
  pdes::Time reduce_ps(std::uint32_t, std::uint64_t) const override { return 0; }
  pdes::Time copy_ps(std::uint64_t) const override { return 0; }
  pdes::Time op_ps(const compute::OpCost& op) const override {
    return (op.flops + op.bytes) * pdes::kNanosecond;
  }
};

}  // namespace sipsim::testing
