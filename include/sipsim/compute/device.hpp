#pragma once
// What work costs on an accelerator (DESIGN.md §5): the interface every device
// model implements. The collective executor prices a step's local operation
// through it (DESIGN.md §4), so a collective's compute follows the device the
// scenario describes. Costs are integer picoseconds, identical on every rank.
#include <cstdint>

#include "sipsim/pdes/time.hpp"

namespace sipsim::compute {

class Device {
 public:
  virtual ~Device() = default;
  // A k-to-1 reduction (k = sources >= 2) of `bytes` per input; 0 for k < 2.
  virtual pdes::Time reduce_ps(std::uint32_t sources, std::uint64_t bytes) const = 0;
  // A device-memory copy of `bytes`.
  virtual pdes::Time copy_ps(std::uint64_t bytes) const = 0;
};

}  // namespace sipsim::compute
