// submit.sh (docs/studies.md, "On Slurm"): the study's Slurm job array. Every
// value that reaches the script is either checked to be one line (names,
// time limits: read_study) or quoted here: for the shell (the directory,
// the binary) and for sbatch's own parser of #SBATCH lines (the log path).
#include <spdlog/fmt/fmt.h>

#include <filesystem>
#include <stdexcept>

#include "sipsim/base/text.hpp"
#include "sweep.hpp"

namespace sipsim::app {

namespace {

namespace fs = std::filesystem;

// One shell word: single quotes, each ' written as '\'' (POSIX sh §2.2.2:
// nothing is special between single quotes).
std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

// An #SBATCH file name: sbatch reads these lines itself, splitting at
// spaces and taking '#' as a comment, but a double-quoted value is one word
// in which a backslash escapes '"' and '\\'. '%' (Slurm's pattern character,
// as in %A) is doubled: "%%" is a literal '%'.
// `pattern` is appended as it is, inside the quotes.
std::string sbatch_path(const std::string& s, const std::string& pattern) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '%') {
      out += "%%";
    } else {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
  }
  return out + pattern + "\"";
}

// The job name Slurm shows (squeue, sacct): the study's name with every
// character but letters, digits, '_', '-' and '.' made '_'.
std::string job_name(const std::string& name) {
  std::string out;
  for (const char c : name) out += word_char(c) ? c : '_';
  return out;
}

// The #SBATCH lines: the study's own, then its slurm: options in the order
// of the docs' table, then its extra options as given (all checked words).
std::string sbatch_lines(const Study& study, const std::string& where, const std::string& array) {
  const SlurmOptions& o = study.slurm;
  std::string out = fmt::format("#SBATCH --job-name={}\n", job_name(study.name));
  if (!array.empty()) out += fmt::format("#SBATCH --array={}\n", array);
  out += fmt::format("#SBATCH --ntasks={}\n#SBATCH --time={}\n#SBATCH --output={}\n", study.ranks,
                     study.time_limit, sbatch_path(where, "/logs/slurm-%A_%a.out"));
  const std::pair<const char*, const std::string*> words[] = {
      {"partition", &o.partition}, {"account", &o.account},      {"qos", &o.qos}, {"mem", &o.mem},
      {"gres", &o.gres},           {"constraint", &o.constraint}};
  for (const auto& [option, value] : words) {
    if (!value->empty()) out += fmt::format("#SBATCH --{}={}\n", option, *value);
  }
  if (o.cpus_per_task > 0) out += fmt::format("#SBATCH --cpus-per-task={}\n", o.cpus_per_task);
  for (const std::string& e : o.extra) out += "#SBATCH " + e + "\n";
  return out;
}

// Run by hand, not as an array task: sbatch each job array, passing on the
// script's arguments as sbatch options. As a batch job that is no array task
// (`sbatch submit.sh` of a study of several arrays), it refuses: only the
// first array would run.
std::string submitter(const Study& study) {
  const std::size_t tasks = array_tasks(study), chunks = array_chunks(study);
  const std::size_t m = study.slurm.max_array_size;
  const std::string throttle =
      study.max_parallel > 0 ? fmt::format("%{}", study.max_parallel) : std::string();
  std::string out = fmt::format(
      R"sh(if [ -z "${{SLURM_ARRAY_TASK_ID:-}}" ]; then
  if [ "${{0##*/}}" = slurm_script ]; then
    echo "submit.sh: study '{name}' is {chunks} job arrays of at most {m} tasks (max_array_size): submit them all with: bash $PWD/submit.sh" >&2
    exit 2
  fi
  rc=0
)sh",
      fmt::arg("name", job_name(study.name)), fmt::arg("chunks", chunks), fmt::arg("m", m));
  if (chunks == 1) {
    out += "  sbatch \"$@\" submit.sh || rc=$?\n";
  } else {
    for (std::size_t c = 0; c < chunks; ++c) {
      const std::size_t len = std::min(m, tasks - c * m);
      out += fmt::format("  sbatch \"$@\" --array=0-{}{} submit.sh {} || rc=$?\n", len - 1,
                         throttle, c * m);
    }
  }
  return out + "  exit \"$rc\"\nfi\n";
}

// The task: runs task*K .. task*K+K-1 (the manifest's rows), one after
// another. A run file that is a finished run of its scenario skips the run
// at once, so a resubmission reruns only what is missing, failed or damaged.
std::string task_part(const Study& study, const std::string& self) {
  const SlurmOptions& o = study.slurm;
  std::string out = fmt::format(
      R"sh(offset=${{1:-0}}
case $offset in
  '' | *[!0-9]*) echo "submit.sh: the task offset '$offset' is not a number" >&2; exit 2 ;;
esac
task=$((SLURM_ARRAY_TASK_ID + offset))
sipsim=${{SIPSIM:-{self}}}
)sh",
      fmt::arg("self", self));
  if (!o.prelude.empty()) {
    // The user's own shell lines, as written; -u off, since site scripts
    // (module, conda) read unset variables.
    out += "# slurm.prelude, as the study gives it:\nset +u\n";
    for (const std::string& line : o.prelude) out += line + "\n";
    out += "set -u\n";
  }
  std::string srun = "srun";
  if (o.mpi != "none") srun += " --mpi=" + o.mpi;
  // Slurm 22.05 to 23.02 do not pass sbatch's --cpus-per-task on to srun.
  if (o.cpus_per_task > 0) srun += fmt::format(" --cpus-per-task={}", o.cpus_per_task);
  out += fmt::format(
      R"sh(# What an earlier attempt left (a partial file, a damaged run file, its logs)
# is replaced; files are created anew, never written through a link. A task
# that is stopped (scancel, its time limit) marks its current run 143 and
# starts no other.
set -o noclobber
id=
term=0
trap 'term=1; if [ -n "$id" ]; then rm -f "logs/$id.rc"; echo 143 > "logs/$id.rc"; fi' TERM
status=0
for ((i = task * {k}; i < (task + 1) * {k} && i < {n}; i++)); do
  [ "$term" = 0 ] || exit 143
  line=$(sed -n "$((i + 2))p" manifest.csv)
  id=${{line%%,*}}
  case $id in
    '' | *[!0-9]*) echo "no manifest row for run $i (task $task)" >&2; id=; status=2; continue ;;
  esac
  if "$sipsim" validate "scenarios/$id.yaml" --done "runs/$id.h5" > /dev/null 2>&1; then
    echo "run $id: done already"
    continue
  fi
  rm -f "runs/$id.h5" "runs/$id.h5".*.partial "logs/$id.rc" "logs/$id.out" "logs/$id.err"
  {srun} "$sipsim" run "scenarios/$id.yaml" -o "runs/$id.h5" -q \
    >"logs/$id.out" 2>"logs/$id.err"
  rc=$?
  [ "$term" = 0 ] || rc=143
  rm -f "logs/$id.rc"
  echo "$rc" > "logs/$id.rc"
  [ "$term" = 0 ] || exit 143
  [ "$rc" = 0 ] || status=$rc
done
exit "$status"
)sh",
      fmt::arg("k", o.runs_per_task), fmt::arg("n", study.runs.size()), fmt::arg("srun", srun));
  return out;
}

}  // namespace

std::string submit_text(const Study& study, const fs::path& dir, const std::string& sipsim) {
  const std::string where = dir.string();
  if (const std::string problem = base::one_line_problem(where); !problem.empty()) {
    throw std::invalid_argument("the study directory's path " + problem +
                                "; submit.sh could not name it safely (use -o DIR)");
  }
  if (const std::string problem = base::one_line_problem(sipsim); !problem.empty()) {
    throw std::invalid_argument("the sipsim binary's path " + problem);
  }
  const std::size_t n = study.runs.size(), tasks = array_tasks(study);
  const std::size_t chunks = array_chunks(study);
  const std::string qdir = shell_quote(where);
  const std::string qstudy = shell_quote(fs::absolute(study.file).lexically_normal().string());
  std::string head =
      fmt::format("#!/bin/bash\n# Slurm job array of study '{}' ({} runs", study.name, n);
  if (study.slurm.runs_per_task > 1) {
    head += fmt::format(", {} per task, {} tasks", study.slurm.runs_per_task, tasks);
  }
  head += "), written by sipsim sweep.\n";
  // One array: sbatch submits it as it is. Several (more tasks than
  // max_array_size): this script, run by hand, submits each, with its
  // tasks' offset as argument; it has no --array of its own.
  std::string array;
  if (chunks == 1) {
    array = fmt::format("0-{}", tasks - 1);
    if (study.max_parallel > 0) array += fmt::format("%{}", study.max_parallel);
    head += fmt::format("# Submit: sbatch {}/submit.sh   Then: sipsim sweep {} --status\n", qdir,
                        qstudy);
  } else {
    head += fmt::format(
        "# {} job arrays of at most {} tasks. Submit: bash {}/submit.sh   Then: sipsim sweep {} "
        "--status\n",
        chunks, study.slurm.max_array_size, qdir, qstudy);
  }
  return head + sbatch_lines(study, where, array) + "set -u\ncd " + qdir + " || exit 1\n" +
         submitter(study) + task_part(study, shell_quote(sipsim));
}

}  // namespace sipsim::app
