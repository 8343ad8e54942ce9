#pragma once
// Elect-Flat, the ideal electrical switch (SiP-ML §4.1).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/network.hpp"

namespace sipsim::fabric {

// SiP-ML's Elect-Flat (§4.1): an ideal non-blocking switch. Only the nodes'
// ports constrain: a message occupies the sender's transmit port and the
// receiver's receive port (FIFO each, cut-through), and is delivered
// `latency` + bytes/rate after it starts, when uncontended.
// A node's NIC (both its ports) at `factor` of the rate, or failed (factor
// 0: the node cannot send or receive), from `at` until `until`
// (docs/faults.md).
struct FlatFault {
  pdes::Time at = 0, until = pdes::kTimeMax;
  std::uint32_t node = 0;
  double factor = 0.0;
  std::string target;  // in words, for messages
};
std::unique_ptr<Network> make_elect_flat(std::uint32_t nodes, std::uint64_t rate_bps,
                                         pdes::Time latency, std::vector<FlatFault> faults = {});

struct ElectFlatSpec {
  std::uint32_t nodes = 0;
  std::uint64_t bandwidth_bps = 0;
  pdes::Time latency = 0;
};
// The keys of a `fabric: {type: elect-flat}` section: nodes, bandwidth, latency.
ElectFlatSpec read_elect_flat(base::MapReader& section);

}  // namespace sipsim::fabric
