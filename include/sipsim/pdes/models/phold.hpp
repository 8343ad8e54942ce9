#pragma once
// PHOLD (Fujimoto, "Performance of Time Warp under synthetic workloads", 1990):
// the standard synthetic benchmark for comparing PDES engines. Each LP starts
// with a number of events; handling one sends one new event, to a uniformly
// chosen other LP with probability remote_fraction and to itself otherwise, at
// now + lookahead + Exp(mean_increment).
//
// "Remote" means "another LP", not "another rank": the destination must not
// depend on the partition, or results would change with the rank count.
#include <cstdint>
#include <memory>

#include "sipsim/pdes/model.hpp"

namespace sipsim::pdes::models {

struct PholdConfig {
  std::uint32_t lps = 1024;
  std::uint32_t start_events_per_lp = 1;
  double remote_fraction = 0.25;
  Time lookahead = kMicrosecond;
  Time mean_increment = kMicrosecond;
};

class PholdModel final : public Model {
 public:
  explicit PholdModel(const PholdConfig& config);

  std::uint32_t lp_count() const override { return config_.lps; }
  // Every LP may send to every other with delay >= lookahead.
  Time lookahead(const Partition&) const override { return config_.lookahead; }
  void init(Context& ctx) override;
  void handle(const Event& event, Context& ctx) override;

 private:
  // One Philox block per event: 64 bits for the increment, 32 for the
  // remote decision, 32 for the destination.
  void send_next(Context& ctx);

  PholdConfig config_;
  std::uint64_t remote_threshold_;  // P(remote) scaled to 2^32
  double mean_ps_;
};

}  // namespace sipsim::pdes::models
