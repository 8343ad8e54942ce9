// `sipsim run`: simulate a scenario and write its run file (docs/output.md, docs/user-guide.md).
#include <mpi.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <boost/mpi/collectives/all_reduce.hpp>
#include <boost/mpi/collectives/broadcast.hpp>
#include <boost/mpi/operations.hpp>
#include <boost/serialization/string.hpp>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <new>
#include <optional>
#include <span>
#include <sstream>

#include "fault_report.hpp"
#include "scaling_advice.hpp"
#include "sipsim/app/commands.hpp"
#include "sipsim/app/common.hpp"
#include "sipsim/app/signals.hpp"
#include "sipsim/base/interrupt.hpp"
#include "sipsim/base/memory.hpp"
#include "sipsim/base/units.hpp"
#include "sipsim/output/run_file.hpp"
#include "sipsim/pdes/window_histogram.hpp"
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

// What the scaling model reads (docs/scaling.md), from the engine's result.
pdes::ScalingFigures figures_of(const pdes::RunResult& r, int ranks) {
  pdes::ScalingFigures f;
  f.ranks = ranks;
  f.windowed = r.lookahead != pdes::kTimeMax;
  f.events = r.committed_events;
  f.windows = r.windows;
  f.critical_path_events = r.critical_path_events;
  f.wall_seconds = r.wall_seconds;
  f.busy_seconds_mean = r.busy_seconds_mean;
  f.critical_path_seconds = r.critical_path_seconds;
  f.remote_fraction = r.committed_events > 0 ? static_cast<double>(r.remote_events) /
                                                   static_cast<double>(r.committed_events)
                                             : 0.0;
  return f;
}

// The figures that predict scaling (docs/scaling.md) from the engine's.
output::RunMetadata::Scaling scaling_of(const pdes::RunResult& r, int ranks) {
  output::RunMetadata::Scaling sc;
  auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  const pdes::ScalingFigures figures = figures_of(r, ranks);
  sc.remote_fraction = figures.remote_fraction;
  sc.critical_path_events = r.critical_path_events;
  sc.busy_seconds_max = r.busy_seconds_max;
  sc.busy_seconds_mean = r.busy_seconds_mean;
  sc.critical_path_seconds = r.critical_path_seconds;
  sc.sync_fraction = std::max(0.0, 1 - ratio(r.busy_seconds_mean, r.wall_seconds));
  sc.imbalance_fraction = std::max(0.0, 1 - ratio(r.busy_seconds_mean, r.critical_path_seconds));
  const std::size_t k = r.window_histogram.size();
  const std::uint64_t max = r.rank_window_max.empty() ? 0
                                                      : *std::max_element(r.rank_window_max.begin(),
                                                                          r.rank_window_max.end());
  const pdes::WindowSummary all = pdes::summarize(r.window_histogram, r.committed_events, max);
  sc.window_events_mean = all.mean;
  sc.window_events_p50 = all.p50;
  sc.window_events_p99 = all.p99;
  sc.window_events_max = all.max;
  for (std::size_t i = 0; i < k; ++i) sc.bucket_low.push_back(pdes::WindowHistogram::bucket_low(i));
  sc.histogram = r.window_histogram;
  sc.rank_histogram = r.rank_window_histogram;
  sc.rank_events = r.rank_events;
  sc.rank_busy_seconds = r.rank_busy_seconds;
  for (const pdes::ScalingPrediction& p : pdes::predict_scaling(figures, pdes::kAdvisedRanks)) {
    sc.predicted_ranks.push_back(static_cast<std::uint64_t>(p.ranks));
    sc.predicted_efficiency.push_back(p.efficiency);
  }
  for (std::size_t rank = 0; rank < static_cast<std::size_t>(ranks); ++rank) {
    const pdes::WindowSummary one =
        pdes::summarize(std::span(r.rank_window_histogram).subspan(rank * k, k),
                        r.rank_events[rank], r.rank_window_max[rank]);
    sc.rank_window_events_mean.push_back(one.mean);
    sc.rank_window_events_p50.push_back(one.p50);
    sc.rank_window_events_p99.push_back(one.p99);
    sc.rank_window_events_max.push_back(one.max);
  }
  return sc;
}

// The windowed engine's rows of the summary: its windows, what they cost and
// what the scaling model predicts (docs/user-guide.md, "Choosing ranks
// and memory").
void window_rows(const std::function<void(const std::string&, const std::string&)>& row,
                 const pdes::RunResult& r, int ranks) {
  row("engine",
      r.mean_window > r.lookahead
          ? fmt::format("windowed, {} windows of {} or more (mean {})", r.windows,
                        base::format_time_ps(r.lookahead), base::format_time_ps(r.mean_window))
          : fmt::format("windowed, {} windows of {}", r.windows,
                        base::format_time_ps(r.lookahead)));
  const output::RunMetadata::Scaling sc = scaling_of(r, ranks);
  // Exact counts: the same at every run of the scenario on this many ranks.
  row("events/window",
      fmt::format("per rank mean {:.1f}, p50 {}, p99 {}, max {}; critical path {} events",
                  sc.window_events_mean, sc.window_events_p50, sc.window_events_p99,
                  sc.window_events_max, sc.critical_path_events));
  row("remote events",
      fmt::format("{} ({:.1f}% of events)", r.remote_events, 100 * sc.remote_fraction));
  row("busy", fmt::format("{:.3f} s slowest rank, {:.3f} s mean ({:.0f}% of wall)",
                          r.busy_seconds_max, r.busy_seconds_mean,
                          r.wall_seconds > 0 ? 100 * r.busy_seconds_mean / r.wall_seconds : 0.0));
  row("sync",
      fmt::format("critical path {:.3f} s; {:.0f}% of wall synchronising, imbalance {:.0f}%",
                  r.critical_path_seconds, 100 * sc.sync_fraction, 100 * sc.imbalance_fraction));
  // The ranks' busy time, summed, plus the epochs (which every rank runs
  // whole) is about what one rank would take (a little more: sending to
  // other ranks costs too), so a wall above it means fewer ranks would have
  // been faster.
  const double all_busy = r.busy_seconds_mean * ranks;
  const double one_rank = all_busy + r.epoch_seconds;
  const double efficiency = r.wall_seconds > 0 ? one_rank / (ranks * r.wall_seconds) : 0.0;
  const std::string epochs =
      r.epochs > 0 ? fmt::format("and the epochs', {:.3f} s, ", r.epoch_seconds) : "";
  row("efficiency", fmt::format("{:.2f} (busy time of all ranks, {:.3f} s, {}over {} x wall)",
                                efficiency, all_busy, epochs, ranks));
  const pdes::ScalingFigures figures = figures_of(r, ranks);
  const std::string predicted = predicted_efficiency_text(figures);
  row("predicted", predicted.empty()
                       ? std::string("nothing to predict from: no events ran in windows")
                       : "efficiency " + predicted + " (docs/scaling.md, from this run)");
  if (ranks == 1) return;
  if (one_rank < r.wall_seconds) {
    row("warning",
        "fewer ranks would have been faster: one rank needs about the busy time "
        "of all ranks (and the epochs'); see \"Choosing ranks and memory\" in the user "
        "guide");
  } else if (efficiency < pdes::kPaysEfficiency) {
    const int better = std::max(1, std::min(ranks / 2, pdes::ranks_that_pay(figures)));
    row("warning", fmt::format("more ranks than pay: the ranks waited for more than half of the "
                               "wall time; {} the machine better",
                               better == 1 ? std::string("one rank uses")
                                           : fmt::format("{} ranks or fewer use", better)));
  }
}

void print_summary(const setup::Setup& setup, const pdes::RunResult& r, const MemoryStats& mem,
                   int ranks, const std::string& output,
                   const std::map<std::string, std::uint64_t>& fabric, const FaultOutcome& faults) {
  const scenario::Scenario& s = setup.scenario;
  const double rate =
      r.wall_seconds > 0 ? static_cast<double>(r.committed_events) / r.wall_seconds : 0.0;
  std::ostringstream o;
  o << "sipsim " << kVersion << " | scenario " << s.name << " (" << setup.workload->type() << ") | "
    << ranks << (ranks == 1 ? " rank" : " ranks") << " | seed " << s.seed << "\n";
  auto row = [&](const std::string& k, const std::string& v) {
    o << "  " << k << std::string(k.size() < 20 ? 20 - k.size() : 1, ' ') << v << "\n";
  };
  for (const auto& [k, v] : fault_summary(setup.faults, faults)) row(k, v);
  row("committed events", std::to_string(r.committed_events));
  row("last event at", base::format_time_ps(r.last_event_time));
  row("wall time", fmt::format("{:.3f} s (engine)", r.wall_seconds));
  row("event rate", fmt::format("{:.3f} M events/s", rate / 1e6));
  if (r.lookahead == pdes::kTimeMax) {
    row("engine", "sequential");
    row("predicted",
        "efficiency on more ranks: run on 2 ranks, or on one with --set "
        "simulation.engine=windowed (docs/scaling.md)");
  } else {
    window_rows(row, r, ranks);
  }
  if (r.epochs > 0) row("epochs", std::to_string(r.epochs));
  row("peak memory",
      fmt::format("{:.1f} MiB (all ranks)", static_cast<double>(mem.peak_rss_bytes) / (1 << 20)));
  if (mem.peak_pending > 0) {
    row("pending events",
        fmt::format("{} at most, {:.0f} bytes of queue each", mem.peak_pending,
                    static_cast<double>(mem.queue_bytes) / static_cast<double>(mem.peak_pending)));
  }
  // RAMP in permissive mode (a training job's default): transfers that would
  // have broken optical rules (b) or (c) and waited instead, said in words
  // (docs/glossary.md): the letters alone mean nothing to a newcomer.
  const auto count = [&](const char* name) {
    const auto it = fabric.find(name);
    return it == fabric.end() ? std::uint64_t{0} : it->second;
  };
  if (const std::uint64_t b = count("rule_b_conflicts"), c = count("rule_c_conflicts"); b + c > 0) {
    row("optical rules",
        fmt::format("{} transfers waited instead of colliding (fabric.permissive): {} for a "
                    "receiving transceiver still busy (rule (b)), {} for a wavelength already "
                    "taken on their subnet (rule (c))",
                    b + c, b, c));
  }
  row("output", output);
  std::cout << o.str() << std::flush;
}

// /fabric: the fabric's type, description and named counters combined over
// ranks (docs/output.md); returns the combined counters by name.
std::map<std::string, std::uint64_t> write_fabric(output::RunFile& file,
                                                  const fabric::Plugin& fabric,
                                                  const fabric::Report& report) {
  std::vector<fabric::Report::Counter> counters = report.counters();
  std::vector<std::uint64_t> sums, maxes;
  for (const auto& c : counters) (c.max ? maxes : sums).push_back(c.value);
  std::vector<std::uint64_t> sum_total(sums.size()), max_total(maxes.size());
  MPI_Allreduce(sums.data(), sum_total.data(), static_cast<int>(sums.size()), MPI_UINT64_T, MPI_SUM,
                file.h5().comm());
  MPI_Allreduce(maxes.data(), max_total.data(), static_cast<int>(maxes.size()), MPI_UINT64_T,
                MPI_MAX, file.h5().comm());
  output::h5::Handle g = file.h5().create_group("/fabric");
  output::h5::write_attr(g.get(), "type", fabric.type());
  output::h5::write_attr(g.get(), "description", std::string_view(report.describe()));
  std::size_t si = 0, mi = 0;
  std::map<std::string, std::uint64_t> totals;
  std::optional<output::h5::Handle> wall;
  for (const auto& c : counters) {
    const std::uint64_t v = c.max ? max_total[mi++] : sum_total[si++];
    if (c.wall) {  // a wall-clock figure is not a result (the determinism check skips /meta)
      if (!wall) wall = file.h5().create_group("/meta/fabric");
      output::h5::write_attr(wall->get(), c.name, v);
    } else {
      output::h5::write_attr(g.get(), c.name, v);
    }
    totals[c.name] = v;
  }
  // The controller's tables, the same on every rank: rank 0 writes them.
  int rank = 0;
  MPI_Comm_rank(file.h5().comm(), &rank);
  for (const fabric::Report::ReportTable& t : report.report_tables()) {
    const output::h5::Handle tg = file.h5().create_group("/fabric/" + t.name);
    const std::uint64_t rows = t.rows;
    if (rows == 0) continue;
    std::vector<std::uint64_t> index;
    if (rank == 0) {
      index.resize(rows);
      for (std::uint64_t r = 0; r < rows; ++r) index[r] = r;
    }
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      const std::vector<std::uint64_t> mine =
          rank == 0 ? t.column(c) : std::vector<std::uint64_t>();
      output::h5::write_distributed(file.h5(), "/fabric/" + t.name + "/" + t.columns[c], rows,
                                    index, mine);
    }
  }
  return totals;
}

// How a run stops early: its exit code and the line rank 0 prints after
// "sipsim: " (empty when it was printed already).
struct Stop {
  int code;
  std::string line;
};

Stop error(int code, const std::string& message) {
  return Stop{code, "error: " + message};
}

// Every rank stops when any rank found a problem; the lowest rank's wins.
void agree_stop(const mpi::communicator& comm, const std::optional<Stop>& local) {
  const int mine = local ? comm.rank() : comm.size();
  const int first = mpi::all_reduce(comm, mine, mpi::minimum<int>());
  if (first == comm.size()) return;
  Stop stop = local.value_or(Stop{});
  mpi::broadcast(comm, stop.code, first);
  mpi::broadcast(comm, stop.line, first);
  throw stop;
}

// Between phases: a signal any rank received stops all of them here.
void check_interrupt(const mpi::communicator& comm, const std::string& when) {
  const int signal = mpi::all_reduce(comm, base::interrupt_signal(), mpi::maximum<int>());
  if (signal == 0) return;
  throw Stop{exit_code_for_signal(signal), std::string("interrupted by ") +
                                               base::signal_name(signal) + " " + when +
                                               "; no output written"};
}

// One phase of the run, on every rank. A failure on any rank (an exception,
// std::bad_alloc included) stops every rank with one message, so none is
// left waiting in a collective call of the next phase; then a signal is
// checked for. `failure` is the exit code of errors the phase does not
// classify itself.
template <class F>
void phase(const mpi::communicator& comm, const std::string& doing, int failure, F&& f) {
  std::optional<Stop> local;
  try {
    f();
  } catch (const Stop& stop) {
    local = stop;
  } catch (const base::ScenarioError& e) {
    local = error(kExitBadInput, e.what());
  } catch (const std::bad_alloc&) {
    local = error(kExitRunFailed, "out of memory while " + doing);
  } catch (const std::exception& e) {
    local = error(failure, e.what());
  }
  agree_stop(comm, local);
  check_interrupt(comm, "while " + doing);
}

// Refuses, on every rank, a job whose ranks on some host need more than the
// host has available, each rank needing `bytes` for `what`.
void check_memory(const mpi::communicator& comm, std::uint64_t bytes, const std::string& what) {
  MPI_Comm host = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  std::uint64_t on_host = 0;
  int host_ranks = 1;
  MPI_Allreduce(&bytes, &on_host, 1, MPI_UINT64_T, MPI_SUM, host);
  MPI_Comm_size(host, &host_ranks);
  MPI_Comm_free(&host);
  std::optional<Stop> local;
  const std::optional<std::uint64_t> available = base::available_memory();
  if (available && on_host > *available) {
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(name, &length);
    local = error(kExitRunFailed,
                  fmt::format("not enough memory: {} need at least {} on host {} ({} {}), {} "
                              "available",
                              what, base::format_bytes(on_host), name, host_ranks,
                              host_ranks == 1 ? "rank" : "ranks", base::format_bytes(*available)));
  }
  agree_stop(comm, local);
}

// The files the run reads, which --force must never replace.
std::vector<output::Input> inputs(const RunArgs& args) {
  std::error_code ec;
  fs::path binary = fs::read_symlink("/proc/self/exe", ec);
  if (ec) binary = "/proc/self/exe";
  return {{args.scenario, "the scenario file"}, {binary.string(), "the sipsim binary"}};
}

output::RunMetadata metadata(const scenario::Scenario& s, const pdes::RunResult& result,
                             const MemoryStats& mem, int ranks, const std::string& started) {
  output::RunMetadata meta;
  meta.sipsim_version = kVersion;
  meta.git_revision = kGitRevision;
  meta.scenario_yaml = s.yaml_text;
  meta.scenario_path = s.path;
  meta.scenario_name = s.name;
  for (const auto& o : s.overrides) meta.overrides += o + "\n";
  meta.ranks = static_cast<std::uint64_t>(ranks);
  meta.seed = s.seed;
  meta.started_utc = started;
  meta.wall_seconds = result.wall_seconds;
  meta.committed_events = result.committed_events;
  meta.events_per_second = result.wall_seconds > 0
                               ? static_cast<double>(result.committed_events) / result.wall_seconds
                               : 0.0;
  meta.end_time_ps = result.last_event_time;
  meta.time_limit_ps = s.simulation.end_time;
  meta.lookahead_ps = result.lookahead;
  meta.windows = result.windows;
  meta.remote_events = result.remote_events;
  meta.epochs = result.epochs;
  meta.engine = engine_name(result);
  meta.peak_rss_bytes = mem.peak_rss_bytes;
  meta.scaling = scaling_of(result, ranks);
  return meta;
}

// The run, phase by phase; throws Stop. Leaving it destroys the run file,
// which removes the partial file unless it was committed.
void run_phases(const RunArgs& args, const mpi::communicator& comm) {
  check_interrupt(comm, "before the run started");
  std::optional<setup::Setup> setup;
  phase(comm, "reading the scenario", kExitBadInput,
        [&] { setup = load(args.scenario, args.overrides, comm); });
  if (!setup) throw Stop{kExitBadInput, ""};  // load() reported it
  const scenario::Scenario& s = setup->scenario;

  output::Destination destination;
  destination.path = args.output ? *args.output : fs::path(args.scenario).stem().string() + ".h5";
  destination.replace = args.force;
  destination.inputs = inputs(args);
  const std::string& output = destination.path;
  phase(comm, "checking the output", kExitBadInput, [&] {
    if (comm.rank() == 0) {
      if (std::string problem = output::check_destination(destination); !problem.empty()) {
        throw error(kExitBadInput, problem);
      }
    }
  });
  if (setup->fabric) {
    const std::uint32_t nodes = setup->fabric->nodes();
    check_memory(comm, pdes::kernel_memory(nodes, comm.size()),
                 fmt::format("the fabric's {} nodes", nodes));
  }

  std::optional<output::RunFile> file;
  try {
    file.emplace(output::RunFile::create(destination, comm));
  } catch (const output::h5::Error& e) {
    // A full disk is not the user's input: the same run may work later.
    const bool full = e.system_error() == ENOSPC || e.system_error() == EDQUOT;
    throw error(full ? kExitRunFailed : kExitBadInput,
                "cannot write output '" + output + "': " + e.what());
  }
  check_interrupt(comm, "while creating the output");

  const std::string started = agree(comm, utc_now());
  workload::Simulation sim;
  phase(comm, "building the model", kExitRunFailed, [&] { sim = setup::build(*setup); });
  const std::uint32_t lps = sim.model->lp_count();
  check_memory(comm, pdes::kernel_memory(lps, comm.size()), fmt::format("{} LPs", lps));
  std::optional<pdes::Partition> partition;
  phase(comm, "partitioning the model", kExitRunFailed,
        [&] { partition.emplace(sim.model->partition(comm.size())); });
  // From here on a failed --force run leaves neither the old file nor a
  // partial one: a study never mistakes the old results for this run's.
  if (args.force) {
    phase(comm, "removing the old output", kExitBadInput, [&] { file->remove_existing(); });
  }

  // A GPU failure stops the job at its time (docs/faults.md).
  const std::optional<fabric::Fault> failure = fabric::first_gpu_failure(setup->faults);
  pdes::EngineOptions options;
  options.seed = s.seed;
  options.end_time = std::min(s.simulation.end_time, failure ? failure->at : pdes::kTimeMax);
  options.kind = s.simulation.engine;
  options.progress_interval_s = args.quiet ? 0.0 : s.simulation.progress_interval_s;
  options.check_bounds = args.check_bounds;
  pdes::RunResult result;
  try {
    result = pdes::run(*sim.model, *partition, comm, options);
  } catch (const pdes::EngineError& e) {
    if (e.origin()) std::cerr << "sipsim: error: rank " << comm.rank() << ": " << e.what() << "\n";
    throw Stop{kExitRunFailed, ""};
  } catch (const pdes::Interrupted& e) {
    throw Stop{exit_code_for_signal(e.signal()), std::string(e.what()) + "; no output written"};
  } catch (const std::invalid_argument& e) {
    throw error(kExitBadInput, e.what());
  }
  const std::string after =
      "after the simulation (simulated time " + base::format_time_ps(result.last_event_time) + ")";

  FaultOutcome outcome{std::nullopt, result.last_event_time};
  phase(comm, "collecting the results", kExitRunFailed, [&] {
    sim.results->collect(comm);
    // A program that could not finish is an error, unless the scenario's
    // time limit or a GPU failure stopped it (the job failed then).
    if (s.simulation.end_time == pdes::kTimeMax || failure) {
      const std::string unfinished = sim.results->unfinished(comm);
      if (failure && !unfinished.empty()) {
        outcome.failure = failure;
      } else if (!unfinished.empty() && s.simulation.end_time == pdes::kTimeMax) {
        throw error(kExitRunFailed, "the simulation ended with work left: " + unfinished);
      }
    }
  });

  MemoryStats mem = memory_stats(result, comm);
  // Output errors are the run's (exit 1): the destination was checked before.
  const std::string writing = "writing '" + output + "': ";
  auto write = [&](const std::string& what, auto&& f) {
    phase(comm, "writing " + what, kExitRunFailed, [&] {
      try {
        f();
      } catch (const output::h5::Error& e) {
        // A write cut short by a full disk sets no errno: say what it was.
        const std::string full = e.system_error() == 0 && comm.rank() == 0
                                     ? output::check_free_space(output)
                                     : std::string();
        throw error(kExitRunFailed, writing + e.what() + (full.empty() ? "" : "; " + full));
      }
    });
  };
  write("/meta", [&] { file->write_meta(metadata(s, result, mem, comm.size(), started)); });
  write("/lp", [&] {
    const auto mine = partition->lps_of(comm.rank());
    const std::vector<std::uint64_t> ids(mine.begin(), mine.end());
    file->write_lp_stats(partition->lp_count(), ids, result.lp_events, result.lp_digest,
                         comm.rank());
  });
  write("the results", [&] { sim.results->write(file->h5()); });
  if (s.faults) {
    write("/faults", [&] {
      output::write_faults(file->h5(), fault_rows(setup->faults, outcome));
      if (outcome.failure) {
        const output::h5::Handle meta = file->h5().open_group("/meta");
        output::h5::write_attr(meta.get(), "failed_at_ps", outcome.failure->at);
        output::h5::write_attr(meta.get(), "failure", failure_text(*outcome.failure));
      }
    });
  }
  std::map<std::string, std::uint64_t> fabric_totals;
  if (sim.network != nullptr) {
    write("/fabric", [&] { fabric_totals = write_fabric(*file, *setup->fabric, *sim.network); });
  }
  // Measured again once the results and tables are written: the peak the
  // whole run took (writing a long plan log can pass the simulation's).
  mem = memory_stats(result, comm);
  write("/meta", [&] {
    output::h5::write_attr(file->h5().open_group("/meta").get(), "peak_rss_bytes",
                           mem.peak_rss_bytes);
  });
  check_interrupt(comm, after);
  write("the run file", [&] { file->commit(); });

  if (comm.rank() == 0 && args.print) {
    sim.results->print(std::cout);
    print_summary(*setup, result, mem, comm.size(), output, fabric_totals, outcome);
  }
}

}  // namespace

int run_command(const RunArgs& args, const mpi::communicator& comm) {
  spdlog::set_pattern("[%H:%M:%S] %v");
  if (comm.rank() != 0 || args.quiet) spdlog::set_level(spdlog::level::warn);
  if (args.output && args.output->empty()) {
    report(comm, "empty output path");
    return kExitBadInput;
  }

  int code = kExitOk;
  {
    const InterruptHandlers handlers;
    try {
      run_phases(args, comm);
    } catch (const Stop& stop) {
      if (comm.rank() == 0 && !stop.line.empty()) std::cerr << "sipsim: " << stop.line << "\n";
      code = stop.code;
    }
  }
  // A file that HDF5 failed to close (a full disk) would crash MPI_Finalize,
  // where HDF5 shuts down: end every rank here instead. The partial file is
  // gone and the message printed.
  const bool unusable = mpi::all_reduce(comm, output::h5::library_unusable(), std::logical_or<>());
  if (unusable) {
    std::cout.flush();
    std::cerr.flush();
    comm.barrier();
    std::_Exit(code);
  }
  return code;
}

}  // namespace sipsim::app
