#pragma once
// What the commands share (app/): loading a scenario on every rank, reporting
// errors once, agreeing on a problem found by rank 0.
#include <boost/mpi/communicator.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sipsim/setup/setup.hpp"

namespace sipsim::app {

// A problem found by one rank (rank 0) that every rank must act on: an empty
// message means none.
std::string agree(const boost::mpi::communicator& comm, std::string message);
// Rank 0 prints "sipsim: error: <message>".
void report(const boost::mpi::communicator& comm, const std::string& message);
// Rank 0 reads the file and every rank parses the same text and reads every
// section with its module, so a scenario is read once even on thousands of
// ranks; errors are reported and give nullopt.
std::optional<setup::Setup> load(const std::string& path, const std::vector<std::string>& overrides,
                                 const boost::mpi::communicator& comm);
// The setup's network, or nullptr after reporting why it cannot be built.
std::unique_ptr<fabric::Network> network_or_report(const setup::Setup& s,
                                                   const boost::mpi::communicator& comm);
// GB/s (10^9 bytes per second) of `bytes` in `t`.
double gbytes_per_s(std::uint64_t bytes, pdes::Time t);

}  // namespace sipsim::app
