// BCube's scenario keys (docs/scenarios.md, fabric type bcube).
#include "sipsim/fabric/electrical/bcube.hpp"

namespace sipsim::fabric {

std::uint32_t bcube_nodes(const BcubeSpec& spec) {
  std::uint64_t n = 1;
  for (std::uint32_t l = 0; l < spec.levels; ++l) n *= spec.ports;
  return static_cast<std::uint32_t>(n);
}

BcubeSpec read_bcube(base::MapReader& f) {
  BcubeSpec b;
  b.ports = f.required("ports").as_u32(2, 1024);
  b.levels = f.required("levels").as_u32(1, 8);
  b.link_rate_bps = f.required("link_bandwidth").as_positive_bandwidth_bps();
  b.switch_latency = f.get_time_ps("switch_latency", 0);
  b.propagation = f.get_time_ps("propagation", 0);
  std::uint64_t n = 1;
  for (std::uint32_t l = 0; l < b.levels; ++l) {
    n *= b.ports;
    if (n > (1u << 24)) f.required("levels").fail("more than 2^24 nodes");
  }
  return b;
}

}  // namespace sipsim::fabric
