#pragma once
// The default partition (DESIGN.md §2): LP ids in contiguous balanced blocks.
#include <cstdint>

#include "sipsim/pdes/partition.hpp"

namespace sipsim::pdes::partitioners {

// LP ids [0, lps) in `ranks` contiguous blocks whose sizes differ by at most
// one: LP i goes to rank floor(i * ranks / lps).
Partition blocks(std::uint32_t lps, int ranks);

}  // namespace sipsim::pdes::partitioners
