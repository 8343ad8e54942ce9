#pragma once
// The default partition (docs/architecture.md): LP ids in contiguous balanced blocks.
#include <cstdint>
#include <span>

#include "sipsim/pdes/partition.hpp"

namespace sipsim::pdes::partitioners {

// LP ids [0, lps) in `ranks` contiguous blocks whose sizes differ by at most
// one: LP i goes to rank floor(i * ranks / lps).
Partition blocks(std::uint32_t lps, int ranks);

// LPs [0, phase.size()) with every phase spread over all ranks: phase[i] names
// the LPs that are busy at the same time (a training job's pipeline stage), and
// the k-th of a phase's n LPs, in id order, goes to rank floor(k * ranks / n).
// A window's events then fall on every rank instead of on the one that holds
// the stage working in it. With a single phase this is blocks(phase.size()).
Partition phased_blocks(std::span<const std::uint32_t> phase, int ranks);

}  // namespace sipsim::pdes::partitioners
