#pragma once
// Critical-path estimates of a scenario's collectives (RAMP §7.4.1), shared by
// `analyze` and `compare` (private to app/).
#include <boost/mpi/communicator.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/setup/setup.hpp"

namespace sipsim::app {

// One (size, algorithm) line of `analyze`: the critical-path estimate, or why
// there is none at this scale.
struct Estimated {
  std::uint64_t bytes = 0;
  collective::Algorithm algorithm{};
  std::optional<analytical::CollectiveEstimate> estimate;
  std::string skipped;
};

// Every size of the sweep with every algorithm the scenario allows (all valid
// ones for `auto`), estimated with RAMP §7.4.1's critical path. The estimates
// are independent, so the ranks share them (round robin) and rank 0 gets all
// of them; the other ranks get an empty list.
std::vector<Estimated> estimate_job(const setup::CollectiveJob& job, std::uint64_t max_work,
                                    const fabric::Network& network,
                                    const boost::mpi::communicator& comm);

}  // namespace sipsim::app
