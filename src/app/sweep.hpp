#pragma once
// Parameter studies (docs/studies.md): a study file expanded into runs
// (sweep_study.cpp), `sipsim sweep` (sweep.cpp) and `sipsim collect`
// (collect.cpp). Both commands run before MPI starts: they only read and
// write files and start other processes.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sipsim::app {

// One run of a study: the base scenario with `values` applied as --set overrides.
struct StudyRun {
  std::string id;                   // "0000", "0001", ...: its manifest row and file names
  std::vector<std::string> values;  // one per Study::columns, as YAML text ("" when unset)
  // The columns in the order the run applies them: a point's keys as written (a whole
  // section, then one of its keys); empty: Study::columns' order (axes).
  std::vector<std::size_t> order;
  std::string seed;  // "" when the study sets no seeds
};

struct Study {
  std::filesystem::path file;        // the study file as given
  std::string name;                  // name: (default: the file's stem)
  std::filesystem::path scenario;    // the base scenario, resolved against the study's directory
  std::vector<std::string> columns;  // axis key paths, in order of first appearance
  std::vector<StudyRun> runs;
  std::uint32_t ranks = 1;
  std::string time_limit = "01:00:00";  // Slurm --time
  std::uint32_t max_parallel = 0;       // the array's %M; 0: no limit
};

// Reads and expands the study file; throws base::ScenarioError located at the
// study file's key on any problem.
Study read_study(const std::string& path);

// key.path=value for every value the run sets, then seed=N: the --set
// overrides that make its scenario.
std::vector<std::string> run_overrides(const Study& study, const StudyRun& run);

// The expanded scenario of a run as YAML text, after checking it as
// `sipsim validate` would at the study's rank count; throws
// base::ScenarioError (located at the override that caused it, or the base
// scenario's line) when it is invalid.
std::string expand_and_check(const Study& study, const StudyRun& run, const std::string& base_text);

// The state of one run in a study directory, from its run file, partial files
// and logs (docs/studies.md, "Status").
enum class RunState { kDone, kRunning, kFailed, kPending };
struct RunStatus {
  RunState state = RunState::kPending;
  std::string last_error;  // kFailed: the last line of logs/<id>.err, or why
};
RunStatus run_status(const std::filesystem::path& dir, const std::string& id);

// CSV: one field quoted when it needs it; a line split into fields.
std::string csv_field(const std::string& s);
std::vector<std::string> csv_split(const std::string& line);

struct SweepArgs {
  std::string study;
  std::string output;  // -o; "" = next to the study file, named after it
  bool local = false;
  unsigned jobs = 1;
  bool status = false;
};
int sweep_command(const SweepArgs& args);
// level: run, collective or iteration.
int collect_command(const std::string& dir, const std::string& level);

}  // namespace sipsim::app
