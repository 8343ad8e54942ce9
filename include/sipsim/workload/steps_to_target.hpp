#pragma once
// SiP-ML's time-to-accuracy (paper 000 §4.2): the time of one training
// iteration times the number of iterations a model needs to reach its target
// accuracy at the job's global batch. The iterations come from a table of
// (global batch, iterations) points in the scenario (`training:
// steps_to_target`, e.g. read off Shallue et al., JMLR 2019) or from a named
// preset with its citation; between two points they are interpolated
// linearly in log(batch) and log(iterations), the scale on which such curves
// are published. Outside the table there is no value: an error, not an
// extrapolation.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"

namespace sipsim::workload {

struct StepsToTarget {
  // (global batch, iterations), batches strictly increasing, both >= 1.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> points;
  std::string source;  // "table" or the preset's name and citation
  // Iterations at `batch`: a point's, or interpolated between the two around
  // it; std::invalid_argument naming the table's batches outside them.
  double iterations(std::uint64_t batch) const;
};

// The presets' names, for errors and docs.
std::vector<std::string> steps_to_target_presets();
// The `training` section: `steps_to_target` is a preset's name or a list of
// {batch, steps}; every error located at its key.
StepsToTarget read_training(const base::Value& section);

}  // namespace sipsim::workload
