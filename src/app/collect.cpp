// `sipsim collect`: a study directory's run files merged into one table,
// results.csv and results.h5 (docs/studies.md, "Collecting"). Every run of
// the manifest is a row, finished or not: its status says which.
#include <hdf5.h>
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>

#include "export_h5.hpp"
#include "sipsim/app/commands.hpp"
#include "sipsim/output/h5.hpp"
#include "sweep.hpp"

namespace sipsim::app {

namespace {

namespace fs = std::filesystem;
using output::h5::Handle;

// A row of the table: column name -> value text, in column order.
using Row = std::vector<std::pair<std::string, std::string>>;

std::string num(double v) {
  return std::isfinite(v) ? fmt::format("{:.10g}", v) : "";
}

struct ReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(herr_t rc, const std::string& what) {
  if (rc < 0) throw ReadError("cannot read " + what);
}

bool has(hid_t loc, const char* path) {
  return H5Lexists(loc, path, H5P_DEFAULT) > 0;
}

std::string string_attr(hid_t obj, const char* name) {
  if (H5Aexists(obj, name) <= 0) return "";
  Handle a(H5Aopen(obj, name, H5P_DEFAULT));
  Handle t(H5Aget_type(a.get()));
  if (H5Tget_class(t.get()) != H5T_STRING || H5Tis_variable_str(t.get()) > 0) return "";
  std::string s(H5Tget_size(t.get()), '\0');
  check(H5Aread(a.get(), t.get(), s.data()), name);
  return s.substr(0, s.find('\0'));
}

double number_attr(hid_t obj, const char* name) {
  if (H5Aexists(obj, name) <= 0) return NAN;
  Handle a(H5Aopen(obj, name, H5P_DEFAULT));
  double v = NAN;
  check(H5Aread(a.get(), H5T_NATIVE_DOUBLE, &v), name);
  return v;
}

Handle fixed_string(std::size_t size) {
  Handle t(H5Tcopy(H5T_C_S1));
  H5Tset_size(t.get(), size);
  H5Tset_strpad(t.get(), H5T_STR_NULLTERM);
  return t;
}

struct IterationRow {
  std::uint32_t iteration;
  std::uint64_t start_ps, end_ps;
  double tflops_per_gpu;
};

std::vector<IterationRow> read_iterations(hid_t file) {
  if (!has(file, "/iterations")) return {};
  Handle d(H5Dopen2(file, "/iterations", H5P_DEFAULT));
  Handle space(H5Dget_space(d.get()));
  std::vector<IterationRow> rows(
      static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
  Handle t(H5Tcreate(H5T_COMPOUND, sizeof(IterationRow)));
  H5Tinsert(t.get(), "iteration", HOFFSET(IterationRow, iteration), H5T_NATIVE_UINT32);
  H5Tinsert(t.get(), "start_ps", HOFFSET(IterationRow, start_ps), H5T_NATIVE_UINT64);
  H5Tinsert(t.get(), "end_ps", HOFFSET(IterationRow, end_ps), H5T_NATIVE_UINT64);
  H5Tinsert(t.get(), "tflops_per_gpu", HOFFSET(IterationRow, tflops_per_gpu), H5T_NATIVE_DOUBLE);
  if (!rows.empty())
    check(H5Dread(d.get(), t.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()), "/iterations");
  return rows;
}

// /breakdown: per iteration, per category, the mean over GPUs in seconds.
struct Breakdown {
  std::vector<std::string> categories;
  std::vector<std::vector<double>> mean_s;  // [iteration][category]
};

Breakdown read_breakdown(hid_t file) {
  Breakdown b;
  if (!has(file, "/breakdown")) return b;
  Handle d(H5Dopen2(file, "/breakdown", H5P_DEFAULT));
  const std::string cats = string_attr(d.get(), "categories");
  for (std::size_t p = 0; p <= cats.size();) {
    const std::size_t q = std::min(cats.find(',', p), cats.size());
    b.categories.push_back(cats.substr(p, q - p));
    p = q + 1;
  }
  Handle space(H5Dget_space(d.get()));
  hsize_t dims[3] = {0, 0, 0};
  if (H5Sget_simple_extent_ndims(space.get()) != 3) return {};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  if (dims[2] != b.categories.size()) return {};
  std::vector<double> v(dims[0] * dims[1] * dims[2]);
  if (!v.empty())
    check(H5Dread(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()),
          "/breakdown");
  for (hsize_t i = 0; i < dims[0]; ++i) {
    std::vector<double> m(dims[2], 0.0);
    for (hsize_t g = 0; g < dims[1]; ++g) {
      for (hsize_t c = 0; c < dims[2]; ++c) m[c] += v[(i * dims[1] + g) * dims[2] + c];
    }
    for (double& x : m) x = dims[1] == 0 ? NAN : x / static_cast<double>(dims[1]) / 1e12;
    b.mean_s.push_back(std::move(m));
  }
  return b;
}

double mean(const std::vector<double>& v) {
  if (v.empty()) return NAN;
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

// The run-level results of one run file (docs/studies.md lists the columns).
void run_results(const run_file::Reader& in, const std::string& level, const Row& key,
                 std::vector<Row>& out) {
  const hid_t file = in.id();
  Handle meta(H5Gopen2(file, "/meta", H5P_DEFAULT));
  if (!meta) throw ReadError("no /meta");
  const auto colls =
      in.has("/collectives") ? in.collectives() : std::vector<run_file::CollectiveRow>{};
  const auto iters = read_iterations(file);
  const Breakdown bd = read_breakdown(file);
  if (level == "collective") {
    for (const run_file::CollectiveRow& c : colls) {
      Row r = key;
      const double t = static_cast<double>(c.end_ps - c.start_ps) / 1e12;
      r.insert(r.end(), {{"id", std::to_string(c.id)},
                         {"op", c.op},
                         {"algorithm", c.algorithm},
                         {"group_size", std::to_string(c.group_size)},
                         {"bytes", std::to_string(c.bytes)},
                         {"iteration", std::to_string(c.iteration)},
                         {"warmup", std::to_string(c.warmup)},
                         {"time_s", num(t)},
                         {"algbw_gbps", num(c.algbw_gbps)},
                         {"busbw_gbps", num(c.busbw_gbps)}});
      out.push_back(std::move(r));
    }
    if (colls.empty()) out.push_back(key);
    return;
  }
  if (level == "iteration") {
    for (std::size_t i = 0; i < iters.size(); ++i) {
      Row r = key;
      r.insert(r.end(), {{"iteration", std::to_string(iters[i].iteration)},
                         {"iteration_s",
                          num(static_cast<double>(iters[i].end_ps - iters[i].start_ps) / 1e12)},
                         {"tflops_per_gpu", num(iters[i].tflops_per_gpu)}});
      for (std::size_t c = 0; i < bd.mean_s.size() && c < bd.categories.size(); ++c) {
        r.emplace_back(bd.categories[c] + "_s", num(bd.mean_s[i][c]));
      }
      out.push_back(std::move(r));
    }
    if (iters.empty()) out.push_back(key);
    return;
  }
  Row r = key;
  r.insert(r.end(), {{"sim_time_s", num(number_attr(meta.get(), "end_time_ps") / 1e12)},
                     {"wall_s", num(number_attr(meta.get(), "wall_seconds"))},
                     {"events", num(number_attr(meta.get(), "committed_events"))},
                     {"ranks", num(number_attr(meta.get(), "ranks"))}});
  if (!colls.empty()) {
    // The first collective kind's measured (not warm-up) rows: their means, and
    // the mean at its largest size.
    const std::string op = colls.front().op;
    std::vector<double> time, alg, bus, bus_top;
    std::set<std::string> algos;
    std::uint64_t top = 0;
    for (const run_file::CollectiveRow& c : colls) {
      if (c.op == op && !c.warmup) top = std::max(top, c.bytes);
    }
    for (const run_file::CollectiveRow& c : colls) {
      if (c.op != op || c.warmup) continue;
      time.push_back(static_cast<double>(c.end_ps - c.start_ps) / 1e12);
      alg.push_back(c.algbw_gbps);
      bus.push_back(c.busbw_gbps);
      if (c.bytes == top) bus_top.push_back(c.busbw_gbps);
      algos.insert(c.algorithm);
    }
    std::string algo;
    for (const std::string& a : algos) algo += (algo.empty() ? "" : "+") + a;
    r.insert(r.end(), {{"collectives", std::to_string(colls.size())},
                       {"coll_op", op},
                       {"coll_algorithm", algo},
                       {"coll_time_s", num(mean(time))},
                       {"algbw_gbps", num(mean(alg))},
                       {"busbw_gbps", num(mean(bus))},
                       {"largest_bytes", std::to_string(top)},
                       {"busbw_gbps_largest", num(mean(bus_top))}});
  }
  if (!iters.empty()) {
    std::vector<double> it, tf;
    for (const IterationRow& i : iters) {
      it.push_back(static_cast<double>(i.end_ps - i.start_ps) / 1e12);
      tf.push_back(i.tflops_per_gpu);
    }
    r.insert(r.end(), {{"iterations", std::to_string(iters.size())},
                       {"iteration_s", num(mean(it))},
                       {"tflops_per_gpu", num(mean(tf))}});
    for (std::size_t c = 0; c < bd.categories.size(); ++c) {
      std::vector<double> v;
      for (const auto& m : bd.mean_s) v.push_back(m[c]);
      r.emplace_back(bd.categories[c] + "_s", num(mean(v)));
    }
  }
  out.push_back(std::move(r));
}

bool numeric(const std::string& s) {
  if (s.empty()) return true;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end != s.c_str() && *end == '\0';
}

// /results/<column>: float64 (NaN for an empty cell) when every cell is a
// number, else fixed-length strings; /results@columns lists them in order.
void write_h5(const fs::path& path, const std::vector<std::string>& columns,
              const std::vector<std::vector<std::string>>& cells) {
  const fs::path tmp = path.string() + ".tmp";
  fs::remove(tmp);
  Handle f(H5Fcreate(tmp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT));
  if (!f) throw std::runtime_error(tmp.string() + ": cannot create");
  Handle g(H5Gcreate2(f.get(), "/results", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  std::string names;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    std::string name = columns[c];
    std::replace(name.begin(), name.end(), '/', '_');
    names += (c ? "," : "") + name;
    const hsize_t n = cells.size();
    Handle space(H5Screate_simple(1, &n, nullptr));
    bool all_numeric = true;
    std::size_t width = 1;
    for (const auto& row : cells) {
      all_numeric = all_numeric && numeric(row[c]);
      width = std::max(width, row[c].size());
    }
    if (all_numeric) {
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
      Handle t = fixed_string(width);
      H5Tset_strpad(t.get(), H5T_STR_NULLPAD);
      Handle d(H5Dcreate2(g.get(), name.c_str(), t.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT,
                          H5P_DEFAULT));
      check(H5Dwrite(d.get(), t.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()), name);
    }
  }
  output::h5::write_attr(g.get(), "columns", names);
  f.reset();
  fs::rename(tmp, path);
}

}  // namespace

int collect_command(const std::string& dir_arg, const std::string& level) {
  const fs::path dir = dir_arg;
  std::ifstream in(dir / "manifest.csv");
  if (!in) {
    std::cerr
        << "sipsim: error: " << (dir / "manifest.csv").string()
        << ": cannot read the manifest (is this a study directory written by sipsim sweep?)\n";
    return kExitBadInput;
  }
  std::string line;
  std::getline(in, line);
  const auto header = csv_split(line);
  if (header.size() < 5 || header.front() != "run" || header[header.size() - 4] != "seed") {
    std::cerr << "sipsim: error: " << (dir / "manifest.csv").string()
              << ":1: not a study manifest\n";
    return kExitBadInput;
  }
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors are reported per run below
  std::vector<Row> rows;
  std::size_t done = 0, failed = 0, missing = 0, lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    const auto f = csv_split(line);
    if (f.size() != header.size()) {
      std::cerr << "sipsim: error: " << (dir / "manifest.csv").string() << ":" << lineno
                << ": expected " << header.size() << " fields, got " << f.size() << "\n";
      return kExitBadInput;
    }
    Row key;
    for (std::size_t c = 0; c + 3 < header.size(); ++c) key.emplace_back(header[c], f[c]);
    const std::string& id = f.front();
    const RunStatus s = run_status(dir, id);
    std::string status = s.state == RunState::kDone     ? "done"
                         : s.state == RunState::kFailed ? "failed"
                                                        : "missing";
    std::string error = s.last_error;
    std::vector<Row> results;
    if (s.state == RunState::kDone) {
      try {
        const run_file::Reader file((dir / f[header.size() - 2]).string());
        Row k = key;
        k.emplace_back("status", "done");
        k.emplace_back("error", "");
        run_results(file, level, k, results);
      } catch (const run_file::Error& e) {  // names the file itself
        status = "failed";
        error = e.what();
        results.clear();
      } catch (const std::exception& e) {
        status = "failed";
        error = f[header.size() - 2] + ": " + e.what();
        results.clear();
      }
    }
    if (results.empty()) {
      Row r = key;
      r.emplace_back("status", status);
      r.emplace_back("error", error);
      results.push_back(std::move(r));
    }
    (status == "done" ? done : status == "failed" ? failed : missing) += 1;
    for (Row& r : results) rows.push_back(std::move(r));
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
    std::string csv;
    for (std::size_t c = 0; c < columns.size(); ++c) csv += (c ? "," : "") + csv_field(columns[c]);
    csv += "\n";
    for (const auto& row : cells) {
      for (std::size_t c = 0; c < row.size(); ++c) csv += (c ? "," : "") + csv_field(row[c]);
      csv += "\n";
    }
    const fs::path tmp = dir / (stem + ".csv.tmp");
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out << csv;
      if (!out.flush()) throw std::runtime_error(tmp.string() + ": cannot write");
    }
    fs::rename(tmp, dir / (stem + ".csv"));
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
