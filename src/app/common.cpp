#include "sipsim/app/common.hpp"

#include <boost/mpi/collectives/broadcast.hpp>
#include <boost/serialization/string.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "sipsim/base/files.hpp"

namespace sipsim::app {

namespace mpi = boost::mpi;

std::string agree(const mpi::communicator& comm, std::string message) {
  mpi::broadcast(comm, message, 0);
  return message;
}

void report(const mpi::communicator& comm, const std::string& message) {
  if (comm.rank() == 0) std::cerr << "sipsim: error: " << message << "\n";
}

std::optional<setup::Setup> load(const std::string& path, const std::vector<std::string>& overrides,
                                 const mpi::communicator& comm) {
  std::string text, problem;
  if (comm.rank() == 0) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      problem = path + ": is a directory, not a scenario file";
    } else {
      // A FIFO is refused, not waited for; so is a file past the limit.
      try {
        text = base::read_regular_file(path, base::kMaxScenarioBytes);
      } catch (const base::FileError& e) {
        problem = e.what();
      }
    }
  }
  problem = agree(comm, problem);
  if (!problem.empty()) {
    report(comm, problem);
    return std::nullopt;
  }
  mpi::broadcast(comm, text, 0);
  try {
    auto doc = base::Document::load_string(text, path, overrides);
    auto s = scenario::load_scenario(doc);
    s.overrides = overrides;
    if (s.simulation.engine == pdes::EngineKind::kSequential && comm.size() > 1) {
      doc.root()
          .as_map()
          .required("simulation")
          .as_map()
          .required("engine")
          .fail("the sequential engine runs on one rank only, and this job has " +
                std::to_string(comm.size()) + " ranks (use auto or windowed)");
    }
    return setup::read(std::move(s));
  } catch (const base::ScenarioError& e) {
    report(comm, e.what());
    return std::nullopt;
  }
}

std::unique_ptr<fabric::Network> network_or_report(const setup::Setup& s,
                                                   const mpi::communicator& comm) {
  try {
    return setup::build_network(s);
  } catch (const base::ScenarioError& e) {
    report(comm, e.what());
    return nullptr;
  }
}

double gbytes_per_s(std::uint64_t bytes, pdes::Time t) {
  return t == 0 ? 0.0 : static_cast<double>(bytes) / pdes::to_seconds(t) / 1e9;
}

}  // namespace sipsim::app
