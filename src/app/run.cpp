// `sipsim run`: simulate a scenario and write its run file (DESIGN.md §6-7).
#include <mpi.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <boost/mpi/collectives/all_reduce.hpp>
#include <cerrno>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iostream>
#include <sstream>

#include "sipsim/app/commands.hpp"
#include "sipsim/app/common.hpp"
#include "sipsim/base/units.hpp"
#include "sipsim/output/run_file.hpp"
#include "sipsim/version.hpp"

namespace sipsim::app {

namespace {

namespace fs = std::filesystem;
namespace mpi = boost::mpi;

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The files the run reads, which --force must never replace.
std::vector<output::Input> inputs(const RunArgs& args) {
  std::error_code ec;
  fs::path binary = fs::read_symlink("/proc/self/exe", ec);
  if (ec) binary = "/proc/self/exe";
  return {{args.scenario, "the scenario file"}, {binary.string(), "the sipsim binary"}};
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

void print_summary(const setup::Setup& setup, const pdes::RunResult& r, const MemoryStats& mem,
                   int ranks, const std::string& output) {
  const scenario::Scenario& s = setup.scenario;
  const double rate =
      r.wall_seconds > 0 ? static_cast<double>(r.committed_events) / r.wall_seconds : 0.0;
  std::ostringstream o;
  o << "sipsim " << kVersion << " | scenario " << s.name << " (" << setup.workload->type() << ") | "
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
  if (r.epochs > 0) row("epochs", std::to_string(r.epochs));
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

// /fabric: the fabric's type, description and named counters combined over
// ranks (DESIGN.md §6).
void write_fabric(output::RunFile& file, const setup::FabricSetup& fabric,
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
  output::h5::write_attr(g.get(), "type", fabric.type());
  output::h5::write_attr(g.get(), "description", std::string_view(network.describe()));
  std::size_t si = 0, mi = 0;
  for (const auto& c : counters) {
    output::h5::write_attr(g.get(), c.name, c.max ? max_total[mi++] : sum_total[si++]);
  }
}

}  // namespace

int run_command(const RunArgs& args, const mpi::communicator& comm) {
  spdlog::set_pattern("[%H:%M:%S] %v");
  if (comm.rank() != 0 || args.quiet) spdlog::set_level(spdlog::level::warn);

  auto setup = load(args.scenario, args.overrides, comm);
  if (!setup) return kExitBadInput;
  const scenario::Scenario* s = &setup->scenario;

  output::Destination destination;
  destination.path =
      args.output.empty() ? fs::path(args.scenario).stem().string() + ".h5" : args.output;
  destination.replace = args.force;
  destination.inputs = inputs(args);
  const std::string& output = destination.path;
  std::string problem = comm.rank() == 0 ? output::check_destination(destination) : std::string();
  problem = agree(comm, problem);
  if (!problem.empty()) {
    report(comm, problem);
    return kExitBadInput;
  }

  std::optional<output::RunFile> file;
  try {
    file.emplace(output::RunFile::create(destination, comm));
  } catch (const output::h5::Error& e) {
    report(comm, std::string("cannot write output '") + output + "': " + e.what());
    // A full disk is not the user's input: the same run may work later.
    const bool full = e.system_error() == ENOSPC || e.system_error() == EDQUOT;
    return full ? kExitRunFailed : kExitBadInput;
  }

  const std::string started = agree(comm, utc_now());
  workload::Simulation sim;
  try {
    sim = setup::build(*setup);
  } catch (const base::ScenarioError& e) {
    report(comm, e.what());
    return kExitBadInput;
  }
  const pdes::Partition partition = sim.model->partition(comm.size());
  // From here on a failed --force run leaves neither the old file nor a
  // partial one: a study never mistakes the old results for this run's.
  if (args.force) {
    try {
      file->remove_existing();
    } catch (const output::h5::Error& e) {
      report(comm, e.what());
      return kExitBadInput;
    }
  }
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
    meta.epochs = result.epochs;
    meta.engine = engine_name(result);
    meta.peak_rss_bytes = mem.peak_rss_bytes;
    file->write_meta(meta);

    const auto lps = partition.lps_of(comm.rank());
    const std::vector<std::uint64_t> ids(lps.begin(), lps.end());
    file->write_lp_stats(partition.lp_count(), ids, result.lp_events, result.lp_digest);
    sim.results->write(file->h5());
    if (sim.network != nullptr) write_fabric(*file, *setup->fabric, *sim.network);
    file->commit();
  } catch (const output::h5::Error& e) {
    report(comm, std::string("writing '") + output + "': " + e.what());
    return kExitRunFailed;
  } catch (const output::PublishError& e) {
    report(comm, e.what());
    return kExitRunFailed;
  }

  if (comm.rank() == 0) {
    sim.results->print(std::cout);
    print_summary(*setup, result, mem, comm.size(), output);
  }
  return kExitOk;
}

}  // namespace sipsim::app
