#pragma once
// The routed packet fabric over a Topology (docs/architecture.md).
#include <cstdint>
#include <memory>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/fabric/routed/topology.hpp"

namespace sipsim::fabric {

// How a vertex passes a chunk on. Store-and-forward: a chunk may leave once
// its last byte has arrived. Cut-through (the switching of InfiniBand and
// NVSwitch): it may leave once its first byte has arrived, and its last byte
// leaves no earlier than it arrived, so a path costs one serialisation on its
// slowest link rather than one per hop (docs/models.md, "Routed fabrics").
enum class Forwarding : std::uint8_t { kStoreAndForward, kCutThrough };

// A packet fabric over `topology`: messages are cut into chunks of at most
// `chunk_bytes` that cross the topology's vertices (each an LP) with FIFO
// reservation of every output link (docs/architecture.md), passed on as `forwarding`
// says. A message's chunks may leave the node `io_latency` after the send
// (the node's in-out latency, 100 ns for every architecture in RAMP §7.5).
std::unique_ptr<Network> make_routed(std::unique_ptr<Topology> topology, std::uint64_t chunk_bytes,
                                     pdes::Time io_latency = 0,
                                     Forwarding forwarding = Forwarding::kStoreAndForward);

// What every routed fabric's section has besides its topology: chunk (the
// packet size, default 1 MiB), io_latency (the node's in-out latency per
// message, RAMP §7.5: 100 ns there; default 0) and forwarding.
struct RoutedSpec {
  std::uint64_t chunk_bytes = 1 << 20;
  pdes::Time io_latency = 0;
  Forwarding forwarding = Forwarding::kStoreAndForward;
};
RoutedSpec read_routed(base::MapReader& section);

}  // namespace sipsim::fabric
