// sipsim: argument parsing only; each command is in its own file of src/app/.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <charconv>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/app/commands.hpp"
#include "sipsim/app/export.hpp"
#include "sipsim/app/launch.hpp"
#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/version.hpp"
#include "sweep.hpp"

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

}  // namespace

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
  const std::vector<std::string> commands = {"run",  "validate", "analyze", "compare",
                                             "info", "export",   "sweep",   "collect"};
  const std::string command_list = "run, validate, analyze, compare, info, export, sweep, collect";

  RunArgs run;
  CLI::App* run_cmd = cli.add_subcommand("run", "simulate a scenario and write its run file");
  run_cmd->add_option("scenario", run.scenario, "scenario YAML file")->required();
  run_cmd->add_option(
      "-o,--output", run.output,
      "HDF5 run file (default: the scenario file's stem + .h5 in the working directory)");
  run_cmd->add_flag("--force", run.force, "overwrite an existing run file");
  run_cmd->add_flag("-q,--quiet", run.quiet, "no progress lines");
  run_cmd->add_option("--set", run.overrides, "override a scenario key: key.path=value")
      ->take_all()
      ->allow_extra_args(false);

  std::string validate_path, validate_done;
  std::vector<std::string> validate_overrides;
  CLI::App* validate_cmd =
      cli.add_subcommand("validate", "load and check a scenario without running it");
  validate_cmd->add_option("scenario", validate_path, "scenario YAML file")->required();
  CLI::Option* validate_set =
      validate_cmd
          ->add_option("--set", validate_overrides, "override a scenario key: key.path=value")
          ->allow_extra_args(false);
  validate_cmd
      ->add_option("--done", validate_done,
                   "only check that this run file is a finished run of the scenario (exit 0) "
                   "or not (exit 1, saying why); submit.sh asks this")
      ->excludes(validate_set);

  std::string analyze_path;
  std::vector<std::string> analyze_overrides;
  CLI::App* analyze_cmd =
      cli.add_subcommand("analyze", "critical-path and idle-fabric estimates for a scenario");
  analyze_cmd->add_option("scenario", analyze_path, "scenario YAML file")->required();
  analyze_cmd->add_option("--set", analyze_overrides, "override a scenario key: key.path=value")
      ->allow_extra_args(false);
  std::uint64_t max_work = sipsim::analytical::kDefaultMaxWork;
  const std::string max_work_help =
      "most member-steps one estimate may evaluate (larger ones are skipped)";
  analyze_cmd->add_option("--max-work", max_work, max_work_help)
      ->check(whole_number(1, ~std::uint64_t{0}));

  std::vector<std::string> compare_paths;
  std::vector<std::string> compare_overrides;
  bool compare_csv = false;
  CLI::App* compare_cmd = cli.add_subcommand(
      "compare", "estimate scenarios side by side: best algorithm each, speed-up of the first");
  compare_cmd
      ->add_option("scenarios", compare_paths, "scenario YAML files (the first is the reference)")
      ->required()
      ->expected(2, -1);
  compare_cmd
      ->add_option("--set", compare_overrides, "override a key in every scenario: key.path=value")
      ->allow_extra_args(false);
  compare_cmd->add_flag("--csv", compare_csv, "comma-separated output");
  compare_cmd->add_option("--max-work", max_work, max_work_help)
      ->check(whole_number(1, ~std::uint64_t{0}));

  std::string info_path;
  std::vector<std::string> info_overrides;
  int info_ranks = 0;
  CLI::App* info_cmd = cli.add_subcommand("info", "fabric facts: nodes, links, lookahead, power");
  info_cmd->add_option("scenario", info_path, "scenario YAML file")->required();
  info_cmd->add_option("--ranks", info_ranks, "rank count for the partition and lookahead")
      ->check(whole_number(1, 1u << 24));
  std::string info_owners;
  info_cmd->add_option("--owners", info_owners,
                       "write the owning rank of every LP (one per line) to this file instead");
  info_cmd->add_option("--set", info_overrides, "override a scenario key: key.path=value")
      ->allow_extra_args(false);

  ExportArgs export_args;
  CLI::App* export_cmd =
      cli.add_subcommand("export", "a run file as a timeline: Chrome trace JSON (Perfetto)");
  export_cmd->add_option("run_file", export_args.run_file, "HDF5 run file")->required();
  export_cmd->add_flag("--chrome-trace", export_args.chrome_trace, "Chrome trace event JSON")
      ->required();
  export_cmd->add_option("-o,--output", export_args.output,
                         "JSON file (default: the run file's stem + .json)");
  export_cmd
      ->add_option("--max-nodes", export_args.max_nodes,
                   "most GPU tracks; more nodes are sampled evenly (0: all)")
      ->check(whole_number(0, ~std::uint64_t{0}));
  export_cmd->add_flag("--force", export_args.force, "overwrite an existing JSON file");

  SweepArgs sweep;
  CLI::App* sweep_cmd = cli.add_subcommand(
      "sweep", "expand a study into checked runs and a Slurm job array, or run it here");
  sweep_cmd->add_option("study", sweep.study, "study YAML file (docs/studies.md)")->required();
  sweep_cmd->add_option("-o,--output", sweep.output,
                        "study directory (default: next to the study file, named after it)");
  CLI::Option* local =
      sweep_cmd->add_flag("--local", sweep.local, "run the study here, skipping finished runs");
  sweep_cmd->add_option("-j,--jobs", sweep.jobs, "with --local: runs at a time")
      ->check(whole_number(1, 4096))
      ->needs(local);
  sweep_cmd->add_flag("--status", sweep.status, "count done, running, failed and pending runs")
      ->excludes(local);
  sweep_cmd
      ->add_option(
          "--max-runs", sweep.max_runs,
          "most runs the study may expand to (default " + std::to_string(kDefaultMaxRuns) + ")")
      ->check(whole_number(1, ~std::uint64_t{0}));
  std::string collect_dir, collect_level = "run";
  CLI::App* collect_cmd =
      cli.add_subcommand("collect", "merge a study's run files into results.csv and results.h5");
  collect_cmd->add_option("dir", collect_dir, "study directory")->required();
  collect_cmd->add_option("--level", collect_level, "a row per run, collective or iteration")
      ->check(CLI::IsMember({"run", "collective", "iteration"}));

  // Usage errors: one line, "sipsim: error: ...", naming the command's help.
  // Only rank 0 talks; --help and --version exit 0, usage errors exit 2.
  auto usage_error = [&](const std::string& message, std::string_view command) {
    if (rank == 0) {
      std::cerr << "sipsim: error: " << message << " (see 'sipsim " << command
                << (command.empty() ? "" : " ") << "--help')\n";
    }
    return kExitBadInput;
  };
  if (argc > 1 && argv[1][0] != '-' &&
      std::find(commands.begin(), commands.end(), argv[1]) == commands.end()) {
    std::string message =
        "unknown command '" + std::string(argv[1]) + "'; expected one of " + command_list;
    if (std::string guess = sipsim::base::closest_match(argv[1], commands); !guess.empty()) {
      message += "; did you mean '" + guess + "'?";
    }
    return usage_error(message, "");
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
      message = "a command is required: one of " + command_list;
    }
    return usage_error(message, command);
  }

  // Studies only read and write files and start other sipsim processes: no MPI.
  if (*sweep_cmd) return sweep_command(sweep);
  if (*collect_cmd) return collect_command(collect_dir, collect_level);
  // A run file's check needs no MPI either (submit.sh runs it outside srun).
  if (*validate_cmd && !validate_done.empty()) return done_command(validate_path, validate_done);

  // Declared before the environment, so removed after MPI_Finalize.
  const SingletonSession session = prefer_light_singleton();
  const boost::mpi::environment env(argc, argv, false);
  const boost::mpi::communicator world;
  if (*run_cmd) return run_command(run, world);
  if (*validate_cmd) return validate_command(validate_path, validate_overrides, world);
  if (*analyze_cmd) return analyze_command(analyze_path, analyze_overrides, max_work, world);
  if (*compare_cmd)
    return compare_command(compare_paths, compare_overrides, compare_csv, max_work, world);
  if (*info_cmd) {
    return info_command(info_path, info_overrides, info_ranks > 0 ? info_ranks : world.size(),
                        info_owners, world);
  }
  if (*export_cmd) return export_command(export_args, world);
  return kExitBadInput;
}
