#!/usr/bin/env bash
# Installs everything sipsim needs to build and test from Debian 12 packages.
# Runs apt-get directly as root, through sudo otherwise.
set -euo pipefail
packages=(
  build-essential cmake git
  openmpi-bin libopenmpi-dev libboost-mpi-dev
  libhdf5-openmpi-dev hdf5-tools
  libeigen3-dev libspdlog-dev libyaml-cpp-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libbenchmark-dev
  libglpk-dev
  liblemon-dev
  # Chakra execution traces (workload: chakra) are protobuf streams: the library and protoc.
  libprotobuf-dev protobuf-compiler
  # The Python package python/sipsim and its tests (docs/python.md).
  python3-h5py python3-pandas python3-pytest python3-pytest-xdist python3-matplotlib
)
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${packages[@]}"
