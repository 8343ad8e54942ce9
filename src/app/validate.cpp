// `sipsim validate`: every check `run` makes before its engine starts
// (docs/user-guide.md, docs/user-guide.md), without running or writing anything.
#include <iostream>
#include <new>
#include <stdexcept>

#include "sipsim/app/commands.hpp"
#include "sipsim/app/common.hpp"

namespace sipsim::app {

namespace mpi = boost::mpi;

int validate_command(const std::string& path, const std::vector<std::string>& overrides,
                     const mpi::communicator& comm) {
  auto s = load(path, overrides, comm);
  if (!s) return kExitBadInput;
  // What run does next: build the fabric and the model (`auto` only checked:
  // BuildOptions), partition it over the ranks, and the engine's own checks.
  try {
    const workload::Simulation sim = setup::build(*s, {.resolve_auto = false});
    const pdes::Partition partition = sim.model->partition(comm.size());
    const pdes::EngineKind kind = s->scenario.simulation.engine;
    const bool windowed =
        kind == pdes::EngineKind::kWindowed || (kind == pdes::EngineKind::kAuto && comm.size() > 1);
    if (windowed && sim.model->lookahead(partition) == 0) {
      report(comm,
             "the model's lookahead is 0: it cannot run in conservative windows "
             "(run it on one rank with the sequential engine)");
      return kExitBadInput;
    }
  } catch (const base::ScenarioError& e) {
    report(comm, e.what());
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {
    report(comm, e.what());
    return kExitBadInput;
  } catch (const std::bad_alloc&) {  // the partition: an owner per LP on every rank
    report(comm, s->workload_at.location + ": " + s->workload_at.key +
                     ": not enough memory to partition it on this machine");
    return kExitBadInput;
  }
  if (comm.rank() == 0) {
    std::cout << path << ": ok (scenario '" << s->scenario.name << "', workload "
              << s->workload->type() << ")\n";
  }
  return kExitOk;
}

}  // namespace sipsim::app
