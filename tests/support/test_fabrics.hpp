#pragma once
// Fabrics shared by several test suites.
#include <cstdint>

#include "sipsim/fabric/circuit/topoopt.hpp"
#include "sipsim/fabric/electrical/bcube.hpp"
#include "sipsim/fabric/electrical/cluster.hpp"
#include "sipsim/fabric/electrical/torus2d.hpp"
#include "sipsim/pdes/time.hpp"

namespace sipsim::testing {

// A two-tier SuperPod-style cluster (RAMP §7.5): servers of 8 GPUs on
// 2.4 Tb/s NVLink behind a 100 ns switch, one NIC per GPU at `nic_rate`,
// leaves of 8 and a spine of `servers`, 350 ns switches.
inline fabric::ClusterSpec cluster_spec(std::uint64_t nic_rate, std::uint32_t servers) {
  fabric::ClusterSpec s;
  s.server_size = 8;
  s.intra_rate_bps = 2'400'000'000'000;
  s.intra_switch_latency = 100 * pdes::kNanosecond;
  s.intra_propagation = 20 * pdes::kNanosecond;
  s.nic = fabric::ClusterSpec::Nic::kPerNode;
  s.nic_rate_bps = nic_rate;
  fabric::TierSpec leaf;
  leaf.down = 8;
  leaf.up_rate_bps = nic_rate;
  leaf.switch_latency = 350 * pdes::kNanosecond;
  leaf.propagation = 10 * pdes::kNanosecond;
  fabric::TierSpec spine = leaf;
  spine.down = servers;
  s.tiers = {leaf, spine};
  return s;
}

}  // namespace sipsim::testing
