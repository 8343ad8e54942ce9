// `sipsim collect`: a study directory's run files merged into one table,
// results.csv and results.h5 (docs/studies.md, "Collecting"). Every run of
// the manifest is a row, finished or not: its status says which.
#include <hdf5.h>
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <new>
#include <set>
#include <stdexcept>

#include "csv.hpp"
#include "sipsim/app/commands.hpp"
#include "sipsim/base/files.hpp"
#include "sipsim/base/text.hpp"
#include "sipsim/output/h5.hpp"
#include "sipsim/output/run_file_reader.hpp"
#include "study_dir.hpp"
#include "study_text.hpp"
#include "sweep.hpp"
#include "training_summary.hpp"

namespace sipsim::app {

namespace {

namespace fs = std::filesystem;
using output::h5::Handle;

// A row of the table: column name -> value text, in column order.
using Row = std::vector<std::pair<std::string, std::string>>;

std::string num(double v) {
  return std::isfinite(v) ? fmt::format("{:.10g}", v) : "";
}

// A count as an integer: {:.10g} would write 12345678901 events as
// 1.23456789e+10, losing digits and making the column float64 in results.h5.
std::string count(double v) {
  return std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 0x1p63 ? fmt::format("{:.0f}", v)
                                                                         : num(v);
}

struct ReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(herr_t rc, const std::string& what) {
  if (rc < 0) throw ReadError("cannot write " + what);
}

// Text from a run file as a cell: one line, cut short, no control bytes.
std::string cell_text(const std::string& s) {
  return base::excerpt(s, 200);
}

double mean(const std::vector<double>& v) {
  if (v.empty()) return NAN;
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

// The run-level results of one run file (docs/studies.md lists the columns).
void run_results(const output::run_file::Reader& in, const std::string& level, const Row& key,
                 std::vector<Row>& out) {
  const auto colls =
      in.has("/collectives") ? in.collectives() : std::vector<output::run_file::CollectiveRow>{};
  const auto iters = in.iterations();
  const output::run_file::BreakdownMeans bd = in.breakdown_means();
  for (const std::string& c : bd.categories) {
    // Each becomes a column name, in results.h5 too.
    if (!name_token(c, 64)) {
      throw output::run_file::Error(in.path() + ": /breakdown has a category named '" +
                                    base::excerpt(c) + "' (damaged, or not a sipsim run file)");
    }
  }
  if (level == "collective") {
    for (const output::run_file::CollectiveRow& c : colls) {
      Row r = key;
      const double t = static_cast<double>(c.end_ps - c.start_ps) / 1e12;
      r.insert(r.end(), {{"id", std::to_string(c.id)},
                         {"op", cell_text(c.op)},
                         {"algorithm", cell_text(c.algorithm)},
                         {"group_size", std::to_string(c.group_size)},
                         {"bytes", std::to_string(c.bytes)},
                         {"iteration", std::to_string(c.iteration)},
                         {"warmup", std::to_string(c.warmup)},
                         {"time_s", num(t)},
                         {"algbw_GBps", num(c.algbw_GBps)},
                         {"busbw_GBps", num(c.busbw_GBps)}});
      out.push_back(std::move(r));
    }
    if (colls.empty()) out.push_back(key);
    return;
  }
  if (level == "iteration") {
    for (std::size_t i = 0; i < iters.size(); ++i) {
      Row r = key;
      r.insert(r.end(), {{"iteration", std::to_string(iters[i].iteration)},
                         {"iteration_s", num(static_cast<double>(iters[i].period_ps) / 1e12)},
                         {"hardware_tflops_per_gpu", num(iters[i].hardware_tflops_per_gpu)},
                         {"model_tflops_per_gpu", num(iters[i].model_tflops_per_gpu)}});
      for (std::size_t c = 0; i < bd.mean_s.size() && c < bd.categories.size(); ++c) {
        r.emplace_back(bd.categories[c] + "_s", num(bd.mean_s[i][c]));
      }
      out.push_back(std::move(r));
    }
    if (iters.empty()) out.push_back(key);
    return;
  }
  Row r = key;
  r.insert(r.end(), {{"sim_time_s", num(in.number_attr("/meta", "end_time_ps") / 1e12)},
                     {"wall_s", num(in.number_attr("/meta", "wall_seconds"))},
                     {"events", count(in.number_attr("/meta", "committed_events"))},
                     {"ranks", count(in.number_attr("/meta", "ranks"))}});
  if (!colls.empty()) {
    // The first collective kind's measured (not warm-up) rows: their means, and
    // the mean at its largest size.
    const std::string op = colls.front().op;
    std::vector<double> time, alg, bus, bus_top;
    std::set<std::string> algos;
    std::uint64_t top = 0;
    for (const output::run_file::CollectiveRow& c : colls) {
      if (c.op == op && !c.warmup) top = std::max(top, c.bytes);
    }
    for (const output::run_file::CollectiveRow& c : colls) {
      if (c.op != op || c.warmup) continue;
      time.push_back(static_cast<double>(c.end_ps - c.start_ps) / 1e12);
      alg.push_back(c.algbw_GBps);
      bus.push_back(c.busbw_GBps);
      if (c.bytes == top) bus_top.push_back(c.busbw_GBps);
      algos.insert(c.algorithm);
    }
    std::string algo;
    for (const std::string& a : algos) algo += (algo.empty() ? "" : "+") + a;
    r.insert(r.end(), {{"collectives", std::to_string(colls.size())},
                       {"coll_op", cell_text(op)},
                       {"coll_algorithm", cell_text(algo)},
                       {"coll_time_s", num(mean(time))},
                       {"algbw_GBps", num(mean(alg))},
                       {"busbw_GBps", num(mean(bus))},
                       {"largest_bytes", std::to_string(top)},
                       {"busbw_GBps_largest", num(mean(bus_top))}});
  }
  if (!iters.empty()) {
    const TrainingSummary t = summarize(iters, bd);
    r.insert(r.end(),
             {{"iterations", std::to_string(t.iterations)},
              {"iteration_s", num(t.iteration_s)},
              {"hardware_tflops_per_gpu", num(t.hardware_tflops_per_gpu)},
              {"model_tflops_per_gpu", num(t.model_tflops_per_gpu)},
              // SiP-ML §4.2: steady period x iterations to the target (NaN without).
              {"time_to_accuracy_s", num(in.number_attr("/iterations", "time_to_accuracy_s"))}});
    for (std::size_t c = 0; c < t.categories.size(); ++c) {
      r.emplace_back(t.categories[c] + "_s", num(t.breakdown_s[c]));
    }
  }
  out.push_back(std::move(r));
}

// An integer literal that fits int64: optional '-', then digits only.
bool integer(const std::string& s) {
  std::int64_t v = 0;
  const char* end = s.data() + s.size();
  const auto [at, ec] = std::from_chars(s.data(), end, v);
  return !s.empty() && s.front() != '+' && ec == std::errc() && at == end;
}

bool numeric(const std::string& s) {
  if (s.empty()) return true;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end != s.c_str() && *end == '\0';
}

// /results/<column>: int64 when every cell is an integer (the run id, counts,
// bytes), else float64 (NaN for an empty cell) when every cell is a number or
// empty, else fixed-length strings; /results@columns lists them in order.
// Column names are key paths or result names (letters, digits, '_', '-',
// '.'), so each is a dataset name of its own. Written to a temporary file of
// a unique name, removed unless renamed into place.
void write_h5(const fs::path& path, const std::vector<std::string>& columns,
              const std::vector<std::vector<std::string>>& cells) {
  base::TempFile tmp(path, 0644, false);
  {
    Handle f(H5Fcreate(tmp.path().c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT));
    if (!f) throw std::runtime_error(tmp.path().string() + ": cannot create");
    Handle g(H5Gcreate2(f.get(), "/results", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    std::string names;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string& name = columns[c];
      names += (c ? "," : "") + name;
      const hsize_t n = cells.size();
      Handle space(H5Screate_simple(1, &n, nullptr));
      bool all_numeric = true, all_integer = true;
      std::size_t width = 1;
      for (const auto& row : cells) {
        all_numeric = all_numeric && numeric(row[c]);
        all_integer = all_integer && integer(row[c]);
        width = std::max(width, row[c].size());
      }
      if (all_integer) {
        std::vector<std::int64_t> v;
        for (const auto& row : cells) {
          std::int64_t x = 0;
          std::from_chars(row[c].data(), row[c].data() + row[c].size(), x);
          v.push_back(x);
        }
        Handle d(H5Dcreate2(g.get(), name.c_str(), H5T_STD_I64LE, space.get(), H5P_DEFAULT,
                            H5P_DEFAULT, H5P_DEFAULT));
        check(H5Dwrite(d.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), name);
      } else if (all_numeric) {
        std::vector<double> v;
        for (const auto& row : cells)
          v.push_back(row[c].empty() ? NAN : std::strtod(row[c].c_str(), nullptr));
        Handle d(H5Dcreate2(g.get(), name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT,
                            H5P_DEFAULT, H5P_DEFAULT));
        check(H5Dwrite(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), name);
      } else {
        std::string buf(cells.size() * width, '\0');
        for (std::size_t i = 0; i < cells.size(); ++i)
          std::memcpy(&buf[i * width], cells[i][c].data(), cells[i][c].size());
        Handle t(H5Tcopy(H5T_C_S1));
        H5Tset_size(t.get(), width);
        H5Tset_strpad(t.get(), H5T_STR_NULLPAD);
        Handle d(H5Dcreate2(g.get(), name.c_str(), t.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT,
                            H5P_DEFAULT));
        check(H5Dwrite(d.get(), t.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()), name);
      }
    }
    output::h5::write_attr(g.get(), "columns", names);
    if (H5Fclose(f.release()) < 0) throw std::runtime_error(tmp.path().string() + ": cannot write");
  }
  tmp.commit();
}

// The manifest's rows, checked: a run id of digits, the scenario and output
// columns naming that run's own files, no id twice, every cell one line.
struct Manifest {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

Manifest read_manifest(const fs::path& dir) {
  if (const std::string why = layout_problem(dir); !why.empty()) throw std::runtime_error(why);
  const fs::path path = dir / "manifest.csv";
  const std::string text = base::read_regular_file(path, std::size_t{1} << 30);
  Manifest m;
  std::set<std::string> ids;
  std::size_t at = 0, lineno = 0;
  const auto fail = [&](const std::string& why) {
    throw std::runtime_error(fmt::format("{}:{}: {}", path.string(), lineno, why));
  };
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line(text.data() + at, end - at);
    at = end + 1;
    ++lineno;
    if (line.empty() || line == "\r") continue;
    std::vector<std::string> f;
    try {
      f = csv_split(line);
    } catch (const std::invalid_argument& e) {
      fail(std::string("not CSV: ") + e.what());
    }
    for (const std::string& cell : f) {
      if (const std::string problem = base::one_line_problem(cell); !problem.empty()) {
        fail("a cell " + problem);
      }
    }
    if (m.header.empty()) {
      const std::size_t n = f.size();
      if (n < 5 || f.front() != "run" || f[n - 4] != "seed" || f[n - 3] != "scenario" ||
          f[n - 2] != "output" || f[n - 1] != "ranks") {
        fail(
            "not a study manifest (its header must be run, the axes, seed, scenario, output, "
            "ranks)");
      }
      for (std::size_t c = 1; c + 4 < n; ++c) {
        if (!key_path(f[c])) {
          fail("column '" + base::excerpt(f[c]) + "' is not a key path");
        }
      }
      m.header = std::move(f);
      continue;
    }
    if (f.size() != m.header.size()) {
      fail(fmt::format("expected {} fields, got {}", m.header.size(), f.size()));
    }
    const std::string& id = f.front();
    if (!digits(id, 12)) fail("the run id must be 1 to 12 digits");
    if (!ids.insert(id).second) fail("run " + id + " is listed twice");
    const std::size_t n = f.size();
    if (f[n - 3] != "scenarios/" + id + ".yaml" || f[n - 2] != "runs/" + id + ".h5") {
      fail("run " + id + ": its scenario and output must be scenarios/" + id + ".yaml and runs/" +
           id + ".h5 (a study reads only its own files)");
    }
    m.rows.push_back(std::move(f));
  }
  if (m.header.empty()) {
    lineno = 1;
    fail("empty: not a study manifest");
  }
  return m;
}

// The rows of one run: its results, or a row saying why it has none. One
// bad run file never stops the others.
std::vector<Row> run_rows(const fs::path& dir, const std::vector<std::string>& header,
                          const std::vector<std::string>& f, const std::string& level,
                          const std::set<std::string>& partial, std::string& status) {
  Row key;
  for (std::size_t c = 0; c + 3 < header.size(); ++c) key.emplace_back(header[c], f[c]);
  const std::string& id = f.front();
  const RunStatus s = run_status(dir, id, partial);
  status = s.state == RunState::kDone     ? "done"
           : s.state == RunState::kFailed ? "failed"
                                          : "missing";
  std::string error = s.last_error;
  std::vector<Row> results;
  if (s.state == RunState::kDone) {
    const std::string file = "runs/" + id + ".h5";
    try {
      const output::run_file::Reader in((dir / file).string(), {.allow_symlink = false});
      Row k = key;
      k.emplace_back("status", "done");
      k.emplace_back("error", "");
      run_results(in, level, k, results);
    } catch (const output::run_file::Error& e) {  // names the file itself
      error = e.what();
    } catch (const std::bad_alloc&) {
      error = file + ": not enough memory to read it";
    } catch (const std::exception& e) {
      error = file + ": " + e.what();
    }
    if (!error.empty()) {
      status = "failed";
      results.clear();
      if (error.starts_with(dir.string() + "/")) error.erase(0, dir.string().size() + 1);
    }
  }
  if (results.empty()) {
    Row r = key;
    r.emplace_back("status", status);
    r.emplace_back("error", base::excerpt(error, 300));
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace

int collect_command(const std::string& dir_arg, const std::string& level) {
  const fs::path dir = dir_arg;
  Manifest manifest;
  try {
    manifest = read_manifest(dir);
  } catch (const base::FileError& e) {
    std::cerr << "sipsim: error: " << e.what()
              << " (is this a study directory written by sipsim sweep?)\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "sipsim: error: " << e.what() << "\n";
    return kExitBadInput;
  }
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors are reported per run below
  const std::set<std::string> partial = partial_runs(dir);
  std::vector<Row> rows;
  std::size_t done = 0, failed = 0, missing = 0;
  for (const std::vector<std::string>& f : manifest.rows) {
    std::string status;
    for (Row& r : run_rows(dir, manifest.header, f, level, partial, status)) {
      rows.push_back(std::move(r));
    }
    (status == "done" ? done : status == "failed" ? failed : missing) += 1;
  }

  // The columns: every name any row has, in order of first appearance; seed
  // only when the study set seeds (then it is an axis like the others).
  const bool seeded = std::any_of(rows.begin(), rows.end(), [](const Row& r) {
    return std::any_of(r.begin(), r.end(),
                       [](const auto& kv) { return kv.first == "seed" && !kv.second.empty(); });
  });
  std::vector<std::string> columns;
  for (const Row& r : rows) {
    for (const auto& [name, value] : r) {
      if (name == "seed" && !seeded) continue;
      if (std::find(columns.begin(), columns.end(), name) == columns.end()) columns.push_back(name);
    }
  }
  std::vector<std::vector<std::string>> cells;
  for (const Row& r : rows) {
    std::vector<std::string> row(columns.size());
    for (const auto& [name, value] : r) {
      if (name == "seed" && !seeded) continue;
      row[std::find(columns.begin(), columns.end(), name) - columns.begin()] = value;
    }
    cells.push_back(std::move(row));
  }
  const std::string stem = level == "run" ? "results" : "results-" + level;
  try {
    std::string csv = csv_row(columns);
    for (const auto& row : cells) csv += csv_row(row);
    base::write_file_atomic(dir / (stem + ".csv"), csv);
    write_h5(dir / (stem + ".h5"), columns, cells);
  } catch (const std::exception& e) {
    std::cerr << "sipsim: error: " << e.what() << "\n";
    return kExitBadInput;
  }
  std::cout << fmt::format("{}: {} rows from {} runs ({} done, {} failed, {} missing)\n",
                           (dir / (stem + ".csv")).string(), rows.size(), done + failed + missing,
                           done, failed, missing);
  return kExitOk;
}

}  // namespace sipsim::app
