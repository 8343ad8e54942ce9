// `sipsim export --chrome-trace`: a run file's op trace and collectives as
// Chrome trace event JSON (the "JSON Object Format"), which Perfetto and
// chrome://tracing open. docs/output.md ("Timelines") describes the tracks.
#include "sipsim/app/export.hpp"

#include <spdlog/fmt/fmt.h>
#include <unistd.h>

#include <algorithm>
#include <boost/mpi/collectives/broadcast.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <new>
#include <numeric>
#include <string>
#include <vector>

#include "sipsim/app/commands.hpp"
#include "sipsim/app/common.hpp"
#include "sipsim/base/files.hpp"
#include "sipsim/output/run_file_reader.hpp"

namespace sipsim::app {

namespace mpi = boost::mpi;

namespace {

namespace fs = std::filesystem;
using output::run_file::CollectiveRow;
using output::run_file::TraceRow;

// The one process of the trace (the run).
constexpr int kPid = 1;

// Picoseconds as decimal microseconds, exact: "12.000345".
std::string us(std::uint64_t ps) {
  const std::uint64_t whole = ps / 1'000'000, frac = ps % 1'000'000;
  if (frac == 0) return std::to_string(whole);
  std::string f = fmt::format("{:06d}", frac);
  f.erase(f.find_last_not_of('0') + 1);
  return std::to_string(whole) + "." + f;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// Nodes shown when there are more than `max` (0: all): node 0, the last, and
// evenly spaced ones between, by position in the sorted list of traced nodes:
// position floor(i (n - 1) / (max - 1)) for i = 0 .. max - 1.
std::vector<std::uint32_t> sample(const std::vector<std::uint32_t>& nodes, std::uint64_t max) {
  if (max == 0 || nodes.size() <= max) return nodes;
  if (max == 1) return {nodes.front()};
  std::vector<std::uint32_t> out;
  const std::uint64_t n = nodes.size();
  for (std::uint64_t i = 0; i < max; ++i) out.push_back(nodes[i * (n - 1) / (max - 1)]);
  return out;
}

// Places slices on lanes (tracks) so that on each lane they nest properly,
// which trace viewers need: overlapping slices of one GPU (a collective in
// flight during compute) go to its next lane. Deterministic: by start, the
// longer first, then by input order.
class Lanes {
 public:
  // The lane of a slice; slices must come in (start, longer first) order.
  std::size_t place(std::uint64_t start, std::uint64_t end) {
    for (std::size_t l = 0;; ++l) {
      if (l == stacks_.size()) stacks_.emplace_back();
      std::vector<std::uint64_t>& ends = stacks_[l];
      while (!ends.empty() && ends.back() <= start) ends.pop_back();
      if (ends.empty() || ends.back() >= end) {
        ends.push_back(end);
        return l;
      }
    }
  }
  std::size_t count() const { return stacks_.size(); }

 private:
  std::vector<std::vector<std::uint64_t>> stacks_;  // open slices' ends, per lane
};

template <class Row>
std::vector<std::size_t> by_start(const std::vector<Row>& rows) {
  std::vector<std::size_t> order(rows.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (rows[a].start_ps != rows[b].start_ps) return rows[a].start_ps < rows[b].start_ps;
    return rows[a].end_ps > rows[b].end_ps;
  });
  return order;
}

class ChromeWriter {
 public:
  explicit ChromeWriter(std::ostream& out) : out_(out) { out_ << "{\"traceEvents\":[\n"; }

  void metadata(std::string_view name, std::int64_t tid, std::string_view arg,
                std::string_view value) {
    event(fmt::format(R"({{"ph":"M","pid":{},"tid":{},"name":"{}","args":{{"{}":{}}}}})", kPid, tid,
                      name, arg, value));
  }
  void thread(std::int64_t tid, const std::string& name, long sort_index) {
    metadata("thread_name", tid, "name", json_string(name));
    metadata("thread_sort_index", tid, "sort_index", std::to_string(sort_index));
  }
  // A complete ("X") slice; `args` is a JSON object's members.
  void slice(std::int64_t tid, std::string_view name, std::string_view cat, std::uint64_t start,
             std::uint64_t end, const std::string& args) {
    event(fmt::format(R"({{"ph":"X","pid":{},"tid":{},"name":{},"cat":{},"ts":{},"dur":{},)"
                      R"("args":{{{}}}}})",
                      kPid, tid, json_string(name), json_string(cat), us(start), us(end - start),
                      args));
    ++slices_;
  }
  std::uint64_t slices() const { return slices_; }
  // Closes the event list and adds the top-level members after it.
  void finish(const std::string& other_data) {
    out_ << "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{" << other_data << "}}\n";
  }

 private:
  void event(const std::string& e) {
    if (!first_) out_ << ",\n";
    first_ = false;
    out_ << e;
  }
  std::ostream& out_;
  bool first_ = true;
  std::uint64_t slices_ = 0;
};

void check_times(const std::string& path, const char* table, std::uint64_t start,
                 std::uint64_t end) {
  if (end < start) {
    throw output::run_file::Error(fmt::format(
        "{}: {} has a row ending ({} ps) before it starts ({} ps)", path, table, end, start));
  }
}

struct Summary {
  bool has_trace = false, has_collectives = false;
  std::uint64_t slices = 0, traced_nodes = 0, shown_nodes = 0, collectives = 0;
  std::uint64_t collective_tracks = 0, gpu_tracks = 0;
};

// "1 slice", "2 slices".
std::string counted(std::uint64_t n, const std::string& one) {
  return fmt::format("{} {}{}", n, one, n == 1 ? "" : "s");
}

// The line export prints: what went on which tracks, each kind on its own
// (a collectives run has no traced GPUs; a trace sampled says so).
std::string summary_line(const std::string& output, const Summary& sum, std::uint64_t max_nodes) {
  std::vector<std::string> parts;
  if (sum.has_collectives) {
    parts.push_back(counted(sum.collectives, "collective") + " on " +
                    counted(sum.collective_tracks, "track"));
  }
  if (sum.has_trace && sum.traced_nodes == 0) {
    parts.push_back("no traced GPUs (/trace/events is empty)");
  } else if (sum.has_trace) {
    const std::string gpus =
        sum.shown_nodes < sum.traced_nodes
            ? fmt::format("{} of {} traced GPUs", sum.shown_nodes, sum.traced_nodes)
            : counted(sum.traced_nodes, "traced GPU");
    parts.push_back(gpus + " on " + counted(sum.gpu_tracks, "track") +
                    (sum.shown_nodes < sum.traced_nodes
                         ? fmt::format(" (sampled by --max-nodes {})", max_nodes)
                         : std::string()));
  }
  std::string what;
  for (const std::string& p : parts) what += (what.empty() ? "" : "; ") + p;
  return fmt::format("{}: {}: {}; open it in ui.perfetto.dev or chrome://tracing\n", output,
                     counted(sum.slices, "slice"), what);
}

// Writes the whole JSON to `out`.
Summary write_chrome(const output::run_file::Reader& in, const ExportArgs& args,
                     std::ostream& out) {
  const bool has_trace = in.has("/trace/events");
  const bool has_collectives = in.has("/collectives");
  if (!has_trace && !has_collectives) {
    throw output::run_file::Error(
        in.path() +
        ": has no trace (/trace/events) and no collectives (/collectives) to export; "
        "run a training scenario with 'output.trace: ops' (or 'sipsim run --set "
        "output.trace=ops'), docs/scenarios.md");
  }
  Summary sum;
  sum.has_trace = has_trace;
  sum.has_collectives = has_collectives;
  ChromeWriter w(out);
  const std::string scenario = in.string_attr("/meta", "scenario_name", fs::path(in.path()).stem());
  w.metadata("process_name", 0, "name", json_string(scenario));

  // Traced nodes, and which are shown.
  std::vector<std::uint32_t> nodes;
  std::vector<std::uint32_t> shown;
  std::uint32_t max_node = 0;
  if (has_trace) {
    nodes = in.trace_nodes();
    for (std::size_t i = 1; i < nodes.size(); ++i) {
      if (nodes[i] < nodes[i - 1]) {
        throw output::run_file::Error(in.path() +
                                      ": /trace/events is not in node order (damaged?)");
      }
    }
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    if (!nodes.empty()) max_node = nodes.back();
    shown = sample(nodes, args.max_nodes);
  }
  sum.traced_nodes = nodes.size();
  sum.shown_nodes = shown.size();
  // Tids: GPU n's first lane is n; the collectives' lanes and further GPU
  // lanes follow the last node.
  // 64-bit: a node id may be as large as 2^32 - 1.
  std::int64_t next_tid = has_trace ? std::int64_t{max_node} + 1 : 0;

  if (has_collectives) {
    const std::vector<CollectiveRow> rows = in.collectives();
    sum.collectives = rows.size();
    Lanes lanes;
    std::vector<std::int64_t> tids;
    for (std::size_t i : by_start(rows)) {
      const CollectiveRow& c = rows[i];
      check_times(in.path(), "/collectives", c.start_ps, c.end_ps);
      const std::size_t lane = lanes.place(c.start_ps, c.end_ps);
      if (lane == tids.size()) {
        tids.push_back(next_tid++);
        w.thread(tids.back(), lane == 0 ? "collectives" : fmt::format("collectives ({})", lane + 1),
                 -1000 + static_cast<long>(lane));
      }
      w.slice(tids[lane], fmt::format("{} {}", c.op, c.algorithm), "collective", c.start_ps,
              c.end_ps,
              fmt::format(R"("id":{},"op":{},"algorithm":{},"group_size":{},"bytes":{},)"
                          R"("iteration":{},"warmup":{},"start_ps":{},"end_ps":{},"h2h_ps":{},)"
                          R"("h2t_ps":{},"compute_ps":{},"algbw_GBps":{},"busbw_GBps":{})",
                          c.id, json_string(c.op), json_string(c.algorithm), c.group_size, c.bytes,
                          c.iteration, c.warmup ? "true" : "false", c.start_ps, c.end_ps, c.h2h_ps,
                          c.h2t_ps, c.compute_ps, c.algbw_GBps, c.busbw_GBps));
    }
    sum.collective_tracks += tids.size();
  }

  if (has_trace) {
    const output::run_file::OpNames op_names = in.trace_op_names();
    // Rows come in node order: a node's rows are buffered, then laid out.
    std::vector<TraceRow> rows;
    std::size_t next_shown = 0;
    auto flush = [&] {
      if (rows.empty()) return;
      const std::uint32_t node = rows.front().node;
      Lanes lanes;
      std::vector<std::int64_t> tids;
      for (std::size_t i : by_start(rows)) {
        const TraceRow& r = rows[i];
        check_times(in.path(), "/trace/events", r.start_ps, r.end_ps);
        const std::size_t lane = lanes.place(r.start_ps, r.end_ps);
        if (lane == tids.size()) {
          tids.push_back(lane == 0 ? std::int64_t{node} : next_tid++);
          w.thread(
              tids.back(),
              lane == 0 ? fmt::format("GPU {}", node)
                        : fmt::format("GPU {} (overlap {})", node, lane),
              static_cast<long>(node) * 64 + static_cast<long>(std::min<std::size_t>(lane, 63)));
        }
        std::string name;
        if (const std::string_view own = op_names.find(r.program, r.op);
            !own.empty() && r.kind != "step") {
          name = own;
        } else if (r.kind == "compute") {
          name = r.category;
        } else if (r.kind == "step") {
          name = fmt::format("step {}", r.step);
        } else {
          name = r.category + " " + r.kind;
        }
        std::string a = fmt::format(R"("iteration":{},"op":{},"category":{},)", r.iteration, r.op,
                                    json_string(r.category));
        if (r.step >= 0) a += fmt::format(R"("step":{},)", r.step);
        a += fmt::format(R"("start_ps":{},"end_ps":{})", r.start_ps, r.end_ps);
        w.slice(tids[lane], name, r.kind, r.start_ps, r.end_ps, a);
      }
      sum.gpu_tracks += tids.size();
      rows.clear();
    };
    in.for_each_trace_batch([&](std::span<const TraceRow> batch) {
      for (const TraceRow& r : batch) {
        if (!rows.empty() && r.node != rows.front().node) flush();
        while (next_shown < shown.size() && shown[next_shown] < r.node) ++next_shown;
        if (next_shown < shown.size() && shown[next_shown] == r.node) rows.push_back(r);
      }
    });
    flush();
  }
  sum.slices = w.slices();

  std::string shown_list;
  for (std::uint32_t n : shown) shown_list += (shown_list.empty() ? "" : ",") + std::to_string(n);
  w.finish(fmt::format(
      R"("source":{},"scenario":{},"sipsim_version":{},"trace_level":{},"traced_nodes":{},)"
      R"("shown_nodes":[{}],"slices":{},"time_source":"integer picoseconds, shown exactly in us")",
      json_string(in.path()), json_string(scenario),
      json_string(in.string_attr("/meta", "sipsim_version")),
      json_string(in.string_attr("/trace/events", "level", "none")), sum.traced_nodes, shown_list,
      sum.slices));
  return sum;
}

// Rank 0's work; a message (empty: success) for every rank.
std::string export_on_rank0(const ExportArgs& args) {
  try {
    const output::run_file::Reader in(args.run_file);
    const std::string output =
        args.output ? *args.output : fs::path(args.run_file).stem().string() + ".json";
    if (output.empty()) return "-o: the output path is empty";
    std::error_code ec;
    if (fs::exists(output, ec)) {
      if (fs::equivalent(output, args.run_file, ec)) {
        return output + ": is the run file itself; choose another -o";
      }
      if (!args.force) return output + ": exists (use --force to replace it)";
      if (!fs::is_regular_file(output, ec)) return output + ": exists and is not a regular file";
    }
    // Written beside the destination and renamed when complete: a file named
    // `output` is always a whole JSON document.
    const std::string partial = fmt::format("{}.{}.partial", output, ::getpid());
    Summary sum;
    try {
      // Created anew (O_EXCL | O_NOFOLLOW): never written through a link.
      base::Fd fd = base::create_fresh(partial);
      bool ok = false;
      {
        base::FdStream out(fd.get());
        sum = write_chrome(in, args, out);
        ok = static_cast<bool>(out.flush());
      }
      fd.close(partial);
      if (!ok) {
        fs::remove(partial, ec);
        return partial + ": write failed (disk full?)";
      }
    } catch (const base::FileError& e) {
      fs::remove(partial, ec);
      return e.what();
    } catch (...) {
      fs::remove(partial, ec);
      throw;
    }
    fs::rename(partial, output, ec);
    if (ec) {
      fs::remove(partial, ec);
      return output + ": cannot rename the finished file into place";
    }
    std::cout << summary_line(output, sum, args.max_nodes);
    return "";
  } catch (const output::run_file::Error& e) {
    return e.what();
  } catch (const std::bad_alloc&) {
    return args.run_file + ": not enough memory to export it";
  }
}

}  // namespace

int export_command(const ExportArgs& args, const mpi::communicator& comm) {
  std::string problem = comm.rank() == 0 ? export_on_rank0(args) : std::string();
  problem = agree(comm, problem);
  if (problem.empty()) return kExitOk;
  report(comm, problem);
  return kExitBadInput;
}

}  // namespace sipsim::app
