// A training run file's figures per iteration, as `compare` and `collect`
// report them: the mean period, TFLOP/s per GPU and the mean GPU's breakdown.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sipsim/output/run_file_reader.hpp"

namespace sipsim::app {

struct TrainingSummary {
  std::size_t iterations = 0;
  std::uint64_t gpus = 0;
  // The run's span over its iterations (they overlap: end - start would
  // over-count), and the TFLOP/s over that span, the periods' time-weighted
  // means.
  double iteration_s = 0, hardware_tflops_per_gpu = 0, model_tflops_per_gpu = 0;
  std::vector<std::string> categories;
  std::vector<double> breakdown_s;  // per category, the mean GPU's mean over iterations
};

// nullopt when the file has no /iterations (not a training run).
std::optional<TrainingSummary> training_summary(const output::run_file::Reader& in);
// The same from tables already read (`iters` not empty).
TrainingSummary summarize(const std::vector<output::run_file::IterationRow>& iters,
                          const output::run_file::BreakdownMeans& bd);

}  // namespace sipsim::app
