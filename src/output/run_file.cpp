#include "sipsim/output/run_file.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <utility>
#include <vector>

namespace sipsim::output {

namespace {

// Rank 0's `text` on every rank.
std::string broadcast(MPI_Comm comm, std::string text) {
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, 0, comm);
  return text;
}

// 64 random bits as 16 hex digits: unique among runs without coordination.
std::string random_run_id() {
  std::uint64_t bits = 0;
  if (getrandom(&bits, sizeof bits, 0) != static_cast<ssize_t>(sizeof bits)) {
    std::random_device device;
    bits = (std::uint64_t{device()} << 32) ^ device();
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(bits));
  return hex;
}

// The host's short name, safe in a file name.
std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "host";
  std::string host(buf);
  host = host.substr(0, host.find('.'));
  for (char& c : host) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!plain && c != '-') c = '_';
  }
  return host.empty() ? "host" : host;
}

std::string errno_text(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

// Rank 0: moves the finished partial file to its final name.
std::string publish(const std::string& partial, const Destination& d) {
  const std::string& to = d.path;
  const std::string cannot = "cannot rename '" + partial + "' to '" + to + "'";
  if (d.replace) {
    // What is there now may not be what was checked before the run.
    if (std::string problem = check_destination(d); !problem.empty()) return problem;
    if (std::rename(partial.c_str(), to.c_str()) != 0) return errno_text(cannot);
    return {};
  }
  const std::string appeared =
      "output '" + to +
      "' appeared during the run (another run?); it was not replaced and this run's results "
      "were discarded (--force replaces it)";
  // Atomic and never replaces: of two runs publishing at once, one fails.
  if (renameat2(AT_FDCWD, partial.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return {};
  if (errno == EEXIST) return appeared;
  if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) return errno_text(cannot);
  // The file system cannot rename without replacing (NFS): link() does not
  // replace either.
  if (::link(partial.c_str(), to.c_str()) == 0) {
    ::unlink(partial.c_str());
    return {};
  }
  if (errno == EEXIST) return appeared;
  if (errno != EPERM && errno != EOPNOTSUPP) return errno_text(cannot);
  // Nor hard links (some FUSE file systems): only a check, then a rename,
  // can do, which misses a file that appears in between.
  struct stat st {};
  if (::lstat(to.c_str(), &st) == 0) return appeared;
  if (std::rename(partial.c_str(), to.c_str()) != 0) return errno_text(cannot);
  return {};
}

}  // namespace

RunFile RunFile::create(Destination destination, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string run_id, partial, problem;
  if (rank == 0) {
    run_id = random_run_id();
    partial = destination.path + "." + host_name() + "." + std::to_string(getpid()) + "." + run_id +
              ".partial";
    problem = check_free_space(destination.path);
  }
  if (problem = broadcast(comm, problem); !problem.empty()) throw h5::Error(problem, ENOSPC);
  run_id = broadcast(comm, run_id);
  partial = broadcast(comm, partial);
  h5::File file = h5::File::create(partial, comm);
  RunFile run(std::move(destination), std::move(partial), std::move(run_id), std::move(file), comm);
  h5::write_attr(run.file_->id(), "format", std::string_view("sipsim"));
  h5::write_attr(run.file_->id(), "format_version", kFormatVersion);
  return run;
}

RunFile::RunFile(Destination destination, std::string partial, std::string run_id, h5::File file,
                 MPI_Comm comm)
    : destination_(std::move(destination)),
      partial_(std::move(partial)),
      run_id_(std::move(run_id)),
      file_(std::move(file)),
      comm_(comm) {}

RunFile::RunFile(RunFile&& other) noexcept
    : destination_(std::move(other.destination_)),
      partial_(std::exchange(other.partial_, {})),
      run_id_(std::move(other.run_id_)),
      file_(std::exchange(other.file_, std::nullopt)),
      comm_(other.comm_),
      committed_(other.committed_) {}

int RunFile::rank() const {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  return rank;
}

RunFile::~RunFile() {
  if (committed_ || partial_.empty() || !file_) return;
  // The file is discarded: its name goes first, so that nothing is left
  // even if the process is killed while closing (mpirun sends SIGKILL soon
  // after SIGTERM), and so do its blocks, which a full disk needs for the
  // metadata that closing writes.
  if (rank() == 0) {
    (void)::truncate(partial_.c_str(), 0);
    ::unlink(partial_.c_str());
  }
  if (!room_for_metadata().empty()) {
    file_->abandon();
    return;
  }
  try {
    file_->close();
  } catch (const h5::Error&) {
    // Reported by h5::library_unusable().
  }
}

std::string RunFile::room_for_metadata() const {
  std::string problem;
  if (rank() == 0 && file_->id() >= 0) {
    problem = check_free_space(partial_, file_->cached_metadata_bytes());
  }
  return broadcast(comm_, problem);
}

void RunFile::remove_existing() {
  std::string problem;
  if (rank() == 0) {
    problem = check_destination(destination_);
    if (problem.empty() && ::unlink(destination_.path.c_str()) != 0 && errno != ENOENT) {
      problem = errno_text("cannot remove the old output '" + destination_.path + "'");
    }
  }
  if (problem = broadcast(comm_, problem); !problem.empty()) throw h5::Error(problem);
}

void RunFile::write_meta(const RunMetadata& m) {
  h5::Handle g = file_->create_group("/meta");
  const hid_t id = g.get();
  h5::write_attr(id, "run_id", std::string_view(run_id_));
  h5::write_attr(id, "sipsim_version", std::string_view(m.sipsim_version));
  h5::write_attr(id, "git_revision", std::string_view(m.git_revision));
  h5::write_attr(id, "scenario_yaml", std::string_view(m.scenario_yaml));
  h5::write_attr(id, "scenario_path", std::string_view(m.scenario_path));
  h5::write_attr(id, "scenario_name", std::string_view(m.scenario_name));
  h5::write_attr(id, "overrides", std::string_view(m.overrides));
  h5::write_attr(id, "ranks", m.ranks);
  h5::write_attr(id, "seed", m.seed);
  h5::write_attr(id, "started_utc", std::string_view(m.started_utc));
  h5::write_attr(id, "wall_seconds", m.wall_seconds);
  h5::write_attr(id, "committed_events", m.committed_events);
  h5::write_attr(id, "events_per_second", m.events_per_second);
  h5::write_attr(id, "end_time_ps", m.end_time_ps);
  h5::write_attr(id, "time_limit_ps", m.time_limit_ps);
  h5::write_attr(id, "lookahead_ps", m.lookahead_ps);
  h5::write_attr(id, "windows", m.windows);
  h5::write_attr(id, "remote_events", m.remote_events);
  h5::write_attr(id, "epochs", m.epochs);
  h5::write_attr(id, "engine", std::string_view(m.engine));
  h5::write_attr(id, "peak_rss_bytes", m.peak_rss_bytes);
  const RunMetadata::Scaling& sc = m.scaling;
  h5::write_attr(id, "remote_fraction", sc.remote_fraction);
  h5::write_attr(id, "critical_path_events", sc.critical_path_events);
  h5::write_attr(id, "busy_seconds_max", sc.busy_seconds_max);
  h5::write_attr(id, "busy_seconds_mean", sc.busy_seconds_mean);
  h5::write_attr(id, "critical_path_seconds", sc.critical_path_seconds);
  h5::write_attr(id, "sync_fraction", sc.sync_fraction);
  h5::write_attr(id, "imbalance_fraction", sc.imbalance_fraction);
  h5::write_attr(id, "window_events_mean", sc.window_events_mean);
  h5::write_attr(id, "window_events_p50", sc.window_events_p50);
  h5::write_attr(id, "window_events_p99", sc.window_events_p99);
  h5::write_attr(id, "window_events_max", sc.window_events_max);
  h5::write_attr(id, "window_events_bucket_low", std::span<const std::uint64_t>(sc.bucket_low));
  h5::write_attr(id, "window_events_histogram", std::span<const std::uint64_t>(sc.histogram));
  const std::array<std::uint64_t, 2> shape{m.ranks, sc.bucket_low.size()};
  h5::write_attr(id, "rank_window_events_histogram",
                 std::span<const std::uint64_t>(sc.rank_histogram), shape);
  h5::write_attr(id, "rank_events", std::span<const std::uint64_t>(sc.rank_events));
  h5::write_attr(id, "rank_busy_seconds", std::span<const double>(sc.rank_busy_seconds));
  h5::write_attr(id, "rank_window_events_mean",
                 std::span<const double>(sc.rank_window_events_mean));
  h5::write_attr(id, "rank_window_events_p50",
                 std::span<const std::uint64_t>(sc.rank_window_events_p50));
  h5::write_attr(id, "rank_window_events_p99",
                 std::span<const std::uint64_t>(sc.rank_window_events_p99));
  h5::write_attr(id, "rank_window_events_max",
                 std::span<const std::uint64_t>(sc.rank_window_events_max));
  if (!sc.predicted_ranks.empty()) {
    h5::write_attr(id, "predicted_efficiency_ranks",
                   std::span<const std::uint64_t>(sc.predicted_ranks));
    h5::write_attr(id, "predicted_efficiency", std::span<const double>(sc.predicted_efficiency));
  }
}

void RunFile::write_lp_stats(std::uint64_t lp_count, std::span<const std::uint64_t> local_lps,
                             std::span<const std::uint64_t> events,
                             std::span<const std::uint64_t> digest, int rank) {
  file_->create_group("/lp");
  h5::Handle ev = h5::write_distributed(*file_, "/lp/events", lp_count, local_lps, events);
  h5::write_attr(ev.get(), "units", std::string_view("events"));
  h5::Handle dg = h5::write_distributed(*file_, "/lp/digest", lp_count, local_lps, digest);
  h5::write_attr(dg.get(), "description",
                 std::string_view("order-sensitive hash of (time, src, seq, kind) of the events "
                                  "each LP processed; equal at every rank count"));
  // Where each LP ran: the partition of this rank count (machine-dependent,
  // hence in /meta).
  const std::vector<std::uint64_t> ranks(local_lps.size(), static_cast<std::uint64_t>(rank));
  h5::Handle part = h5::write_distributed(*file_, "/meta/partition", lp_count, local_lps, ranks);
  h5::write_attr(part.get(), "description",
                 std::string_view("the rank that ran each LP (LP ids as /lp)"));
}

void RunFile::commit() {
  // HDF5 must not try a metadata write that cannot succeed (h5::File::create).
  // A write of raw data that failed without HDF5 noticing (Open MPI's
  // collective I/O can lose a short write) also shows here: the disk is full.
  if (std::string problem = room_for_metadata(); !problem.empty()) {
    throw h5::Error("cannot write the file's metadata: " + problem, ENOSPC);
  }
  file_->flush();
  file_->close();
  std::string problem = rank() == 0 ? publish(partial_, destination_) : std::string();
  if (problem = broadcast(comm_, problem); !problem.empty()) throw PublishError(problem);
  committed_ = true;
}

}  // namespace sipsim::output
