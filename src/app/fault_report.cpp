// The /faults table and the summary's fault lines (docs/faults.md).
#include "fault_report.hpp"

#include <spdlog/fmt/fmt.h>

#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "sipsim/base/units.hpp"

namespace sipsim::app {

namespace {

// Whether the run reached the fault: a failure that stopped it happened at
// its time, where no event ran; any other fault by the last event.
bool happened(const fabric::Fault& f, const FaultOutcome& o) {
  if (o.failure) return f.at <= o.failure->at;
  return f.at <= o.last_event;
}

std::string removed(const fabric::Fault& f) {
  switch (f.kind) {
    case fabric::FaultKind::kGpuSlowdown:
      return fmt::format("{:.4g}% of {}'s compute speed", (1.0 - f.factor) * 100.0, f.target);
    case fabric::FaultKind::kGpu:
      return fmt::format("{}: the job stopped", f.target);
    default:
      return f.removed_bps > 0
                 ? fmt::format("{}: {}", f.target, base::format_capacity_bps(f.removed_bps))
                 : f.target;
  }
}

}  // namespace

std::string failure_text(const fabric::Fault& failure) {
  return fmt::format("failed at {}: {} failed", base::format_time_ps(failure.at), failure.target);
}

std::vector<output::FaultRow> fault_rows(const std::vector<fabric::Fault>& faults,
                                         const FaultOutcome& outcome) {
  std::vector<output::FaultRow> rows;
  for (std::size_t i = 0; i < faults.size(); ++i) {
    const fabric::Fault& f = faults[i];
    output::FaultRow r{};
    r.id = static_cast<std::uint32_t>(i);
    output::h5::copy_fixed(r.kind, fabric::to_string(f.kind));
    output::h5::copy_fixed(r.target, f.target);
    r.at_ps = f.at;
    r.until_ps = f.until;
    r.happened = happened(f, outcome) ? 1 : 0;
    r.factor = f.kind == fabric::FaultKind::kGpuSlowdown ? f.factor
                                                         : std::numeric_limits<double>::quiet_NaN();
    output::h5::copy_fixed(r.removed, removed(f));
    r.removed_bps = f.removed_bps;
    rows.push_back(r);
  }
  return rows;
}

std::vector<std::pair<std::string, std::string>> fault_summary(
    const std::vector<fabric::Fault>& faults, const FaultOutcome& outcome) {
  std::vector<std::pair<std::string, std::string>> out;
  // A few faults one per line; many (random draws) counted per kind.
  constexpr std::size_t kListed = 8;
  if (faults.size() <= kListed) {
    for (const fabric::Fault& f : faults) {
      out.emplace_back("fault",
                       fabric::describe(f) + (happened(f, outcome) ? "" : " (not reached)"));
    }
  } else {
    std::map<std::string_view, std::pair<std::size_t, std::size_t>> kinds;  // all, reached
    for (const fabric::Fault& f : faults) {
      auto& [all, reached] = kinds[fabric::to_string(f.kind)];
      ++all;
      reached += happened(f, outcome) ? 1 : 0;
    }
    std::string line;
    for (const auto& [kind, n] : kinds) {
      line +=
          fmt::format("{}{} {} ({} reached)", line.empty() ? "" : ", ", n.first, kind, n.second);
    }
    out.emplace_back("faults", line + "; each in /faults");
  }
  if (outcome.failure) out.emplace_back("outcome", failure_text(*outcome.failure));
  return out;
}

}  // namespace sipsim::app
