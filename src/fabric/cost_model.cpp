#include "sipsim/fabric/cost_model.hpp"

#include <stdexcept>

namespace sipsim::fabric {

namespace {
__extension__ typedef unsigned __int128 U128;
}  // namespace

pdes::Time serialization_ps(std::uint64_t bytes, std::uint64_t rate_bps) {
  if (rate_bps == 0) throw std::invalid_argument("serialization at a rate of 0 bit/s");
  const U128 bits_ps = static_cast<U128>(bytes) * 8u * pdes::kSecond;
  return static_cast<pdes::Time>((bits_ps + rate_bps - 1) / rate_bps);
}

CostModel::PathQuote CostModel::quote(std::uint32_t a, std::uint32_t b, std::uint64_t bytes,
                                      std::vector<Resource>* resources) const {
  PathQuote q;
  q.injection = injection_ps(a, b, bytes);
  q.uncongested = uncongested_ps(a, b, bytes);
  q.rate_bps = path_rate_bps(a, b);
  if (resources != nullptr) path_resources(a, b, *resources);
  return q;
}

}  // namespace sipsim::fabric
