#pragma once
// How this process was started: by an MPI launcher (mpirun, srun) or alone.
// Lets main() answer --help, --version and usage errors before MPI starts,
// and start a lone process as a light MPI singleton (docs/performance.md,
// "Start-up").
#include <string>
#include <utility>

namespace sipsim::app {

// This process's rank as its launcher set it, or 0 when started alone.
int launcher_rank();

// Started by an MPI launcher (Open MPI's mpirun, a PMI or PMIx launcher).
bool launched_by_mpi();

// The private session directory of a lone process, removed (with whatever
// Open MPI left in it) when this object goes, i.e. after MPI_Finalize.
class SingletonSession {
 public:
  SingletonSession() = default;
  explicit SingletonSession(std::string dir) : dir_(std::move(dir)) {}
  SingletonSession(const SingletonSession&) = delete;
  SingletonSession& operator=(const SingletonSession&) = delete;
  SingletonSession(SingletonSession&& other) noexcept : dir_(std::exchange(other.dir_, {})) {}
  SingletonSession& operator=(SingletonSession&&) = delete;
  ~SingletonSession();

  // Empty when none was made (under a launcher, or the user chose one).
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

// For a process started alone: Open MPI defaults that skip what a job of one
// rank cannot use (the orted helper process and UCX's network probing), each
// only if the user has not set it. No effect under a launcher.
//
// An isolated singleton always names itself job family 0, so concurrent lone
// runs on one host (a job array packed on a node, ctest -j) would share one
// session directory: one run's MPI_Finalize removes it under another's MPI-IO
// files ("mca_sharedfp_sm ... unable to open file for mmap"). Each lone process
// therefore gets a session directory of its own under $TMPDIR (or /tmp).
[[nodiscard]] SingletonSession prefer_light_singleton();

}  // namespace sipsim::app
