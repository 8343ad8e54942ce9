#pragma once
// Reading a run file for `sipsim export`, `collect` and `validate --done`:
// serial, read-only, one rank. A run file may come from anywhere, so before
// anything is read the reader refuses what could hang it, point it at other
// files or make it allocate more than the file holds: non-regular files,
// links other than hard ones (external links, soft links), virtual datasets,
// and tables that declare more bytes than the file has.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sipsim/output/h5.hpp"

namespace sipsim::output::run_file {

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
  std::uint32_t program = 0;  // 0 in files from before the column
  std::uint64_t start_ps = 0, end_ps = 0;
};

// The ops' own names (/trace/names and /trace/ops): none in files of
// workloads that name no op, or from before the tables.
struct OpNames {
  std::vector<std::string> names;
  std::unordered_map<std::uint64_t, std::uint32_t> by_op;  // program << 32 | op -> names index
  // The name of `op` of `program`, "" when it has none.
  std::string_view find(std::uint32_t program, std::uint32_t op) const;
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
  double algbw_GBps = 0, busbw_GBps = 0;
};

// A /iterations row (the columns collect reads).
struct IterationRow {
  std::uint32_t iteration = 0;
  std::uint64_t start_ps = 0, end_ps = 0, period_ps = 0;
  double hardware_tflops_per_gpu = 0, model_tflops_per_gpu = 0;
};

// /breakdown: per iteration and category, the mean over GPUs in seconds.
struct BreakdownMeans {
  std::vector<std::string> categories;
  std::vector<std::vector<double>> mean_s;  // [iteration][category]
  std::uint64_t gpus = 0;                   // the GPUs averaged over
};

struct ReaderOptions {
  // A symbolic link to a regular file is opened (export); a study's own run
  // files must be regular files themselves (collect, --status).
  bool allow_symlink = true;
};

class Reader {
 public:
  // Opens `path` read-only and checks `/@format` is "sipsim" and that the
  // file holds only hard links and no virtual dataset. Throws Error.
  explicit Reader(std::string path, ReaderOptions options = {});
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
  // /trace/names and /trace/ops, when the file has them and /trace/events
  // has its program column; else none.
  OpNames trace_op_names() const;
  std::vector<CollectiveRow> collectives() const;
  // /iterations (empty when the file has none).
  std::vector<IterationRow> iterations() const;
  // /breakdown's means (empty when the file has none or it does not match
  // its categories).
  BreakdownMeans breakdown_means() const;
  // A numeric attribute, NaN when absent or not a number.
  double number_attr(const std::string& object, const std::string& name) const;
  // "" when the file is a finished run (/meta holds what a run writes last:
  // run_id, end_time_ps, committed_events), else why not.
  std::string unfinished_reason() const;
  // The open file, for readers of the tables this class does not read (collect.cpp).
  hid_t id() const { return file_.get(); }

 private:
  // Opens `dataset`, checking that it has `rank` dimensions and declares no
  // more bytes than the whole file holds (sipsim writes no compressed
  // tables, so a larger one is damaged or crafted). Throws Error.
  output::h5::Handle open_checked(const std::string& dataset, int rank) const;
  // rows(), after checking that the table has every column of `mem_type`.
  std::uint64_t table_rows(const std::string& dataset, hid_t mem_type) const;

  std::string path_;
  output::h5::Handle file_;
  std::uint64_t file_bytes_ = 0;
};

}  // namespace sipsim::output::run_file
