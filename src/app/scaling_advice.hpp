#pragma once
// What `run`'s summary and `info --run` say about the rank count
// (docs/user-guide.md, "Choosing ranks and memory"): the scaling
// model's predicted efficiency at the advised rank counts, from one run.
#include <string>

#include "sipsim/output/run_file_reader.hpp"
#include "sipsim/pdes/scaling.hpp"

namespace sipsim::app {

// "0.78 at 2 ranks, 0.41 at 16, 0.19 at 64, 0.05 at 256; at least 0.5 up
// to 8 ranks", or "" when the run cannot predict (sequential, no windows).
std::string predicted_efficiency_text(const pdes::ScalingFigures& run);

// A run file's figures (/meta, docs/output.md). Throws
// output::run_file::Error naming the attribute a file made by an older
// sipsim lacks.
pdes::ScalingFigures scaling_figures(const output::run_file::Reader& file);

}  // namespace sipsim::app
