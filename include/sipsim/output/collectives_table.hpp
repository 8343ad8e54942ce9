#pragma once
// /collectives: one row per collective instance (docs/output.md; docs/output.md).
#include <cstdint>
#include <vector>

#include "sipsim/output/h5.hpp"

namespace sipsim::output {

struct CollectiveRow {
  std::uint64_t id;
  char op[16];         // "all-reduce", ...
  char algorithm[24];  // collective::to_string(Algorithm)
  std::uint32_t group_size;
  std::uint64_t bytes;
  std::uint32_t iteration;
  std::uint8_t warmup;  // 1 for warm-up iterations (not in the averages)
  std::uint64_t start_ps, end_ps;
  std::uint64_t h2h_ps, h2t_ps, compute_ps;
  double algbw_GBps, busbw_GBps;  // nccl-tests definitions, GB/s (10^9 bytes/s)
};

// Collective over the file's ranks; every rank passes the same rows (rank 0 writes them).
void write_collectives(h5::File& file, const std::vector<CollectiveRow>& rows);

}  // namespace sipsim::output
