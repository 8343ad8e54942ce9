#include "sipsim/base/memory.hpp"

#include <sys/sysinfo.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace sipsim::base {

namespace {

std::optional<std::uint64_t> host_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, rest;
  std::uint64_t value = 0;
  while (meminfo >> key >> value) {
    std::getline(meminfo, rest);
    if (key == "MemAvailable:") return value * 1024;  // the file says kB and means KiB
  }
  // Kernels before 3.14 have no MemAvailable.
  struct sysinfo info {};
  if (sysinfo(&info) != 0) return std::nullopt;
  return (static_cast<std::uint64_t>(info.freeram) + info.bufferram) * info.mem_unit;
}

std::optional<std::uint64_t> read_number(const std::string& path) {
  std::ifstream in(path);
  std::uint64_t value = 0;
  if (in >> value) return value;
  return std::nullopt;  // also "max": no limit
}

// What the cgroup v2 limits (a batch system's job allocation) leave: the
// least of limit - usage over this process's cgroup and its parents.
std::optional<std::uint64_t> cgroup_available() {
  std::ifstream self("/proc/self/cgroup");
  std::string line, group;
  while (std::getline(self, line)) {
    if (line.rfind("0::", 0) == 0) group = line.substr(3);
  }
  if (group.empty()) return std::nullopt;
  std::optional<std::uint64_t> least;
  for (;;) {
    const std::string dir = "/sys/fs/cgroup" + (group == "/" ? std::string() : group);
    const auto limit = read_number(dir + "/memory.max");
    const auto usage = read_number(dir + "/memory.current");
    if (limit && usage) {
      const std::uint64_t left = *limit > *usage ? *limit - *usage : 0;
      least = least ? std::min(*least, left) : left;
    }
    if (group == "/" || group.empty()) break;
    group = group.substr(0, std::max<std::size_t>(group.rfind('/'), 1));
  }
  return least;
}

}  // namespace

std::optional<std::uint64_t> available_memory() {
  const auto host = host_available();
  const auto cgroup = cgroup_available();
  if (host && cgroup) return std::min(*host, *cgroup);
  return host ? host : cgroup;
}

}  // namespace sipsim::base
