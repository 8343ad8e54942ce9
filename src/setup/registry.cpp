// The registry tables: one line per `fabric: type` and per `workload: type`,
// each naming its plug-in's reader.
#include "sipsim/fabric/circuit/plugin.hpp"
#include "sipsim/fabric/electrical/plugin.hpp"
#include "sipsim/fabric/flat/plugin.hpp"
#include "sipsim/fabric/ramp/plugin.hpp"
#include "sipsim/fabric/sip/plugin.hpp"
#include "sipsim/setup/setup.hpp"
#include "sipsim/workload/bench/setup.hpp"
#include "sipsim/workload/chakra/setup.hpp"
#include "sipsim/workload/dlrm/setup.hpp"
#include "sipsim/workload/graph/setup.hpp"
#include "sipsim/workload/transformer/setup.hpp"

namespace sipsim::setup {

const std::vector<FabricEntry>& fabric_registry() {
  static const std::vector<FabricEntry> kFabrics = {
      {"elect-flat", fabric::elect_flat_plugin}, {"cluster", fabric::cluster_plugin},
      {"torus2d", fabric::torus2d_plugin},       {"bcube", fabric::bcube_plugin},
      {"topoopt", fabric::topoopt_plugin},       {"ramp", fabric::ramp::plugin},
      {"sipac", fabric::sipac_plugin},           {"sip-ocs", fabric::sip_ocs_plugin},
      {"sip-ring", fabric::sip_ring_plugin},
  };
  return kFabrics;
}

const std::vector<WorkloadEntry>& workload_registry() {
  static const std::vector<WorkloadEntry> kWorkloads = {
      {"phold", workload::phold_plugin},
      {"collectives", workload::collectives_plugin},
      {"transformer", workload::transformer::plugin},
      {"dlrm", workload::dlrm::plugin},
      {"graph", workload::graph::plugin},
      {"chakra", workload::chakra::plugin},
  };
  return kWorkloads;
}

}  // namespace sipsim::setup
