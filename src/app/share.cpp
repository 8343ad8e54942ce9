#include "share.hpp"

#include <algorithm>
#include <cstdlib>
#include <system_error>

namespace sipsim::app {

namespace fs = std::filesystem;

namespace {

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// The running binary's folder (Linux: /proc/self/exe), empty where unknown.
fs::path binary_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

}  // namespace

bool in_share(const fs::path& path) {
  std::error_code ec;
  const fs::path file = fs::weakly_canonical(fs::absolute(path), ec);
  if (ec) return false;
  for (const fs::path& dir : share_dirs()) {
    const fs::path d = fs::weakly_canonical(dir, ec);
    if (ec) continue;
    const auto [end, _] = std::mismatch(d.begin(), d.end(), file.begin(), file.end());
    if (end == d.end()) return true;
  }
  return false;
}

std::vector<fs::path> share_dirs() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("SIPSIM_SHARE"); env != nullptr && *env != '\0') {
    if (is_dir(env)) dirs.emplace_back(env);
  }
  // cmake --install puts the binary in <prefix>/bin and the rest in
  // <prefix>/share/sipsim: the prefix moves with them.
  if (const fs::path bin = binary_dir(); !bin.empty()) {
    const fs::path installed = (bin / ".." / "share" / "sipsim").lexically_normal();
    if (is_dir(installed) && (dirs.empty() || !fs::equivalent(dirs.front(), installed))) {
      dirs.push_back(installed);
    }
  }
  return dirs;
}

std::optional<Located> locate_scenario(const std::string& path) {
  if (path.empty()) return std::nullopt;
  std::error_code ec;
  if (fs::exists(path, ec)) return Located{path, in_share(path)};
  const fs::path p(path);
  if (p.is_absolute()) return std::nullopt;
  // A bare name may leave out the .yaml.
  std::vector<fs::path> names = {p};
  if (!p.has_extension()) names.emplace_back(path + ".yaml");
  for (const fs::path& dir : share_dirs()) {
    for (const fs::path& name : names) {
      for (const fs::path& candidate : {dir / name, dir / "scenarios" / name}) {
        if (is_file(candidate)) return Located{candidate.lexically_normal().string(), true};
      }
    }
  }
  return std::nullopt;
}

std::string where_looked(const std::string& path) {
  // As the loaders say it, plus where else it was looked for.
  std::string out = path + ": cannot read (No such file or directory)";
  if (fs::path(path).is_absolute()) return out;
  const std::vector<fs::path> dirs = share_dirs();
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    out += (i == 0 ? ", nor found in " : " or ") + (dirs[i] / "scenarios").string();
  }
  return out;
}

}  // namespace sipsim::app
