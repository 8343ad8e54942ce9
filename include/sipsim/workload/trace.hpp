#pragma once
// The optional event trace of a program run (`output.trace`, docs/output.md
// `/trace/events`): one row per finished op of every node and iteration.
// Levels: `ops` (every op but waits), `collectives` (only communication ops:
// collectives, sends and receives), `steps` (the communication ops and every
// wire step of their simulated collectives, one row per member and step).
#include <cstdint>
#include <string_view>
#include <vector>

#include "sipsim/output/h5.hpp"
#include "sipsim/workload/interpreter.hpp"

namespace sipsim::workload {

enum class TraceLevel : std::uint8_t { kNone, kOps, kCollectives, kSteps };
std::string_view to_string(TraceLevel level);

// One rank's rows; record() at the node's LP (ProgramObserver::op_done), then
// write() collectively.
class Trace {
 public:
  // `programs` must outlive record() (it is the interpreter's).
  Trace(TraceLevel level, const ProgramSet& programs)
      : level_(level),
        programs_(&programs),
        nodes_(static_cast<std::uint32_t>(programs.bindings.size())) {}
  TraceLevel level() const { return level_; }
  void record(const OpRecord& r);
  // Level `steps`: step `step` of collective op r.op.
  void record_step(const OpRecord& r, std::uint32_t step);
  // Collective: /trace/events, rows by (node, iteration, op) whatever the
  // partition, so that the file is the same at every rank count. Every rank
  // writes its own nodes' rows (parallel HDF5). Then the ops' own names,
  // /trace/names and /trace/ops, the same on every rank (rank 0 writes them).
  void write(output::h5::File& file) const;

  struct Row {
    std::uint32_t node, iteration, op;
    std::int32_t step;  // a collective's wire step, or -1: the row is an op
    char kind[12];
    char category[16];
    std::uint32_t program;  // the node's; in what would be padding
    std::uint64_t start_ps, end_ps;
  };

  // This rank's rows, in completion order.
  const std::vector<Row>& rows() const { return rows_; }

 private:
  TraceLevel level_;
  // /trace/names and /trace/ops (every rank holds every program).
  void write_names(output::h5::File& file) const;

  const ProgramSet* programs_;
  std::uint32_t nodes_;
  std::vector<Row> rows_;  // this rank's, in completion order
};

}  // namespace sipsim::workload
