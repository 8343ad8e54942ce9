#pragma once
// What `replay-shapes` priced (collective::Executor::SharedCall): for each
// call whose record several communicators share, the critical path (RAMP
// §7.4.1) of its recorder alone and of each communicator while all run it
// together. The run summary's lines and the run file's /replay_shapes table
// (docs/output.md).
#include <ostream>
#include <vector>

#include "sipsim/collective/communicator.hpp"
#include "sipsim/collective/executor.hpp"
#include "sipsim/output/h5.hpp"

namespace sipsim::workload {

using SharedCalls = std::vector<collective::Executor::SharedCall>;

// The summary: how many shared calls, how many were priced, the slowest
// together against alone.
void print_replay_contention(std::ostream& out, const SharedCalls& calls,
                             const std::vector<collective::Communicator>& comms);
// Collective: one row per shared call (written by rank 0).
void write_replay_contention(output::h5::File& file, const SharedCalls& calls,
                             const std::vector<collective::Communicator>& comms);

}  // namespace sipsim::workload
