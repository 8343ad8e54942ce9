// The benchmark's results: one record per collective instance, nccl-tests' table.
#include <mpi.h>
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sipsim/output/collectives_table.hpp"
#include "sipsim/workload/bench/collectives.hpp"

namespace sipsim::workload {
// Every member reports its part of every instance; the record keeps the
// earliest start and the member that finished last (the lowest node among
// equals), whose timeline gives the breakdown.
void CollectivesBenchmark::op_done(const OpRecord& r) {
  CollectiveRecord& rec = local_records_[r.op];
  rec.start = std::min(rec.start, r.start);
  if (r.end > rec.end || (r.end == rec.end && r.node < rec.last_node)) {
    rec.end = r.end;
    rec.last_node = r.node;
    rec.compute = r.collective->compute;
    rec.h2t = r.collective->h2t;
  }
}

void CollectivesBenchmark::collect(const boost::mpi::communicator& comm) {
  static_assert(std::is_trivially_copyable_v<CollectiveRecord>);
  const std::size_t n = local_records_.size();
  std::vector<CollectiveRecord> all(n * static_cast<std::size_t>(comm.size()));
  MPI_Allgather(local_records_.data(), static_cast<int>(n * sizeof(CollectiveRecord)), MPI_BYTE,
                all.data(), static_cast<int>(n * sizeof(CollectiveRecord)), MPI_BYTE,
                MPI_Comm(comm));
  std::vector<CollectiveRecord> out = local_records_;
  for (std::size_t k = 0; k < n; ++k) {
    CollectiveRecord& r = out[k];
    r.start = pdes::kTimeMax;
    r.end = 0;
    bool any = false;
    for (int rank = 0; rank < comm.size(); ++rank) {
      const CollectiveRecord& x = all[static_cast<std::size_t>(rank) * n + k];
      if (x.start == pdes::kTimeMax) continue;  // no member on that rank
      r.start = std::min(r.start, x.start);
      if (!any || x.end > r.end || (x.end == r.end && x.last_node < r.last_node)) {
        r.end = x.end;
        r.last_node = x.last_node;
        r.compute = x.compute;
        r.h2t = x.h2t;
        r.h2h = x.h2h;
        any = true;
      }
    }
    if (!any) {
      r.start = 0;  // never ran (the simulation stopped early)
      continue;
    }
    // The breakdown spans the whole instance: from the first member's start.
    const pdes::Time busy = r.compute + r.h2t;
    r.h2h = r.end - r.start > busy ? r.end - r.start - busy : 0;
  }
  records_ = std::move(out);
}

std::string CollectivesBenchmark::unfinished(const boost::mpi::communicator& comm) const {
  return interpreter_->unfinished(comm);
}

namespace {

double gbytes_per_s(std::uint64_t bytes, pdes::Time t) {
  return t == 0 ? 0.0 : static_cast<double>(bytes) / pdes::to_seconds(t) / 1e9;
}

void copy_name(char* dst, std::size_t size, std::string_view name) {
  std::fill(dst, dst + size, '\0');
  std::copy_n(name.begin(), std::min(size, name.size()), dst);
}

}  // namespace

void CollectivesBenchmark::write(output::h5::File& file) const {
  const collective::Op op = config_.op;
  const std::uint32_t p = group_size();
  std::vector<output::CollectiveRow> rows(records_.size());
  for (std::size_t i = 0; i < records_.size(); ++i) {
    const CollectiveRecord& r = records_[i];
    output::CollectiveRow& row = rows[i];
    row.id = r.id;
    copy_name(row.op, sizeof row.op, collective::to_string(op));
    copy_name(row.algorithm, sizeof row.algorithm, collective::to_string(r.algorithm));
    row.group_size = p;
    row.bytes = r.bytes;
    row.iteration = r.iteration;
    row.warmup = r.warmup ? 1 : 0;
    row.start_ps = r.start;
    row.end_ps = r.end;
    row.h2h_ps = r.h2h;
    row.h2t_ps = r.h2t;
    row.compute_ps = r.compute;
    row.algbw_GBps = gbytes_per_s(r.bytes, r.end - r.start);
    row.busbw_GBps = row.algbw_GBps * collective::bus_bandwidth_factor(op, p);
  }
  output::write_collectives(file, rows);
}

// nccl-tests' table: one line per size, averaged over the measured iterations.
void CollectivesBenchmark::print(std::ostream& out) const {
  const collective::Op op = config_.op;
  const std::uint32_t p = group_size();
  out << fmt::format("# {} on {} nodes | {}\n", collective::to_string(op), p, network().describe());
  out << fmt::format("#{:>13} {:>20} {:>12} {:>11} {:>11} {:>11} {:>11} {:>11}\n", "size",
                     "algorithm", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "h2h(us)", "h2t(us)",
                     "comp(us)");
  // The columns' abbreviations in words (docs/glossary.md has them all).
  out << "# algbw = size / time, busbw = algbw x the op's bus factor (nccl-tests); h2h = "
         "head-to-head: latency and waiting for peers; h2t = head-to-tail: the data at its "
         "path's bottleneck rate; comp = reductions and copies\n";
  const auto& records = records_;
  for (std::size_t i = 0; i < records.size();) {
    std::size_t j = i;
    double t = 0, h2h = 0, h2t = 0, comp = 0;
    int n = 0;
    for (; j < records.size() && records[j].bytes == records[i].bytes; ++j) {
      if (records[j].warmup) continue;
      t += static_cast<double>(records[j].end - records[j].start);
      h2h += static_cast<double>(records[j].h2h);
      h2t += static_cast<double>(records[j].h2t);
      comp += static_cast<double>(records[j].compute);
      ++n;
    }
    if (n > 0) {
      t /= n;
      const double algbw = t > 0 ? static_cast<double>(records[i].bytes) / (t * 1e-12) / 1e9 : 0;
      out << fmt::format(
          " {:>13} {:>20} {:>12.3f} {:>11.2f} {:>11.2f} {:>11.3f} {:>11.3f} "
          "{:>11.3f}\n",
          records[i].bytes, collective::to_string(records[i].algorithm), t / 1e6, algbw,
          algbw * collective::bus_bandwidth_factor(op, p), h2h / n / 1e6, h2t / n / 1e6,
          comp / n / 1e6);
    }
    i = j;
  }
}

}  // namespace sipsim::workload
