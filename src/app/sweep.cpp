// `sipsim sweep`: a study file into a study directory (manifest, expanded
// scenarios, a Slurm job-array script), run here with --local, or its state
// with --status (docs/studies.md).
#include "sweep.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <spdlog/fmt/fmt.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "sipsim/app/commands.hpp"
#include "sipsim/base/yaml_reader.hpp"

extern char** environ;

namespace sipsim::app {

namespace {

namespace fs = std::filesystem;

void error(const std::string& message) {
  std::cerr << "sipsim: error: " << message << "\n";
}

// Written whole or not at all: a temporary file renamed over the target.
void write_file(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) throw std::runtime_error(tmp.string() + ": cannot write");
  }
  fs::rename(tmp, path);
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// The line of a log that says what went wrong: the last one naming an error,
// else the last one with any letter or digit (not a rule of dashes).
std::string last_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line, last, last_error;
  while (std::getline(in, line)) {
    std::string lower = line;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower.find("error") != std::string::npos) last_error = line;
    if (std::any_of(line.begin(), line.end(), [](unsigned char c) { return std::isalnum(c); })) {
      last = line;
    }
  }
  return last_error.empty() ? last : last_error;
}

std::string manifest_text(const Study& study) {
  std::string out = "run";
  for (const std::string& c : study.columns) out += "," + csv_field(c);
  out += ",seed,scenario,output,ranks\n";
  for (const StudyRun& r : study.runs) {
    out += r.id;
    for (const std::string& v : r.values) out += "," + csv_field(v);
    out += fmt::format(",{},scenarios/{}.yaml,runs/{}.h5,{}\n", r.seed, r.id, r.id, study.ranks);
  }
  return out;
}

std::string self_path() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("sipsim") : p.string();
}

// The job array: task i runs the manifest's row i (line i + 2), unless its run
// file is already there (a resubmission reruns only what is missing).
std::string submit_text(const Study& study, const fs::path& dir) {
  const std::size_t n = study.runs.size();
  std::string array = fmt::format("0-{}", n - 1);
  if (study.max_parallel > 0) array += fmt::format("%{}", study.max_parallel);
  return fmt::format(R"(#!/bin/bash
# Slurm job array of study '{name}' ({n} runs), written by sipsim sweep.
# Submit: sbatch {dir}/submit.sh   Then: sipsim sweep {study} --status
#SBATCH --job-name={name}
#SBATCH --array={array}
#SBATCH --ntasks={ranks}
#SBATCH --time={time}
#SBATCH --output={dir}/logs/slurm-%A_%a.out
set -u
cd '{dir}' || exit 1
sipsim=${{SIPSIM:-'{self}'}}
line=$(sed -n "$((SLURM_ARRAY_TASK_ID + 2))p" manifest.csv)
id=${{line%%,*}}
[ -n "$id" ] || {{ echo "no manifest row for task $SLURM_ARRAY_TASK_ID" >&2; exit 2; }}
if [ -f "runs/$id.h5" ]; then echo "run $id: done already"; exit 0; fi
# A run killed earlier may have left its partial file: this task replaces it.
rm -f "runs/$id.h5".*.partial "logs/$id.rc"
trap 'echo 143 > "logs/$id.rc"' TERM
srun --mpi=pmix "$sipsim" run "scenarios/$id.yaml" -o "runs/$id.h5" -q \
  >"logs/$id.out" 2>"logs/$id.err"
rc=$?
echo "$rc" > "logs/$id.rc"
exit "$rc"
)",
                     fmt::arg("name", study.name), fmt::arg("n", n), fmt::arg("dir", dir.string()),
                     fmt::arg("study", fs::absolute(study.file).lexically_normal().string()),
                     fmt::arg("array", array), fmt::arg("ranks", study.ranks),
                     fmt::arg("time", study.time_limit), fmt::arg("self", self_path()));
}

fs::path study_dir(const SweepArgs& args) {
  if (!args.output.empty()) return fs::absolute(args.output).lexically_normal();
  const fs::path f = fs::absolute(args.study).lexically_normal();
  return f.parent_path() / f.stem();
}

int status(const Study& study, const fs::path& dir) {
  std::map<RunState, int> count;
  std::vector<std::string> failures;
  for (const StudyRun& r : study.runs) {
    const RunStatus s = run_status(dir, r.id);
    ++count[s.state];
    if (s.state == RunState::kFailed) failures.push_back("  " + r.id + ": " + s.last_error);
  }
  std::cout << fmt::format("{}: {} runs: {} done, {} running, {} failed, {} pending\n",
                           dir.string(), study.runs.size(), count[RunState::kDone],
                           count[RunState::kRunning], count[RunState::kFailed],
                           count[RunState::kPending]);
  for (const std::string& f : failures) std::cout << f << "\n";
  return kExitOk;
}

struct Child {
  std::string id;
  std::chrono::steady_clock::time_point start;
};

// Runs every run not done, `jobs` at a time, in the study directory.
int run_local(const Study& study, const fs::path& dir, unsigned jobs) {
  fs::current_path(dir);
  const std::string sipsim = self_path();
  std::vector<const StudyRun*> todo;
  for (const StudyRun& r : study.runs) {
    if (run_status(".", r.id).state != RunState::kDone) todo.push_back(&r);
  }
  const std::size_t skipped = study.runs.size() - todo.size();
  std::cout << fmt::format("{}: {} runs, {} done already, {} to run, {} at a time\n", dir.string(),
                           study.runs.size(), skipped, todo.size(), jobs)
            << std::flush;
  std::map<pid_t, Child> running;
  std::size_t next = 0, finished = 0, failed = 0;
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && running.size() < jobs) {
      const std::string& id = todo[next++]->id;
      std::error_code ec;
      for (const auto& e : fs::directory_iterator("runs", ec)) {
        const std::string f = e.path().filename().string();
        if (f.starts_with(id + ".h5.") && f.ends_with(".partial")) fs::remove(e.path(), ec);
      }
      fs::remove("logs/" + id + ".rc", ec);
      std::vector<std::string> argv;
      if (study.ranks > 1) {
        argv = {"mpirun", "-n", std::to_string(study.ranks), "--oversubscribe"};
      }
      argv.insert(argv.end(),
                  {sipsim, "run", "scenarios/" + id + ".yaml", "-o", "runs/" + id + ".h5", "-q"});
      std::vector<char*> cargv;
      for (std::string& a : argv) cargv.push_back(a.data());
      cargv.push_back(nullptr);
      posix_spawn_file_actions_t actions;
      posix_spawn_file_actions_init(&actions);
      const std::string out = "logs/" + id + ".out", err = "logs/" + id + ".err";
      posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                       0644);
      posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                       0644);
      pid_t pid = 0;
      const int rc = posix_spawnp(&pid, cargv[0], &actions, nullptr, cargv.data(), environ);
      posix_spawn_file_actions_destroy(&actions);
      if (rc != 0) {
        error(fmt::format("run {}: cannot start {}: {}", id, cargv[0], std::strerror(rc)));
        write_file("logs/" + id + ".rc", "127\n");
        ++failed;
        ++finished;
        continue;
      }
      running[pid] = {id, std::chrono::steady_clock::now()};
    }
    if (running.empty()) break;
    int wstatus = 0;
    const pid_t pid = ::waitpid(-1, &wstatus, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const Child child = it->second;
    running.erase(it);
    const int code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    write_file("logs/" + child.id + ".rc", std::to_string(code) + "\n");
    ++finished;
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - child.start).count();
    if (code == 0 && fs::exists("runs/" + child.id + ".h5")) {
      std::cout << fmt::format("[{}/{}] run {} done in {:.1f} s\n", finished, todo.size(), child.id,
                               s);
    } else {
      ++failed;
      std::cout << fmt::format("[{}/{}] run {} failed (exit {}): {}\n", finished, todo.size(),
                               child.id, code, last_line("logs/" + child.id + ".err"));
    }
    std::cout << std::flush;
  }
  std::cout << fmt::format("{}: {} done, {} failed\n", dir.string(), study.runs.size() - failed,
                           failed);
  return failed == 0 ? kExitOk : kExitRunFailed;
}

}  // namespace

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::vector<std::string> csv_split(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

RunStatus run_status(const fs::path& dir, const std::string& id) {
  std::error_code ec;
  if (fs::is_regular_file(dir / "runs" / (id + ".h5"), ec)) return {RunState::kDone, ""};
  bool partial = false;
  for (const auto& e : fs::directory_iterator(dir / "runs", ec)) {
    const std::string f = e.path().filename().string();
    if (f.starts_with(id + ".h5.") && f.ends_with(".partial")) partial = true;
  }
  const fs::path rc = dir / "logs" / (id + ".rc"), err = dir / "logs" / (id + ".err");
  const bool started = fs::exists(err, ec);
  std::string why = started ? last_line(err) : "";
  if (fs::exists(rc, ec)) {
    const std::string code = last_line(rc);
    if (why.empty()) why = code == "0" ? "exit 0 but no run file" : "exit " + code;
    return {RunState::kFailed, why};
  }
  if (partial) return {RunState::kRunning, ""};
  if (started) {
    return {RunState::kFailed,
            why.empty() ? "stopped without a run file or exit status (killed?)" : why};
  }
  return {RunState::kPending, ""};
}

int sweep_command(const SweepArgs& args) {
  Study study;
  try {
    study = read_study(args.study);
  } catch (const base::ScenarioError& e) {
    error(e.what());
    return kExitBadInput;
  }
  const fs::path dir = study_dir(args);
  if (args.status) return status(study, dir);

  // Every run is expanded and checked before anything is written.
  const std::string base_text = read_text(study.scenario);
  std::vector<std::string> texts;
  std::size_t invalid = 0;
  for (const StudyRun& r : study.runs) {
    try {
      texts.push_back(expand_and_check(study, r, base_text));
    } catch (const base::ScenarioError& e) {
      if (++invalid <= 10) {
        std::string values;
        for (const std::string& o : run_overrides(study, r))
          values += (values.empty() ? "" : ", ") + o;
        error(fmt::format("run {} ({}): {}", r.id, values.empty() ? "the base scenario" : values,
                          e.what()));
      }
    }
  }
  if (invalid > 0) {
    error(
        fmt::format("{} of {} runs are invalid; nothing was written", invalid, study.runs.size()));
    return kExitBadInput;
  }

  try {
    const std::string manifest = manifest_text(study);
    std::error_code ec;
    const fs::path old = dir / "manifest.csv";
    if (fs::exists(old, ec) && read_text(old) != manifest) {
      for (const auto& e : fs::directory_iterator(dir / "runs", ec)) {
        if (e.path().extension() == ".h5") {
          error(dir.string() +
                ": holds runs of a different study (its manifest.csv differs); use -o for a new "
                "directory, or remove " +
                (dir / "runs").string());
          return kExitBadInput;
        }
      }
    }
    fs::create_directories(dir / "scenarios");
    fs::create_directories(dir / "runs");
    fs::create_directories(dir / "logs");
    for (std::size_t i = 0; i < study.runs.size(); ++i) {
      write_file(dir / "scenarios" / (study.runs[i].id + ".yaml"), texts[i]);
    }
    write_file(dir / "submit.sh", submit_text(study, dir));
    fs::permissions(dir / "submit.sh", fs::perms::owner_exec | fs::perms::group_exec,
                    fs::perm_options::add);
    write_file(old, manifest);  // last: a manifest means the directory is complete
  } catch (const std::exception& e) {
    error(dir.string() + ": " + e.what());
    return kExitBadInput;
  }
  if (!args.local) {
    std::cout << fmt::format(
        "{}: {} runs checked and written (manifest.csv, scenarios/, submit.sh)\n"
        "  on Slurm: sbatch {}/submit.sh    here: sipsim sweep {} --local -j N\n",
        dir.string(), study.runs.size(), dir.string(), args.study);
    return kExitOk;
  }
  return run_local(study, dir, std::max(1u, args.jobs));
}

}  // namespace sipsim::app
