#pragma once
// Reading a run file for `sipsim export` and `collect`: serial, read-only, one rank.
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "sipsim/output/h5.hpp"

namespace sipsim::app::run_file {

// A file that is missing, not HDF5, not a sipsim run file, or damaged: the
// message names the file and says what to do.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A /trace/events row (docs/output.md), strings trimmed of their padding.
struct TraceRow {
  std::uint32_t node = 0, iteration = 0, op = 0;
  std::int32_t step = -1;
  std::string kind, category;
  std::uint64_t start_ps = 0, end_ps = 0;
};

// A /collectives row.
struct CollectiveRow {
  std::uint64_t id = 0;
  std::string op, algorithm;
  std::uint32_t group_size = 0;
  std::uint64_t bytes = 0;
  std::uint32_t iteration = 0;
  bool warmup = false;
  std::uint64_t start_ps = 0, end_ps = 0, h2h_ps = 0, h2t_ps = 0, compute_ps = 0;
  double algbw_gbps = 0, busbw_gbps = 0;
};

class Reader {
 public:
  // Opens `path` read-only and checks `/@format` is "sipsim".
  explicit Reader(std::string path);
  const std::string& path() const { return path_; }
  bool has(const std::string& object) const;
  // A string attribute of `object` ("/meta"), or `fallback` when it is absent.
  std::string string_attr(const std::string& object, const std::string& name,
                          const std::string& fallback = "") const;
  std::uint64_t rows(const std::string& dataset) const;
  // /trace/events' node column, in file order.
  std::vector<std::uint32_t> trace_nodes() const;
  // /trace/events in file order, `batch` rows at a time (bounded memory).
  void for_each_trace_batch(const std::function<void(std::span<const TraceRow>)>& f) const;
  std::vector<CollectiveRow> collectives() const;
  // The open file, for readers of the tables this class does not read (collect.cpp).
  hid_t id() const { return file_.get(); }

 private:
  std::string path_;
  output::h5::Handle file_;
};

}  // namespace sipsim::app::run_file
