#pragma once
// The small grammars of studies' text (docs/studies.md), checked by hand in
// one pass: std::regex recurses once per character, and a 100,000-character
// cell would overflow the stack.
#include <cstddef>
#include <string_view>

namespace sipsim::app {

// Names of letters, digits, '_' and '-' joined by dots, at most 200
// characters: a scenario key path, a CSV column and an HDF5 dataset name.
bool key_path(std::string_view s);
// 1 to `max` letters, digits, '_' or '-' (a breakdown category).
bool name_token(std::string_view s, std::size_t max);
// 1 to `max` decimal digits (a run id).
bool digits(std::string_view s, std::size_t max);
// [+-]? (d+ (. d*)? | . d+) ([eE] [+-]? d+)?: a number a CSV cell holds as it is.
bool plain_number(std::string_view s);
// A Slurm time (sbatch --time): M, M:S, H:M:S, D-H, D-H:M or D-H:M:S, with
// at most 9 digits for the first field and 2 for the others.
bool slurm_time(std::string_view s);

}  // namespace sipsim::app
