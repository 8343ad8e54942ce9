#include "training_summary.hpp"

#include <cmath>

namespace sipsim::app {

std::optional<TrainingSummary> training_summary(const output::run_file::Reader& in) {
  const std::vector<output::run_file::IterationRow> iters = in.iterations();
  if (iters.empty()) return std::nullopt;
  return summarize(iters, in.breakdown_means());
}

TrainingSummary summarize(const std::vector<output::run_file::IterationRow>& iters,
                          const output::run_file::BreakdownMeans& bd) {
  TrainingSummary t;
  t.iterations = iters.size();
  double span = 0, hardware = 0, model = 0;
  for (const output::run_file::IterationRow& i : iters) {
    const double p = static_cast<double>(i.period_ps) / 1e12;
    span += p;
    hardware += i.hardware_tflops_per_gpu * p;
    model += i.model_tflops_per_gpu * p;
  }
  t.iteration_s = span / static_cast<double>(iters.size());
  t.hardware_tflops_per_gpu = span > 0 ? hardware / span : NAN;
  t.model_tflops_per_gpu = span > 0 ? model / span : NAN;
  t.gpus = bd.gpus;
  t.categories = bd.categories;
  t.breakdown_s.assign(bd.categories.size(), 0.0);
  for (std::size_t c = 0; c < bd.categories.size(); ++c) {
    double sum = 0;
    for (const std::vector<double>& m : bd.mean_s) sum += m[c];
    t.breakdown_s[c] = bd.mean_s.empty() ? NAN : sum / static_cast<double>(bd.mean_s.size());
  }
  return t;
}

}  // namespace sipsim::app
