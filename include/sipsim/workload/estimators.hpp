#pragma once
// The estimators as the workloads reach them: `algorithm: auto` ranks
// algorithms by their critical-path estimate, and `sipsim analyze` asks a
// transformer for AMPeD's closed form. analytical/ implements this interface
// (analytical/estimators.hpp) and setup/ passes it in, so that workload/
// never includes analytical/ (the simulator never depends on an estimator).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sipsim/collective/schedule.hpp"
#include "sipsim/compute/device.hpp"
#include "sipsim/fabric/network.hpp"

namespace sipsim::workload {

namespace transformer {
struct Config;
}

class Estimators {
 public:
  virtual ~Estimators() = default;
  // RAMP §7.4.1's critical path of `spec` on `members` over the idle fabric
  // (steps with their links' loads); nullopt when it needs more work than
  // work_limit().
  virtual std::optional<pdes::Time> critical_path(const collective::CollectiveSpec& spec,
                                                  const std::vector<std::uint32_t>& members,
                                                  const fabric::Network& network,
                                                  const compute::Device& device) const = 0;
  // `replay-shapes`: the critical path of `spec` on the first of `comms`
  // alone, and of each of them while all run it at the same time (their
  // messages loading the fabric together); nullopt when either estimate
  // needs more work than work_limit().
  struct Contention {
    pdes::Time alone = 0;
    std::vector<pdes::Time> together;  // by communicator, as `comms`
  };
  virtual std::optional<Contention> contention(const collective::CollectiveSpec& spec,
                                               const std::vector<std::vector<std::uint32_t>>& comms,
                                               const fabric::Network& network,
                                               const compute::Device& device) const = 0;
  // The most work an estimate may take, the exact work of one, and a lower
  // bound of it that is at least a quarter of it, from three members'
  // schedules (O(steps) instead of O(p)).
  virtual std::uint64_t work_limit() const = 0;
  virtual std::uint64_t work(const collective::CollectiveSpec& spec) const = 0;
  virtual std::uint64_t work_lower_bound(const collective::CollectiveSpec& spec) const = 0;
  // AMPeD (eq. 1-12) for a transformer job on the fabric, with the
  // assumptions it made: `sipsim analyze`'s report.
  virtual std::string amped_report(const transformer::Config& config,
                                   const fabric::Network& network) const = 0;
};

}  // namespace sipsim::workload
