// sipsim: argument parsing only; each command is in its own file of src/app/.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "share.hpp"
#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/app/commands.hpp"
#include "sipsim/app/export.hpp"
#include "sipsim/app/launch.hpp"
#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/version.hpp"
#include "sweep.hpp"

namespace sipsim::app {
namespace {

// A whole number in [min, max], as `sipsim: error: --ranks: must be ...`.
// Parsed exactly: a number past 2^64 - 1 is refused, not saturated.
CLI::Validator whole_number(std::uint64_t min, std::uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& input) -> std::string {
        std::uint64_t v = 0;
        const char* end = input.data() + input.size();
        const auto [ptr, ec] = std::from_chars(input.data(), end, v);
        const bool whole = !input.empty() &&
                           input.find_first_not_of("0123456789") == std::string::npos &&
                           ec == std::errc() && ptr == end;
        if (whole && v >= min && v <= max) return "";
        return "must be a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
               ", got '" + input + "'";
      },
      "", "");
}

const std::vector<std::string>& command_names() {
  static const std::vector<std::string> kNames = {"run",  "validate", "analyze", "compare",
                                                  "info", "export",   "sweep",   "collect"};
  return kNames;
}
constexpr const char* kCommandList =
    "run, validate, analyze, compare, info, export, sweep, collect";
constexpr const char* kMaxWorkHelp =
    "most member-steps one estimate may evaluate (larger ones are skipped)";
constexpr const char* kSetHelp = "override a scenario key: key.path=value";

// Every command's arguments. CLI11 keeps pointers to them: main declares
// them once and they never move.
struct Args {
  RunArgs run;
  std::string validate_path, validate_done;
  std::vector<std::string> validate_overrides;
  std::string analyze_path;
  std::vector<std::string> analyze_overrides;
  std::uint64_t max_work = analytical::kDefaultMaxWork;  // analyze's and compare's
  std::vector<std::string> compare_paths;
  std::vector<std::string> compare_overrides;
  bool compare_csv = false, compare_force = false;
  InfoOptions info;
  ExportArgs export_args;
  SweepArgs sweep;
  std::string collect_dir, collect_level = "run";
};

// The commands, to tell which one the command line named.
struct Commands {
  CLI::App* run;
  CLI::App* validate;
  CLI::App* analyze;
  CLI::App* compare;
  CLI::App* info;
  CLI::App* export_cmd;
  CLI::App* sweep;
  CLI::App* collect;
};

CLI::App* add_run(CLI::App& cli, RunArgs& run) {
  CLI::App* cmd = cli.add_subcommand("run", "simulate a scenario and write its run file");
  cmd->add_option("scenario", run.scenario, "scenario YAML file")->required();
  cmd->add_option(
      "-o,--output", run.output,
      "HDF5 run file (default: the scenario file's stem + .h5 in the working directory)");
  cmd->add_flag("--force", run.force, "overwrite an existing run file");
  cmd->add_flag("-q,--quiet", run.quiet, "no progress lines");
  cmd->add_flag("--check-bounds", run.check_bounds,
                "debug: check every program-derived lookahead bound against what happens "
                "(slower; an error names the node and op that broke one)");
  cmd->add_option("--set", run.overrides, kSetHelp)->take_all()->allow_extra_args(false);
  return cmd;
}

CLI::App* add_validate(CLI::App& cli, Args& a) {
  CLI::App* cmd = cli.add_subcommand("validate", "load and check a scenario without running it");
  cmd->add_option("scenario", a.validate_path, "scenario YAML file")->required();
  CLI::Option* set =
      cmd->add_option("--set", a.validate_overrides, kSetHelp)->allow_extra_args(false);
  cmd->add_option("--done", a.validate_done,
                  "only check that this run file is a finished run of the scenario (exit 0) "
                  "or not (exit 1, saying why); submit.sh asks this")
      ->excludes(set);
  return cmd;
}

CLI::App* add_analyze(CLI::App& cli, Args& a) {
  CLI::App* cmd =
      cli.add_subcommand("analyze", "critical-path and idle-fabric estimates for a scenario");
  cmd->add_option("scenario", a.analyze_path, "scenario YAML file")->required();
  cmd->add_option("--set", a.analyze_overrides, kSetHelp)->allow_extra_args(false);
  cmd->add_option("--max-work", a.max_work, kMaxWorkHelp)
      ->check(whole_number(1, ~std::uint64_t{0}));
  return cmd;
}

CLI::App* add_compare(CLI::App& cli, Args& a) {
  CLI::App* cmd = cli.add_subcommand(
      "compare",
      "scenarios side by side against the first: collectives estimated (best algorithm each), "
      "training jobs simulated (iteration time, TFLOP/s, breakdown)");
  cmd->add_option("scenarios", a.compare_paths,
                  "scenario YAML files, or run files (.h5) of training jobs; the first is the "
                  "reference")
      ->required()
      ->expected(2, -1);
  cmd->add_flag("--force", a.compare_force,
                "training jobs: run again where <stem>.h5 here is already a finished run");
  cmd->add_option("--set", a.compare_overrides, "override a key in every scenario: key.path=value")
      ->allow_extra_args(false);
  cmd->add_flag("--csv", a.compare_csv, "comma-separated output");
  cmd->add_option("--max-work", a.max_work, kMaxWorkHelp)
      ->check(whole_number(1, ~std::uint64_t{0}));
  return cmd;
}

CLI::App* add_info(CLI::App& cli, Args& a) {
  CLI::App* cmd = cli.add_subcommand("info", "fabric facts: nodes, links, lookahead, power");
  cmd->add_option("scenario", a.info.scenario, "scenario YAML file")->required();
  cmd->add_option("--ranks", a.info.ranks, "rank count for the partition and lookahead")
      ->check(whole_number(1, 1u << 24));
  CLI::Option* owners =
      cmd->add_option("--owners", a.info.owners,
                      "write the owning rank of every LP (one per line) to this file instead");
  cmd->add_option("--run", a.info.run,
                  "a finished run file of this scenario: predict the efficiency at 2, 16, 64 and "
                  "256 ranks from it (docs/scaling.md)")
      ->excludes(owners);
  cmd->add_option("--set", a.info.overrides, kSetHelp)->allow_extra_args(false);
  return cmd;
}

CLI::App* add_export(CLI::App& cli, ExportArgs& a) {
  CLI::App* cmd =
      cli.add_subcommand("export", "a run file as a timeline: Chrome trace JSON (Perfetto)");
  cmd->add_option("run_file", a.run_file, "HDF5 run file")->required();
  cmd->add_flag("--chrome-trace", a.chrome_trace, "Chrome trace event JSON")->required();
  cmd->add_option("-o,--output", a.output, "JSON file (default: the run file's stem + .json)");
  cmd->add_option("--max-nodes", a.max_nodes,
                  "most GPU tracks; more nodes are sampled evenly (0: all)")
      ->check(whole_number(0, ~std::uint64_t{0}));
  cmd->add_flag("--force", a.force, "overwrite an existing JSON file");
  return cmd;
}

CLI::App* add_sweep(CLI::App& cli, SweepArgs& a) {
  CLI::App* cmd = cli.add_subcommand(
      "sweep", "expand a study into checked runs and a Slurm job array, or run it here");
  cmd->add_option("study", a.study, "study YAML file (docs/studies.md)")->required();
  cmd->add_option("-o,--output", a.output,
                  "study directory (default: next to the study file, named after it)");
  CLI::Option* local =
      cmd->add_flag("--local", a.local, "run the study here, skipping finished runs");
  cmd->add_option("-j,--jobs", a.jobs, "with --local: runs at a time")
      ->check(whole_number(1, 4096))
      ->needs(local);
  cmd->add_flag("--status", a.status, "count done, running, failed and pending runs")
      ->excludes(local);
  cmd->add_option(
         "--max-runs", a.max_runs,
         "most runs the study may expand to (default " + std::to_string(kDefaultMaxRuns) + ")")
      ->check(whole_number(1, ~std::uint64_t{0}));
  return cmd;
}

CLI::App* add_collect(CLI::App& cli, Args& a) {
  CLI::App* cmd =
      cli.add_subcommand("collect", "merge a study's run files into results.csv and results.h5");
  cmd->add_option("dir", a.collect_dir, "study directory")->required();
  cmd->add_option("--level", a.collect_level, "a row per run, collective or iteration")
      ->check(CLI::IsMember({"run", "collective", "iteration"}));
  return cmd;
}

// In the order `sipsim --help` lists them.
Commands add_commands(CLI::App& cli, Args& a) {
  return {add_run(cli, a.run),     add_validate(cli, a), add_analyze(cli, a),
          add_compare(cli, a),     add_info(cli, a),     add_export(cli, a.export_args),
          add_sweep(cli, a.sweep), add_collect(cli, a)};
}

// Usage errors: one line, "sipsim: error: ...", naming the command's help.
// Only rank 0 talks; --help and --version exit 0, usage errors exit 2.
int usage_error(int rank, const std::string& message, std::string_view command) {
  if (rank == 0) {
    std::cerr << "sipsim: error: " << message << " (see 'sipsim " << command
              << (command.empty() ? "" : " ") << "--help')\n";
  }
  return kExitBadInput;
}

// Parses the command line; the exit code where sipsim ends here (--help,
// --version, usage errors).
std::optional<int> parse_command_line(CLI::App& cli, int argc, char** argv, int rank) {
  const std::vector<std::string>& commands = command_names();
  if (argc > 1 && argv[1][0] != '-' &&
      std::find(commands.begin(), commands.end(), argv[1]) == commands.end()) {
    std::string message =
        "unknown command '" + std::string(argv[1]) + "'; expected one of " + kCommandList;
    if (std::string guess = base::closest_match(argv[1], commands); !guess.empty()) {
      message += "; did you mean '" + guess + "'?";
    }
    return usage_error(rank, message, "");
  }
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      if (rank == 0) cli.exit(e);
      return kExitOk;
    }
    std::string command;
    for (const CLI::App* sub : cli.get_subcommands()) command = sub->get_name();
    std::string message = e.what();
    if (message == "A subcommand is required") {
      message = std::string("a command is required: one of ") + kCommandList;
    }
    return usage_error(rank, message, command);
  }
  return std::nullopt;
}

// A scenario or study not in the working directory is looked for among the
// installed ones (share.hpp); a study found there gets its directory here,
// not in the (often read-only) prefix.
std::optional<int> locate_inputs(const Commands& cmd, Args& a, int rank) {
  std::vector<std::string*> paths;
  if (*cmd.run) paths.push_back(&a.run.scenario);
  if (*cmd.validate) paths.push_back(&a.validate_path);
  if (*cmd.analyze) paths.push_back(&a.analyze_path);
  if (*cmd.info) paths.push_back(&a.info.scenario);
  if (*cmd.sweep) paths.push_back(&a.sweep.study);
  if (*cmd.compare) {
    for (std::string& p : a.compare_paths) paths.push_back(&p);
  }
  for (std::string* path : paths) {
    const std::optional<Located> found = locate_scenario(*path);
    if (!found) {
      if (rank == 0) std::cerr << "sipsim: error: " << where_looked(*path) << "\n";
      return kExitBadInput;
    }
    if (found->from_share && path == &a.sweep.study && a.sweep.output.empty()) {
      a.sweep.output = std::filesystem::path(found->path).stem().string();
    }
    *path = found->path;
  }
  return std::nullopt;
}

// Runs the command the command line named; MPI starts here, for the commands
// that need it.
int run_named(const Commands& cmd, const Args& a, int& argc, char**& argv) {
  // Studies only read and write files and start other sipsim processes: no MPI.
  if (*cmd.sweep) return sweep_command(a.sweep);
  if (*cmd.collect) return collect_command(a.collect_dir, a.collect_level);
  // A run file's check needs no MPI either (submit.sh runs it outside srun).
  if (*cmd.validate && !a.validate_done.empty()) {
    return done_command(a.validate_path, a.validate_done);
  }

  // Declared before the environment, so removed after MPI_Finalize.
  const SingletonSession session = prefer_light_singleton();
  const boost::mpi::environment env(argc, argv, false);
  const boost::mpi::communicator world;
  if (*cmd.run) return run_command(a.run, world);
  if (*cmd.validate) return validate_command(a.validate_path, a.validate_overrides, world);
  if (*cmd.analyze) return analyze_command(a.analyze_path, a.analyze_overrides, a.max_work, world);
  if (*cmd.compare) {
    return compare_command(a.compare_paths, a.compare_overrides, a.compare_csv, a.compare_force,
                           a.max_work, world);
  }
  if (*cmd.info) {
    InfoOptions info = a.info;
    if (cmd.info->count("--ranks") == 0) info.ranks = world.size();
    return info_command(info, world);
  }

  if (*cmd.export_cmd) return export_command(a.export_args, world);
  return kExitBadInput;
}

}  // namespace
}  // namespace sipsim::app

int main(int argc, char** argv) {
  using namespace sipsim::app;
  // The command line is read before MPI starts: --help, --version and usage
  // errors cost no MPI start-up. Only rank 0 (as the launcher numbers it)
  // talks.
  const int rank = launcher_rank();

  CLI::App cli{
      "sipsim: parallel discrete-event simulation of distributed training on optical "
      "interconnects"};
  cli.set_version_flag(
      "--version", std::string("sipsim ") + sipsim::kVersion + " (" + sipsim::kGitRevision + ")");
  cli.require_subcommand(1);
  Args args;
  const Commands commands = add_commands(cli, args);
  if (const std::optional<int> exit = parse_command_line(cli, argc, argv, rank)) return *exit;
  if (const std::optional<int> exit = locate_inputs(commands, args, rank)) return *exit;
  return run_named(commands, args, argc, argv);
}
