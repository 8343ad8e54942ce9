#pragma once
// Parameter studies (docs/studies.md): a study file expanded into runs
// (sweep_study.cpp), `sipsim sweep` (sweep.cpp), its Slurm script
// (submit_script.cpp), `--local` (sweep_local.cpp) and `sipsim collect`
// (collect.cpp), over a study directory (study_dir.cpp). These commands run
// before MPI starts: they only read and write files and start other
// processes.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sipsim::base {
class MapReader;
}

namespace sipsim::app {

// One run of a study: the base scenario with `yaml` applied as --set overrides.
struct StudyRun {
  std::string id;  // "0000", "0001", ...: its manifest row and file names
  // One per Study::columns ("" when unset): as the manifest shows it (a
  // string as its text), and as YAML that --set reads back as the same value
  // (a quoted string stays a string: "exp #1" is not cut at its #).
  std::vector<std::string> values;
  std::vector<std::string> yaml;
  // The columns in the order the run applies them: a point's keys as written (a whole
  // section, then one of its keys); empty: Study::columns' order (axes).
  std::vector<std::size_t> order;
  std::string seed;  // "" when the study sets no seeds
};

// Most runs a study may expand to unless `sweep --max-runs` allows more:
// each run is a scenario file, a log and a run file.
inline constexpr std::uint64_t kDefaultMaxRuns = 100'000;

// A study's slurm: section (study_slurm.cpp): each string is one word that
// sbatch reads back as written; "" (0) when not given.
struct SlurmOptions {
  std::string partition, account, qos, gres, constraint;
  std::string mem;                   // per node, Slurm memory syntax (4G, 500M)
  std::uint32_t cpus_per_task = 0;   // also given to srun (Slurm 22.05 does not pass it on)
  std::string mpi = "pmix";          // srun --mpi=; "none": srun without --mpi
  std::vector<std::string> prelude;  // shell lines run before a task's runs, as written
  std::vector<std::string> extra;    // raw #SBATCH options, one each
  // Slurm's default MaxArraySize: array indices are below it, so a longer
  // array is split into several (submit.sh submits each).
  std::uint32_t max_array_size = 1001;
  std::uint32_t runs_per_task = 1;  // consecutive runs one after another in one array task
};

struct Study {
  std::filesystem::path file;        // the study file as given
  std::string name;                  // name: (default: the file's stem)
  std::filesystem::path scenario;    // the base scenario, resolved against the study's directory
  std::vector<std::string> columns;  // axis key paths, in order of first appearance
  std::vector<StudyRun> runs;
  std::uint32_t ranks = 1;
  std::string time_limit = "01:00:00";  // Slurm --time
  std::uint32_t max_parallel = 0;       // each array's %M; 0: no limit
  SlurmOptions slurm;
};

// Reads and expands the study file; throws base::ScenarioError located at the
// study file's key on any problem (more than `max_runs` runs among them).
Study read_study(const std::string& path, std::uint64_t max_runs = kDefaultMaxRuns);

// The study's slurm: section, and time_limit and max_parallel from it or
// from the top level (not both); throws base::ScenarioError located at the key.
void read_slurm(base::MapReader& root, Study& study);
// The array tasks (runs_per_task runs each) and the job arrays of at most
// max_array_size tasks that submit.sh submits.
std::size_t array_tasks(const Study& study);
std::size_t array_chunks(const Study& study);

// key.path=value for every value the run sets, then seed=N: the --set
// overrides that make its scenario.
std::vector<std::string> run_overrides(const Study& study, const StudyRun& run);

// The expanded scenario of a run as YAML text (without its header of
// comments), after checking it as `sipsim validate` would at the study's rank
// count; throws base::ScenarioError (located at the override that caused it,
// or the base scenario's line) when it is invalid.
std::string expand_and_check(const Study& study, const StudyRun& run, const std::string& base_text);
// The comment lines above a run's scenario: where it came from, and the
// study's identity (study_dir.hpp).
std::string scenario_header(const Study& study, const StudyRun& run, const std::string& study_id);

// submit.sh: the Slurm job array of the study in `dir` (submit_script.cpp);
// `sipsim` is the binary that tasks run. Every value is quoted for the shell
// or escaped for sbatch; throws std::invalid_argument for a directory that
// cannot be named in the script (a control character in its path).
std::string submit_text(const Study& study, const std::filesystem::path& dir,
                        const std::string& sipsim);

struct SweepArgs {
  std::string study;
  std::string output;  // -o; "" = next to the study file, named after it
  bool local = false;
  unsigned jobs = 1;
  bool status = false;
  std::uint64_t max_runs = kDefaultMaxRuns;
};
int sweep_command(const SweepArgs& args);
// Runs every run of the study in `dir` that is not done, `jobs` at a time
// (sweep_local.cpp); the caller holds the directory's lock.
int run_local(const Study& study, const std::filesystem::path& dir, unsigned jobs);
// Why --local cannot start the study's runs here, or "": as root, mpirun
// (runs of more than one rank) needs Open MPI's two variables set to 1.
std::string local_launch_problem(const Study& study);
// level: run, collective or iteration.
int collect_command(const std::string& dir, const std::string& level);
// `sipsim validate SCENARIO --done RUN_FILE`: 0 when the run file is a
// finished run of the scenario, 1 (saying why) when not.
int done_command(const std::string& scenario, const std::string& run_file);

}  // namespace sipsim::app
