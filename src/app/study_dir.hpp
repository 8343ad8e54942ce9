#pragma once
// A study directory's files (docs/studies.md): what state each run is in,
// when a run file counts as done, and the lock that keeps two sweeps out of
// one directory. Shared by `sweep`, `sweep --local`, `--status`, `collect`
// and `validate --done` (which submit.sh runs on the compute nodes).
#include <filesystem>
#include <set>
#include <string>

#include "sipsim/base/files.hpp"

namespace sipsim::app {

// "" when `run_file` is a finished sipsim run of the scenario in
// `scenario_file`: the run file opens as one (run_file::Reader's checks), its
// /meta holds what a run writes last, it ran without --set, and the scenario
// text it records equals the file's after their leading comment lines, with
// the same study id where it records one. Else why not, naming the run file.
std::string done_problem(const std::filesystem::path& run_file,
                         const std::filesystem::path& scenario_file, bool allow_symlink);

// The leading comment lines of a scenario that sipsim sweep wrote carry
// "# study-id: <16 hex digits>": the study's identity (a hash of its manifest
// and expanded scenarios), which every run file records with the scenario.
std::string study_id_of(const std::string& scenario_text);
// The text after the leading comment lines.
std::string scenario_body(const std::string& scenario_text);

// The line of a log that says what went wrong (the last one naming an error,
// else the last with a letter or digit), from the log's last 64 KiB, made
// safe to print: one line, cut short, control characters shown as \xNN.
std::string last_line(const std::filesystem::path& path);
// Why a run failed, from its logs/<id>.err: sipsim's own last message (a line
// beginning "sipsim: "), else Slurm's "*** ... CANCELLED ..." line (a time
// limit, scancel), else the last line naming an error, else the last
// with a letter or digit; never a line of Open MPI's banners (text between
// lines of dashes) or a launcher's "exited with non-zero status". "" when
// nothing else is left, but for Open MPI's refusal to run as root, which is
// named with its remedy. Made safe to print as last_line is.
std::string failure_line(const std::filesystem::path& path);

// "" when the study directory's runs/, scenarios/ and logs/ are directories
// of its own (or absent), else why not: a link there would make the study
// read or write another's files.
std::string layout_problem(const std::filesystem::path& dir);

// This sipsim binary's path (what --local and submit.sh run), or "sipsim".
std::string sipsim_binary();

enum class RunState { kDone, kRunning, kFailed, kPending };
struct RunStatus {
  RunState state = RunState::kPending;
  std::string last_error;  // kFailed: failure_line(logs/<id>.err), or why
};

// The ids with a partial run file runs/<id>.h5.*.partial, listed once per
// directory (not once per run).
std::set<std::string> partial_runs(const std::filesystem::path& dir);
RunStatus run_status(const std::filesystem::path& dir, const std::string& id,
                     const std::set<std::string>& partial);

// An exclusive lock on DIR/.sweep.lock, held while a sweep writes the
// directory or runs it with --local; released when destroyed (or when the
// process dies). Throws std::runtime_error naming the holder's pid (the
// caller names the directory).
class StudyLock {
 public:
  explicit StudyLock(const std::filesystem::path& dir);

 private:
  base::Fd fd_;
};

}  // namespace sipsim::app
