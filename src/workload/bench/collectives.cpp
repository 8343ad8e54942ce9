#include "sipsim/workload/bench/collectives.hpp"

#include <mpi.h>
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sipsim/output/collectives_table.hpp"

namespace sipsim::workload {

std::vector<std::uint64_t> sweep_sizes(const CollectivesConfig& c) {
  if (c.factor < 2) throw std::invalid_argument("the size factor must be at least 2");
  if (c.min_bytes > c.max_bytes) throw std::invalid_argument("min size exceeds max size");
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t s = c.min_bytes;; s *= c.factor) {
    sizes.push_back(s);
    if (s == 0 || s > c.max_bytes / c.factor) break;
  }
  return sizes;
}

std::vector<std::uint32_t> group_nodes(const GroupSpec& g, std::uint32_t fabric_nodes) {
  if (g.stride == 0) throw std::invalid_argument("the group stride must be at least 1");
  if (g.first >= fabric_nodes) {
    throw std::invalid_argument("the group starts at node " + std::to_string(g.first) +
                                " but the fabric has " + std::to_string(fabric_nodes) + " nodes");
  }
  const std::uint64_t fit = (std::uint64_t{fabric_nodes} - g.first - 1) / g.stride + 1;
  const std::uint64_t count = g.count == 0 ? fit : g.count;
  if (count > fit) {
    throw std::invalid_argument("a group of " + std::to_string(count) + " nodes (first " +
                                std::to_string(g.first) + ", stride " + std::to_string(g.stride) +
                                ") does not fit in " + std::to_string(fabric_nodes) + " nodes");
  }
  std::vector<std::uint32_t> nodes(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    nodes[i] = static_cast<std::uint32_t>(g.first + i * g.stride);
  }
  return nodes;
}

CollectivesBenchmark::CollectivesBenchmark(const CollectivesConfig& config,
                                           std::unique_ptr<fabric::Network> network)
    : config_(config), members_(job_members(config, network->nodes())) {
  std::vector<char> seen(network->nodes(), 0);
  for (std::uint32_t n : members_) {
    if (n >= seen.size() || seen[n]) {
      throw std::invalid_argument("the group's nodes must be distinct fabric nodes");
    }
    seen[n] = 1;
  }
  const std::vector<std::uint64_t> sizes = sweep_sizes(config_);
  if (!config_.per_size.empty() && config_.per_size.size() != sizes.size()) {
    throw std::invalid_argument("one algorithm per size is needed");
  }
  // One program for every member: instance k is a collective after instance k - 1.
  ProgramSet set;
  set.comms.push_back({"group", members_, config_.params});
  Program program("collectives");
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const auto algorithm = config_.per_size.empty() ? config_.algorithm : config_.per_size[k];
    const std::string why = collective::why_invalid(spec_for(sizes[k], algorithm));
    if (!why.empty()) throw std::invalid_argument(why);
    for (std::uint32_t i = 0; i < config_.warmup + config_.iterations; ++i) {
      CollectiveRecord rec;
      rec.id = local_records_.size();
      rec.bytes = sizes[k];
      rec.algorithm = algorithm;
      rec.iteration = i;
      rec.warmup = i < config_.warmup;
      rec.start = pdes::kTimeMax;
      local_records_.push_back(rec);
      const collective::CollectiveCall call{config_.op, algorithm, sizes[k], config_.root};
      if (program.size() == 0) {
        program.collective(Category::kCollective, 0, call);
      } else {
        program.collective(Category::kCollective, 0, call, {program.size() - 1});
      }
    }
  }
  set.programs.push_back(std::move(program));
  set.bindings.resize(network->nodes());
  for (std::uint32_t m = 0; m < members_.size(); ++m) {
    Binding b;
    b.comms.push_back({0, m});
    set.bindings[members_[m]] = std::move(b);
  }
  owned_ = std::make_unique<Interpreter>(std::move(set), std::move(network),
                                         std::make_unique<compute::Roofline>(config_.accelerator));
  interpreter_ = owned_.get();
  interpreter_->set_observer(this);
}

std::unique_ptr<Interpreter> CollectivesBenchmark::take_model() {
  return std::move(owned_);
}

Simulation make_collectives_benchmark(const CollectivesConfig& config,
                                      std::unique_ptr<fabric::Network> network) {
  auto bench = std::make_unique<CollectivesBenchmark>(config, std::move(network));
  Simulation sim;
  sim.network = &bench->network();
  sim.model = bench->take_model();
  sim.results = std::move(bench);
  return sim;
}

collective::CollectiveSpec make_spec(const CollectivesConfig& c, std::uint32_t p,
                                     std::uint64_t bytes, collective::Algorithm algorithm) {
  return collective::make_spec(c.op, algorithm, p, bytes, c.root, c.params);
}

std::vector<std::uint32_t> job_members(const CollectivesConfig& c, std::uint32_t fabric_nodes) {
  return c.nodes.empty() ? group_nodes(c.group, fabric_nodes) : c.nodes;
}

collective::CollectiveSpec CollectivesBenchmark::spec_for(std::uint64_t bytes,
                                                          collective::Algorithm algorithm) const {
  return make_spec(config_, static_cast<std::uint32_t>(members_.size()), bytes, algorithm);
}

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
    row.algbw_gbps = gbytes_per_s(r.bytes, r.end - r.start);
    row.busbw_gbps = row.algbw_gbps * collective::bus_bandwidth_factor(op, p);
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
