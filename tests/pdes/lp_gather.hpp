#pragma once
// Shared by the engine and exchange tests (run under mpirun): a run's per-LP
// results gathered into LP-id order on every rank, to compare runs on
// different rank counts.
#include <boost/mpi/collectives/all_gather.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/serialization/vector.hpp>
#include <cstdint>
#include <utility>
#include <vector>

#include "sipsim/pdes/engine.hpp"

namespace sipsim::pdes {

// Per-LP (events, digest) of a run, in LP-id order.
inline std::vector<std::pair<std::uint64_t, std::uint64_t>> gather_lps(
    const boost::mpi::communicator& comm, const Partition& p, const RunResult& r) {
  std::vector<std::vector<std::uint64_t>> events, digests;
  boost::mpi::all_gather(comm, r.lp_events, events);
  boost::mpi::all_gather(comm, r.lp_digest, digests);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out(p.lp_count());
  for (int rank = 0; rank < comm.size(); ++rank) {
    const auto lps = p.lps_of(rank);
    for (std::size_t i = 0; i < lps.size(); ++i) {
      out[lps[i]] = {events[static_cast<std::size_t>(rank)][i],
                     digests[static_cast<std::size_t>(rank)][i]};
    }
  }
  return out;
}

}  // namespace sipsim::pdes
