#pragma once
// /faults: one row per fault of the scenario's `faults:` section
// (docs/output.md, docs/faults.md).
#include <cstdint>
#include <vector>

#include "sipsim/output/h5.hpp"

namespace sipsim::output {

struct FaultRow {
  std::uint32_t id;        // the entry's position in the section
  char kind[16];           // "gpu-slowdown", ...
  char target[48];         // "gpu 3", in the fabric's addressing
  std::uint64_t at_ps;     // when it happens
  std::uint64_t until_ps;  // its repair; 2^64 - 1: none
  std::uint8_t happened;   // 0: the run ended before it
  double factor;           // gpu-slowdown: the speed left; NaN otherwise
  char removed[96];        // what it took away, in words
  double removed_bps;      // fabric kinds: the capacity it took, bit/s (0 for the GPU kinds)
};

// Collective over the file's ranks; every rank passes the same rows (rank 0 writes them).
void write_faults(h5::File& file, const std::vector<FaultRow>& rows);

}  // namespace sipsim::output
