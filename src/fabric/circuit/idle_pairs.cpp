// The demand a circuit controller re-plans from (circuit_network.hpp).
#include <algorithm>
#include <tuple>
#include <vector>

#include "sipsim/fabric/circuit/circuit_network.hpp"

namespace sipsim::fabric {

std::vector<PairTraffic> with_idle_job_pairs(std::span<const PairTraffic> demand,
                                             std::span<const PairTraffic> job) {
  const auto by_pair = [](const PairTraffic& a, const PairTraffic& b) {
    return std::tie(a.src, a.dst) < std::tie(b.src, b.dst);
  };
  std::vector<PairTraffic> wanted(demand.begin(), demand.end());
  for (const PairTraffic& t : job) {
    const auto it = std::lower_bound(demand.begin(), demand.end(), t, by_pair);
    if (it == demand.end() || it->src != t.src || it->dst != t.dst) {
      wanted.push_back({t.src, t.dst, 1});
    }
  }
  std::sort(wanted.begin(), wanted.end(), by_pair);
  return wanted;
}

}  // namespace sipsim::fabric
