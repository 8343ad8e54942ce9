#pragma once
// The routed packet fabric over a Topology (DESIGN.md §3).
#include <cstdint>
#include <memory>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/fabric/routed/topology.hpp"

namespace sipsim::fabric {

// A packet fabric over `topology`: messages are cut into chunks of at most
// `chunk_bytes` that cross the topology's vertices (each an LP) store-and-
// forward, with FIFO reservation of every output link (DESIGN.md §3). A
// message's chunks may leave the node `io_latency` after the send (the node's
// in-out latency, 100 ns for every architecture in RAMP §7.5).
std::unique_ptr<Network> make_routed(std::unique_ptr<Topology> topology, std::uint64_t chunk_bytes,
                                     pdes::Time io_latency = 0);

// What every routed fabric's section has besides its topology: chunk (the
// packet size, default 1 MiB) and io_latency (the node's in-out latency per
// message, RAMP §7.5: 100 ns there; default 0).
struct RoutedSpec {
  std::uint64_t chunk_bytes = 1 << 20;
  pdes::Time io_latency = 0;
};
RoutedSpec read_routed(base::MapReader& section);

}  // namespace sipsim::fabric
