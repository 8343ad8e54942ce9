// A lone process needs no network: Open MPI 4's singleton start-up otherwise
// forks an orted and probes UCX, 0.3-0.4 s of a 0.5 s `validate`
// (docs/performance.md, "Start-up").
#include "sipsim/app/launch.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace sipsim::app {

namespace {

// The rank variables of the launchers we know, in the order tried.
constexpr const char* kRankVariables[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};

}  // namespace

int launcher_rank() {
  for (const char* name : kRankVariables) {
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') {
      char* end = nullptr;
      const long rank = std::strtol(value, &end, 10);
      if (*end == '\0' && rank >= 0) return static_cast<int>(rank);
    }
  }
  return 0;
}

bool launched_by_mpi() {
  for (const char* name : kRankVariables) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

SingletonSession::~SingletonSession() {
  if (dir_.empty()) return;
  std::error_code ignored;  // best effort: a leftover directory harms nothing
  std::filesystem::remove_all(dir_, ignored);
}

SingletonSession prefer_light_singleton() {
  if (launched_by_mpi()) return {};
  // setenv(..., 0) keeps what the user set (e.g. OMPI_MCA_pml for a test).
  ::setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
  ::setenv("OMPI_MCA_pml", "ob1", 0);
  ::setenv("OMPI_MCA_btl", "self", 0);
  if (std::getenv("OMPI_MCA_orte_tmpdir_base") != nullptr) return {};
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = (tmp != nullptr && *tmp != '\0') ? tmp : "/tmp";
  pattern += "/sipsim-mpi-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  // Without a directory of our own, Open MPI's shared default still works
  // for a run that is alone on its host.
  if (::mkdtemp(name.data()) == nullptr) return {};
  SingletonSession session(name.data());
  ::setenv("OMPI_MCA_orte_tmpdir_base", session.dir().c_str(), 1);
  return session;
}

}  // namespace sipsim::app
