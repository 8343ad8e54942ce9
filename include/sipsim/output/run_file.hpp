#pragma once
// The run file of docs/output.md (schema: docs/output.md; life cycle:
// docs/user-guide.md). Written collectively by all ranks to a partial file of
// the run's own, FILE.<host>.<pid>.<run id>.partial, and renamed to FILE only
// when complete, so a crash never leaves a file that looks finished and two
// runs never write into one file.
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "sipsim/output/destination.hpp"
#include "sipsim/output/h5.hpp"

namespace sipsim::output {

// 2: /iterations has period_ps and hardware_tflops_per_gpu (1: tflops_per_gpu,
// and no period); docs/output.md.
inline constexpr std::uint64_t kFormatVersion = 2;

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
  std::uint64_t epochs = 0;  // global controller epochs run (docs/architecture.md)
  std::string engine;
  std::uint64_t peak_rss_bytes = 0;  // sum over ranks of each rank's peak resident memory
  // What predicting scaling needs (docs/scaling.md, docs/output.md).
  struct Scaling {
    double remote_fraction = 0;
    std::uint64_t critical_path_events = 0;
    double busy_seconds_max = 0, busy_seconds_mean = 0, critical_path_seconds = 0;
    double sync_fraction = 0, imbalance_fraction = 0;
    // Events per window per rank, over all ranks.
    double window_events_mean = 0;
    std::uint64_t window_events_p50 = 0, window_events_p99 = 0, window_events_max = 0;
    std::vector<std::uint64_t> bucket_low;      // histogram buckets' lower bounds (K)
    std::vector<std::uint64_t> histogram;       // K: rank-windows per bucket
    std::vector<std::uint64_t> rank_histogram;  // ranks x K
    // Per rank.
    std::vector<std::uint64_t> rank_events;
    std::vector<double> rank_busy_seconds;
    std::vector<double> rank_window_events_mean;
    std::vector<std::uint64_t> rank_window_events_p50, rank_window_events_p99,
        rank_window_events_max;
    // The scaling model's predicted efficiency at these rank counts, from
    // this run (empty for a sequential run).
    std::vector<std::uint64_t> predicted_ranks;
    std::vector<double> predicted_efficiency;
  } scaling;
};

// The finished file could not be put under its name (one appeared there
// during the run, or the rename failed); the partial file is removed.
class PublishError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RunFile {
 public:
  // Rank 0 draws the run id and names the partial file, every rank of `comm`
  // creates it (exclusively: it never opens an existing file). Throws
  // h5::Error when it cannot be created; system_error() is ENOSPC when the
  // file system is (nearly) full.
  static RunFile create(Destination destination, MPI_Comm comm);
  RunFile(RunFile&& other) noexcept;
  RunFile& operator=(RunFile&&) = delete;
  RunFile(const RunFile&) = delete;
  // Not committed: the partial file is closed and removed (collective).
  ~RunFile();

  h5::File& h5() { return *file_; }
  const std::string& path() const { return destination_.path; }
  const std::string& partial_path() const { return partial_; }
  // 16 hex digits, random: in the partial's name and in /meta.
  const std::string& run_id() const { return run_id_; }

  // --force: removes the file at the destination now, after checking again
  // that it may be replaced, so a run that fails from here on leaves neither
  // the old file nor a partial one. Collective; throws h5::Error.
  void remove_existing();
  void write_meta(const RunMetadata& meta);
  // /lp/events and /lp/digest: one entry per LP; each rank gives its LPs
  // (ascending ids) and their values. Also /meta/partition, the rank that
  // ran each LP (`rank` is this one's; /meta written first).
  void write_lp_stats(std::uint64_t lp_count, std::span<const std::uint64_t> local_lps,
                      std::span<const std::uint64_t> events, std::span<const std::uint64_t> digest,
                      int rank);
  // Writes out, closes and renames the file to path() (collective). Without
  // `replace` a file that appeared at path() during the run is never
  // replaced: that is an error. Throws h5::Error (writing) or PublishError
  // on every rank.
  void commit();

 private:
  RunFile(Destination destination, std::string partial, std::string run_id, h5::File file,
          MPI_Comm comm);
  int rank() const;
  // "" on every rank when the disk has room for the metadata that closing
  // the file writes, else why not (collective).
  std::string room_for_metadata() const;

  Destination destination_;
  std::string partial_;  // empty once moved from
  std::string run_id_;
  std::optional<h5::File> file_;
  MPI_Comm comm_;
  bool committed_ = false;
};

}  // namespace sipsim::output
