#pragma once
// Degree-limited fabrics (SiP-ML §3.2, §5): a GPU of SiP-OCS or SiP-Ring
// reaches only a few peers directly (Q circuits; 16 within the ring's power
// budget), so a training job whose mapping makes a GPU exchange data with
// more peers cannot run there. One check for every program-based workload
// (transformer, DLRM, graph), from what its programs put on the fabric
// (workload/transfers.hpp).
//
// A node's peers are the distinct fabric nodes it sends data to, and those
// it receives data from, in one iteration: the peers of its sends and recvs
// and of its collectives' wire messages, out and in. The fabrics' circuits
// are directed (SiP-OCS: a port transmits to one GPU and receives from
// another, App. A.2's constraints (1) and (2); SiP-Ring: per wavelength one
// peer sent to and one received from), so a node needs as many circuits as
// it has peers in its busier direction: a ring all-reduce needs one each
// way. A peer reached through several groups counts once.
#include <spdlog/fmt/fmt.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sipsim/compute/roofline.hpp"
#include "sipsim/workload/plugin.hpp"

namespace sipsim::workload {

struct ProgramSet;

// The peers a node reaches through one of its groups.
struct PeerGroup {
  std::string name;        // the communicator's ("tp-0-1", "dp"), or "point-to-point"
  std::uint32_t size = 0;  // its members (0 for point-to-point)
  std::string how;         // its algorithms ("ring"), or the sends' categories ("pp-comm")
  std::uint32_t out = 0;   // distinct peers it sends to through the group
  std::uint32_t in = 0;    // distinct peers it receives from
  std::uint32_t peers() const { return out > in ? out : in; }
};
struct NodePeers {
  std::uint32_t node = 0;
  std::uint32_t out = 0, in = 0;  // distinct over all its groups
  std::vector<PeerGroup> groups;  // communicators in index order, then point-to-point
  std::uint32_t peers() const { return out > in ? out : in; }  // the circuits it needs
};

// Every fabric node's peers in its busier direction (NodePeers::peers; 0 for
// a node that runs nothing).
std::vector<std::uint32_t> peer_counts(const ProgramSet& set);
// One node's peers, per group (groups through which it has none left out).
NodePeers node_peers(const ProgramSet& set, std::uint32_t node);

// "" when no node has more than `degree` peers in either direction; else one
// message for the first node (lowest id) that has: how many it needs against
// the degree, its groups' shares, and what would fit, e.g. "GPU 17 needs 34
// direct peers (sends to 34, receives from 34), but fabric sip-ocs gives each
// GPU at most 16 each way (its degree): tp-0-0 (32 GPUs, direct): 31, dp-0-0
// (64 GPUs, ring): 1, point-to-point (pp-comm): 2; ...". `fabric` names the
// fabric in it.
std::string check_degree(const ProgramSet& set, std::uint32_t degree,
                         std::string_view fabric = "the fabric");

// On a fabric whose GPUs each reach a limited number of peers (SiP-OCS,
// SiP-Ring: fabric::Facts::degree_limit, SiP-ML §3.2), every GPU of a training
// job must exchange data with at most that many (check_degree).
struct DegreeLimit {
  std::uint32_t degree = 0;
  std::string fabric;       // "fabric sip-ocs", for the message
  std::uint32_t nodes = 0;  // the fabric's
  // "" when every GPU's peers fit; building the programs may throw
  // std::invalid_argument.
  template <class MakePrograms>
  std::string error(const compute::Accelerator& accelerator, MakePrograms make_programs) const {
    const auto device = compute::make_device(accelerator);
    return check_degree(make_programs(*device, nodes), degree, fabric);
  }
};
inline std::optional<DegreeLimit> degree_limit(const fabric::Plugin& fabric) {
  const std::optional<std::uint32_t> d = fabric.facts().degree_limit;
  if (!d) return std::nullopt;
  return DegreeLimit{*d, fmt::format("fabric {}", fabric.type()), fabric.nodes()};
}

// The check from a training workload's reader, located at the section. The
// programs are built only on such a fabric.
template <class MakePrograms>
void check_degree_at_load(const Context& ctx, const compute::Accelerator& accelerator,
                          MakePrograms make_programs) {
  const std::optional<DegreeLimit> limit = degree_limit(*ctx.fabric);
  if (!limit) return;
  std::string why;
  try {
    why = limit->error(accelerator, make_programs);
  } catch (const std::invalid_argument& e) {
    why = e.what();  // what building the model would say, at the same place
  }
  if (!why.empty()) ctx.section.fail(why);
}

}  // namespace sipsim::workload
