#include "sipsim/fabric/report.hpp"

#include <stdexcept>
#include <string>

namespace sipsim::fabric {

std::vector<Report::Counter> Report::counters() const {
  return {{"messages", stats_.messages, false},
          {"bytes", stats_.bytes, false},
          {"chunk_hops", stats_.chunk_hops, false},
          {"max_queueing_ps", stats_.max_queueing, true}};
}

std::uint64_t Report::counter(std::string_view name) const {
  for (const Counter& c : counters()) {
    if (c.name == name) return c.value;
  }
  throw std::out_of_range("the fabric has no counter '" + std::string(name) + "'");
}

}  // namespace sipsim::fabric
