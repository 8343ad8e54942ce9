// `sipsim compare` on training jobs (compare_training.cpp).
#pragma once

#include <boost/mpi/communicator.hpp>
#include <string>
#include <vector>

namespace sipsim::app {

// Training jobs side by side: each scenario simulated into <stem>.h5 here
// (a finished run of it there is used as it is, unless `force`), or a run
// file given as it is; then per run its iteration time, TFLOP/s per GPU and
// the mean GPU's breakdown, each against the first.
int compare_training(const std::vector<std::string>& inputs,
                     const std::vector<std::string>& overrides, bool force, bool csv,
                     const boost::mpi::communicator& comm);

// A path compare reads as a run file rather than a scenario.
bool is_run_file_path(const std::string& path);

}  // namespace sipsim::app
