// SiPAC's scenario keys (docs/scenarios.md, fabric type sipac).
#include "sipsim/fabric/sip/sipac.hpp"

namespace sipsim::fabric {

std::uint32_t sipac_units(const SipacSpec& spec) {
  std::uint64_t n = 1;
  for (std::uint32_t k = 0; k <= spec.level; ++k) n *= spec.ports;
  return static_cast<std::uint32_t>(n);
}

std::uint64_t sipac_lightpath_rate_bps(const SipacSpec& spec) {
  const std::uint64_t paths = std::uint64_t{spec.level + 1} * (spec.ports - 1);
  return paths == 0 ? 0 : spec.bandwidth_bps / paths;
}

SipacSpec read_sipac(base::MapReader& f) {
  SipacSpec s;
  s.ports = f.required("ports").as_u32(2, 1024);
  s.level = f.required("level").as_u32(1, 7);
  s.bandwidth_bps = f.required("bandwidth").as_positive_bandwidth_bps();
  s.wss_latency = f.get_time_ps("wss_latency", 0);
  s.propagation = f.get_time_ps("propagation", 0);
  std::uint64_t n = 1;
  for (std::uint32_t k = 0; k <= s.level; ++k) {
    n *= s.ports;
    if (n > (1u << 24)) f.required("level").fail("more than 2^24 units");
  }
  if (sipac_lightpath_rate_bps(s) == 0) {
    f.required("bandwidth")
        .fail("is less than 1 bps per lightpath ((level + 1) * (ports - 1) of them)");
  }
  return s;
}

}  // namespace sipsim::fabric
