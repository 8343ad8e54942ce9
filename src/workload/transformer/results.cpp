// The transformer's results: per iteration its time and TFLOP/s per GPU, per
// iteration and GPU the breakdown (docs/output.md: /iterations, /breakdown).
#include <mpi.h>
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cstddef>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "sipsim/compute/roofline.hpp"
#include "sipsim/workload/transformer/transformer.hpp"

namespace sipsim::workload::transformer {

TransformerResults::TransformerResults(const Config& config,
                                       std::unique_ptr<fabric::Network> network,
                                       std::unique_ptr<compute::Device> device)
    : config_(config),
      start_(config.iterations, pdes::kTimeMax),
      end_(config.iterations, 0),
      breakdown_(std::size_t{config.iterations} * config.gpus(), Breakdown{}) {
  ProgramSet set = make_programs(config_, *device, network->nodes());
  owned_ = std::make_unique<Interpreter>(std::move(set), std::move(network), std::move(device));
  interpreter_ = owned_.get();
  interpreter_->set_observer(this);
}

void TransformerResults::iteration_done(std::uint32_t node, std::uint32_t iteration,
                                        pdes::Time start, pdes::Time end,
                                        const Breakdown& breakdown) {
  start_[iteration] = std::min(start_[iteration], start);
  end_[iteration] = std::max(end_[iteration], end);
  breakdown_[std::size_t{iteration} * config_.gpus() + node] = breakdown;
}

// Each GPU's iterations are reported on its own rank only: min, max and sum
// over ranks give every rank the whole job, exactly.
void TransformerResults::collect(const boost::mpi::communicator& comm) {
  static_assert(sizeof(pdes::Time) == sizeof(std::uint64_t));
  const auto n = static_cast<int>(start_.size());
  MPI_Allreduce(MPI_IN_PLACE, start_.data(), n, MPI_UINT64_T, MPI_MIN, MPI_Comm(comm));
  MPI_Allreduce(MPI_IN_PLACE, end_.data(), n, MPI_UINT64_T, MPI_MAX, MPI_Comm(comm));
  MPI_Allreduce(MPI_IN_PLACE, breakdown_.data(),
                static_cast<int>(breakdown_.size() * kBreakdownColumns), MPI_UINT64_T, MPI_SUM,
                MPI_Comm(comm));
  for (std::size_t i = 0; i < start_.size(); ++i) {
    if (start_[i] == pdes::kTimeMax) start_[i] = end_[i] = 0;  // never ran
  }
  const std::uint64_t bytes = network().counter("bytes");
  MPI_Allreduce(&bytes, &fabric_bytes_, 1, MPI_UINT64_T, MPI_SUM, MPI_Comm(comm));
  energy_model_ = energy_model(config_.accelerator, network());
}

// Every iteration runs the same programs, so each carries the same bytes.
IterationEnergy TransformerResults::energy(std::uint32_t i) const {
  return iteration_energy(
      energy_model_, std::span(breakdown_).subspan(std::size_t{i} * config_.gpus(), config_.gpus()),
      fabric_bytes_ / config_.iterations);
}

void TransformerResults::set_trace(TraceLevel level) {
  trace_ = level == TraceLevel::kNone ? nullptr
                                      : std::make_unique<Trace>(level, interpreter_->programs());
}

std::string TransformerResults::unfinished(const boost::mpi::communicator& comm) const {
  return interpreter_->unfinished(comm);
}

double TransformerResults::tflops_per_gpu(std::uint32_t i) const {
  const pdes::Time t = iteration_time(i);
  if (t == 0) return 0;
  return iteration_flops(config_) / pdes::to_seconds(t) / config_.gpus() / 1e12;
}

namespace {

struct IterationRow {
  std::uint32_t iteration;
  std::uint64_t start_ps, end_ps;
  double tflops_per_gpu;
  double energy_j, device_energy_j, fabric_energy_j;
};

void check(herr_t status, const char* what) {
  if (status < 0) throw output::h5::Error(std::string("writing ") + what);
}

// Rank 0 writes `data` (of `type`, shape `dims`) to `path`; collective.
output::h5::Handle write_rank0(output::h5::File& file, const char* path, hid_t type, int rank,
                               const hsize_t* dims, const void* data) {
  using output::h5::Handle;
  Handle space(H5Screate_simple(rank, dims, nullptr));
  Handle dset(
      H5Dcreate2(file.id(), path, type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  output::h5::check_collective(file.comm(), dset ? 0 : -1, std::string("cannot create ") + path);
  int me = 0;
  MPI_Comm_rank(file.comm(), &me);
  Handle mem(H5Screate_simple(rank, dims, nullptr));
  Handle fspace(H5Dget_space(dset.get()));
  hsize_t total = 1;
  for (int i = 0; i < rank; ++i) total *= dims[i];
  if (me != 0 || total == 0) {
    H5Sselect_none(mem.get());
    H5Sselect_none(fspace.get());
  }
  Handle dxpl(H5Pcreate(H5P_DATASET_XFER));
  H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE);
  output::h5::check_collective(
      file.comm(), H5Dwrite(dset.get(), type, mem.get(), fspace.get(), dxpl.get(), data),
      std::string("writing ") + path);
  return dset;
}

}  // namespace

void TransformerResults::write(output::h5::File& file) const {
  using output::h5::Handle;
  std::vector<IterationRow> rows(start_.size());
  for (std::uint32_t i = 0; i < rows.size(); ++i) {
    const IterationEnergy e = energy(i);
    rows[i] = {i, start_[i], end_[i], tflops_per_gpu(i), e.total_j, e.device_j, e.fabric_j};
  }
  Handle t(H5Tcreate(H5T_COMPOUND, sizeof(IterationRow)));
  check(H5Tinsert(t.get(), "iteration", offsetof(IterationRow, iteration), H5T_NATIVE_UINT32),
        "/iterations");
  check(H5Tinsert(t.get(), "start_ps", offsetof(IterationRow, start_ps), H5T_NATIVE_UINT64),
        "/iterations");
  check(H5Tinsert(t.get(), "end_ps", offsetof(IterationRow, end_ps), H5T_NATIVE_UINT64),
        "/iterations");
  check(H5Tinsert(t.get(), "tflops_per_gpu", offsetof(IterationRow, tflops_per_gpu),
                  H5T_NATIVE_DOUBLE),
        "/iterations");
  check(H5Tinsert(t.get(), "energy_j", offsetof(IterationRow, energy_j), H5T_NATIVE_DOUBLE),
        "/iterations");
  check(H5Tinsert(t.get(), "device_energy_j", offsetof(IterationRow, device_energy_j),
                  H5T_NATIVE_DOUBLE),
        "/iterations");
  check(H5Tinsert(t.get(), "fabric_energy_j", offsetof(IterationRow, fabric_energy_j),
                  H5T_NATIVE_DOUBLE),
        "/iterations");
  const hsize_t n = rows.size();
  Handle it = write_rank0(file, "/iterations", t.get(), 1, &n, rows.data());
  output::h5::write_attr(it.get(), "time_units", std::string_view("ps"));
  output::h5::write_attr(it.get(), "flops_formula",
                         std::string_view("72*B*s*l*h^2*(1 + s/(6h) + V/(12*l*h)) at ffn = 4h "
                                          "(docs/models.md, Transformer training)"));
  const EnergyModel& em = energy_model_;
  output::h5::write_attr(it.get(), "busy_w", em.busy_w);
  output::h5::write_attr(it.get(), "idle_w", em.idle_w);
  output::h5::write_attr(it.get(), "fabric_pj_per_bit", em.fabric.pj);
  output::h5::write_attr(it.get(), "fabric_energy_source", std::string_view(em.fabric.source));

  std::vector<double> values(breakdown_.size() * kBreakdownColumns);
  for (std::size_t i = 0; i < breakdown_.size(); ++i) {
    for (std::size_t c = 0; c < kBreakdownColumns; ++c) {
      values[i * kBreakdownColumns + c] = static_cast<double>(breakdown_[i][c]);
    }
  }
  const hsize_t dims[3] = {start_.size(), config_.gpus(), kBreakdownColumns};
  Handle b = write_rank0(file, "/breakdown", H5T_NATIVE_DOUBLE, 3, dims, values.data());
  std::string names;
  for (std::size_t c = 0; c < kBreakdownColumns; ++c) {
    if (c > 0) names += ',';
    names += breakdown_column(c);
  }
  output::h5::write_attr(b.get(), "categories", std::string_view(names));
  output::h5::write_attr(b.get(), "units", std::string_view("ps"));

  // Each GPU's device energy per iteration (J).
  std::vector<double> joules(breakdown_.size());
  for (std::size_t i = 0; i < breakdown_.size(); ++i)
    joules[i] = device_energy_j(em, breakdown_[i]);
  const hsize_t edims[2] = {start_.size(), config_.gpus()};
  Handle ge = write_rank0(file, "/gpu_energy", H5T_NATIVE_DOUBLE, 2, edims, joules.data());
  output::h5::write_attr(ge.get(), "units", std::string_view("J"));
  if (trace_) trace_->write(file);
}

void TransformerResults::print(std::ostream& out) const {
  const Config& c = config_;
  const ModelShape& m = c.model;
  out << fmt::format(
      "# transformer: {} layers, hidden {}, heads {}, seq {}, vocab {}, batch {} (micro {}), "
      "{}\n# tp {} x pp {} x dp {} = {} GPUs, {}, {} micro-batches | {}\n",
      m.layers, m.hidden, m.heads, m.seq, m.vocab, m.global_batch, m.micro_batch,
      compute::precision_name(m.precision), c.tp, c.pp, c.dp, c.gpus(),
      c.schedule == Schedule::kGpipe ? "GPipe" : "1F1B", c.micro_batches(), network().describe());
  out << fmt::format("#{:>9} {:>14} {:>15} {:>12} {:>12}\n", "iteration", "time(ms)", "TFLOP/s/GPU",
                     "GPUs(J)", "fabric(J)");
  for (std::uint32_t i = 0; i < c.iterations; ++i) {
    const IterationEnergy e = energy(i);
    out << fmt::format(" {:>9} {:>14.6f} {:>15.2f} {:>12.6g} {:>12.6g}\n", i,
                       static_cast<double>(iteration_time(i)) / 1e9, tflops_per_gpu(i), e.device_j,
                       e.fabric_j);
  }
  const fabric::EnergyPerBit& fe = energy_model_.fabric;
  out << "# fabric energy per bit: "
      << (fe.known() ? fmt::format("{:.4g} pJ ({})", fe.pj, fe.source) : fe.source) << "\n";
  // Over all iterations: the mean over GPUs and the slowest GPU (the largest
  // total; the lowest GPU among equals), in ms per iteration.
  Breakdown slowest{};
  std::uint64_t slowest_total = 0;
  std::uint32_t slowest_gpu = 0;
  std::vector<double> sums(kBreakdownColumns, 0.0);
  for (std::uint32_t g = 0; g < c.gpus(); ++g) {
    Breakdown total{};
    std::uint64_t all = 0;
    for (std::uint32_t i = 0; i < c.iterations; ++i) {
      for (std::size_t k = 0; k < kBreakdownColumns; ++k) total[k] += breakdown(i, g)[k];
    }
    for (std::size_t k = 0; k < kBreakdownColumns; ++k) {
      all += total[k];
      sums[k] += static_cast<double>(total[k]);
    }
    if (g == 0 || all > slowest_total) {
      slowest_total = all;
      slowest = total;
      slowest_gpu = g;
    }
  }
  const double per = 1e9 * c.iterations;
  out << "# breakdown per iteration (ms):";
  std::string head = fmt::format("#{:>13}", "");
  std::string mean_line = fmt::format(" {:>13}", "mean GPU");
  std::string slow_line = fmt::format(" {:>13}", fmt::format("slowest {}", slowest_gpu));
  for (std::size_t k = 0; k < kBreakdownColumns; ++k) {
    const std::size_t width = std::max<std::size_t>(10, breakdown_column(k).size());
    head += fmt::format(" {:>{}}", breakdown_column(k), width);
    mean_line += fmt::format(" {:>{}.4f}", sums[k] / c.gpus() / per, width);
    slow_line += fmt::format(" {:>{}.4f}", static_cast<double>(slowest[k]) / per, width);
  }
  out << "\n" << head << "\n" << mean_line << "\n" << slow_line << "\n";
}

Simulation make_transformer(const Config& config, std::unique_ptr<fabric::Network> network) {
  auto results = std::make_unique<TransformerResults>(config, std::move(network),
                                                      compute::make_device(config.accelerator));
  Simulation sim;
  sim.network = &results->network();
  sim.model = results->take_model();
  sim.results = std::move(results);
  return sim;
}

}  // namespace sipsim::workload::transformer
