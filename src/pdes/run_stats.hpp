#pragma once
// The scaling figures of a run (RunResult, docs/scaling.md), gathered from
// every rank once at its end.
#include <boost/mpi/communicator.hpp>
#include <cstdint>

#include "sipsim/pdes/engine.hpp"
#include "sipsim/pdes/window_histogram.hpp"

namespace sipsim::pdes::detail {

// Every rank's share of the scaling figures, on every rank: its events, busy
// time and events-per-window histogram up to the highest bucket any rank
// used. Collective: every rank calls it.
void gather_scaling(const boost::mpi::communicator& comm, const WindowHistogram& histogram,
                    std::uint64_t events, std::uint64_t busy_ns, RunResult& result);

}  // namespace sipsim::pdes::detail
