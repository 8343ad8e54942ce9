#include "sipsim/fabric/network.hpp"

#include <stdexcept>
#include <string>

namespace sipsim::fabric {

namespace {
__extension__ typedef unsigned __int128 U128;
}  // namespace

pdes::Time serialization_ps(std::uint64_t bytes, std::uint64_t rate_bps) {
  if (rate_bps == 0) throw std::invalid_argument("serialization at a rate of 0 bit/s");
  const U128 bits_ps = static_cast<U128>(bytes) * 8u * pdes::kSecond;
  return static_cast<pdes::Time>((bits_ps + rate_bps - 1) / rate_bps);
}

Network::PathQuote Network::quote(std::uint32_t a, std::uint32_t b, std::uint64_t bytes,
                                  std::vector<Resource>* resources) const {
  PathQuote q;
  q.injection = injection_ps(a, b, bytes);
  q.uncongested = uncongested_ps(a, b, bytes);
  q.rate_bps = path_rate_bps(a, b);
  if (resources != nullptr) path_resources(a, b, *resources);
  return q;
}

std::vector<Network::Counter> Network::counters() const {
  return {{"messages", stats_.messages, false},
          {"bytes", stats_.bytes, false},
          {"chunk_hops", stats_.chunk_hops, false},
          {"max_queueing_ps", stats_.max_queueing, true}};
}

std::uint64_t Network::counter(std::string_view name) const {
  for (const Counter& c : counters()) {
    if (c.name == name) return c.value;
  }
  throw std::out_of_range("the fabric has no counter '" + std::string(name) + "'");
}

}  // namespace sipsim::fabric
