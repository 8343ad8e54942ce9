#pragma once
// `workload: chakra` (docs/models.md, "Chakra traces"): one Chakra execution
// trace per GPU (or one replicated), each run as one program: compute nodes
// for their recorded durations, collectives on the executor over all GPUs,
// sends and receives between GPUs. ChakraResults reports each iteration.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/collective/algorithm.hpp"
#include "sipsim/compute/accelerator.hpp"
#include "sipsim/compute/device.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/workload/chakra/trace.hpp"
#include "sipsim/workload/interpreter.hpp"
#include "sipsim/workload/training_results.hpp"

namespace sipsim::workload::chakra {

enum class CpuOps : std::uint8_t { kIgnore, kTime };

// The collective kinds the workload runs (Chakra's CommType, but BARRIER and
// REDUCE_SCATTER_BLOCK folded into sipsim's ops).
collective::Op collective_op(CommType t);

// A collective node's size as sipsim's collectives take it: `comm_size` is
// what each member contributes (ASTRA-sim's reading), so an all-gather's or a
// gather's p-part buffer is `group` times it; the others take it as it is.
std::uint64_t spec_bytes(const Node& n, std::uint32_t group);

struct Config {
  std::string trace_path;          // as written in the scenario, resolved
  std::vector<std::string> files;  // one per trace read
  std::vector<Trace> traces;       // one per GPU, or one (replicate)
  std::uint32_t gpus = 0;
  CpuOps cpu_ops = CpuOps::kIgnore;
  std::uint32_t iterations = 1;
  // Per collective::Op (its integer value): the algorithm, or auto.
  std::vector<collective::Algorithm> algorithms;
  std::vector<bool> auto_algorithm;
  collective::AlgorithmParams params;  // the all-GPU communicator's shape
  compute::Accelerator accelerator;

  const Trace& trace_of(std::uint32_t gpu) const {
    return traces.size() == 1 ? traces[0] : traces[gpu];
  }
};

// The keys after `type` (docs/scenarios.md); the traces are read and checked
// (collectives matching across GPUs) here, errors located at `trace`.
Config read_chakra_workload(base::MapReader& section, const std::string& scenario_path);

// Checks that every GPU's collectives match GPU 0's (count, kind, size, order)
// and that sends and receives pair up; returns "" or the error.
std::string check_matching(const Config& config);

// The programs (one per trace), the all-GPU communicator and the bindings:
// GPU g on fabric node g.
ProgramSet make_programs(const Config& config, const compute::Device& device,
                         std::uint32_t fabric_nodes);

class ChakraResults final : public TrainingResults {
 public:
  ChakraResults(const Config& config, std::unique_ptr<fabric::Network> network,
                std::unique_ptr<compute::Device> device);

 private:
  void print_header(std::ostream& out) const override;
  Config config_;
};

Simulation make_chakra(const Config& config, std::unique_ptr<fabric::Network> network);

}  // namespace sipsim::workload::chakra
