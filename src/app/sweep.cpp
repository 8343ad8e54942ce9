// `sipsim sweep`: a study file into a study directory (manifest, expanded
// scenarios, a Slurm job-array script), run here with --local, or its state
// with --status (docs/studies.md).
#include "sweep.hpp"

#include <spdlog/fmt/fmt.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>

#include "csv.hpp"
#include "sipsim/app/commands.hpp"
#include "sipsim/base/files.hpp"
#include "sipsim/base/yaml_reader.hpp"
#include "study_dir.hpp"

namespace sipsim::app {

namespace {

namespace fs = std::filesystem;

void error(const std::string& message) {
  std::cerr << "sipsim: error: " << message << "\n";
}

std::string manifest_text(const Study& study) {
  std::vector<std::string> header = {"run"};
  header.insert(header.end(), study.columns.begin(), study.columns.end());
  header.insert(header.end(), {"seed", "scenario", "output", "ranks"});
  std::string out = csv_row(header);
  for (const StudyRun& r : study.runs) {
    std::vector<std::string> row = {r.id};
    row.insert(row.end(), r.values.begin(), r.values.end());
    row.insert(row.end(), {r.seed, "scenarios/" + r.id + ".yaml", "runs/" + r.id + ".h5",
                           std::to_string(study.ranks)});
    out += csv_row(row);
  }
  return out;
}

// The study's identity: FNV-1a (64 bits) over its manifest and every run's
// expanded scenario. Not a defence against forgery, a guard against mixing
// two studies' runs in one directory.
std::string study_id(const std::string& manifest, const std::vector<std::string>& bodies) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto add = [&h](const std::string& s) {
    for (const char c : s) {
      h ^= static_cast<unsigned char>(c);
      h *= 0x100000001b3ull;
    }
    h ^= 0xff;  // a separator no text holds (they are UTF-8)
    h *= 0x100000001b3ull;
  };
  add(manifest);
  for (const std::string& b : bodies) add(b);
  return fmt::format("{:016x}", h);
}

fs::path study_dir(const SweepArgs& args) {
  if (!args.output.empty()) return fs::absolute(args.output).lexically_normal();
  const fs::path f = fs::absolute(args.study).lexically_normal();
  return f.parent_path() / f.stem();
}

int status(const Study& study, const fs::path& dir) {
  if (base::file_kind(dir) != base::FileKind::kDirectory ||
      base::file_kind(dir / "manifest.csv") != base::FileKind::kRegular) {
    error(dir.string() + ": no study directory here (sipsim sweep writes it; -o names another)");
    return kExitBadInput;
  }
  if (const std::string why = layout_problem(dir); !why.empty()) {
    error(why);
    return kExitBadInput;
  }
  std::map<RunState, int> count;
  std::vector<std::string> failures;
  const std::set<std::string> partial = partial_runs(dir);
  for (const StudyRun& r : study.runs) {
    const RunStatus s = run_status(dir, r.id, partial);
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

// "" when the directory may take this study: it is new, or it holds this
// same study (its manifest and scenarios unchanged), or it holds no run,
// partial run or log of another. Else why not.
std::string other_study(const fs::path& dir, const std::string& manifest, const Study& study,
                        const std::vector<std::string>& bodies) {
  const fs::path old = dir / "manifest.csv";
  if (base::file_kind(old) == base::FileKind::kMissing) return "";
  bool same = true;
  try {
    same = base::read_regular_file(old, manifest.size() + 1) == manifest;
    for (std::size_t i = 0; same && i < study.runs.size(); ++i) {
      const fs::path f = dir / "scenarios" / (study.runs[i].id + ".yaml");
      same = scenario_body(base::read_regular_file(f, bodies[i].size() + (1 << 16))) == bodies[i];
    }
  } catch (const base::FileError&) {
    same = false;
  }
  if (same) return "";
  std::size_t runs = 0, partial = 0, logs = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir / "runs", ec)) {
    const std::string f = e.path().filename().string();
    (f.ends_with(".partial") ? partial : runs) += 1;
  }
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir / "logs", ec)) ++logs;
  if (runs + partial + logs == 0) return "";
  return fmt::format(
      "{}: holds runs of a different study (its manifest.csv or scenarios differ): {} run "
      "files, {} partial (running) and {} logs; use -o for a new directory, or remove {} and {}",
      dir.string(), runs, partial, logs, (dir / "runs").string(), (dir / "logs").string());
}

// The study's files, written whole each; the manifest last, since a
// manifest means the directory is complete.
void write_study(const Study& study, const fs::path& dir, const std::string& manifest,
                 const std::vector<std::string>& bodies, const std::string& id) {
  if (const std::string why = layout_problem(dir); !why.empty()) throw std::runtime_error(why);
  for (const char* sub : {"scenarios", "runs", "logs"}) fs::create_directories(dir / sub);
  for (std::size_t i = 0; i < study.runs.size(); ++i) {
    base::write_file_atomic(dir / "scenarios" / (study.runs[i].id + ".yaml"),
                            scenario_header(study, study.runs[i], id) + bodies[i]);
  }
  base::write_file_atomic(dir / "submit.sh", submit_text(study, dir, sipsim_binary()), 0755);
  base::write_file_atomic(dir / "manifest.csv", manifest);
}

}  // namespace

int sweep_command(const SweepArgs& args) {
  Study study;
  try {
    study = read_study(args.study, args.max_runs);
  } catch (const base::ScenarioError& e) {
    error(e.what());
    return kExitBadInput;
  }
  const fs::path dir = study_dir(args);
  if (args.status) return status(study, dir);
  if (args.local) {
    if (const std::string why = local_launch_problem(study); !why.empty()) {
      error(why);
      return kExitBadInput;
    }
  }

  // Every run is expanded and checked before anything is written.
  std::string base_text;
  try {
    base_text = base::read_regular_file(study.scenario, base::kMaxScenarioBytes);
  } catch (const base::FileError& e) {
    error(e.what());
    return kExitBadInput;
  }
  std::vector<std::string> bodies;
  std::size_t invalid = 0;
  for (const StudyRun& r : study.runs) {
    try {
      bodies.push_back(expand_and_check(study, r, base_text));
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

  std::optional<StudyLock> lock;
  try {
    const std::string manifest = manifest_text(study);
    fs::create_directories(dir);
    lock.emplace(dir);
    if (const std::string why = other_study(dir, manifest, study, bodies); !why.empty()) {
      error(why);
      return kExitBadInput;
    }
    write_study(study, dir, manifest, bodies, study_id(manifest, bodies));
  } catch (const std::exception& e) {
    error(dir.string() + ": " + e.what());
    return kExitBadInput;
  }
  if (!args.local) {
    const std::size_t chunks = array_chunks(study);
    const std::string submit =
        chunks == 1 ? "sbatch " + (dir / "submit.sh").string()
                    : fmt::format("bash {} ({} job arrays)", (dir / "submit.sh").string(), chunks);
    std::cout << fmt::format(
        "{}: {} runs checked and written (manifest.csv, scenarios/, submit.sh)\n"
        "  on Slurm: {}    here: sipsim sweep {} --local -j N\n",
        dir.string(), study.runs.size(), submit, args.study);
    return kExitOk;
  }
  return run_local(study, dir, std::max(1u, args.jobs));
}

int done_command(const std::string& scenario, const std::string& run_file) {
  const std::string why = done_problem(run_file, scenario, true);
  if (why.empty()) {
    std::cout << run_file << ": a finished run of " << scenario << "\n";
    return kExitOk;
  }
  std::cerr << "sipsim: " << why << "\n";
  return kExitRunFailed;
}

}  // namespace sipsim::app
