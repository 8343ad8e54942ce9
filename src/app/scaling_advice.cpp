#include "scaling_advice.hpp"

#include <spdlog/fmt/fmt.h>

#include <cmath>
#include <cstdint>

namespace sipsim::app {

std::string predicted_efficiency_text(const pdes::ScalingFigures& run) {
  const auto rows = pdes::predict_scaling(run, pdes::kAdvisedRanks);
  if (rows.empty()) return "";
  std::string out;
  for (const pdes::ScalingPrediction& p : rows) {
    out += out.empty() ? fmt::format("{:.2f} at {} ranks", p.efficiency, p.ranks)
                       : fmt::format(", {:.2f} at {}", p.efficiency, p.ranks);
  }
  const int pays = pdes::ranks_that_pay(run);
  return out + (pays > 1 ? fmt::format("; at least {} up to {} ranks", pdes::kPaysEfficiency, pays)
                         : fmt::format("; below {} from 2 ranks on", pdes::kPaysEfficiency));
}

pdes::ScalingFigures scaling_figures(const output::run_file::Reader& file) {
  auto number = [&](const char* name) {
    const double v = file.number_attr("/meta", name);
    if (!std::isfinite(v) || v < 0) {
      throw output::run_file::Error(
          fmt::format("{}: /meta@{} is missing or not a number: a run file of an older sipsim, "
                      "or not a finished run (docs/output.md)",
                      file.path(), name));
    }
    return v;
  };
  pdes::ScalingFigures f;
  f.ranks = static_cast<int>(number("ranks"));
  f.windowed = file.string_attr("/meta", "engine") == "windowed";
  f.events = static_cast<std::uint64_t>(number("committed_events"));
  f.windows = static_cast<std::uint64_t>(number("windows"));
  f.critical_path_events = static_cast<std::uint64_t>(number("critical_path_events"));
  f.wall_seconds = number("wall_seconds");
  f.busy_seconds_mean = number("busy_seconds_mean");
  f.critical_path_seconds = number("critical_path_seconds");
  f.remote_fraction = number("remote_fraction");
  return f;
}

}  // namespace sipsim::app
