// `sipsim validate`: load and check only (DESIGN.md §7).
#include <iostream>

#include "sipsim/app/commands.hpp"
#include "sipsim/app/common.hpp"

namespace sipsim::app {

namespace mpi = boost::mpi;

int validate_command(const std::string& path, const std::vector<std::string>& overrides,
                     const mpi::communicator& comm) {
  auto s = load(path, overrides, comm);
  if (!s) return kExitBadInput;
  if (comm.rank() == 0) {
    std::cout << path << ": ok (scenario '" << s->scenario.name << "', workload "
              << s->workload->type() << ")\n";
  }
  return kExitOk;
}

}  // namespace sipsim::app
