#include "sipsim/output/run_file.hpp"

#include <cstdio>
#include <filesystem>

namespace sipsim::output {

RunFile RunFile::create(const std::string& path, MPI_Comm comm) {
  h5::File file = h5::File::create(path + ".partial", comm);
  h5::write_attr(file.id(), "format", std::string_view("sipsim"));
  h5::write_attr(file.id(), "format_version", kFormatVersion);
  return RunFile(path, std::move(file), comm);
}

RunFile::RunFile(std::string path, h5::File file, MPI_Comm comm)
    : path_(std::move(path)), file_(std::move(file)), comm_(comm) {}

RunFile::~RunFile() {
  if (committed_ || !file_) return;
  try {
    file_->close();
  } catch (...) {
    // Best effort: the partial file is removed below either way.
  }
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  if (rank == 0) {
    std::error_code ec;
    std::filesystem::remove(partial_path(), ec);
  }
}

void RunFile::write_meta(const RunMetadata& m) {
  h5::Handle g = file_->create_group("/meta");
  const hid_t id = g.get();
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
}

void RunFile::write_lp_stats(std::uint64_t lp_count, std::span<const std::uint64_t> local_lps,
                             std::span<const std::uint64_t> events,
                             std::span<const std::uint64_t> digest) {
  file_->create_group("/lp");
  h5::Handle ev = h5::write_distributed(*file_, "/lp/events", lp_count, local_lps, events);
  h5::write_attr(ev.get(), "units", std::string_view("events"));
  h5::Handle dg = h5::write_distributed(*file_, "/lp/digest", lp_count, local_lps, digest);
  h5::write_attr(dg.get(), "description",
                 std::string_view("order-sensitive hash of (time, src, seq, kind) of the events "
                                  "each LP processed; equal at every rank count"));
}

void RunFile::commit() {
  file_->close();
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  int ok = 1;
  if (rank == 0) {
    std::error_code ec;
    std::filesystem::rename(partial_path(), path_, ec);
    ok = ec ? 0 : 1;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm_);
  if (!ok) throw h5::Error("cannot rename '" + partial_path() + "' to '" + path_ + "'");
  committed_ = true;
}

}  // namespace sipsim::output
