# Every dependency comes from a Debian 12 -dev package through find_package;
# nothing is downloaded at configure or build time.
find_package(MPI REQUIRED COMPONENTS CXX)
find_package(Boost 1.74 REQUIRED COMPONENTS mpi)

# The run file is written collectively by all ranks, so HDF5 must be the
# parallel (MPI-IO) build: libhdf5-openmpi-dev on Debian.
set(HDF5_PREFER_PARALLEL TRUE)
find_package(HDF5 REQUIRED COMPONENTS C)
if(NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR
    "sipsim needs the parallel (MPI) build of HDF5, but CMake found a serial one "
    "(${HDF5_C_INCLUDE_DIRS}). On Debian 12: apt-get install libhdf5-openmpi-dev, "
    "and make sure libhdf5-dev's serial build is not chosen (HDF5_ROOT).")
endif()

find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(spdlog REQUIRED)
find_package(yaml-cpp REQUIRED)
# The op-graph reader streams JSON through its SAX parser (header-only).
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 REQUIRED)
# Chakra execution traces (workload: chakra) are protobuf streams; protoc
# generates the reader's messages into the build tree.
find_package(Protobuf REQUIRED)
if(SIPSIM_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(SIPSIM_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()

find_program(SIPSIM_MPIEXEC NAMES mpirun mpiexec HINTS ${MPIEXEC_EXECUTABLE})
find_program(SIPSIM_H5DIFF NAMES h5diff)
