#pragma once
// Shared by the study fuzz test (study_fuzz_test.cpp): the random source,
// temporary directories, running a command with its output captured and its
// time measured, a watchdog for hangs, text mutations and the hostile run
// files (study_fuzz_h5.cpp).
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "support/fuzz.hpp"

namespace sipsim::app::fuzz {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

using ::sipsim::fuzz::kSlowdown;
// One command call (a sweep of a few small runs, a collect of one run file,
// an export) takes milliseconds; the bound leaves room for a machine whose
// two cores run the rest of ctest at the same time.
constexpr double kCaseLimitSeconds = 3.0 * kSlowdown;
// A call still running after this is taken for a hang: the test names the
// case and exits, rather than waiting for ctest's timeout.
constexpr double kHangSeconds = 60.0 * kSlowdown;

using ::sipsim::fuzz::Rng;

using ::sipsim::fuzz::fuzz_scale;
using ::sipsim::fuzz::fuzz_seed;

// A fresh directory under the system's temporary directory, removed with
// everything in it when destroyed.
class TempDir {
 public:
  explicit TempDir(const std::string& tag);
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// What one command call did: its exit code (-1 when it threw), what it
// printed, what escaped it and how long it took.
struct Outcome {
  int rc = -1;
  std::string output;
  std::string escaped;  // an exception's type and message; "" when none
  double seconds = 0;
  int fds_left = 0;  // file descriptors open after it that were not before
};

// Runs `command` with std::cout and std::cerr captured, under the watchdog
// (a call that takes kHangSeconds ends the test naming `name`; a crash
// names it too).
Outcome run_case(const std::string& name, const std::function<int()>& command);

// Files and directories under `dir` (relative paths, sorted; links not
// followed), for "nothing was written" and "no *.tmp left".
std::vector<std::string> listing(const fs::path& dir);
std::vector<std::string> temporaries(const fs::path& dir);  // *.tmp and *.partial

std::string read_file(const fs::path& path);
void write_file(const fs::path& path, const std::string& bytes);
// A text for a failure message: its first `max` bytes, control bytes escaped.
std::string shown(const std::string& text, std::size_t max = 600);

std::vector<std::string> split_lines(const std::string& text);
std::string join_lines(const std::vector<std::string>& lines);

// One mutation of `text`: a line deleted, duplicated or swapped, a value
// (after ": ", or a CSV cell when `csv`) replaced by one of `values`,
// random bytes, a cut; its name appended to `what`.
std::string mutate(const std::string& text, bool csv, const std::vector<std::string>& values,
                   Rng& rng, std::string& what);

// The rows of a results CSV (results.csv) as cells; throws on a broken file.
std::vector<std::vector<std::string>> read_csv(const fs::path& path);

// What export must do with a run file: refuse it (exit 2), export it (0),
// or either.
enum class ExportWant { kEither, kOk, kRefused };

// A hostile run file: `make` writes it at a path (it may leave a directory,
// a FIFO or a link there). `must_fail`: collect must list the run as failed
// (a byte-flipped copy may still be a valid run file, then done is fine).
struct RunFileCase {
  std::string name;
  bool must_fail = true;
  std::function<void(const fs::path&)> make;
  ExportWant export_want = ExportWant::kEither;
};

// Where the hostile run files come from: the scenario text their
// /meta@scenario_yaml claims (the study's scenarios/0000.yaml, so that
// collect reads past its checks into the tables), the committed seed run
// files, and a directory for the FIFOs and other files they point at.
struct RunFileSources {
  std::string scenario_text;
  fs::path coll_seed, training_seed;  // as committed
  fs::path work;                      // scratch, lives as long as the cases
};

// A copy of `seed` at `at` whose /meta@scenario_yaml is `scenario_text`:
// a finished run of that scenario as far as collect can tell.
void patched_seed(const fs::path& seed, const std::string& scenario_text, const fs::path& at);

// Every hostile run file of the corpus (docs/output.md's schema bent every
// way), truncated and byte-flipped copies of the patched seeds included.
std::vector<RunFileCase> hostile_run_files(const RunFileSources& src, Rng& rng, int scale);

}  // namespace sipsim::app::fuzz
