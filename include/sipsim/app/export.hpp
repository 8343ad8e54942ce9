#pragma once
// `sipsim export`: a run file in another tool's format (docs/output.md,
// "Timelines"). Only rank 0 reads and writes; the others wait for its result.
#include <boost/mpi/communicator.hpp>
#include <cstdint>
#include <optional>
#include <string>

namespace sipsim::app {

struct ExportArgs {
  std::string run_file;
  // Unset: <run file stem>.json in the working directory.
  std::optional<std::string> output;
  bool chrome_trace = false;  // the only format so far: Chrome trace event JSON
  // Most GPU tracks; more nodes are sampled (0: all).
  std::uint64_t max_nodes = 64;
  bool force = false;
};

int export_command(const ExportArgs& args, const boost::mpi::communicator& comm);

}  // namespace sipsim::app
