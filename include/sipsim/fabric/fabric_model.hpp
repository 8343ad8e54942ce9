#pragma once
// A pdes::Model whose LPs are a fabric's (the workload's interpreter, the
// fabric tests' drivers): what such a model answers with the fabric's own
// answer is forwarded here once, so the model adds only its node logic.
//
// Not forwarded, because the model has a part in them: handle (its own events
// as well as the fabric's; a direct call to Network::handle on the hot path),
// and bounds_remote_events with remote_bound (the bound must also cover what
// the model's nodes send outside the fabric).
#include <cstddef>
#include <cstdint>
#include <span>

#include "sipsim/fabric/network.hpp"
#include "sipsim/pdes/model.hpp"

namespace sipsim::fabric {

class FabricModel : public pdes::Model {
 public:
  // `fabric` must stay valid while the model is used (the interpreter owns it).
  explicit FabricModel(Network& fabric) : fabric_(fabric) {}

  std::uint32_t lp_count() const override { return fabric_.lp_count(); }
  pdes::Partition partition(int ranks) const override { return fabric_.partition(ranks); }
  pdes::Time lookahead(const pdes::Partition& p) const override { return fabric_.lookahead(p); }
  void setup(const pdes::Partition& p, int rank) override { fabric_.setup(p, rank); }

  // The fabric's controller, if it has one (Epochs).
  pdes::Time next_epoch(pdes::Time after) const override { return fabric_.next_epoch(after); }
  std::size_t epoch_counters() const override { return fabric_.epoch_counters(); }
  void epoch_contribute(pdes::Time epoch, std::span<std::uint64_t> counters) override {
    fabric_.epoch_contribute(epoch, counters);
  }
  std::vector<std::uint64_t> epoch_share(const pdes::EpochInfo& info,
                                         std::span<const std::uint64_t> totals) override {
    return fabric_.epoch_share(info, totals);
  }
  void epoch_plan(const pdes::EpochInfo& info, std::span<const std::uint64_t> totals) override {
    fabric_.epoch_plan(info, totals);
  }

 protected:
  Network& fabric_;
};

}  // namespace sipsim::fabric
