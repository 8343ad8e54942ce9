#include "estimates.hpp"

#include <mpi.h>
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>

#include "sipsim/compute/roofline.hpp"

namespace sipsim::app {

namespace {
double wall_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

EstimateProgress::EstimateProgress(const boost::mpi::communicator& comm)
    : report_(comm.rank() == 0),
      rank_(comm.rank()),
      ranks_(comm.size()),
      start_(wall_now()),
      last_(start_) {}

void EstimateProgress::add(std::size_t tasks) {
  const auto r = static_cast<std::size_t>(rank_), n = static_cast<std::size_t>(ranks_);
  share_ += tasks > r ? (tasks - r + n - 1) / n : 0;
}

void EstimateProgress::done_one() {
  ++done_;
  const double now = wall_now();
  if (!report_ || now - last_ < 5.0 || done_ >= share_) return;
  report(now, 0.0);
}

void EstimateProgress::within(std::uint64_t member_steps, std::uint64_t total) {
  if (!report_ || total == 0) return;
  const double now = wall_now();
  if (now - last_ < 5.0 || done_ >= share_) return;
  report(now, std::min(1.0, static_cast<double>(member_steps) / static_cast<double>(total)));
}

analytical::Progress EstimateProgress::callback() {
  return [this](std::uint64_t done, std::uint64_t total) { within(done, total); };
}

// `part`: the fraction of the current estimate done (0 between estimates).
void EstimateProgress::report(double now, double part) {
  last_ = now;
  const double elapsed = now - start_;
  const double done = static_cast<double>(done_) + part;
  const std::string current =
      part > 0 ? fmt::format(" (the next {:.0f}% through)", 100 * part) : std::string();
  std::cerr
      << fmt::format(
             "sipsim: estimating: {} of {} done on rank 0{}, {:.0f} s elapsed, ETA {:.0f} s\n",
             done_, share_, current, elapsed, elapsed * (static_cast<double>(share_) - done) / done)
      << std::flush;
}

void EstimateProgress::finish() {
  const double elapsed = wall_now() - start_;
  if (report_ && elapsed >= 5.0) {
    std::cerr << fmt::format("sipsim: estimating: {} estimates on rank 0 in {:.0f} s\n", done_,
                             elapsed)
              << std::flush;
  }
}

std::vector<collective::CollectiveSpec> estimate_tasks(const setup::CollectiveJob& job) {
  const workload::CollectivesConfig& c = job.config;
  std::vector<collective::CollectiveSpec> tasks;
  const auto p = static_cast<std::uint32_t>(job.members.size());
  for (std::uint64_t bytes : workload::sweep_sizes(c)) {
    for (const collective::Algorithm algorithm : collective::all_algorithms()) {
      if (!job.auto_algorithm && algorithm != c.algorithm) continue;
      if (job.auto_algorithm && (!workload::auto_may_choose(c, algorithm) ||
                                 !collective::auto_candidate(collective::traits(algorithm), false,
                                                             !c.auto_among.empty())))
        continue;
      const collective::CollectiveSpec spec = workload::make_spec(c, p, bytes, algorithm);
      if (collective::why_invalid(spec).empty()) tasks.push_back(spec);
    }
  }
  return tasks;
}

std::vector<Estimated> estimate_job(const setup::CollectiveJob& job, std::uint64_t max_work,
                                    const fabric::CostModel& network,
                                    const boost::mpi::communicator& comm,
                                    EstimateProgress& progress, bool with_idle) {
  const workload::CollectivesConfig& c = job.config;
  const std::vector<std::uint32_t>& members = job.members;
  const compute::Roofline roofline(c.accelerator);
  const std::vector<collective::CollectiveSpec> tasks = estimate_tasks(job);
  // Per task: total, compute, h2t, h2h, steps, messages, state (1 done,
  // 2 too large, 3 failed: the rank that ran it reports why), idle total and
  // whether there is one.
  constexpr std::size_t kFields = 9;
  std::vector<std::uint64_t> mine(tasks.size() * kFields, 0), all_rows(mine.size(), 0);
  for (std::size_t i = static_cast<std::size_t>(comm.rank()); i < tasks.size();
       i += static_cast<std::size_t>(comm.size())) {
    std::uint64_t* row = &mine[i * kFields];
    try {
      analytical::EstimateWithIdle both;
      if (with_idle) {
        both = analytical::estimate_critical_path_with_idle(tasks[i], members, network, roofline,
                                                            max_work, progress.callback());
      } else {
        both.critical = analytical::estimate_critical_path(
            tasks[i], members, network, roofline, max_work, analytical::Evaluation::kLevels,
            progress.callback());
      }
      const analytical::CollectiveEstimate& e = both.critical;
      if (both.idle) {
        row[7] = both.idle->total;
        row[8] = 1;
      }
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
    progress.done_one();
  }
  MPI_Reduce(mine.data(), all_rows.data(), static_cast<int>(mine.size()), MPI_UINT64_T, MPI_SUM, 0,
             comm);
  std::vector<Estimated> out;
  if (comm.rank() != 0) return out;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const std::uint64_t* row = &all_rows[i * kFields];
    Estimated e{tasks[i].bytes, tasks[i].algorithm, std::nullopt, {}, std::nullopt};
    if (row[6] == 1) {
      analytical::CollectiveEstimate est;
      est.total = row[0];
      est.compute = row[1];
      est.h2t = row[2];
      est.h2h = row[3];
      est.steps = static_cast<std::uint32_t>(row[4]);
      est.messages = row[5];
      e.estimate = est;
      if (row[8] == 1) e.idle = row[7];
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

}  // namespace sipsim::app
