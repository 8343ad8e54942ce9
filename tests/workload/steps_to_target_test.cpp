// SiP-ML's time to accuracy (src/workload/steps_to_target.cpp): the
// iterations at a batch from a table (exact at its points, log-log between
// them, refused outside) or a preset, and the `training` section's errors,
// each located at its key.
#include "sipsim/workload/steps_to_target.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace sipsim::workload {
namespace {

StepsToTarget read(const std::string& yaml) {
  const base::Document doc = base::Document::load_string(yaml, "t.yaml");
  return read_training(doc.root().as_map().required("training"));
}

std::string error_of(const std::string& yaml) {
  try {
    read(yaml);
  } catch (const base::ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST(StepsToTarget, TablePointsAndLogLogBetweenThem) {
  const StepsToTarget t = read(
      "training:\n  steps_to_target: [{batch: 256, steps: 50000}, {batch: 4096, steps: 5000}]\n");
  EXPECT_EQ(t.source, "table");
  EXPECT_EQ(t.iterations(256), 50000.0);
  EXPECT_EQ(t.iterations(4096), 5000.0);
  // Half-way in log(batch): the geometric mean of the iterations.
  EXPECT_NEAR(t.iterations(1024), std::sqrt(50000.0 * 5000.0), 1e-6);
  EXPECT_THROW(t.iterations(128), std::invalid_argument);
  EXPECT_THROW(t.iterations(8192), std::invalid_argument);
}

TEST(StepsToTarget, PresetWithItsCitation) {
  const StepsToTarget t = read("training:\n  steps_to_target: sipml-megatron\n");
  EXPECT_EQ(t.iterations(1024), 240000.0);
  EXPECT_NE(t.source.find("SiP-ML §4.2"), std::string::npos);
  EXPECT_THROW(t.iterations(512), std::invalid_argument);
}

TEST(StepsToTarget, ErrorsNameTheKey) {
  EXPECT_NE(error_of("training:\n  steps_to_target: sipml-megatrn\n").find("did you mean"),
            std::string::npos);
  EXPECT_NE(error_of("training:\n  steps_to_target: []\n").find("at least one"), std::string::npos);
  EXPECT_NE(error_of("training:\n  steps_to_target: [{batch: 512, steps: 10}, {batch: 256, steps: "
                     "20}]\n")
                .find("t.yaml:2:54: training.steps_to_target[1].batch: batches must increase"),
            std::string::npos);
  EXPECT_NE(error_of("training:\n  steps_to_target: [{batch: 0, steps: 10}]\n").find("at least 1"),
            std::string::npos);
  EXPECT_NE(
      error_of("training:\n  steps_to_target: [{batch: 4, steps: 10, step: 3}]\n").find("step"),
      std::string::npos);
  EXPECT_NE(error_of("training:\n  steps: 3\n").find("steps_to_target"), std::string::npos);
}

}  // namespace
}  // namespace sipsim::workload
