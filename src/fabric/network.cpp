#include "sipsim/fabric/network.hpp"

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

}  // namespace sipsim::fabric
