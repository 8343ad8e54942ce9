#pragma once
// Private to fabric/: the short forms of rates, times and sizes in describe().
#include <cstdint>
#include <cstdio>
#include <string>

#include "sipsim/pdes/time.hpp"

namespace sipsim::fabric::detail {

// Short human-readable forms for describe().
inline std::string gbps(std::uint64_t bps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%gGbps", static_cast<double>(bps) / 1e9);
  return buf;
}
inline std::string ns(pdes::Time t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%gns", static_cast<double>(t) / 1e3);
  return buf;
}
inline std::string kib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%gKiB", static_cast<double>(bytes) / 1024);
  return buf;
}

}  // namespace sipsim::fabric::detail
