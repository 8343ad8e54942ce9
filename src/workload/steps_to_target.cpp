#include "sipsim/workload/steps_to_target.hpp"

#include <cmath>
#include <stdexcept>

namespace sipsim::workload {

namespace {

struct Preset {
  const char* name;
  const char* citation;
  std::uint64_t batch, steps;
};

// Numbers only, each with where it is stated.
constexpr Preset kPresets[] = {
    {"sipml-megatron",
     "SiP-ML §4.2: Megatron at global batch 1,024 trains for 240,000 iterations (its refs. "
     "[50, 87])",
     1024, 240000},
};

std::string batches_text(const StepsToTarget& t) {
  std::string out;
  for (const auto& [batch, steps] : t.points) {
    out += (out.empty() ? "" : ", ") + std::to_string(batch);
  }
  return out;
}

StepsToTarget read_points(const base::Value& list) {
  StepsToTarget t;
  t.source = "table";
  const std::vector<base::Value> items = list.as_list();
  if (items.empty()) list.fail("needs at least one {batch, steps} point");
  for (const base::Value& item : items) {
    base::MapReader m = item.as_map();
    const base::Value batch = m.required("batch"), steps = m.required("steps");
    const std::uint64_t b = batch.as_uint(), s = steps.as_uint();
    if (b == 0) batch.fail("must be at least 1");
    if (s == 0) steps.fail("must be at least 1");
    if (!t.points.empty() && b <= t.points.back().first) {
      batch.fail("batches must increase down the list (the one before is " +
                 std::to_string(t.points.back().first) + ")");
    }
    m.finish();
    t.points.emplace_back(b, s);
  }
  return t;
}

}  // namespace

double StepsToTarget::iterations(std::uint64_t batch) const {
  if (points.empty()) throw std::invalid_argument("steps_to_target has no points");
  for (std::size_t k = 0; k < points.size(); ++k) {
    if (points[k].first == batch) return static_cast<double>(points[k].second);
    if (k + 1 < points.size() && points[k].first < batch && batch < points[k + 1].first) {
      // Linear in log-log between the two points around the batch.
      const double x0 = std::log(static_cast<double>(points[k].first));
      const double x1 = std::log(static_cast<double>(points[k + 1].first));
      const double y0 = std::log(static_cast<double>(points[k].second));
      const double y1 = std::log(static_cast<double>(points[k + 1].second));
      const double x = std::log(static_cast<double>(batch));
      return std::exp(y0 + (y1 - y0) * (x - x0) / (x1 - x0));
    }
  }
  throw std::invalid_argument("the job's global batch " + std::to_string(batch) +
                              " is outside the steps_to_target batches (" + batches_text(*this) +
                              "): add a point there, the curve is not extrapolated");
}

std::vector<std::string> steps_to_target_presets() {
  std::vector<std::string> out;
  for (const Preset& p : kPresets) out.emplace_back(p.name);
  return out;
}

StepsToTarget read_training(const base::Value& section) {
  base::MapReader m = section.as_map();
  const base::Value v = m.required("steps_to_target");
  StepsToTarget t;
  if (v.is_scalar()) {
    const std::string name = v.as_enum(steps_to_target_presets());
    for (const Preset& p : kPresets) {
      if (name == p.name) {
        t.points = {{p.batch, p.steps}};
        t.source = std::string(p.name) + ": " + p.citation;
      }
    }
  } else if (v.is_list()) {
    t = read_points(v);
  } else {
    std::string names;
    for (const std::string& n : steps_to_target_presets()) names += (names.empty() ? "" : ", ") + n;
    v.fail("expected a preset (" + names + ") or a list of {batch, steps}");
  }
  m.finish();
  return t;
}

}  // namespace sipsim::workload
