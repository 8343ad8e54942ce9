#pragma once
// Epochs of a fabric with a global controller (SiP-Ring's wavelength planner,
// SiP-OCS's circuit allocation): pdes::Model's five epoch calls with the same
// contract, which the model that hosts the fabric forwards here
// (fabric::FabricModel). The defaults declare no epochs.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sipsim/pdes/model.hpp"

namespace sipsim::fabric {

class Epochs {
 public:
  virtual ~Epochs() = default;

  virtual pdes::Time next_epoch(pdes::Time /*after*/) const { return pdes::kTimeMax; }
  virtual std::size_t epoch_counters() const { return 0; }
  virtual void epoch_contribute(pdes::Time /*epoch*/, std::span<std::uint64_t> /*counters*/) {}
  virtual void epoch_plan(const pdes::EpochInfo& /*info*/,
                          std::span<const std::uint64_t> /*totals*/) {}
  virtual std::vector<std::uint64_t> epoch_share(const pdes::EpochInfo& /*info*/,
                                                 std::span<const std::uint64_t> /*totals*/) {
    return {};
  }
};

}  // namespace sipsim::fabric
