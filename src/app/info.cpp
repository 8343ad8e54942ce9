// `sipsim info`: fabric facts (docs/user-guide.md).
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "scaling_advice.hpp"
#include "sipsim/app/commands.hpp"
#include "sipsim/app/common.hpp"
#include "sipsim/base/units.hpp"
#include "sipsim/compute/accelerator.hpp"

namespace sipsim::app {

namespace mpi = boost::mpi;

namespace {

// The owning rank of every LP, one line each, in LP order: what
// python -m sipsim.loadbalance combines with a run file's /lp/events.
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

// The `compute:` section's device (docs/models.md, "Devices").
void add_device_rows(const setup::Setup& s,
                     std::vector<std::pair<std::string, std::string>>& rows) {
  const compute::Accelerator a = compute::read_accelerator(s.scenario.compute);
  auto num = [](double x) {
    std::ostringstream out;
    out << x;
    return out.str();
  };
  // The formats the part has units for, with their peaks; each other one says
  // which format it runs as (a scenario asking fp8 of an A100 runs at fp16's
  // rate, docs/models.md), never a peak of its own.
  auto peaks = [&](const std::array<std::uint64_t, compute::kPrecisions>& f,
                   const std::array<compute::Precision, compute::kPrecisions>& runs_as) {
    std::string own, as;
    std::vector<std::string> lacks;
    for (int p = 0; p < compute::kPrecisions; ++p) {
      const auto i = static_cast<std::size_t>(p);
      const std::string name = compute::precision_name(static_cast<compute::Precision>(p));
      if (runs_as[i] == static_cast<compute::Precision>(p)) {
        own += (own.empty() ? "" : ", ") + name + " " + num(static_cast<double>(f[i]) * 1e-12);
      } else {
        as += (as.empty() ? name + " runs as " : ", " + name + " as ") +
              compute::precision_name(runs_as[i]);
        lacks.push_back(name);
      }
    }
    if (lacks.empty()) return own;
    std::string list;
    for (std::size_t k = 0; k < lacks.size(); ++k) {
      list += (k == 0 ? "" : k + 1 == lacks.size() ? " or " : ", ") + lacks[k];
    }
    return own + "; no " + list + " units: " + as;
  };
  const bool amped = a.model == compute::Model::kAmped;
  rows.push_back({"device", a.name + " (" + compute::model_name(a.model) + " model): " +
                                num(static_cast<double>(a.memory_bytes_per_s) * 1e-9) + " GB/s, " +
                                base::format_bytes(a.memory_capacity_bytes)});
  rows.push_back({"device matmul TFLOP/s", peaks(a.matmul_flops, a.matmul_runs_as)});
  rows.push_back({"device vector TFLOP/s", peaks(a.vector_flops, a.vector_runs_as)});
  if (a.model == compute::Model::kGemm) {
    rows.push_back(
        {"device GEMM model", compute::gemm_text(a.gemm) + ", sustained " +
                                  num(static_cast<double>(a.gemm.sustained_ppm) * 1e-6)});
  }
  if (amped) {
    const compute::AmpedUnits& u = a.amped;
    rows.push_back({"device AMPeD units",
                    "f " + num(static_cast<double>(u.frequency_hz)) + " Hz, " +
                        std::to_string(u.cores) + " cores x " + std::to_string(u.fu) + " FU x " +
                        std::to_string(u.fu_width) + " (" + std::to_string(u.fu_bits) +
                        "-bit), nonlinear " + std::to_string(u.nonlinear_units) + " x " +
                        std::to_string(u.nonlinear_width) + " (" +
                        std::to_string(u.nonlinear_bits) + "-bit)"});
  }
  const compute::Efficiency& e = a.efficiency;
  rows.push_back({"device per op", "launch " + base::format_time_ps(a.launch_overhead_ps) +
                                       ", at least " + base::format_time_ps(a.min_op_ps) +
                                       "; eff(ub) = max(" +
                                       num(static_cast<double>(e.floor_ppm) * 1e-6) + ", " +
                                       num(static_cast<double>(e.a_ppm) * 1e-6) + " ub / (" +
                                       num(static_cast<double>(e.b_ppm) * 1e-6) + " + ub))"});
  rows.push_back({"device power", num(a.busy_w) + " W busy, " + num(a.idle_w) + " W idle"});
}

// The scaling model's prediction from a finished run of the scenario named
// `scenario` (docs/scaling.md). Throws output::run_file::Error.
std::string predicted_from(const std::string& run_path, const std::string& scenario) {
  const output::run_file::Reader file(run_path);
  if (const std::string why = file.unfinished_reason(); !why.empty()) {
    throw output::run_file::Error(run_path + ": " + why);
  }
  const std::string name = file.string_attr("/meta", "scenario_name");
  if (name != scenario) {
    throw output::run_file::Error(run_path + ": a run of scenario '" + name + "', not of '" +
                                  scenario + "': give a run file of this scenario");
  }
  const pdes::ScalingFigures figures = scaling_figures(file);
  const std::string text = predicted_efficiency_text(figures);
  if (text.empty()) {
    return "none: " + run_path +
           (figures.windowed ? " ran no events in windows"
                             : " ran the sequential engine; run on 2 ranks, or on one with --set "
                               "simulation.engine=windowed");
  }
  return text + " (from " + run_path + ", " + std::to_string(figures.ranks) +
         (figures.ranks == 1 ? " rank)" : " ranks)");
}

}  // namespace

int info_command(const InfoOptions& options, const mpi::communicator& comm) {
  const std::string& path = options.scenario;
  const int ranks = options.ranks;
  auto s = load(path, options.overrides, comm);
  if (!s) return kExitBadInput;
  if (comm.rank() != 0) return kExitOk;
  if (!options.owners.empty()) return write_owners(*s, ranks > 0 ? ranks : 1, options.owners, comm);
  std::string predicted;
  if (!options.run.empty()) {
    try {
      predicted = predicted_from(options.run, s->scenario.name);
    } catch (const output::run_file::Error& e) {
      report(comm, e.what());
      return kExitBadInput;
    }
  }
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
  // What a run on several ranks can expect (docs/user-guide.md, "Choosing
  // ranks and memory"): the efficiency itself needs a run's counts.
  rows.push_back(
      {"windows on several ranks",
       std::string(network->bounds_remote_events()
                       ? "as wide as the programs keep quiet across ranks"
                       : "one lookahead wide") +
           (predicted.empty() ? "; run it on 2 ranks, then `sipsim info --run RUN.h5` predicts "
                                "more"
                              : "")});
  if (!predicted.empty()) rows.push_back({"predicted efficiency", predicted});
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
  add_device_rows(*s, rows);
  for (const auto& [k, v] : rows) {
    std::cout << "  " << k << std::string(k.size() < 26 ? 26 - k.size() : 1, ' ') << v << "\n";
  }
  if (const std::string physical = s->fabric->physical_report(); !physical.empty()) {
    std::cout << "\n" << physical;
  }
  if (const std::string text = s->workload->info(); !text.empty()) std::cout << "\n" << text;
  return kExitOk;
}

}  // namespace sipsim::app
