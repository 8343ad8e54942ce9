// main() for GoogleTest programs that run under mpirun: every rank runs every
// test, only rank 0 prints, and the exit code reflects a failure on any rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <boost/mpi/environment.hpp>

int main(int argc, char** argv) {
  boost::mpi::environment env(argc, argv, false);
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
  return any;
}
