#pragma once
// `workload: chakra` (docs/models.md, "Chakra traces"): one Chakra execution
// trace per GPU (or one replicated), each run as one program: compute nodes
// for their recorded durations, collectives on the executor over their
// process groups, sends and receives between GPUs. ChakraResults reports each iteration.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
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

// A `process_groups` entry: listed GPU ranks (one communicator), or the
// partition into groups of `size` GPUs `stride` apart.
struct ProcessGroup {
  std::vector<std::uint32_t> ranks;  // ascending; empty: the partition
  std::uint32_t size = 0, stride = 1;
};

// The communicators the collectives run on (docs/models.md, "Chakra traces").
// A family is what selects a collective's group (a listed pg_name, an
// involved_dim, all GPUs) and partitions the GPUs (a listed group is one
// part); a communicator is one distinct group of two or more GPUs, shared by
// the families that have it.
struct Groups {
  static constexpr std::uint32_t kNone = ~0u;
  struct Family {
    std::string label;                // "pg 'tp'", "dims [1, 0]", "all GPUs"
    std::uint32_t size = 0;           // GPUs per group
    std::uint32_t groups = 0;         // how many
    bool consecutive = true;          // each group's GPUs consecutive
    std::vector<std::uint32_t> comm;  // per GPU: its communicator, kNone (none, or alone)
  };
  std::vector<Family> families;
  std::vector<std::vector<std::uint32_t>> members;  // per communicator: GPUs, ascending
  std::vector<std::string> names;                   // per communicator
  std::map<std::string, std::uint32_t> by_pg;       // listed pg_name -> family
  std::map<std::uint64_t, std::uint32_t> by_dims;   // length << 32 | mask -> family
  std::uint32_t all = kNone;                        // the family of all GPUs
  std::vector<std::string> unlisted;                // pg_names run on all GPUs

  // The family of a GPU collective node (after build_groups).
  std::uint32_t family_of(const Trace& t, const Node& n) const;
  // gpu's member index in communicator `comm`.
  std::uint32_t member(std::uint32_t comm, std::uint32_t gpu) const;
  // A group's size and whether its GPUs are consecutive (the mapper's
  // group_params for it).
  static std::pair<std::uint32_t, bool> shape(const std::vector<std::uint32_t>& members) {
    const auto size = static_cast<std::uint32_t>(members.size());
    return {size, size < 2 || members.back() - members.front() + 1 == size};
  }
  // What `sipsim info` prints: a line per family.
  std::string describe(std::string_view indent) const;
};

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
  std::map<std::string, ProcessGroup> process_groups;  // by pg_name
  std::vector<std::uint32_t> dimensions;               // npus per dimension, or none
  Groups groups;
  // Each family's algorithm parameters, by Groups::families index (setup.cpp,
  // from the fabric's mapper); a communicator takes its first family's.
  std::vector<collective::AlgorithmParams> family_params;
  // GPU g's fabric node: nodes[g], as the fabric's mapper placed the job
  // (setup.cpp); empty: node g. fabric_nodes: the fabric's size.
  std::vector<std::uint32_t> nodes;
  std::uint32_t fabric_nodes = 0;
  // Point-to-point messages (per-GPU traces; match_messages): per GPU, the
  // bytes of each peer's sends to it in the peer's order, and each receive
  // node's position among them.
  struct Messages {
    std::map<std::uint32_t, std::vector<std::uint64_t>> inbox;  // peer -> bytes
    std::unordered_map<std::uint32_t, std::uint32_t> position;  // recv node -> index
  };
  std::vector<Messages> messages;
  compute::Accelerator accelerator;

  std::uint32_t node_of(std::uint32_t gpu) const { return nodes.empty() ? gpu : nodes[gpu]; }

  const Trace& trace_of(std::uint32_t gpu) const {
    return traces.size() == 1 ? traces[0] : traces[gpu];
  }
};

// The keys after `type` (docs/scenarios.md); the traces are read and checked
// (collectives matching across GPUs) here, errors located at `trace`.
Config read_chakra_workload(base::MapReader& section, const std::string& scenario_path);

// Resolves every GPU collective's group (process_groups, then involved_dim
// with dimensions, then all GPUs) into config.groups; returns "" or the
// error, naming the file and node.
std::string build_groups(Config& config);

// Checks that the collectives of every communicator's members match its
// first member's (count, kind, size, order); returns "" or the error.
std::string check_matching(const Config& config);

// Pairs every receive with a send by tag (MPI's rule: the first send of
// that tag from that peer not yet taken) into config.messages; returns ""
// or the error (a receive without a send, a send never received, sizes that
// differ), naming the nodes.
std::string match_messages(Config& config);

// The programs (one per trace), the communicators and the bindings: GPU g
// on fabric node config.node_of(g).
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
