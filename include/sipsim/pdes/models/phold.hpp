#pragma once
// PHOLD (Fujimoto, "Performance of Time Warp under synthetic workloads", 1990):
// the standard synthetic benchmark for comparing PDES engines. Each LP starts
// with a number of events; handling one sends one new event, to a uniformly
// chosen other LP with probability remote_fraction and to itself otherwise, at
// now + lookahead + Exp(mean_increment).
//
// "Remote" means "another LP", not "another rank": the destination must not
// depend on the partition, or results would change with the rank count.
//
// With `epoch` set (PholdEpochModel), PHOLD is also the test model of the
// kernel's epochs (docs/architecture.md, docs/models.md): every `epoch` the LPs report
// how many events they handled, and a planner derives from those counts and
// its random stream a plan for the next period: a remote fraction per bucket
// of LPs (busy ones send more events away, idle ones keep more) and a
// rotation of remote destinations. Without `epoch`, PHOLD is unchanged bit
// for bit.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sipsim/pdes/model.hpp"

namespace sipsim::pdes::models {

struct PholdConfig {
  std::uint32_t lps = 1024;
  std::uint32_t start_events_per_lp = 1;
  double remote_fraction = 0.25;
  Time lookahead = kMicrosecond;
  Time mean_increment = kMicrosecond;
  Time epoch = 0;  // period of the planner's epochs; 0: no epochs
};

// Plain PHOLD: config.epoch must be 0 (make_phold builds either variant).
class PholdModel : public Model {
 public:
  explicit PholdModel(const PholdConfig& config);

  std::uint32_t lp_count() const override { return config_.lps; }
  // Every LP may send to every other with delay >= lookahead.
  Time lookahead(const Partition&) const override { return config_.lookahead; }
  void init(Context& ctx) override;
  void handle(const Event& event, Context& ctx) override;

 protected:
  struct Planned {};
  PholdModel(const PholdConfig& config, Planned);

  // One Philox block per event: 64 bits for the increment, 32 for the
  // remote decision, 32 for the destination. kPlanned: under the epoch
  // variant's plan (plain PHOLD's instance never reads it).
  template <bool kPlanned>
  void send_next(Context& ctx);
  // P(remote) x 2^32 of `lp`, read only where plain PHOLD read its constant.
  template <bool kPlanned>
  std::uint64_t remote_threshold(LpId lp) const {
    if constexpr (kPlanned) return bucket_threshold_[lp % buckets_];
    return remote_threshold_;
  }

  PholdConfig config_;
  std::uint64_t remote_threshold_;  // P(remote) scaled to 2^32
  double mean_ps_;
  // The epoch variant's plan: P(remote) x 2^32 per bucket of LPs (id modulo
  // the bucket count), and a rotation of remote picks.
  std::uint32_t buckets_;
  std::vector<std::uint64_t> bucket_threshold_;
  std::uint32_t offset_ = 0;
};

// The epoch variant (config.epoch > 0): a separate class so that plain PHOLD
// pays nothing per event for it.
class PholdEpochModel final : public PholdModel {
 public:
  // LPs are grouped into min(lps, kPlanBuckets) buckets by id modulo the
  // bucket count; the plan gives each bucket its remote fraction.
  static constexpr std::uint32_t kPlanBuckets = 64;

  explicit PholdEpochModel(const PholdConfig& config);

  void setup(const Partition& partition, int rank) override;
  void init(Context& ctx) override;
  void handle(const Event& event, Context& ctx) override;

  // Epochs at every multiple of config.epoch.
  Time next_epoch(Time after) const override;
  // Per bucket the events its LPs handled in the period, then one word that
  // sums a hash of every LP's own count, so the plan depends on each LP.
  std::size_t epoch_counters() const override;
  void epoch_contribute(Time epoch, std::span<std::uint64_t> counters) override;
  void epoch_plan(const EpochInfo& info, std::span<const std::uint64_t> totals) override;

 private:
  std::span<const LpId> local_;               // this rank's LPs
  std::vector<std::uint64_t> period_events_;  // per local LP, since the last epoch
};

// PholdModel without `epoch`, PholdEpochModel with it.
std::unique_ptr<Model> make_phold(const PholdConfig& config);

}  // namespace sipsim::pdes::models
