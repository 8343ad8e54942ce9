#pragma once
// The estimators as the workloads reach them (workload/estimators.hpp):
// setup/ and app/ pass this one in.
#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/workload/estimators.hpp"

namespace sipsim::analytical {

class Estimators final : public workload::Estimators {
 public:
  explicit Estimators(std::uint64_t max_work = kDefaultMaxWork) : max_work_(max_work) {}
  std::optional<pdes::Time> critical_path(const collective::CollectiveSpec& spec,
                                          const std::vector<std::uint32_t>& members,
                                          const fabric::Network& network,
                                          const compute::Device& device) const override;
  std::optional<Contention> contention(const collective::CollectiveSpec& spec,
                                       const std::vector<std::vector<std::uint32_t>>& comms,
                                       const fabric::Network& network,
                                       const compute::Device& device) const override;
  std::uint64_t work_limit() const override { return max_work_; }
  std::uint64_t work(const collective::CollectiveSpec& spec) const override;
  std::uint64_t work_lower_bound(const collective::CollectiveSpec& spec) const override;
  std::string amped_report(const workload::transformer::Config& config,
                           const fabric::Network& network) const override;

 private:
  std::uint64_t max_work_;
};

}  // namespace sipsim::analytical
