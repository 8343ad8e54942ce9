#pragma once
// The run file of DESIGN.md §6 (schema: docs/output.md). Written collectively
// by all ranks to FILE.partial and renamed to FILE only when complete, so a
// crash never leaves a file that looks finished.
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "sipsim/output/h5.hpp"

namespace sipsim::output {

inline constexpr std::uint64_t kFormatVersion = 1;

struct RunMetadata {
  std::string sipsim_version;
  std::string git_revision;
  std::string scenario_yaml;
  std::string scenario_path;
  std::string scenario_name;
  std::string overrides;  // the --set arguments, one per line
  std::uint64_t ranks = 1;
  std::uint64_t seed = 0;
  std::string started_utc;  // ISO 8601
  double wall_seconds = 0;
  std::uint64_t committed_events = 0;
  double events_per_second = 0;
  std::uint64_t end_time_ps = 0;    // timestamp of the last committed event
  std::uint64_t time_limit_ps = 0;  // simulation.end_time (2^64-1: none)
  std::uint64_t lookahead_ps = 0;   // window width (2^64-1: sequential engine)
  std::uint64_t windows = 0;
  std::uint64_t remote_events = 0;
  std::uint64_t epochs = 0;  // global controller epochs run (DESIGN.md §2)
  std::string engine;
  std::uint64_t peak_rss_bytes = 0;  // sum over ranks of each rank's peak resident memory
};

class RunFile {
 public:
  // Creates `path`.partial on all ranks of `comm`; throws h5::Error naming
  // the destination when it cannot be written.
  static RunFile create(const std::string& path, MPI_Comm comm);
  RunFile(RunFile&&) noexcept = default;
  RunFile& operator=(RunFile&&) = delete;
  RunFile(const RunFile&) = delete;
  // Not committed: the partial file is closed and removed.
  ~RunFile();

  h5::File& h5() { return *file_; }
  const std::string& path() const { return path_; }
  std::string partial_path() const { return path_ + ".partial"; }

  void write_meta(const RunMetadata& meta);
  // /lp/events and /lp/digest: one entry per LP; each rank gives its LPs
  // (ascending ids) and their values.
  void write_lp_stats(std::uint64_t lp_count, std::span<const std::uint64_t> local_lps,
                      std::span<const std::uint64_t> events, std::span<const std::uint64_t> digest);
  // Closes the file and renames it to its final name (collective).
  void commit();

 private:
  RunFile(std::string path, h5::File file, MPI_Comm comm);
  std::string path_;
  std::optional<h5::File> file_;
  MPI_Comm comm_;
  bool committed_ = false;
};

}  // namespace sipsim::output
