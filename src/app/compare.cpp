// `sipsim compare`: scenarios side by side. Collectives by their
// critical-path estimates (RAMP §8); training jobs simulated
// (compare_training.cpp).
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include "compare_training.hpp"
#include "estimates.hpp"
#include "sipsim/app/commands.hpp"
#include "sipsim/app/common.hpp"

namespace sipsim::app {

namespace mpi = boost::mpi;

namespace {
namespace fs = std::filesystem;
double us(pdes::Time t) {
  return static_cast<double>(t) / 1e6;
}
}  // namespace

int compare_command(const std::vector<std::string>& paths,
                    const std::vector<std::string>& overrides, bool csv, bool force,
                    std::uint64_t max_work, const mpi::communicator& comm) {
  if (std::any_of(paths.begin(), paths.end(), is_run_file_path)) {
    return compare_training(paths, overrides, force, csv, comm);
  }
  // The best estimate per size of every scenario (RAMP §8's "best performing
  // strategy"), then each beside the first scenario's.
  struct Best {
    std::string name, fabric, algorithm;
    analytical::CollectiveEstimate e;
    std::uint32_t p = 0;
  };
  std::vector<std::map<std::uint64_t, Best>> best(paths.size());
  std::vector<std::map<std::uint64_t, std::string>> skipped(paths.size());  // why no estimate
  std::vector<std::uint64_t> sizes;
  std::optional<collective::Op> op;
  // Every scenario is checked before any is estimated (estimates at 65,536
  // nodes take a while).
  std::vector<setup::Setup> scenarios;
  for (const std::string& path : paths) {
    auto s = load(path, overrides, comm);
    if (!s) return kExitBadInput;
    scenarios.push_back(std::move(*s));
  }
  auto error = [&](const std::string& message) {
    report(comm, message);
    return kExitBadInput;
  };
  // Collectives are estimated, every other workload simulated: not both.
  std::size_t collectives = 0;
  for (const setup::Setup& sc : scenarios) collectives += sc.workload->collective_job() ? 1 : 0;
  if (collectives == 0) return compare_training(paths, overrides, force, csv, comm);
  if (collectives < paths.size()) {
    std::size_t coll = 0, other = 0;
    for (std::size_t i = 0; i < paths.size(); ++i) {
      (scenarios[i].workload->collective_job() ? coll : other) = i;
    }
    return error(paths[other] + " runs a " + std::string(scenarios[other].workload->type()) +
                 " workload and " + paths[coll] +
                 " collectives: compare estimates collectives or simulates training jobs, not "
                 "both at once");
  }
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const setup::CollectiveJob* job = scenarios[i].workload->collective_job();
    const workload::CollectivesConfig* c = &job->config;
    if (op && *op != c->op) {
      return error(paths[i] + ": workload.op is " + std::string(collective::to_string(c->op)) +
                   " but " + paths[0] + " runs " + std::string(collective::to_string(*op)) +
                   " (use --set workload.op=...)");
    }
    op = c->op;
  }
  EstimateProgress progress(comm);
  for (const setup::Setup& s : scenarios) {
    progress.add(estimate_tasks(*s.workload->collective_job()).size());
  }
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const setup::Setup* s = &scenarios[i];
    const setup::CollectiveJob& job = *s->workload->collective_job();
    const std::unique_ptr<fabric::Network> network = network_or_report(*s, comm);
    if (!network) return kExitBadInput;
    for (const Estimated& r : estimate_job(job, max_work, *network, comm, progress)) {
      if (std::find(sizes.begin(), sizes.end(), r.bytes) == sizes.end()) sizes.push_back(r.bytes);
      if (!r.estimate) {
        skipped[i].try_emplace(r.bytes, r.skipped);
        continue;
      }
      auto [it, fresh] = best[i].try_emplace(r.bytes);
      if (fresh || r.estimate->total < it->second.e.total) {
        it->second = Best{fs::path(paths[i]).stem().string(), std::string(s->fabric->type()),
                          std::string(collective::to_string(r.algorithm)), *r.estimate,
                          static_cast<std::uint32_t>(job.members.size())};
      }
    }
  }
  progress.finish();
  if (comm.rank() != 0) return kExitOk;
  std::sort(sizes.begin(), sizes.end());
  if (csv) {
    std::cout << "op,size,scenario,fabric,nodes,algorithm,time_us,h2h_us,h2t_us,compute_us,"
                 "time_over_first\n";
  } else {
    std::cout << fmt::format(
        "# {}: best algorithm per scenario, critical-path estimates (RAMP §7.4.1);\n"
        "# time/first = this scenario's time / {}'s (above 1: slower than it)\n",
        collective::to_string(*op), fs::path(paths[0]).stem().string());
    std::cout << fmt::format(
        "#{:>13} {:>28} {:>9} {:>7} {:>20} {:>13} {:>11} {:>11} {:>11} {:>9}\n", "size", "scenario",
        "fabric", "nodes", "algorithm", "time(us)", "h2h(us)", "h2t(us)", "comp(us)", "time/first");
    // The columns' abbreviations in words (docs/glossary.md has them all).
    std::cout << "# h2h = head-to-head: latency and waiting for peers; h2t = head-to-tail: the "
                 "data at its path's bottleneck rate; comp = reductions and copies\n";
  }
  for (std::uint64_t bytes : sizes) {
    const auto ref = best[0].find(bytes);
    for (std::size_t i = 0; i < paths.size(); ++i) {
      const auto it = best[i].find(bytes);
      if (it == best[i].end()) {
        const auto why = skipped[i].find(bytes);
        if (why == skipped[i].end()) continue;
        const std::string name = fs::path(paths[i]).stem().string();
        if (csv) {
          std::cout << fmt::format("{},{},{},,,,,,,,skipped\n", collective::to_string(*op), bytes,
                                   name);
        } else {
          std::cout << fmt::format(" {:>13} {:>28} skipped: {}\n", bytes, name, why->second);
        }
        continue;
      }
      const Best& b = it->second;
      std::string ratio = "-";
      if (ref != best[0].end() && ref->second.e.total > 0) {
        ratio = fmt::format(
            "{:.2f}", static_cast<double>(b.e.total) / static_cast<double>(ref->second.e.total));
      }
      if (csv) {
        std::cout << fmt::format("{},{},{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{}\n",
                                 collective::to_string(*op), bytes, b.name, b.fabric, b.p,
                                 b.algorithm, us(b.e.total), us(b.e.h2h), us(b.e.h2t),
                                 us(b.e.compute), ratio);
      } else {
        std::cout << fmt::format(
            " {:>13} {:>28} {:>9} {:>7} {:>20} {:>13.3f} {:>11.3f} {:>11.3f} {:>11.3f} {:>9}\n",
            bytes, b.name, b.fabric, b.p, b.algorithm, us(b.e.total), us(b.e.h2h), us(b.e.h2t),
            us(b.e.compute), ratio);
      }
    }
  }
  return kExitOk;
}

}  // namespace sipsim::app
