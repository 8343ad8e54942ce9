#include "sipsim/app/commands.hpp"

#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/collectives/broadcast.hpp>
#include <boost/serialization/string.hpp>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/base/units.hpp"
#include "sipsim/fabric/ramp/transport.hpp"
#include "sipsim/output/collectives_table.hpp"
#include "sipsim/output/run_file.hpp"
#include "sipsim/pdes/engine.hpp"
#include "sipsim/pdes/models/phold.hpp"
#include "sipsim/scenario/scenario.hpp"
#include "sipsim/setup/simulation.hpp"
#include "sipsim/version.hpp"
#include "sipsim/workload/bench/collectives.hpp"

namespace sipsim::app {

namespace {

namespace fs = std::filesystem;
namespace mpi = boost::mpi;

// A problem found by one rank (rank 0) that every rank must act on: an empty
// message means none.
std::string agree(const mpi::communicator& comm, std::string message) {
  mpi::broadcast(comm, message, 0);
  return message;
}

void report(const mpi::communicator& comm, const std::string& message) {
  if (comm.rank() == 0) std::cerr << "sipsim: error: " << message << "\n";
}

// Rank 0 reads the file and every rank parses the same text, so a scenario is
// read once even on thousands of ranks.
std::optional<scenario::Scenario> load(const std::string& path,
                                       const std::vector<std::string>& overrides,
                                       const mpi::communicator& comm) {
  std::string text, problem;
  if (comm.rank() == 0) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      problem = path + ": cannot read the scenario file";
    } else {
      std::ostringstream buf;
      buf << in.rdbuf();
      text = buf.str();
    }
  }
  problem = agree(comm, problem);
  if (!problem.empty()) {
    report(comm, problem);
    return std::nullopt;
  }
  mpi::broadcast(comm, text, 0);
  try {
    auto doc = base::Document::load_string(text, path, overrides);
    auto s = scenario::load_scenario(doc);
    s.overrides = overrides;
    return s;
  } catch (const base::ScenarioError& e) {
    report(comm, e.what());
    return std::nullopt;
  }
}

std::string workload_type(const scenario::Scenario& s) {
  return std::holds_alternative<pdes::models::PholdConfig>(s.workload) ? "phold" : "collectives";
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Checked on rank 0 before the simulation starts, so a run never ends in an
// output error after hours of work.
std::string check_output(const std::string& path, bool force) {
  std::error_code ec;
  if (fs::exists(path, ec) && !force) {
    return "output '" + path + "' exists; pass --force to overwrite it or -o to choose another";
  }
  if (fs::is_directory(path, ec)) return "output '" + path + "' is a directory";
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) {
    return "cannot write output '" + path + "': directory '" + dir.string() + "' does not exist";
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    return "cannot write output '" + path + "': directory '" + dir.string() + "' is not writable";
  }
  return {};
}

// Memory figures of the whole job, for the summary and /meta.
struct MemoryStats {
  std::uint64_t peak_rss_bytes = 0;  // sum over ranks of each rank's peak
  std::uint64_t peak_pending = 0;    // sum over ranks of each rank's largest queue
  std::uint64_t queue_bytes = 0;     // sum over ranks of the queues' storage
};

MemoryStats memory_stats(const pdes::RunResult& r, const mpi::communicator& comm) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto rss = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // Linux: KiB
  MemoryStats m;
  m.peak_rss_bytes = mpi::all_reduce(comm, rss, std::plus<>());
  m.peak_pending = mpi::all_reduce(comm, r.peak_pending, std::plus<>());
  m.queue_bytes = mpi::all_reduce(comm, r.queue_bytes, std::plus<>());
  return m;
}

std::string engine_name(const pdes::RunResult& r) {
  return r.lookahead == pdes::kTimeMax ? "sequential" : "windowed";
}

void print_summary(const scenario::Scenario& s, const pdes::RunResult& r, const MemoryStats& mem,
                   int ranks, const std::string& output) {
  const double rate =
      r.wall_seconds > 0 ? static_cast<double>(r.committed_events) / r.wall_seconds : 0.0;
  std::ostringstream o;
  o << "sipsim " << kVersion << " | scenario " << s.name << " (" << workload_type(s) << ") | "
    << ranks << (ranks == 1 ? " rank" : " ranks") << " | seed " << s.seed << "\n";
  auto row = [&](const std::string& k, const std::string& v) {
    o << "  " << k << std::string(k.size() < 20 ? 20 - k.size() : 1, ' ') << v << "\n";
  };
  row("committed events", std::to_string(r.committed_events));
  row("last event at", base::format_time_ps(r.last_event_time));
  row("wall time", fmt::format("{:.3f} s (engine)", r.wall_seconds));
  row("event rate", fmt::format("{:.3f} M events/s", rate / 1e6));
  if (r.lookahead == pdes::kTimeMax) {
    row("engine", "sequential");
  } else {
    row("engine",
        fmt::format("windowed, {} windows of {}", r.windows, base::format_time_ps(r.lookahead)));
    row("remote events", std::to_string(r.remote_events));
    row("busy", fmt::format("{:.3f} s slowest rank, {:.3f} s mean ({:.0f}% of wall)",
                            r.busy_seconds_max, r.busy_seconds_mean,
                            r.wall_seconds > 0 ? 100 * r.busy_seconds_mean / r.wall_seconds : 0.0));
  }
  row("peak memory",
      fmt::format("{:.1f} MiB (all ranks)", static_cast<double>(mem.peak_rss_bytes) / (1 << 20)));
  if (mem.peak_pending > 0) {
    row("pending events",
        fmt::format("{} at most, {:.0f} bytes of queue each", mem.peak_pending,
                    static_cast<double>(mem.queue_bytes) / static_cast<double>(mem.peak_pending)));
  }
  row("output", output);
  std::cout << o.str() << std::flush;
}

// The scenario's network, or nullptr after reporting why it cannot be built.
std::unique_ptr<fabric::Network> network_or_report(const scenario::Scenario& s,
                                                   const mpi::communicator& comm) {
  try {
    return scenario::build_network(s);
  } catch (const base::ScenarioError& e) {
    report(comm, e.what());
    return nullptr;
  }
}

double gbytes_per_s(std::uint64_t bytes, pdes::Time t) {
  return t == 0 ? 0.0 : static_cast<double>(bytes) / pdes::to_seconds(t) / 1e9;
}

// /fabric: the fabric's type, description and named counters combined over
// ranks (DESIGN.md §6).
void write_fabric(output::RunFile& file, const scenario::Scenario& s,
                  const fabric::Network& network) {
  const std::vector<fabric::Network::Counter> counters = network.counters();
  std::vector<std::uint64_t> sums, maxes;
  for (const auto& c : counters) (c.max ? maxes : sums).push_back(c.value);
  std::vector<std::uint64_t> sum_total(sums.size()), max_total(maxes.size());
  MPI_Allreduce(sums.data(), sum_total.data(), static_cast<int>(sums.size()), MPI_UINT64_T, MPI_SUM,
                file.h5().comm());
  MPI_Allreduce(maxes.data(), max_total.data(), static_cast<int>(maxes.size()), MPI_UINT64_T,
                MPI_MAX, file.h5().comm());
  output::h5::Handle g = file.h5().create_group("/fabric");
  output::h5::write_attr(g.get(), "type", std::string_view(scenario::fabric_type(s.fabric)));
  output::h5::write_attr(g.get(), "description", std::string_view(network.describe()));
  std::size_t si = 0, mi = 0;
  for (const auto& c : counters) {
    output::h5::write_attr(g.get(), c.name, c.max ? max_total[mi++] : sum_total[si++]);
  }
}

}  // namespace

namespace {

// One (size, algorithm) line of `analyze`: the critical-path estimate, or why
// there is none at this scale.
struct Estimated {
  std::uint64_t bytes = 0;
  collective::Algorithm algorithm{};
  std::optional<analytical::CollectiveEstimate> estimate;
  std::string skipped;
};

// Every size of the sweep with every algorithm the scenario allows (all valid
// ones for `auto`), estimated with RAMP §7.4.1's critical path. The estimates
// are independent, so the ranks share them (round robin) and rank 0 gets all
// of them; the other ranks get an empty list.
std::vector<Estimated> estimate_scenario(const workload::CollectivesConfig& c, bool all,
                                         std::uint64_t max_work,
                                         const std::vector<std::uint32_t>& members,
                                         const fabric::Network& network,
                                         const compute::Roofline& roofline,
                                         const mpi::communicator& comm) {
  std::vector<collective::CollectiveSpec> tasks;
  const auto p = static_cast<std::uint32_t>(members.size());
  for (std::uint64_t bytes : workload::sweep_sizes(c)) {
    for (const collective::Algorithm algorithm : collective::all_algorithms()) {
      if (!all && algorithm != c.algorithm) continue;
      const collective::CollectiveSpec spec = workload::make_spec(c, p, bytes, algorithm);
      if (collective::why_invalid(spec).empty()) tasks.push_back(spec);
    }
  }
  // Per task: total, compute, h2t, h2h, steps, messages, state (1 done,
  // 2 too large, 3 failed: the rank that ran it reports why).
  constexpr std::size_t kFields = 7;
  std::vector<std::uint64_t> mine(tasks.size() * kFields, 0), all_rows(mine.size(), 0);
  for (std::size_t i = static_cast<std::size_t>(comm.rank()); i < tasks.size();
       i += static_cast<std::size_t>(comm.size())) {
    std::uint64_t* row = &mine[i * kFields];
    try {
      const analytical::CollectiveEstimate e =
          analytical::estimate_critical_path(tasks[i], members, network, roofline, max_work);
      row[0] = e.total;
      row[1] = e.compute;
      row[2] = e.h2t;
      row[3] = e.h2h;
      row[4] = e.steps;
      row[5] = e.messages;
      row[6] = 1;
    } catch (const analytical::EstimateTooLarge&) {
      row[6] = 2;
    } catch (const std::exception& e) {
      std::cerr << "sipsim: error: rank " << comm.rank() << ": estimating "
                << collective::to_string(tasks[i].algorithm) << ": " << e.what() << "\n";
      row[6] = 3;
    }
  }
  MPI_Reduce(mine.data(), all_rows.data(), static_cast<int>(mine.size()), MPI_UINT64_T, MPI_SUM, 0,
             comm);
  std::vector<Estimated> out;
  if (comm.rank() != 0) return out;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const std::uint64_t* row = &all_rows[i * kFields];
    Estimated e{tasks[i].bytes, tasks[i].algorithm, std::nullopt, {}};
    if (row[6] == 1) {
      analytical::CollectiveEstimate est;
      est.total = row[0];
      est.compute = row[1];
      est.h2t = row[2];
      est.h2h = row[3];
      est.steps = static_cast<std::uint32_t>(row[4]);
      est.messages = row[5];
      e.estimate = est;
    } else if (row[6] == 2) {
      // Refused before any work is done: asking again gives the reason.
      try {
        analytical::estimate_critical_path(tasks[i], members, network, roofline, max_work);
      } catch (const analytical::EstimateTooLarge& err) {
        e.skipped = err.what();
      }
    } else {
      e.skipped = "the estimate failed (see the error above)";
    }
    out.push_back(std::move(e));
  }
  return out;
}

double us(pdes::Time t) {
  return static_cast<double>(t) / 1e6;
}

}  // namespace

int analyze_command(const std::string& path, const std::vector<std::string>& overrides,
                    std::uint64_t max_work, const mpi::communicator& comm) {
  auto s = load(path, overrides, comm);
  if (!s) return kExitBadInput;
  if (const auto* phold = std::get_if<pdes::models::PholdConfig>(&s->workload)) {
    if (comm.rank() != 0) return kExitOk;
    // docs/models.md: each event chain advances lookahead + mean per event.
    const double per_chain = pdes::to_seconds(s->simulation.end_time) /
                             pdes::to_seconds(phold->lookahead + phold->mean_increment);
    std::cout << fmt::format("phold: about {:.0f} events expected ({} chains x {:.1f} hops)\n",
                             per_chain * phold->lps * phold->start_events_per_lp,
                             std::uint64_t{phold->lps} * phold->start_events_per_lp, per_chain);
    return kExitOk;
  }
  const auto& c = std::get<workload::CollectivesConfig>(s->workload);
  const std::unique_ptr<fabric::Network> network = network_or_report(*s, comm);
  if (!network) return kExitBadInput;
  const auto members = workload::job_members(c, network->nodes());
  const compute::Roofline roofline(c.accelerator);
  const auto p = static_cast<std::uint32_t>(members.size());
  const std::vector<Estimated> rows =
      estimate_scenario(c, s->auto_algorithm, max_work, members, *network, roofline, comm);
  if (comm.rank() != 0) return kExitOk;
  // RAMP §7.4.1's critical-path estimate (steps with their links' loads), and
  // the idle-fabric longest path beside it (a lower bound; the simulator's
  // exact result where no two messages share a port).
  std::cout << fmt::format("# critical-path estimate (RAMP §7.4.1): {} on {} nodes | {}\n",
                           collective::to_string(c.op), p, network->describe());
  std::cout << fmt::format(
      "#{:>13} {:>20} {:>6} {:>12} {:>11} {:>11} {:>11} {:>11} {:>11} {:>12}\n", "size",
      "algorithm", "steps", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "h2h(us)", "h2t(us)",
      "comp(us)", "idle(us)");
  for (const Estimated& r : rows) {
    const std::string_view name = collective::to_string(r.algorithm);
    if (!r.estimate) {
      std::cout << fmt::format(" {:>13} {:>20} skipped: {}\n", r.bytes, name, r.skipped);
      continue;
    }
    const analytical::CollectiveEstimate& e = *r.estimate;
    std::string idle = "-";
    if (std::uint64_t{p} * e.steps <= max_work) {
      const collective::CollectiveSpec spec = workload::make_spec(c, p, r.bytes, r.algorithm);
      idle = fmt::format(
          "{:.3f}", us(analytical::estimate_collective(spec, members, *network, roofline).total));
    }
    const double algbw = gbytes_per_s(r.bytes, e.total);
    std::cout << fmt::format(
        " {:>13} {:>20} {:>6} {:>12.3f} {:>11.2f} {:>11.2f} {:>11.3f} {:>11.3f} {:>11.3f} "
        "{:>12}\n",
        r.bytes, name, e.steps, us(e.total), algbw,
        algbw * collective::bus_bandwidth_factor(c.op, p), us(e.h2h), us(e.h2t), us(e.compute),
        idle);
  }
  return kExitOk;
}

int compare_command(const std::vector<std::string>& paths,
                    const std::vector<std::string>& overrides, bool csv, std::uint64_t max_work,
                    const mpi::communicator& comm) {
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
  std::vector<scenario::Scenario> scenarios;
  for (const std::string& path : paths) {
    auto s = load(path, overrides, comm);
    if (!s) return kExitBadInput;
    scenarios.push_back(std::move(*s));
  }
  auto error = [&](const std::string& message) {
    report(comm, message);
    return kExitBadInput;
  };
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const auto* c = std::get_if<workload::CollectivesConfig>(&scenarios[i].workload);
    if (!c) {
      return error(paths[i] + ": compare needs a collectives workload, not " +
                   std::string(workload_type(scenarios[i])));
    }
    if (op && *op != c->op) {
      return error(paths[i] + ": workload.op is " + std::string(collective::to_string(c->op)) +
                   " but " + paths[0] + " runs " + std::string(collective::to_string(*op)) +
                   " (use --set workload.op=...)");
    }
    op = c->op;
  }
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const scenario::Scenario* s = &scenarios[i];
    const auto* c = &std::get<workload::CollectivesConfig>(s->workload);
    const std::unique_ptr<fabric::Network> network = network_or_report(*s, comm);
    if (!network) return kExitBadInput;
    const auto members = workload::job_members(*c, network->nodes());
    for (const Estimated& r : estimate_scenario(*c, s->auto_algorithm, max_work, members, *network,
                                                compute::Roofline(c->accelerator), comm)) {
      if (std::find(sizes.begin(), sizes.end(), r.bytes) == sizes.end()) sizes.push_back(r.bytes);
      if (!r.estimate) {
        skipped[i].try_emplace(r.bytes, r.skipped);
        continue;
      }
      auto [it, fresh] = best[i].try_emplace(r.bytes);
      if (fresh || r.estimate->total < it->second.e.total) {
        it->second =
            Best{fs::path(paths[i]).stem().string(), std::string(scenario::fabric_type(s->fabric)),
                 std::string(collective::to_string(r.algorithm)), *r.estimate,
                 static_cast<std::uint32_t>(members.size())};
      }
    }
  }
  if (comm.rank() != 0) return kExitOk;
  std::sort(sizes.begin(), sizes.end());
  if (csv) {
    std::cout << "op,size,scenario,fabric,nodes,algorithm,time_us,h2h_us,h2t_us,compute_us,"
                 "speedup_of_first\n";
  } else {
    std::cout << fmt::format(
        "# {}: best algorithm per scenario, critical-path estimates (RAMP §7.4.1);\n"
        "# speed-up = this scenario's time / {}'s\n",
        collective::to_string(*op), fs::path(paths[0]).stem().string());
    std::cout << fmt::format(
        "#{:>13} {:>28} {:>9} {:>7} {:>20} {:>13} {:>11} {:>11} {:>11} {:>9}\n", "size", "scenario",
        "fabric", "nodes", "algorithm", "time(us)", "h2h(us)", "h2t(us)", "comp(us)", "speed-up");
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
      std::string speedup = "-";
      if (ref != best[0].end() && ref->second.e.total > 0) {
        speedup = fmt::format(
            "{:.2f}", static_cast<double>(b.e.total) / static_cast<double>(ref->second.e.total));
      }
      if (csv) {
        std::cout << fmt::format("{},{},{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{}\n",
                                 collective::to_string(*op), bytes, b.name, b.fabric, b.p,
                                 b.algorithm, us(b.e.total), us(b.e.h2h), us(b.e.h2t),
                                 us(b.e.compute), speedup);
      } else {
        std::cout << fmt::format(
            " {:>13} {:>28} {:>9} {:>7} {:>20} {:>13.3f} {:>11.3f} {:>11.3f} {:>11.3f} {:>9}\n",
            bytes, b.name, b.fabric, b.p, b.algorithm, us(b.e.total), us(b.e.h2h), us(b.e.h2t),
            us(b.e.compute), speedup);
      }
    }
  }
  return kExitOk;
}

namespace {}  // namespace

int info_command(const std::string& path, const std::vector<std::string>& overrides, int ranks,
                 const mpi::communicator& comm) {
  auto s = load(path, overrides, comm);
  if (!s) return kExitBadInput;
  if (comm.rank() != 0) return kExitOk;
  if (std::holds_alternative<std::monostate>(s->fabric)) {
    std::cout << path << ": workload " << workload_type(*s) << " has no fabric\n";
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
  if (const auto* c = std::get_if<workload::CollectivesConfig>(&s->workload)) {
    auto shape = [](const collective::Dims& d) {
      std::string out;
      for (std::size_t i = 0; i < collective::levels(d); ++i) {
        out += (i > 0 ? " x " : "") + std::to_string(d[i]);
      }
      return out;
    };
    rows.push_back({"collective shapes", "hierarchical-ring " + shape(c->params.hierarchy) +
                                             ", torus2d " + shape(c->params.torus)});
  }
  for (const auto& [k, v] : rows) {
    std::cout << "  " << k << std::string(k.size() < 26 ? 26 - k.size() : 1, ' ') << v << "\n";
  }
  if (const auto* rc = std::get_if<scenario::RampConfig>(&s->fabric)) {
    std::cout << "\n"
              << fabric::ramp::describe_physical(rc->geometry, rc->optics, rc->cost, rc->power);
  }
  return kExitOk;
}

int validate_command(const std::string& path, const std::vector<std::string>& overrides,
                     const mpi::communicator& comm) {
  auto s = load(path, overrides, comm);
  if (!s) return kExitBadInput;
  if (comm.rank() == 0) {
    std::cout << path << ": ok (scenario '" << s->name << "', workload " << workload_type(*s)
              << ")\n";
  }
  return kExitOk;
}

int run_command(const RunArgs& args, const mpi::communicator& comm) {
  spdlog::set_pattern("[%H:%M:%S] %v");
  if (comm.rank() != 0 || args.quiet) spdlog::set_level(spdlog::level::warn);

  auto s = load(args.scenario, args.overrides, comm);
  if (!s) return kExitBadInput;

  const std::string output =
      args.output.empty() ? fs::path(args.scenario).stem().string() + ".h5" : args.output;
  std::string problem = comm.rank() == 0 ? check_output(output, args.force) : std::string();
  problem = agree(comm, problem);
  if (!problem.empty()) {
    report(comm, problem);
    return kExitBadInput;
  }

  std::optional<output::RunFile> file;
  try {
    file.emplace(output::RunFile::create(output, comm));
  } catch (const output::h5::Error& e) {
    report(comm, std::string("cannot write output '") + output + "': " + e.what());
    return kExitBadInput;
  }

  const std::string started = agree(comm, utc_now());
  workload::Simulation sim;
  try {
    sim = setup::make_simulation(*s);
  } catch (const base::ScenarioError& e) {
    report(comm, e.what());
    return kExitBadInput;
  }
  const pdes::Partition partition = sim.model->partition(comm.size());
  pdes::EngineOptions options;
  options.seed = s->seed;
  options.end_time = s->simulation.end_time;
  options.kind = s->simulation.engine;
  options.progress_interval_s = args.quiet ? 0.0 : s->simulation.progress_interval_s;

  pdes::RunResult result;
  try {
    result = pdes::run(*sim.model, partition, comm, options);
  } catch (const pdes::EngineError& e) {
    if (e.origin()) std::cerr << "sipsim: error: rank " << comm.rank() << ": " << e.what() << "\n";
    return kExitRunFailed;
  } catch (const std::invalid_argument& e) {
    report(comm, e.what());
    return kExitBadInput;
  }
  sim.results->collect(comm);
  // A program that could not finish is an error, unless the scenario's time
  // limit stopped it.
  if (s->simulation.end_time == pdes::kTimeMax) {
    const std::string unfinished = sim.results->unfinished(comm);
    if (!unfinished.empty()) {
      report(comm, "the simulation ended with work left: " + unfinished);
      return kExitRunFailed;
    }
  }

  const MemoryStats mem = memory_stats(result, comm);
  try {
    output::RunMetadata meta;
    meta.sipsim_version = kVersion;
    meta.git_revision = kGitRevision;
    meta.scenario_yaml = s->yaml_text;
    meta.scenario_path = s->path;
    meta.scenario_name = s->name;
    for (const auto& o : s->overrides) meta.overrides += o + "\n";
    meta.ranks = static_cast<std::uint64_t>(comm.size());
    meta.seed = s->seed;
    meta.started_utc = started;
    meta.wall_seconds = result.wall_seconds;
    meta.committed_events = result.committed_events;
    meta.events_per_second =
        result.wall_seconds > 0 ? static_cast<double>(result.committed_events) / result.wall_seconds
                                : 0.0;
    meta.end_time_ps = result.last_event_time;
    meta.time_limit_ps = s->simulation.end_time;
    meta.lookahead_ps = result.lookahead;
    meta.windows = result.windows;
    meta.remote_events = result.remote_events;
    meta.engine = engine_name(result);
    meta.peak_rss_bytes = mem.peak_rss_bytes;
    file->write_meta(meta);

    const auto lps = partition.lps_of(comm.rank());
    const std::vector<std::uint64_t> ids(lps.begin(), lps.end());
    file->write_lp_stats(partition.lp_count(), ids, result.lp_events, result.lp_digest);
    sim.results->write(file->h5());
    if (sim.network != nullptr) write_fabric(*file, *s, *sim.network);
    file->commit();
  } catch (const output::h5::Error& e) {
    report(comm, std::string("writing '") + output + "': " + e.what());
    return kExitRunFailed;
  }

  if (comm.rank() == 0) {
    sim.results->print(std::cout);
    print_summary(*s, result, mem, comm.size(), output);
  }
  return kExitOk;
}

}  // namespace sipsim::app
