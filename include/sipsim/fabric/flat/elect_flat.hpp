#pragma once
// Elect-Flat, the ideal electrical switch (SiP-ML §4.1).
#include <cstdint>
#include <memory>

#include "sipsim/fabric/network.hpp"

namespace sipsim::fabric {

// SiP-ML's Elect-Flat (§4.1): an ideal non-blocking switch. Only the nodes'
// ports constrain: a message occupies the sender's transmit port and the
// receiver's receive port (FIFO each, cut-through), and is delivered
// `latency` + bytes/rate after it starts, when uncontended.
std::unique_ptr<Network> make_elect_flat(std::uint32_t nodes, std::uint64_t rate_bps,
                                         pdes::Time latency);

}  // namespace sipsim::fabric
