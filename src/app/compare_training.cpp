// `sipsim compare` on training jobs: each job simulated (or its finished run
// file read), then the figures of every run beside the first's.
#include "compare_training.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>

#include "sipsim/app/commands.hpp"
#include "sipsim/app/common.hpp"
#include "study_dir.hpp"
#include "training_summary.hpp"

namespace sipsim::app {

namespace mpi = boost::mpi;
namespace fs = std::filesystem;

namespace {

struct Compared {
  std::string name, file, fabric, description;
  TrainingSummary t;
};

// Rank 0's decision for one scenario, shared by every rank: "" to run it,
// "reuse" to read its finished run file, or an error.
std::string run_or_reuse(const std::string& scenario, const std::string& file, bool force,
                         bool overrides, const mpi::communicator& comm) {
  std::string decision;
  if (comm.rank() == 0 && !force) {
    std::error_code ec;
    if (fs::exists(file, ec)) {
      const std::string why = done_problem(file, scenario, false);
      if (why.empty() && !overrides) {
        decision = "reuse";
      } else {
        decision = "error:" + file + " exists and is not a finished run of " + scenario +
                   (why.empty() ? " without --set" : " (" + why + ")") +
                   "; use --force to replace it";
      }
    }
  }
  return agree(comm, decision);
}

// Reads one finished training run file (rank 0). Throws run_file::Error.
Compared read_run(const std::string& name, const std::string& file) {
  const output::run_file::Reader in(file);
  if (const std::string why = in.unfinished_reason(); !why.empty()) {
    throw output::run_file::Error(file + ": not a finished run: " + why);
  }
  std::optional<TrainingSummary> t = training_summary(in);
  if (!t) {
    throw output::run_file::Error(file + ": not a training run (no /iterations); compare " +
                                  "estimates collectives scenarios from their YAML files");
  }
  return Compared{name, file, in.string_attr("/fabric", "type", "?"),
                  in.string_attr("/fabric", "description"), std::move(*t)};
}

std::string ms(double s) {
  return std::isnan(s) ? "-" : fmt::format("{:.3f}", s * 1e3);
}

// Every category some run spent time in, in the order the runs name them.
std::vector<std::string> all_categories(const std::vector<Compared>& runs) {
  std::vector<std::string> out;
  for (const Compared& r : runs) {
    for (std::size_t i = 0; i < r.t.categories.size(); ++i) {
      const std::string& c = r.t.categories[i];
      if (r.t.breakdown_s[i] > 0 && std::find(out.begin(), out.end(), c) == out.end()) {
        out.push_back(c);
      }
    }
  }
  return out;
}

double category_s(const Compared& r, const std::string& category) {
  const auto it = std::find(r.t.categories.begin(), r.t.categories.end(), category);
  return it == r.t.categories.end() ? NAN : r.t.breakdown_s[it - r.t.categories.begin()];
}

// "most of the difference: tp-comm +2301.2 ms, bubble +40.1 ms": the two
// categories whose means moved most from the first run's.
std::string where_it_differs(const Compared& first, const Compared& r,
                             const std::vector<std::string>& categories) {
  std::vector<std::pair<double, std::string>> moved;
  for (const std::string& c : categories) {
    const double d = category_s(r, c) - category_s(first, c);
    if (!std::isnan(d) && std::abs(d) > 0) moved.emplace_back(d, c);
  }
  std::sort(moved.begin(), moved.end(),
            [](const auto& a, const auto& b) { return std::abs(a.first) > std::abs(b.first); });
  std::string out;
  for (std::size_t i = 0; i < std::min<std::size_t>(2, moved.size()); ++i) {
    out +=
        fmt::format("{}{} {:+.1f} ms", i == 0 ? "" : ", ", moved[i].second, moved[i].first * 1e3);
  }
  return out;
}

void print_csv(const std::vector<Compared>& runs, const std::vector<std::string>& categories) {
  std::cout << "scenario,run_file,fabric,gpus,iterations,iteration_s,hardware_tflops_per_gpu,"
               "model_tflops_per_gpu,time_over_first";
  for (const std::string& c : categories) std::cout << "," << c << "_s";
  std::cout << "\n";
  for (const Compared& r : runs) {
    std::cout << fmt::format("{},{},{},{},{},{:.9g},{:.6g},{:.6g},{:.6g}", r.name, r.file, r.fabric,
                             r.t.gpus, r.t.iterations, r.t.iteration_s, r.t.hardware_tflops_per_gpu,
                             r.t.model_tflops_per_gpu, r.t.iteration_s / runs[0].t.iteration_s);
    for (const std::string& c : categories) {
      const double v = category_s(r, c);
      std::cout << "," << (std::isnan(v) ? std::string() : fmt::format("{:.9g}", v));
    }
    std::cout << "\n";
  }
}

void print_table(const std::vector<Compared>& runs, const std::vector<std::string>& categories) {
  const Compared& first = runs[0];
  std::size_t w = 12;
  for (const Compared& r : runs) w = std::max(w, r.name.size());
  std::cout << fmt::format(
      "# training, one row per run; time/first = its iteration time / {}'s (above 1: slower)\n"
      "# HW TFLOP/s counts every FLOP the GPUs execute (recomputation too), model TFLOP/s "
      "the model's own\n",
      first.name);
  std::cout << fmt::format("#{:>{}} {:>8} {:>6} {:>14} {:>11} {:>14} {:>10}\n", "scenario", w,
                           "fabric", "GPUs", "iteration(ms)", "HW TFLOP/s", "model TFLOP/s",
                           "time/first");
  for (const Compared& r : runs) {
    std::cout << fmt::format(" {:>{}} {:>8} {:>6} {:>14} {:>11.2f} {:>14.2f} {:>10.2f}\n", r.name,
                             w, r.fabric, r.t.gpus, ms(r.t.iteration_s),
                             r.t.hardware_tflops_per_gpu, r.t.model_tflops_per_gpu,
                             r.t.iteration_s / first.t.iteration_s);
  }
  std::cout << "# where the mean GPU's iteration went (ms; categories where no run spent time "
               "left out; docs/glossary.md defines them):\n";
  std::cout << fmt::format("#{:>15}", "category");
  for (const Compared& r : runs) std::cout << fmt::format(" {:>{}}", r.name, w);
  std::cout << "\n";
  for (const std::string& c : categories) {
    std::cout << fmt::format(" {:>15}", c);
    for (const Compared& r : runs) std::cout << fmt::format(" {:>{}}", ms(category_s(r, c)), w);
    std::cout << "\n";
  }
  for (const Compared& r : runs) {
    std::cout << "# " << r.name << ": " << r.description << "\n";
  }
  for (std::size_t i = 1; i < runs.size(); ++i) {
    const double ratio = runs[i].t.iteration_s / first.t.iteration_s;
    const std::string moved = where_it_differs(first, runs[i], categories);
    std::cout << fmt::format("# {} takes {:.2f}x the time of {}{}{}\n", runs[i].name, ratio,
                             first.name, moved.empty() ? "" : "; most of the difference: ", moved);
  }
}

}  // namespace

bool is_run_file_path(const std::string& path) {
  return fs::path(path).extension() == ".h5";
}

int compare_training(const std::vector<std::string>& inputs,
                     const std::vector<std::string>& overrides, bool force, bool csv,
                     const mpi::communicator& comm) {
  // Each input's run file, every one checked before any is simulated.
  struct Input {
    std::string path, name, file;
    bool run = false;
  };
  std::vector<Input> in;
  std::set<std::string> written;
  for (const std::string& path : inputs) {
    Input i{path, fs::path(path).stem().string(), path};
    if (!is_run_file_path(path)) {
      i.file = i.name + ".h5";
      if (!written.insert(i.file).second) {
        report(comm, "two scenarios would both write " + i.file + " here (" + path +
                         " and an earlier one of that name): copy one under another name");
        return kExitBadInput;
      }
      const std::string decision = run_or_reuse(path, i.file, force, !overrides.empty(), comm);
      if (decision.starts_with("error:")) {
        report(comm, decision.substr(6));
        return kExitBadInput;
      }
      i.run = decision.empty();
    }
    in.push_back(std::move(i));
  }
  for (const Input& i : in) {
    if (i.run) {
      if (comm.rank() == 0)
        std::cerr << "sipsim: compare: running " << i.path << " -> " << i.file << "\n";
      const RunArgs run{.scenario = i.path,
                        .output = i.file,
                        .force = true,
                        .quiet = true,
                        .overrides = overrides,
                        .print = false};
      if (const int rc = run_command(run, comm); rc != kExitOk) return rc;
    } else if (comm.rank() == 0 && i.file != i.path) {
      std::cerr << "sipsim: compare: " << i.file << " is a finished run of " << i.path
                << ": read as it is (--force runs it again)\n";
    }
  }
  std::string problem;
  std::vector<Compared> runs;
  if (comm.rank() == 0) {
    try {
      for (const Input& i : in) runs.push_back(read_run(i.name, i.file));
    } catch (const output::run_file::Error& e) {
      problem = e.what();
    }
  }
  if (problem = agree(comm, problem); !problem.empty()) {
    report(comm, problem);
    return kExitBadInput;
  }
  if (comm.rank() != 0) return kExitOk;
  const std::vector<std::string> categories = all_categories(runs);
  if (csv) {
    print_csv(runs, categories);
  } else {
    print_table(runs, categories);
  }
  return kExitOk;
}

}  // namespace sipsim::app
