// sweep, collect and export against a corpus of hostile input, in process:
// hostile run files (study_fuzz_h5.cpp) planted in a study and collected at
// every level, then exported; the study files of tests/app/study_fuzz/
// studies/ and some made here, and a few hundred mutations of them and of
// scenarios/studies/*.yaml, swept; the manifests of tests/app/study_fuzz/
// manifests/ and their mutations, collected. Every call must end with exit
// code 0 or 2 (the corpus says which where it is certain) within a time
// bound, with nothing escaping, no crash, no hang and, under the asan preset,
// no AddressSanitizer or UBSan report. Besides: a sweep that fails writes
// nothing; collect leaves no temporary file, lists every hostile run file as
// failed and never a file outside the study as done. The seed is fixed, so a
// failure reproduces; the failing input is printed.
#include "study_fuzz.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <malloc.h>
#include <sys/stat.h>

#include <algorithm>
#include <boost/mpi/communicator.hpp>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "sipsim/app/export.hpp"
#include "sweep.hpp"

#if defined(__SANITIZE_ADDRESS__)
// libhdf5 1.10.8 itself leaks metadata-cache entries when H5Oopen meets
// some damaged object headers (byte-flipped run files): its memory, not
// sipsim's, which LeakSanitizer would otherwise report at exit.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libhdf5\n";
}
#endif

namespace sipsim::app::fuzz {
namespace {

constexpr std::uint64_t kSeed = 20261129;
const fs::path kCorpus = SIPSIM_STUDY_FUZZ_DIR;
const fs::path kSource = SIPSIM_SOURCE_DIR;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The bound, and what every call must not do, for one call's outcome.
void expect_sane(const Outcome& o, const std::string& what) {
  EXPECT_EQ(o.escaped, "") << what << ": an exception escaped\n" << shown(o.output);
  EXPECT_LT(o.seconds, kCaseLimitSeconds) << what << ": took " << o.seconds << " s";
  EXPECT_EQ(o.fds_left, 0) << what << ": file descriptors left open";
}

// The peak resident memory (VmHWM), in MiB.
double peak_mib() {
  std::istringstream status(read_file("/proc/self/status"));
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("VmHWM:")) return std::stod(line.substr(6)) / 1024.0;  // in kB
  }
  return 0;
}

// The peak resident memory (VmHWM), in MiB, after resetting it to the
// current resident memory (where Linux lets a process: /proc/self/clear_refs);
// so each case is measured alone.
double reset_peak_mib() {
  ::malloc_trim(0);  // what earlier cases freed leaves, or it would be reused unseen
  std::ofstream("/proc/self/clear_refs") << "5";
  return peak_mib();
}

std::vector<fs::path> files_in(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ext) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A directory with what the studies of the corpus refer to: the base
// scenario, the shipped studies' base scenarios, a directory and a FIFO.
void lay_out_bases(const fs::path& dir) {
  fs::copy_file(kSource / "tests/support/study-base.yaml", dir / "base.yaml");
  fs::copy(kSource / "scenarios/studies/base", dir / "base", fs::copy_options::recursive);
  fs::create_directory(dir / "dir");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
}

// A study swept into `out` (asserted to work): the directory collect reads.
void make_study(const fs::path& dir, const std::string& text, const fs::path& out) {
  write_file(dir / "study.yaml", text);
  const Outcome o = run_case("make a study", [&] {
    return sweep_command({.study = (dir / "study.yaml").string(), .output = out.string()});
  });
  ASSERT_EQ(o.rc, 0) << o.output;
}

// The status column of each row of a results CSV, by run id.
std::map<std::string, std::vector<std::string>> statuses(const fs::path& csv) {
  std::map<std::string, std::vector<std::string>> out;
  const auto rows = read_csv(csv);
  if (rows.empty()) return out;
  const auto at = std::find(rows[0].begin(), rows[0].end(), "status") - rows[0].begin();
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const auto& row = rows[r];
    out[row.at(0)].push_back(static_cast<std::size_t>(at) < row.size() ? row[at] : "?");
  }
  return out;
}

const std::vector<std::string> kLevels = {"run", "collective", "iteration"};

fs::path results_csv(const fs::path& study, const std::string& level) {
  return study / (level == "run" ? "results.csv" : "results-" + level + ".csv");
}

// collect at every level: exit 0, run 0000 listed with a status in `allowed`
// on every row, no temporary file left. Returns the statuses seen.
std::string collect_all_levels(const fs::path& study, const std::string& name,
                               const std::vector<std::string>& allowed) {
  std::string seen;
  for (const std::string& level : kLevels) {
    const Outcome o = run_case(name + " (collect --level " + level + ")",
                               [&] { return collect_command(study.string(), level); });
    expect_sane(o, name + ": collect --level " + level);
    EXPECT_EQ(o.rc, 0) << name << ": collect --level " << level << "\n" << shown(o.output);
    EXPECT_EQ(temporaries(study), std::vector<std::string>{}) << name << ": collect " << level;
    if (o.rc != 0) continue;
    const auto status = statuses(results_csv(study, level));
    EXPECT_EQ(status.size(), 1u) << name << ": " << level;
    for (const auto& [id, states] : status) {
      for (const std::string& st : states) {
        EXPECT_TRUE(std::find(allowed.begin(), allowed.end(), st) != allowed.end())
            << name << ": collect --level " << level << " lists run " << id << " as " << st << "\n"
            << shown(read_file(results_csv(study, level)), 2000);
        seen = st;
      }
    }
  }
  return seen;
}

// export --chrome-trace to a fresh path in `out`: exit 0 or 2 (as `want`
// says), no partial file left, a whole JSON document on success.
void export_once(const fs::path& run_file, const fs::path& out, const std::string& name,
                 ExportWant want) {
  static int n = 0;
  const fs::path json = out / ("export-" + std::to_string(n++) + ".json");
  const boost::mpi::communicator world;
  const ExportArgs args{
      .run_file = run_file.string(), .output = json.string(), .chrome_trace = true};
  const Outcome o = run_case(name + " (export)", [&] { return export_command(args, world); });
  expect_sane(o, name + ": export");
  EXPECT_TRUE(o.rc == 0 || o.rc == 2) << name << ": export exit " << o.rc << "\n"
                                      << shown(o.output);
  if (want == ExportWant::kOk) {
    EXPECT_EQ(o.rc, 0) << name << ": export\n" << shown(o.output);
  }
  if (want == ExportWant::kRefused) {
    EXPECT_EQ(o.rc, 2) << name << ": export\n" << shown(o.output);
  }
  EXPECT_EQ(temporaries(out), std::vector<std::string>{}) << name << ": export";
  if (o.rc == 0) {
    EXPECT_EQ(read_file(json).rfind("{\"traceEvents\":[", 0), 0u) << name;
  }
  std::error_code ec;
  fs::remove(json, ec);
}

void clear(const fs::path& p) {
  std::error_code ec;
  fs::remove_all(p, ec);
}

TEST(StudyFuzz, HostileRunFilesAreCollectedAsFailedAndExportedOrRefused) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // the cases' own HDF5 errors are expected
  const auto start = Clock::now();
  TempDir tmp("runfiles");
  const fs::path study = tmp.path() / "study", out = tmp.path() / "out";
  const fs::path work = tmp.path() / "work";
  fs::create_directories(out);
  fs::create_directories(work);
  lay_out_bases(tmp.path());
  make_study(tmp.path(), "scenario: base.yaml\n", study);
  const fs::path run = study / "runs" / "0000.h5";
  const RunFileSources src{read_file(study / "scenarios" / "0000.yaml"),
                           kCorpus / "seeds" / "coll-flat.h5",
                           kCorpus / "seeds" / "training-tiny.h5", work};

  // The seeds as committed are runs of another scenario; patched to claim
  // this study's, they are finished runs, collected and exported whole.
  fs::copy_file(src.coll_seed, run);
  collect_all_levels(study, "seed as committed", {"failed"});
  for (const fs::path& seed : {src.coll_seed, src.training_seed}) {
    clear(run);
    patched_seed(seed, src.scenario_text, run);
    collect_all_levels(study, seed.filename().string() + " patched", {"done"});
    export_once(run, out, seed.filename().string() + " patched", ExportWant::kOk);
  }

  Rng rng(fuzz_seed(kSeed));
  const std::vector<RunFileCase> cases = hostile_run_files(src, rng, fuzz_scale());
  int failed = 0, done = 0;
  for (const RunFileCase& c : cases) {
    clear(run);
    c.make(run);
    const std::vector<std::string> allowed = c.must_fail
                                                 ? std::vector<std::string>{"failed"}
                                                 : std::vector<std::string>{"failed", "done"};
    (collect_all_levels(study, c.name, allowed) == "done" ? done : failed) += 1;
    export_once(run, out, c.name, c.export_want);
  }
  std::cout << cases.size() << " hostile run files: " << failed << " failed, " << done
            << " done (byte flips that left a valid file), in " << seconds_since(start) << " s\n";
  EXPECT_GE(cases.size(), 400u);
}

// A study file's expected exit code from its name: ok-* 0, bad-* 2.
int expected_code(const std::string& name) {
  if (name.starts_with("ok-")) return 0;
  if (name.starts_with("bad-")) return 2;
  return -1;
}

struct StudyCase {
  std::string name;
  std::string text;
  std::uint64_t max_runs = kDefaultMaxRuns;
};

// sweep on one study file in `dir` (the bases beside it): exit 0 or 2 (or
// the one its name says), nothing written on 2, the directory on 0.
// Returns the exit code.
int sweep_once(const fs::path& dir, const StudyCase& c, int want) {
  const fs::path file = dir / "study-under-test.yaml", out = dir / "out";
  write_file(file, c.text);
  const std::vector<std::string> before = listing(dir);
  const double peak = reset_peak_mib();
  const Outcome o = run_case(c.name, [&] {
    return sweep_command({.study = file.string(), .output = out.string(), .max_runs = c.max_runs});
  });
  const std::string what =
      c.name + "\n--- study:\n" + shown(c.text, 1500) + "\n--- output:\n" + shown(o.output, 1500);
  expect_sane(o, what);
  EXPECT_TRUE(o.rc == 0 || o.rc == 2) << "exit " << o.rc << ": " << what;
  if (want >= 0) {
    EXPECT_EQ(o.rc, want) << what;
  }
  // Refusing a study costs no more than reading it: no run is made.
  if (o.rc == 2) {
    EXPECT_LT(peak_mib() - peak, 256.0) << "memory: " << what;
  }
  if (o.rc == 2) {
    EXPECT_EQ(listing(dir), before) << "a failed sweep wrote: " << what;
  }
  if (o.rc == 0) {
    EXPECT_TRUE(fs::is_regular_file(out / "manifest.csv")) << what;
    EXPECT_EQ(temporaries(out), std::vector<std::string>{}) << what;
  }
  clear(out);
  clear(file);
  return o.rc;
}

// Studies too large to commit, made here.
std::vector<StudyCase> generated_studies() {
  std::vector<StudyCase> out;
  const std::string head = "scenario: base.yaml\n";
  out.push_back({"bad-name-201-chars", "name: " + std::string(201, 'n') + "\n" + head});
  out.push_back({"bad-deep-nesting-100000", head + "axes:\n  label.x: " + std::string(100000, '[') +
                                                std::string(100000, ']') + "\n"});
  out.push_back({"bad-deep-maps-20000", head + "axes:\n  label.x: [" + [] {
                   std::string s;
                   for (int i = 0; i < 20000; ++i) s += "{k: ";
                   s += "1";
                   for (int i = 0; i < 20000; ++i) s += "}";
                   return s;
                 }() + "]\n"});
  // A long value: a label is never applied to the scenario, so only the
  // manifest's CSV sees it.
  out.push_back({"ok-label-long-number",
                 head + "points:\n  - {label.x: -" + std::string(200000, '1') + "}\n"});
  out.push_back(
      {"ok-label-long-text", head + "points:\n  - {label.x: " + std::string(200000, 'x') + "}\n"});
  out.push_back({"bad-key-long", head + "axes:\n  label." + std::string(100000, 'k') + ": [1]\n"});
  // Points with a key each: as many columns as points, refused by the run
  // limit.
  std::string points = head + "points:\n";
  for (int i = 0; i < 2000; ++i) points += "  - {label.k" + std::to_string(i) + ": 1}\n";
  out.push_back({"bad-2000-points-2000-columns-over-the-limit", points, 10});
  // Axes whose values alone are many before any product is formed.
  std::string axes = head + "axes:\n";
  for (int i = 0; i < 20; ++i) {
    axes += "  label.a" + std::to_string(i) + ": {range: [1, 100000, 1]}\n";
  }
  out.push_back({"bad-20-axes-of-100000-values", axes});
  std::string seeds = head + "seeds: [";
  for (int i = 0; i < 100001; ++i) seeds += (i ? ", " : "") + std::to_string(i);
  out.push_back({"bad-seeds-list-100001", seeds + "]\n"});
  return out;
}

TEST(StudyFuzz, HostileStudiesAreSweptOrRefusedWithoutWriting) {
  const auto start = Clock::now();
  TempDir tmp("studies");
  lay_out_bases(tmp.path());
  std::vector<StudyCase> cases;
  for (const fs::path& f : files_in(kCorpus / "studies", ".yaml")) {
    cases.push_back({f.filename().string(), read_file(f)});
  }
  ASSERT_GE(cases.size(), 30u);
  for (StudyCase& c : generated_studies()) cases.push_back(std::move(c));
  for (const StudyCase& c : cases) {
    sweep_once(tmp.path(), c, expected_code(c.name));
  }
  // Nothing the studies hold was run.
  for (const std::string& f : listing(tmp.path())) EXPECT_EQ(f.find("PWNED"), std::string::npos);
  std::cout << cases.size() << " hostile studies in " << seconds_since(start) << " s\n";
}

const std::vector<std::string>& study_values() {
  static const std::vector<std::string> kValues = {"",
                                                   "~",
                                                   "0",
                                                   "-1",
                                                   "1e400",
                                                   ".nan",
                                                   "-.inf",
                                                   "99999999999",
                                                   "18446744073709551616",
                                                   "\"\\n\"",
                                                   "\"\\e\"",
                                                   "'$(id)'",
                                                   "`id`",
                                                   "[]",
                                                   "{}",
                                                   "[1, [2]]",
                                                   "{a: {b: c}}",
                                                   "&x 1",
                                                   "*x",
                                                   "!!binary",
                                                   "\"\xff\"",
                                                   "base.yaml",
                                                   "/dev/zero",
                                                   "fifo",
                                                   "dir",
                                                   "../base.yaml",
                                                   "zip",
                                                   "product",
                                                   "{range: [1, 9, 0]}",
                                                   "{range: [1, 1e9, 1]}",
                                                   "{geometric: [1, 1e300, 1.0000001]}",
                                                   "\":::\"",
                                                   "\"1-\"",
                                                   "100001",
                                                   "[1, -1]",
                                                   "4294967296",
                                                   "x\ty",
                                                   "\"a\\rb\""};
  return kValues;
}

TEST(StudyFuzz, MutatedStudiesAreSweptOrRefusedWithoutWriting) {
  const auto start = Clock::now();
  TempDir tmp("mutated-studies");
  lay_out_bases(tmp.path());
  // The valid studies (the shipped ones and the corpus's ok-*) are mutated
  // more often than the others.
  std::vector<StudyCase> valid, all;
  for (const fs::path& f : files_in(kCorpus / "studies", ".yaml")) {
    all.push_back({f.filename().string(), read_file(f)});
    if (expected_code(all.back().name) == 0) valid.push_back(all.back());
  }
  // The shipped studies name their bases relative to themselves:
  // lay_out_bases put them beside the study under test. Unmutated, they sweep.
  for (const fs::path& f : files_in(kSource / "scenarios" / "studies", ".yaml")) {
    valid.push_back({f.filename().string(), read_file(f)});
    sweep_once(tmp.path(), valid.back(), 0);
  }
  Rng rng(fuzz_seed(kSeed) + 1);
  const int n = 800 * fuzz_scale();
  int accepted = 0;
  for (int k = 0; k < n; ++k) {
    const StudyCase& base = rng.chance(60) ? rng.pick(valid) : rng.pick(all);
    std::string what, text = base.text;
    const std::size_t mutations = 1 + rng.below(rng.chance(70) ? 1 : 3);
    for (std::size_t m = 0; m < mutations; ++m) {
      text = mutate(text, false, study_values(), rng, what);
    }
    // At most 64 runs: a mutation that asks for more is refused (a valid
    // one of thousands of runs would only be slow).
    const StudyCase c{"mutation " + std::to_string(k) + " of " + base.name + ":" + what, text, 64};
    accepted += sweep_once(tmp.path(), c, -1) == 0 ? 1 : 0;
  }
  std::cout << n << " mutated studies, " << accepted << " swept, in " << seconds_since(start)
            << " s\n";
}

const std::vector<std::string>& manifest_values() {
  static const std::vector<std::string> kValues = {"",
                                                   "\"",
                                                   "\"\"",
                                                   "\"a,b\"",
                                                   "a\"b",
                                                   "../x",
                                                   "/etc/hostname",
                                                   "../other/runs/0000.h5",
                                                   "runs/0001.h5",
                                                   "scenarios/0001.yaml",
                                                   "0000",
                                                   "0001",
                                                   "00000000000000",
                                                   "-1",
                                                   "'=1+2",
                                                   "\xff\xfe",
                                                   std::string("a\0b", 3),
                                                   "\x1b[2J",
                                                   "\r",
                                                   "run",
                                                   "seed",
                                                   "output",
                                                   "ranks",
                                                   "scenario",
                                                   "label.x",
                                                   "a b",
                                                   "1e999"};
  return kValues;
}

// collect on one manifest: exit 0 or 2 (or the one its name says); on 0 no
// run is done (the only finished run file is outside the study); no
// temporary file left.
void collect_manifest(const fs::path& study, const std::string& name, const std::string& text,
                      int want) {
  write_file(study / "manifest.csv", text);
  const Outcome o = run_case(name, [&] { return collect_command(study.string(), "run"); });
  const std::string what =
      name + "\n--- manifest:\n" + shown(text, 1500) + "\n--- output:\n" + shown(o.output, 1500);
  expect_sane(o, what);
  EXPECT_TRUE(o.rc == 0 || o.rc == 2) << "exit " << o.rc << ": " << what;
  if (want >= 0) {
    EXPECT_EQ(o.rc, want) << what;
  }
  EXPECT_EQ(temporaries(study), std::vector<std::string>{}) << what;
  if (o.rc == 0) {
    for (const auto& [id, states] : statuses(study / "results.csv")) {
      for (const std::string& st : states) {
        EXPECT_NE(st, "done") << "run " << id << " read from outside the study: " << what;
      }
    }
  }
  for (const char* f : {"results.csv", "results.h5"}) clear(study / f);
}

TEST(StudyFuzz, HostileManifestsAreCollectedOrRefusedReadingOnlyTheStudy) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const auto start = Clock::now();
  TempDir tmp("manifests");
  lay_out_bases(tmp.path());
  const fs::path study = tmp.path() / "study", other = tmp.path() / "other";
  make_study(tmp.path(), "scenario: base.yaml\naxes:\n  fabric.bandwidth: [100Gbps, 200Gbps]\n",
             study);
  // A finished run of the study's run 0000, outside it: in a sibling
  // study, beside it, and linked from the study's runs/.
  fs::create_directories(other / "runs");
  fs::create_directories(other / "scenarios");
  const std::string scenario = read_file(study / "scenarios" / "0000.yaml");
  write_file(other / "scenarios" / "0000.yaml", scenario);
  patched_seed(kCorpus / "seeds" / "coll-flat.h5", scenario, other / "runs" / "0000.h5");
  fs::copy_file(other / "runs" / "0000.h5", tmp.path() / "outside.h5");
  fs::create_symlink(other / "runs" / "0000.h5", study / "runs" / "0000.h5");

  std::vector<std::pair<std::string, std::string>> cases;
  for (const fs::path& f : files_in(kCorpus / "manifests", ".csv")) {
    std::string text = read_file(f);
    for (std::size_t at; (at = text.find("OUTSIDE")) != std::string::npos;) {
      text.replace(at, 7, tmp.path().string());
    }
    cases.emplace_back(f.filename().string(), text);
  }
  ASSERT_GE(cases.size(), 20u);
  const std::string header = "run,fabric.bandwidth,seed,scenario,output,ranks\n";
  const std::string row1 = ",,scenarios/0000.yaml,runs/0000.h5,1\n";
  // Lines too long to commit.
  cases.emplace_back("header-column-100000-chars",
                     "run," + std::string(100000, 'a') + ",seed,scenario,output,ranks\n");
  cases.emplace_back("ok-cell-long-number", header + "0000,-" + std::string(200000, '1') + row1);
  cases.emplace_back("ok-cell-long-text", header + "0000," + std::string(1 << 20, 'x') + row1);
  cases.emplace_back("bad-line-of-commas", header + std::string(1 << 20, ',') + "\n");
  std::string many = header;
  for (int i = 0; i < 5000; ++i) {
    const std::string id = std::to_string(100000 + i).substr(1);
    many += id + ",1Gbps,,scenarios/" + id + ".yaml,runs/" + id + ".h5,1\n";
  }
  cases.emplace_back("ok-5000-rows", many);
  for (const auto& [name, text] : cases) {
    collect_manifest(study, name, text, expected_code(name));
  }
  Rng rng(fuzz_seed(kSeed) + 2);
  const int n = 300 * fuzz_scale();
  for (int k = 0; k < n; ++k) {
    // The committed manifests, not the five large ones made above.
    const auto& [base, text] = cases[rng.below(cases.size() - 5)];
    std::string what, mutated = text;
    const std::size_t mutations = 1 + rng.below(rng.chance(70) ? 1 : 3);
    for (std::size_t m = 0; m < mutations; ++m) {
      mutated = mutate(mutated, true, manifest_values(), rng, what);
    }
    collect_manifest(study, "mutation " + std::to_string(k) + " of " + base + ":" + what, mutated,
                     -1);
  }
  // The study's runs/ itself a link to the other study's: the files in it
  // are not the study's own either, and collect refuses the study.
  clear(study / "runs");
  fs::create_directory_symlink(other / "runs", study / "runs");
  collect_manifest(study, "runs-is-a-link-to-another-study",
                   read_file(kCorpus / "manifests" / "ok-as-written.csv"), 2);
  std::cout << cases.size() << " hostile manifests and " << n << " mutations in "
            << seconds_since(start) << " s\n";
}

}  // namespace
}  // namespace sipsim::app::fuzz
