// main() for GoogleTest programs that run under mpirun: every rank runs every
// test, only rank 0 prints, and the exit code reflects a failure on any rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <boost/mpi/environment.hpp>
#include <optional>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

int main(int argc, char** argv) {
  // What Open MPI allocates while it starts and ends, and never frees (its
  // components' memory, unloaded with them), is not the tests' to report
  // (LeakSanitizer under the asan preset).
  std::optional<boost::mpi::environment> env;
  {
#if defined(__SANITIZE_ADDRESS__)
    __lsan::ScopedDisabler not_ours;
#endif
    env.emplace(argc, argv, false);
  }
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  {
#if defined(__SANITIZE_ADDRESS__)
    __lsan::ScopedDisabler not_ours;
#endif
    env.reset();
  }
  return any;
}
