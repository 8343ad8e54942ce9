#pragma once
// How the kernel's error messages name a time and an exception, the same in
// every file of src/pdes/.
#include <exception>
#include <new>
#include <string>

#include "sipsim/base/units.hpp"
#include "sipsim/pdes/time.hpp"

namespace sipsim::pdes::detail {

// Exact: a message names the simulated time to the picosecond.
inline std::string time_str(Time t) {
  return base::format_time_ps_exact(t);
}

// What went wrong, for a message: "out of memory" says more than "std::bad_alloc".
inline std::string describe(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) return "out of memory (std::bad_alloc)";
  return e.what();
}

}  // namespace sipsim::pdes::detail
