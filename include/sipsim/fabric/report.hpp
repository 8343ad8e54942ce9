#pragma once
// What a fabric says about itself and its run: description, facts, energy,
// named counters and tables. Apart from fabric::Network so that the code that
// only reports (app/, workloads' results) takes only this; every fabric is
// one (Network derives from it).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sipsim/pdes/time.hpp"

namespace sipsim::fabric {

// Energy of one bit carried over one node-to-node path of a fabric (its
// longest: every tier of a tree), in pJ, and where the figure comes from; NaN
// where the fabric has no sourced figure (docs/models.md, "Energy").
struct EnergyPerBit {
  double pj = std::numeric_limits<double>::quiet_NaN();
  std::string source = "none: no sourced energy figure for this fabric";
  bool known() const { return pj == pj; }
};

// Fabric statistics, summed over ranks by the caller.
struct NetworkStats {
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
  std::uint64_t chunk_hops = 0;  // routed fabrics: chunk transmissions over links
  pdes::Time max_queueing = 0;   // longest wait of a transmission for a busy port
};

class Report {
 public:
  virtual ~Report() = default;

  virtual std::string describe() const = 0;
  // Facts for `sipsim info`: (name, value) lines.
  virtual std::vector<std::pair<std::string, std::string>> facts() const = 0;
  // What a bit sent costs (RAMP §4.3, Table 4, where the fabric is one of its
  // columns); unknown by default.
  virtual EnergyPerBit energy_pj_per_bit() const { return {}; }
  const NetworkStats& stats() const { return stats_; }

  // A named statistic of this rank's part of the fabric. The run file holds
  // each one combined over ranks (/fabric attributes): summed, or the largest.
  struct Counter {
    std::string name;
    std::uint64_t value = 0;
    bool max = false;
    // A wall-clock figure (a planner's time): not part of the results, so
    // the run file keeps it in /meta (fabric_<name>), not /fabric.
    bool wall = false;
  };
  // The same names in the same order on every rank: NetworkStats' counters,
  // then the fabric's own (RAMP's optical-rule counters, ...).
  virtual std::vector<Counter> counters() const;
  // Tables the same on every rank (a controller's plans), written once to
  // /fabric/<name>/<column>: equal-length columns. Every rank gives `rows`;
  // only rank 0's columns are read, so a fabric may keep the rows there alone.
  struct ReportTable {
    std::string name;
    std::vector<std::string> columns;
    std::uint64_t rows = 0;
    // Column c's `rows` values, built when asked: the writer takes one column
    // at a time, so a long table (SiP-Ring's plan log) is never copied whole.
    // Valid while the network lives.
    std::function<std::vector<std::uint64_t>(std::size_t c)> column;
    std::vector<std::vector<std::uint64_t>> values() const {  // all of them (tests)
      std::vector<std::vector<std::uint64_t>> out;
      for (std::size_t c = 0; c < columns.size(); ++c) out.push_back(column(c));
      return out;
    }
  };
  virtual std::vector<ReportTable> report_tables() const { return {}; }
  // This rank's value of counter `name`; throws std::out_of_range for another name.
  std::uint64_t counter(std::string_view name) const;

 protected:
  // Here rather than in Network so that the default counters() can read
  // them; the fabric's transport adds to them as it sends.
  NetworkStats stats_;
};

}  // namespace sipsim::fabric
