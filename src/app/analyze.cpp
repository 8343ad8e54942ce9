// `sipsim analyze`: closed-form estimates of a scenario (docs/user-guide.md).
#include <spdlog/fmt/fmt.h>

#include <array>
#include <iostream>
#include <string>
#include <tuple>
#include <utility>

#include "estimates.hpp"
#include "sipsim/analytical/estimators.hpp"
#include "sipsim/app/commands.hpp"
#include "sipsim/app/common.hpp"
#include "sipsim/base/units.hpp"
#include "sipsim/compute/roofline.hpp"

namespace sipsim::app {

namespace mpi = boost::mpi;

namespace {
double us(pdes::Time t) {
  return static_cast<double>(t) / 1e6;
}

}  // namespace

int analyze_command(const std::string& path, const std::vector<std::string>& overrides,
                    std::uint64_t max_work, const mpi::communicator& comm) {
  auto s = load(path, overrides, comm);
  if (!s) return kExitBadInput;
  const workload::CollectiveJob* job = s->workload->collective_job();
  if (job == nullptr) {  // the workload's closed form
    std::unique_ptr<fabric::Network> network;
    if (s->workload->closed_form_needs_network()) {
      network = network_or_report(*s, comm);
      if (!network) return kExitBadInput;
    }
    const analytical::Estimators estimators(max_work);
    if (comm.rank() == 0) std::cout << s->workload->closed_form(network.get(), estimators) << "\n";
    return kExitOk;
  }
  const workload::CollectivesConfig& c = job->config;
  const std::unique_ptr<fabric::Network> network = network_or_report(*s, comm);
  if (!network) return kExitBadInput;
  const std::vector<std::uint32_t>& members = job->members;
  const auto p = static_cast<std::uint32_t>(members.size());
  EstimateProgress progress(comm);
  progress.add(estimate_tasks(*job).size());
  // The idle-fabric longest path beside each estimate (a lower bound; the
  // simulator's exact result where no two messages share a port), from the
  // same walk where the estimate walks level by level.
  const std::vector<Estimated> rows =
      estimate_job(*job, max_work, *network, comm, progress, /*with_idle=*/true);
  std::vector<std::string> idle(rows.size(), "-");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].idle) idle[i] = fmt::format("{:.3f}", us(*rows[i].idle));
  }
  progress.finish();
  if (comm.rank() != 0) return kExitOk;
  // RAMP §7.4.1's critical-path estimate (steps with their links' loads), and
  // the idle-fabric longest path beside it.
  std::cout << fmt::format("# critical-path estimate (RAMP §7.4.1): {} on {} nodes | {}\n",
                           collective::to_string(c.op), p, network->describe());
  std::cout << fmt::format(
      "#{:>13} {:>20} {:>6} {:>12} {:>11} {:>11} {:>11} {:>11} {:>11} {:>12}\n", "size",
      "algorithm", "steps", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "h2h(us)", "h2t(us)",
      "comp(us)", "idle(us)");
  // The columns' abbreviations in words (docs/glossary.md has them all).
  std::cout << "# algbw = size / time, busbw = algbw x the op's bus factor (nccl-tests); h2h = "
               "head-to-head: latency and waiting for peers; h2t = head-to-tail: the data at its "
               "path's bottleneck rate; comp = reductions and copies; idle = the idle-fabric "
               "longest path (a lower bound)\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Estimated& r = rows[i];
    const std::string_view name = collective::to_string(r.algorithm);
    if (!r.estimate) {
      std::cout << fmt::format(" {:>13} {:>20} skipped: {}\n", r.bytes, name, r.skipped);
      continue;
    }
    const analytical::CollectiveEstimate& e = *r.estimate;
    const double algbw = gbytes_per_s(r.bytes, e.total);
    std::cout << fmt::format(
        " {:>13} {:>20} {:>6} {:>12.3f} {:>11.2f} {:>11.2f} {:>11.3f} {:>11.3f} {:>11.3f} "
        "{:>12}\n",
        r.bytes, name, e.steps, us(e.total), algbw,
        algbw * collective::bus_bandwidth_factor(c.op, p), us(e.h2h), us(e.h2t), us(e.compute),
        idle[i]);
  }
  return kExitOk;
}

}  // namespace sipsim::app
