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
  const std::size_t n = study.runs.size();
  std::string array = fmt::format("0-{}", n - 1);
  if (study.max_parallel > 0) array += fmt::format("%{}", study.max_parallel);
  const std::string study_file = fs::absolute(study.file).lexically_normal().string();
  // The task's part: the manifest's row i (line i + 2) names the run; a run
  // file that is a finished run of its scenario ends the task at once, so a
  // resubmission reruns only what is missing, failed or damaged.
  return fmt::format(
      R"(#!/bin/bash
# Slurm job array of study '{name}' ({n} runs), written by sipsim sweep.
# Submit: sbatch {qdir}/submit.sh   Then: sipsim sweep {qstudy} --status
#SBATCH --job-name={job}
#SBATCH --array={array}
#SBATCH --ntasks={ranks}
#SBATCH --time={time}
#SBATCH --output={out}
set -u
cd {qdir} || exit 1
sipsim=${{SIPSIM:-{self}}}
line=$(sed -n "$((SLURM_ARRAY_TASK_ID + 2))p" manifest.csv)
id=${{line%%,*}}
case $id in
  '' | *[!0-9]*) echo "no manifest row for task $SLURM_ARRAY_TASK_ID" >&2; exit 2 ;;
esac
if "$sipsim" validate "scenarios/$id.yaml" --done "runs/$id.h5" > /dev/null 2>&1; then
  echo "run $id: done already"
  exit 0
fi
# What an earlier attempt left (a partial file, a damaged run file, its logs)
# is replaced; files are created anew, never written through a link.
rm -f "runs/$id.h5" "runs/$id.h5".*.partial "logs/$id.rc" "logs/$id.out" "logs/$id.err"
set -o noclobber
trap 'rm -f "logs/$id.rc"; echo 143 > "logs/$id.rc"' TERM
srun --mpi=pmix "$sipsim" run "scenarios/$id.yaml" -o "runs/$id.h5" -q \
  >"logs/$id.out" 2>"logs/$id.err"
rc=$?
rm -f "logs/$id.rc"
echo "$rc" > "logs/$id.rc"
exit "$rc"
)",
      fmt::arg("name", study.name), fmt::arg("n", n), fmt::arg("qdir", shell_quote(where)),
      fmt::arg("qstudy", shell_quote(study_file)), fmt::arg("job", job_name(study.name)),
      fmt::arg("array", array), fmt::arg("ranks", study.ranks), fmt::arg("time", study.time_limit),
      fmt::arg("out", sbatch_path(where, "/logs/slurm-%A_%a.out")),
      fmt::arg("self", shell_quote(sipsim)));
}

}  // namespace sipsim::app
