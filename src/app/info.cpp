// `sipsim info`: fabric facts (DESIGN.md §7).
#include <fstream>
#include <iostream>
#include <memory>

#include "sipsim/app/commands.hpp"
#include "sipsim/app/common.hpp"
#include "sipsim/base/units.hpp"

namespace sipsim::app {

namespace mpi = boost::mpi;

namespace {

// The owning rank of every LP, one line each, in LP order: what
// scripts/load-balance.sh combines with a run file's /lp/events.
int write_owners(const setup::Setup& s, int ranks, const std::string& path,
                 const mpi::communicator& comm) {
  std::unique_ptr<pdes::Partition> part;
  try {
    workload::Simulation sim = setup::build(s);
    part = std::make_unique<pdes::Partition>(sim.model->partition(ranks));
  } catch (const base::ScenarioError& e) {
    report(comm, e.what());
    return kExitBadInput;
  }
  std::ofstream out(path);
  for (pdes::LpId lp = 0; lp < part->lp_count(); ++lp) out << part->owner(lp) << "\n";
  out.close();
  if (!out) {
    report(comm, "cannot write '" + path + "'");
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace

int info_command(const std::string& path, const std::vector<std::string>& overrides, int ranks,
                 const std::string& owners, const mpi::communicator& comm) {
  auto s = load(path, overrides, comm);
  if (!s) return kExitBadInput;
  if (comm.rank() != 0) return kExitOk;
  if (!owners.empty()) return write_owners(*s, ranks > 0 ? ranks : 1, owners, comm);
  if (!s->fabric) {
    std::cout << path << ": workload " << s->workload->type() << " has no fabric\n";
    return kExitOk;
  }
  const std::unique_ptr<fabric::Network> network = network_or_report(*s, comm);
  if (!network) return kExitBadInput;
  const int r = ranks > 0 ? ranks : 1;
  const pdes::Partition part = network->partition(r);
  std::size_t most = 0, least = ~std::size_t{0};
  for (int k = 0; k < r; ++k) {
    most = std::max(most, part.lps_of(k).size());
    least = std::min(least, part.lps_of(k).size());
  }
  const pdes::Time la = network->lookahead(part);
  std::vector<std::pair<std::string, std::string>> rows = {
      {"fabric", network->describe()},
      {"nodes", std::to_string(network->nodes())},
      {"logical processes", std::to_string(network->lp_count())}};
  for (auto& f : network->facts()) rows.push_back(f);
  rows.push_back({"partition (" + std::to_string(r) + " ranks)",
                  std::to_string(least) + " .. " + std::to_string(most) + " LPs per rank"});
  rows.push_back(
      {"lookahead (" + std::to_string(r) + " ranks)",
       la == pdes::kTimeMax ? std::string("none (no link is cut)") : base::format_time_ps(la)});
  if (const setup::CollectiveJob* job = s->workload->collective_job()) {
    const collective::AlgorithmParams& params = job->config.params;
    auto shape = [](const collective::Dims& d) {
      std::string out;
      for (std::size_t i = 0; i < collective::levels(d); ++i) {
        out += (i > 0 ? " x " : "") + std::to_string(d[i]);
      }
      return out;
    };
    rows.push_back({"collective shapes",
                    "hierarchy " + shape(params.hierarchy) + ", torus " + shape(params.torus)});
  }
  for (const auto& [k, v] : rows) {
    std::cout << "  " << k << std::string(k.size() < 26 ? 26 - k.size() : 1, ' ') << v << "\n";
  }
  if (const std::string physical = s->fabric->physical_report(); !physical.empty()) {
    std::cout << "\n" << physical;
  }
  return kExitOk;
}

}  // namespace sipsim::app
