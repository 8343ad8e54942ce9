#pragma once
// How this process was started: by an MPI launcher (mpirun, srun) or alone.
// Lets main() answer --help, --version and usage errors before MPI starts,
// and start a lone process as a light MPI singleton (docs/performance.md,
// "Start-up").
namespace sipsim::app {

// This process's rank as its launcher set it, or 0 when started alone.
int launcher_rank();

// Started by an MPI launcher (Open MPI's mpirun, a PMI or PMIx launcher).
bool launched_by_mpi();

// For a process started alone: Open MPI defaults that skip what a job of one
// rank cannot use (the orted helper process and UCX's network probing), each
// only if the user has not set it. No effect under a launcher.
void prefer_light_singleton();

}  // namespace sipsim::app
