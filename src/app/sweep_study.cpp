// The study file (docs/studies.md): a base scenario, axes of values and how
// they combine, seeds, ranks and a time limit, expanded into runs. Every run
// is the base scenario with --set overrides, so it is checked exactly as
// `sipsim validate --set ...` checks it.
#include <spdlog/fmt/fmt.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <new>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "sipsim/base/text.hpp"
#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/scenario/scenario.hpp"
#include "sipsim/setup/setup.hpp"
#include "study_text.hpp"
#include "sweep.hpp"

namespace sipsim::app {

namespace {

namespace fs = std::filesystem;

// One value of an axis: as the manifest shows it, as YAML for --set, and
// where the study file gave it.
struct AxisValue {
  std::string text;
  std::string yaml;
  std::string location;
};

// A name, label or value is one line of printable UTF-8: it reaches CSV
// rows, comments in scenario files and submit.sh, and Python.
void check_one_line(const base::Value& where, const std::string& text, const char* what) {
  if (const std::string problem = base::one_line_problem(text); !problem.empty()) {
    where.fail(std::string(what) + " " + problem +
               "; studies take one line of printable UTF-8 text");
  }
}

struct Axis {
  std::string key;
  std::vector<AxisValue> values;
};

// A value as the manifest shows it and as YAML for --set: a plain scalar as
// written; a quoted one as its text, and double-quoted for --set (so that
// --set reads the same string back); anything else in flow style (so that it
// fits on a --set and in a CSV cell). Both must be one line.
AxisValue axis_value(const base::Value& v) {
  const YAML::Node& node = v.yaml();
  AxisValue out{"", "", v.location()};
  if (node.IsScalar()) {
    out.text = node.Scalar();
    check_one_line(v, out.text, "the value");
    if (node.Tag() == "!") {  // quoted in the study file
      YAML::Emitter e;
      e << YAML::DoubleQuoted << node.Scalar();
      out.yaml = e.c_str();
    } else {
      out.yaml = out.text;
    }
    return out;
  }
  YAML::Emitter e;
  e.SetMapFormat(YAML::Flow);
  e.SetSeqFormat(YAML::Flow);
  e << node;
  out.text = out.yaml = e.c_str();
  check_one_line(v, out.text, "the value");
  return out;
}

std::string number_text(double v) {
  if (std::abs(v) < 1e15 && v == std::floor(v)) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{:.12g}", v);
}

// {range: [start, stop, step]} or {geometric: [start, stop, factor]}, with an
// optional unit appended to every value (`unit: Gbps`). Both include stop.
std::vector<AxisValue> numeric_axis(const base::Value& v) {
  base::MapReader m = v.as_map();
  const bool range = m.has("range");
  const bool geometric = m.has("geometric");
  if (range == geometric)
    v.fail(
        "expected a list of values, or {range: [start, stop, step]} or "
        "{geometric: [start, stop, factor]}");
  const base::Value spec = m.required(range ? "range" : "geometric");
  const std::string unit = m.get_string("unit", "");
  if (unit.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ/") !=
      std::string::npos) {
    m.required("unit").fail("expected a unit of letters, such as Gbps or ns");
  }
  m.finish();
  const auto items = spec.as_list();
  if (items.size() != 3) spec.fail("expected three numbers: [start, stop, step or factor]");
  const double start = items[0].as_double(), stop = items[1].as_double();
  const double step = items[2].as_double();
  if (range && step <= 0) items[2].fail("the step must be > 0");
  if (geometric && (step <= 1 || start <= 0)) {
    items[step <= 1 ? 2 : 0].fail(step <= 1 ? "the factor must be > 1" : "start must be > 0");
  }
  if (stop < start) items[1].fail("stop must be >= start");
  std::vector<AxisValue> out;
  const double slack = 1e-9 * std::max(std::abs(stop), 1.0);  // stop is included
  for (std::size_t i = 0;; ++i) {
    const double x = range ? start + static_cast<double>(i) * step
                           : start * std::pow(step, static_cast<double>(i));
    if (x > stop + slack) break;
    if (out.size() >= 100000) spec.fail("more than 100,000 values");
    out.push_back({number_text(x) + unit, number_text(x) + unit, spec.location()});
  }
  return out;
}

std::vector<AxisValue> axis_values(const base::Value& v) {
  if (v.is_map()) return numeric_axis(v);
  if (!v.is_list()) {
    v.fail(
        "expected a list of values, or {range: [start, stop, step]} or "
        "{geometric: [start, stop, factor]}");
  }
  std::vector<AxisValue> out;
  for (const base::Value& item : v.as_list()) out.push_back(axis_value(item));
  if (out.empty()) v.fail("an axis needs at least one value");
  return out;
}

// A key path of the scenario: names of letters, digits, '_' and '-' joined
// by dots (so that a column name is safe in CSV, HDF5 and a shell).
void check_key(const base::Value& where, const std::string& key) {
  if (!key_path(key)) {
    where.fail("'" + base::excerpt(key) +
               "' is not a key path (names of letters, digits, '_' and '-' joined by dots, e.g. "
               "fabric.line_rate or label.fabric)");
  }
  if (key == "seed") where.fail("set seeds with the study's seeds: key, not as an axis");
}

// Each combination: per column, its value ("" text: unset).
using Point = std::vector<AxisValue>;

// The study's own keys: name, scenario, ranks and the Slurm ones.
void read_settings(base::MapReader& root, const base::Value& doc_root, Study& study) {
  if (auto n = root.optional("name")) {
    study.name = n->as_string();
    check_one_line(*n, study.name, "the name");
    if (study.name.empty() || study.name.size() > 200) n->fail("expected 1 to 200 characters");
  } else {
    study.name = study.file.stem().string();
    if (!base::one_line_problem(study.name).empty() || study.name.empty()) {
      doc_root.fail("the study file's name '" + base::excerpt(study.name) +
                    "' cannot name the study (it must be one line of printable UTF-8); give "
                    "it a name: key");
    }
  }
  const base::Value scenario = root.required("scenario");
  const std::string given = scenario.as_string();
  check_one_line(scenario, given, "the path");
  study.scenario = study.file.parent_path() / given;
  if (std::error_code ec; !fs::is_regular_file(study.scenario, ec)) {
    scenario.fail("no scenario file " + study.scenario.string() +
                  " (paths are relative to the study file's directory)");
  }
  study.ranks = root.get_u32("ranks", 1, 1, 1u << 20);
  read_slurm(root, study);  // time_limit and max_parallel too (study_slurm.cpp)
}

// A study's table: at most this many columns (keys), and points x columns
// values, whatever --max-runs allows: each value is a manifest cell.
constexpr std::size_t kMaxColumns = 1000;
constexpr std::uint64_t kMaxCells = 10'000'000;

// Most runs a study may have (sweep --max-runs), as points x seeds.
struct RunLimit {
  std::uint64_t max_runs = 0, repeats = 1;
  std::uint64_t max_points() const { return max_runs / repeats; }
  [[noreturn]] void fail(const base::Value& where) const {
    where.fail(fmt::format(
        "the study expands to more than {} runs (points x seeds), the limit: each run is a "
        "scenario, a log and a run file (sipsim sweep --max-runs N allows more)",
        max_runs));
  }
};

// The points of axes: (product or zip), each a value per column.
std::vector<Point> axes_points(const base::Value& axes_value, const std::string& combine,
                               const RunLimit& limit, Study& study) {
  base::MapReader axes = axes_value.as_map();
  std::vector<Axis> list;
  std::uint64_t product = 1;
  for (const auto& kv : axes_value.yaml()) {
    const std::string key = kv.first.as<std::string>();
    const base::Value v = axes.required(key);
    check_key(v, key);
    list.push_back({key, axis_values(v)});
    study.columns.push_back(key);
    if (study.columns.size() > kMaxColumns) {
      v.fail(fmt::format("more than {} axes: a study's table has a column per axis", kMaxColumns));
    }
    // The product so far, checked as each axis comes: no more axes are read
    // once it passes the limit (a zip is one axis long).
    const std::uint64_t size = list.back().values.size();
    if (combine == "zip") {
      product = list.front().values.size();
    } else if (product > limit.max_points() / size) {
      limit.fail(axes_value);
    } else {
      product *= size;
    }
    if (product > limit.max_points()) limit.fail(axes_value);
  }
  if (list.empty()) axes_value.fail("no axes: give at least one key path and its values");
  std::vector<Point> points;
  if (combine == "zip") {
    for (const Axis& a : list) {
      if (a.values.size() != list.front().values.size()) {
        axes.required(a.key).fail(
            fmt::format("combine: zip needs axes of one length: {} has {} values, {} has {}", a.key,
                        a.values.size(), list.front().key, list.front().values.size()));
      }
    }
    for (std::size_t i = 0; i < list.front().values.size(); ++i) {
      Point p;
      for (const Axis& a : list) p.push_back(a.values[i]);
      points.push_back(std::move(p));
    }
    return points;
  }
  for (std::size_t i = 0; i < product; ++i) {
    Point p(list.size());
    std::size_t rest = i;  // the first axis varies slowest
    for (std::size_t a = list.size(); a-- > 0;) {
      p[a] = list[a].values[rest % list[a].values.size()];
      rest /= list[a].values.size();
    }
    points.push_back(std::move(p));
  }
  return points;
}

// The points of points:, one by one; `orders` gets each point's keys' columns.
std::vector<Point> listed_points(const base::Value& points_value, const RunLimit& limit,
                                 Study& study, std::vector<std::vector<std::size_t>>& orders) {
  if (!points_value.is_list()) points_value.fail("expected a list of maps of key paths to values");
  // Counted before any point is expanded: a value per point and column.
  if (points_value.yaml().size() > limit.max_points()) limit.fail(points_value);
  std::vector<std::vector<std::pair<std::string, AxisValue>>> given;
  for (const base::Value& item : points_value.as_list()) {
    base::MapReader m = item.as_map();
    std::vector<std::pair<std::string, AxisValue>> p;
    for (const auto& kv : item.yaml()) {
      const std::string key = kv.first.as<std::string>();
      const base::Value v = m.required(key);
      check_key(v, key);
      p.emplace_back(key, axis_value(v));
      if (std::find(study.columns.begin(), study.columns.end(), key) == study.columns.end()) {
        study.columns.push_back(key);
        if (study.columns.size() > kMaxColumns) {
          v.fail(fmt::format("more than {} different keys: a study's table has a column per key",
                             kMaxColumns));
        }
      }
    }
    given.push_back(std::move(p));
  }
  if (given.empty()) points_value.fail("no points: give at least one map of key paths to values");
  if (given.size() * study.columns.size() > kMaxCells) {
    points_value.fail(
        fmt::format("{} points x {} keys is more than {} values: the manifest would be too large",
                    given.size(), study.columns.size(), kMaxCells));
  }
  std::vector<Point> points;
  for (const auto& g : given) {
    Point p(study.columns.size());
    std::vector<std::size_t> order;
    for (const auto& [key, value] : g) {
      const auto c = static_cast<std::size_t>(
          std::find(study.columns.begin(), study.columns.end(), key) - study.columns.begin());
      p[c] = value;
      order.push_back(c);
    }
    points.push_back(std::move(p));
    orders.push_back(std::move(order));
  }
  return points;
}

std::vector<std::string> read_seeds(base::MapReader& root) {
  std::vector<std::string> seeds;
  if (auto s = root.optional("seeds")) {
    if (s->is_list()) {
      for (const base::Value& v : s->as_list()) seeds.push_back(std::to_string(v.as_uint()));
      if (seeds.empty()) s->fail("expected a count or a list of seeds");
      if (seeds.size() > 100000) s->fail("at most 100,000 seeds");
    } else {
      const std::uint32_t n = s->as_u32(1, 100000);
      for (std::uint32_t i = 1; i <= n; ++i) seeds.push_back(std::to_string(i));
    }
  }
  return seeds;
}

}  // namespace

std::vector<std::string> run_overrides(const Study& study, const StudyRun& run) {
  std::vector<std::string> out;
  std::vector<std::size_t> order = run.order;
  if (order.empty()) {
    order.resize(study.columns.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
  }
  for (const std::size_t c : order) {
    // label.* columns only name the point in the tables.
    if (study.columns[c].starts_with("label.")) continue;
    if (!run.yaml[c].empty()) out.push_back(study.columns[c] + "=" + run.yaml[c]);
  }
  if (!run.seed.empty()) out.push_back("seed=" + run.seed);
  return out;
}

Study read_study(const std::string& path, std::uint64_t max_runs) {
  Study study;
  study.file = path;
  if (const std::string problem = base::one_line_problem(fs::absolute(path).string());
      !problem.empty()) {
    throw base::ScenarioError(base::excerpt(path), "",
                              "the study file's path " + problem +
                                  "; it is named in every run's scenario and in submit.sh");
  }
  const base::Document doc = base::Document::load_file(path);
  base::MapReader root = doc.root().as_map();
  read_settings(root, doc.root(), study);

  std::vector<std::string> seeds = read_seeds(root);
  const std::uint64_t repeats = std::max<std::uint64_t>(seeds.size(), 1);
  const RunLimit limit{max_runs, repeats};
  // The points: from the axes (product or zip) or given one by one.
  std::vector<Point> points;
  std::vector<std::vector<std::size_t>> orders;  // per point of points:, its keys' columns
  const auto axes_value = root.optional("axes");
  const auto points_value = root.optional("points");
  const std::string combine = root.has("combine")
                                  ? root.required("combine").as_enum({"product", "zip"})
                                  : std::string("product");
  if (axes_value && points_value) points_value->fail("give either axes: or points:, not both");
  if (axes_value) {
    points = axes_points(*axes_value, combine, limit, study);
  } else if (points_value) {
    if (root.has("combine"))
      root.required("combine").fail("combine: applies to axes:, not points:");
    points = listed_points(*points_value, limit, study, orders);
  } else {
    points.emplace_back();  // the base scenario alone (with seeds, repetitions of it)
  }
  if (points.size() > limit.max_points()) {
    limit.fail(axes_value ? *axes_value : points_value ? *points_value : root.required("seeds"));
  }
  root.finish();

  const std::size_t total = points.size() * repeats;
  const int width = std::max(4, static_cast<int>(std::to_string(total - 1).size()));
  for (std::size_t pi = 0; pi < points.size(); ++pi) {
    const Point& p = points[pi];
    for (std::size_t k = 0; k < repeats; ++k) {
      StudyRun run;
      run.id = fmt::format("{:0{}}", study.runs.size(), width);
      for (const AxisValue& v : p) {
        run.values.push_back(v.text);
        run.yaml.push_back(v.yaml);
      }
      if (!orders.empty()) run.order = orders[pi];
      if (!seeds.empty()) run.seed = seeds[k];
      study.runs.push_back(std::move(run));
    }
  }
  return study;
}

std::string expand_and_check(const Study& study, const StudyRun& run,
                             const std::string& base_text) {
  const std::string name = study.scenario.string();
  const auto overrides = run_overrides(study, run);
  const base::Document doc = base::Document::load_string(base_text, name, overrides);
  // What `sipsim validate` checks, at the study's rank count (app/validate.cpp).
  {
    scenario::Scenario sc = scenario::load_scenario(doc);
    const bool sequential = sc.simulation.engine == pdes::EngineKind::kSequential;
    if (sequential && study.ranks > 1) {
      doc.root()
          .as_map()
          .required("simulation")
          .as_map()
          .required("engine")
          .fail(fmt::format(
              "the sequential engine runs on one rank only, and the study's runs have {} "
              "ranks (use auto or windowed)",
              study.ranks));
    }
    const pdes::EngineKind kind = sc.simulation.engine;
    const setup::Setup s = setup::read(std::move(sc));
    try {
      const workload::Simulation sim = setup::build(s, {.resolve_auto = false});
      const pdes::Partition partition = sim.model->partition(study.ranks);
      const bool windowed = kind == pdes::EngineKind::kWindowed ||
                            (kind == pdes::EngineKind::kAuto && study.ranks > 1);
      if (windowed && sim.model->lookahead(partition) == 0) {
        throw base::ScenarioError(name, "",
                                  "the model's lookahead is 0: it cannot run in conservative "
                                  "windows (run it on one rank with the sequential engine)");
      }
    } catch (const std::invalid_argument& e) {
      throw base::ScenarioError(name, "", e.what());
    } catch (const std::bad_alloc&) {
      throw base::ScenarioError(name, "", "not enough memory to partition it on this machine");
    }
  }
  // The merged document. Comments are lost; a header says where it came from.
  YAML::Node root = YAML::Clone(doc.root().yaml());
  const bool named =
      std::find(study.columns.begin(), study.columns.end(), "name") != study.columns.end();
  if (!named) root["name"] = study.name + "-" + run.id;
  // A graph file stays relative to the base scenario's directory.
  if (root["workload"] && root["workload"]["graph"] && root["workload"]["graph"].IsScalar()) {
    const fs::path g = root["workload"]["graph"].as<std::string>();
    if (g.is_relative()) {
      root["workload"]["graph"] =
          fs::absolute(study.scenario.parent_path() / g).lexically_normal().string();
    }
  }
  YAML::Emitter out;
  out << root;
  const std::string body = std::string(out.c_str()) + "\n";
  // The merged text must read back as the same scenario.
  const base::Document again = base::Document::load_string(body, name);
  setup::read(scenario::load_scenario(again));
  return body;
}

std::string scenario_header(const Study& study, const StudyRun& run, const std::string& study_id) {
  // Every value here is one line (read_study checks them), so none can end
  // the comment.
  const auto absolute = [](const fs::path& p) {
    return fs::absolute(p).lexically_normal().string();
  };
  std::string text = "# Run " + run.id + " of study '" + study.name + "' (" + absolute(study.file) +
                     "): " + absolute(study.scenario);
  for (const std::string& o : run_overrides(study, run)) text += " --set " + o;
  text += "\n# Written by sipsim sweep; edit the study, not this file.\n";
  text += "# study-id: " + study_id + "\n";
  return text;
}

}  // namespace sipsim::app
