// The installed share directory (docs/install.md): scenarios and studies by
// name, wherever the prefix is.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sipsim::app {

// Where shipped files are looked for, in order: $SIPSIM_SHARE, then
// <prefix>/share/sipsim for the binary's <prefix>/bin. Only directories that
// exist are listed.
std::vector<std::filesystem::path> share_dirs();

// Whether `path` lies in a share directory (what is written next to it would
// go into the prefix).
bool in_share(const std::filesystem::path& path);

// A scenario or study named on the command line. A path that names a file
// here is taken as it is; otherwise a relative path is looked for in each
// share directory, as given and under its scenarios/ (so `quickstart`,
// `quickstart.yaml` and `scenarios/quickstart.yaml` all find the installed
// quickstart). nullopt when it is nowhere.
struct Located {
  std::string path;
  bool from_share = false;  // in a share directory (found there, or named there)
};
std::optional<Located> locate_scenario(const std::string& path);

// The error for a path that is nowhere: as the loaders word it, and where
// else it was looked for.
std::string where_looked(const std::string& path);

}  // namespace sipsim::app
