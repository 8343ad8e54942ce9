// The training workloads' shared results: per iteration its time, period,
// hardware and model TFLOP/s per GPU and extra columns, per iteration and GPU
// the breakdown (docs/output.md: /iterations, /breakdown).
#include "sipsim/workload/training_results.hpp"

#include <mpi.h>
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <ostream>
#include <span>
#include <string>

#include "sipsim/workload/replay_contention.hpp"

namespace sipsim::workload {

TrainingResults::TrainingResults(TrainingShape shape, const ProgramMaker& make,
                                 std::unique_ptr<fabric::Network> network,
                                 std::unique_ptr<compute::Device> device)
    : shape_(std::move(shape)),
      start_(shape_.iterations, pdes::kTimeMax),
      end_(shape_.iterations, 0),
      done_gpus_(shape_.iterations, 0),
      breakdown_(std::size_t{shape_.iterations} * shape_.gpus, Breakdown{}) {
  if (!shape_.nodes.empty()) {
    gpu_of_node_.assign(*std::max_element(shape_.nodes.begin(), shape_.nodes.end()) + 1, 0);
    for (std::uint32_t g = 0; g < shape_.nodes.size(); ++g) gpu_of_node_[shape_.nodes[g]] = g;
  }
  ProgramSet set = make(*device, network->nodes());
  owned_ = std::make_unique<Interpreter>(std::move(set), std::move(network), std::move(device));
  interpreter_ = owned_.get();
  interpreter_->set_observer(this);
  // Energy (docs/models.md, "Energy"): NaN where the fabric has no figure.
  add_column({"energy_j", "energy(J)", 3, [this](std::uint32_t i) { return energy(i).total_j; }});
  add_column(
      {"device_energy_j", "GPUs(J)", 3, [this](std::uint32_t i) { return energy(i).device_j; }});
  add_column(
      {"fabric_energy_j", "fabric(J)", 3, [this](std::uint32_t i) { return energy(i).fabric_j; }});
}

void TrainingResults::set_trace(TraceLevel level) {
  trace_ = level == TraceLevel::kNone ? nullptr
                                      : std::make_unique<Trace>(level, interpreter_->programs());
  interpreter_->set_report_steps(level == TraceLevel::kSteps);
}

// Every iteration runs the same programs, so each carries the same bytes.
IterationEnergy TrainingResults::energy(std::uint32_t i) const {
  return iteration_energy(energy_model_,
                          std::span(breakdown_).subspan(std::size_t{i} * shape_.gpus, shape_.gpus),
                          fabric_bytes_ / shape_.iterations);
}

void TrainingResults::iteration_done(std::uint32_t node, std::uint32_t iteration, pdes::Time start,
                                     pdes::Time end, const Breakdown& breakdown) {
  start_[iteration] = std::min(start_[iteration], start);
  end_[iteration] = std::max(end_[iteration], end);
  const std::uint32_t gpu = gpu_of_node_.empty() ? node : gpu_of_node_[node];
  breakdown_[std::size_t{iteration} * shape_.gpus + gpu] = breakdown;
  ++done_gpus_[iteration];
}

void TrainingResults::set_faults(std::vector<Slowdown> slowdowns,
                                 std::optional<pdes::Time> failure) {
  interpreter_->set_slowdowns(std::move(slowdowns));
  failure_ = failure;
}

// Each GPU's iterations are reported on its own rank only: min, max and sum
// over ranks give every rank the whole job, exactly.
void TrainingResults::collect(const boost::mpi::communicator& comm) {
  static_assert(sizeof(pdes::Time) == sizeof(std::uint64_t));
  const auto n = static_cast<int>(start_.size());
  MPI_Allreduce(MPI_IN_PLACE, start_.data(), n, MPI_UINT64_T, MPI_MIN, MPI_Comm(comm));
  MPI_Allreduce(MPI_IN_PLACE, end_.data(), n, MPI_UINT64_T, MPI_MAX, MPI_Comm(comm));
  MPI_Allreduce(MPI_IN_PLACE, breakdown_.data(),
                static_cast<int>(breakdown_.size() * kBreakdownColumns), MPI_UINT64_T, MPI_SUM,
                MPI_Comm(comm));
  MPI_Allreduce(MPI_IN_PLACE, done_gpus_.data(), n, MPI_UINT64_T, MPI_SUM, MPI_Comm(comm));
  for (std::size_t i = 0; i < start_.size(); ++i) {
    if (start_[i] == pdes::kTimeMax) start_[i] = end_[i] = 0;  // never ran
  }
  if (failure_) {
    // The job stopped at the failure: an iteration counts when every GPU
    // completed it (docs/faults.md); the ones after the first unfinished go.
    std::size_t kept = 0;
    while (kept < done_gpus_.size() && done_gpus_[kept] == shape_.gpus) ++kept;
    start_.resize(kept);
    end_.resize(kept);
    breakdown_.resize(kept * shape_.gpus);
  }
  // The fabric's bytes, plus those replayed collectives would have sent
  // (docs/models.md, "Replayed collectives").
  const std::uint64_t bytes = network().counter("bytes") + interpreter_->replayed_bytes();
  MPI_Allreduce(&bytes, &fabric_bytes_, 1, MPI_UINT64_T, MPI_SUM, MPI_Comm(comm));
  if (failure_) {
    // The run stopped within an iteration, whose bytes are in the count: an
    // iteration's own are what its programs send (the same in every one).
    std::uint64_t one = 0;
    for (const fabric::PairTraffic& t : job_traffic(programs())) one += t.bytes;
    fabric_bytes_ = one * shape_.iterations;
  }
  energy_model_ = {shape_.busy_w, shape_.idle_w, network().energy_pj_per_bit()};
}

std::string TrainingResults::unfinished(const boost::mpi::communicator& comm) const {
  return interpreter_->unfinished(comm);
}

pdes::Time TrainingResults::period(std::uint32_t i) const {
  const pdes::Time before = i == 0 ? start_[0] : end_[i - 1];
  return end_[i] > before ? end_[i] - before : 0;  // 0: never ran
}

namespace {

double tflops_over(double flops, double seconds, std::uint32_t gpus) {
  return seconds > 0 ? flops / seconds / gpus / 1e12 : 0;
}

}  // namespace

double TrainingResults::hardware_tflops_per_gpu(std::uint32_t i) const {
  return tflops_over(shape_.hardware_flops_per_iteration, pdes::to_seconds(period(i)), shape_.gpus);
}

double TrainingResults::model_tflops_per_gpu(std::uint32_t i) const {
  return tflops_over(shape_.model_flops_per_iteration, pdes::to_seconds(period(i)), shape_.gpus);
}

Breakdown TrainingResults::total_breakdown() const {
  Breakdown total{};
  for (const Breakdown& b : breakdown_) {
    for (std::size_t k = 0; k < kBreakdownColumns; ++k) total[k] += b[k];
  }
  return total;
}

namespace {

void check(herr_t status, const char* what) {
  if (status < 0) throw output::h5::Error(std::string("writing ") + what);
}

}  // namespace

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

namespace {

// A row of /iterations: iteration (u32 at 0), start_ps (u64 at 8), end_ps
// (u64 at 16), period_ps (u64 at 24), hardware_tflops_per_gpu (double at 32),
// model_tflops_per_gpu (double at 40), then the extra doubles.
constexpr std::size_t kStartOffset = 8, kEndOffset = 16, kPeriodOffset = 24, kHardwareOffset = 32,
                      kModelOffset = 40, kFixedRow = 48;

}  // namespace

void TrainingResults::write(output::h5::File& file) const {
  using output::h5::Handle;
  const std::size_t row = kFixedRow + 8 * columns_.size();
  std::vector<unsigned char> rows(start_.size() * row);
  for (std::uint32_t i = 0; i < start_.size(); ++i) {
    unsigned char* r = rows.data() + std::size_t{i} * row;
    const double hardware = hardware_tflops_per_gpu(i), model = model_tflops_per_gpu(i);
    const pdes::Time p = period(i);
    std::memcpy(r, &i, sizeof i);
    std::memcpy(r + kStartOffset, &start_[i], 8);
    std::memcpy(r + kEndOffset, &end_[i], 8);
    std::memcpy(r + kPeriodOffset, &p, 8);
    std::memcpy(r + kHardwareOffset, &hardware, 8);
    std::memcpy(r + kModelOffset, &model, 8);
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const double v = columns_[c].value(i);
      std::memcpy(r + kFixedRow + 8 * c, &v, 8);
    }
  }
  Handle t(H5Tcreate(H5T_COMPOUND, row));
  check(H5Tinsert(t.get(), "iteration", 0, H5T_NATIVE_UINT32), "/iterations");
  check(H5Tinsert(t.get(), "start_ps", kStartOffset, H5T_NATIVE_UINT64), "/iterations");
  check(H5Tinsert(t.get(), "end_ps", kEndOffset, H5T_NATIVE_UINT64), "/iterations");
  check(H5Tinsert(t.get(), "period_ps", kPeriodOffset, H5T_NATIVE_UINT64), "/iterations");
  check(H5Tinsert(t.get(), "hardware_tflops_per_gpu", kHardwareOffset, H5T_NATIVE_DOUBLE),
        "/iterations");
  check(H5Tinsert(t.get(), "model_tflops_per_gpu", kModelOffset, H5T_NATIVE_DOUBLE), "/iterations");
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    check(H5Tinsert(t.get(), columns_[c].name.c_str(), kFixedRow + 8 * c, H5T_NATIVE_DOUBLE),
          "/iterations");
  }
  const hsize_t n = start_.size();
  Handle it = write_rank0(file, "/iterations", t.get(), 1, &n, rows.data());
  output::h5::write_attr(it.get(), "time_units", std::string_view("ps"));
  output::h5::write_attr(it.get(), "collectives", collective::to_string(shape_.replay_collectives));
  output::h5::write_attr(it.get(), "flops_formula", std::string_view(shape_.flops_formula));
  output::h5::write_attr(it.get(), "steps_to_target", target_steps_);
  output::h5::write_attr(it.get(), "steps_to_target_source", std::string_view(target_source_));
  output::h5::write_attr(it.get(), "time_to_accuracy_s", time_to_accuracy_s());
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
  const hsize_t dims[3] = {start_.size(), shape_.gpus, kBreakdownColumns};
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
  const hsize_t edims[2] = {start_.size(), shape_.gpus};
  Handle ge = write_rank0(file, "/gpu_energy", H5T_NATIVE_DOUBLE, 2, edims, joules.data());
  output::h5::write_attr(ge.get(), "units", std::string_view("J"));
  if (trace_) trace_->write(file);
  if (shape_.replay_collectives == collective::Replay::kShape) {
    write_replay_contention(file, interpreter_->shared_calls(), programs().comms);
  }
}

void TrainingResults::print(std::ostream& out) const {
  print_header(out);
  if (shape_.replay_collectives == collective::Replay::kCommunicator) {
    out << "# collectives: replay (a communicator's first call of a kind simulated; later ones "
           "synchronise their members and repeat its timing)\n";
  } else if (shape_.replay_collectives == collective::Replay::kShape) {
    out << "# collectives: replay-shapes (a call of a kind simulated once per communicator "
           "shape, on its lowest communicator; every other instance synchronises its members "
           "and repeats its timing)\n";
    print_replay_contention(out, interpreter_->shared_calls(), programs().comms);
  }
  print_iterations(out);
  const fabric::EnergyPerBit& fe = energy_model_.fabric;
  out << "# fabric energy per bit: "
      << (fe.known() ? fmt::format("{:.4g} pJ ({})", fe.pj, fe.source) : fe.source) << "\n";
  print_breakdown(out);
  print_footer(out);
}

// The iteration table (period, TFLOP/s over it, the extra columns) and, with
// more than one iteration, the steady state: the mean period of iterations
// 1.. (iteration 0 starts with every GPU idle; each later one overlaps the
// one before).
void TrainingResults::print_iterations(std::ostream& out) const {
  const std::uint32_t iterations = this->iterations();
  std::string head = fmt::format("#{:>9} {:>14} {:>13} {:>13}", "iteration", "period(ms)",
                                 "HW TFLOP/s", "model TFLOP/s");
  for (const IterationColumn& c : columns_) {
    head += fmt::format(" {:>{}}", c.heading, std::max<std::size_t>(10, c.heading.size()));
  }
  out << head << "\n";
  for (std::uint32_t i = 0; i < iterations; ++i) {
    std::string line =
        fmt::format(" {:>9} {:>14.6f} {:>13.2f} {:>13.2f}", i, static_cast<double>(period(i)) / 1e9,
                    hardware_tflops_per_gpu(i), model_tflops_per_gpu(i));
    for (const IterationColumn& c : columns_) {
      line += fmt::format(" {:>{}.{}f}", c.value(i), std::max<std::size_t>(10, c.heading.size()),
                          c.decimals);
    }
    out << line << "\n";
  }
  if (iterations > 1) {
    const double mean_s = steady_period_s();
    const std::string which =
        iterations == 2 ? "iteration 1" : fmt::format("iterations 1-{}", iterations - 1);
    out << fmt::format(
        "# steady state ({}): mean period {:.6f} ms, {:.2f} HW TFLOP/s, {:.2f} model TFLOP/s "
        "per GPU\n",
        which, mean_s * 1e3, tflops_over(shape_.hardware_flops_per_iteration, mean_s, shape_.gpus),
        tflops_over(shape_.model_flops_per_iteration, mean_s, shape_.gpus));
  }
  if (!std::isnan(target_steps_)) {
    const double tta = time_to_accuracy_s();
    out << fmt::format(
        "# time to accuracy (SiP-ML §4.2): {:.0f} iterations at global batch {} ({}) x {:.6f} ms "
        "= {:.1f} h ({:.6g} s)\n",
        target_steps_, shape_.global_batch, target_source_, steady_period_s() * 1e3, tta / 3600,
        tta);
  }
}

void TrainingResults::set_steps_to_target(const StepsToTarget& steps) {
  target_steps_ = steps.iterations(shape_.global_batch);
  target_source_ = steps.source;
}

double TrainingResults::steady_period_s() const {
  const std::uint32_t iterations = this->iterations();
  if (iterations == 0) return NAN;  // a GPU failed during the first
  double sum = 0;
  for (std::uint32_t i = iterations > 1 ? 1 : 0; i < iterations; ++i) {
    sum += static_cast<double>(period(i));
  }
  return sum / (iterations > 1 ? iterations - 1 : 1) / 1e12;
}

double TrainingResults::time_to_accuracy_s() const {
  return std::isnan(target_steps_) ? NAN : target_steps_ * steady_period_s();
}

// Over all iterations: the mean over GPUs, the slowest GPU (the largest
// total; the lowest GPU among equals) and, where it is another, the busiest
// (the most computation: a straggler, whom the others wait for), in ms per
// iteration.
void TrainingResults::print_breakdown(std::ostream& out) const {
  const std::uint32_t gpus = shape_.gpus, iterations = this->iterations();
  if (iterations == 0) {
    out << "# breakdown: no iteration completed\n";
    return;
  }
  Breakdown slowest{}, busiest{};
  std::uint64_t slowest_total = 0, slowest_compute = 0, busiest_compute = 0;
  std::uint32_t slowest_gpu = 0, busiest_gpu = 0;
  std::vector<double> sums(kBreakdownColumns, 0.0);
  for (std::uint32_t g = 0; g < gpus; ++g) {
    Breakdown total{};
    std::uint64_t all = 0, compute = 0;
    for (std::uint32_t i = 0; i < iterations; ++i) {
      for (std::size_t k = 0; k < kBreakdownColumns; ++k) total[k] += breakdown(i, g)[k];
    }
    for (std::size_t k = 0; k < kBreakdownColumns; ++k) {
      all += total[k];
      sums[k] += static_cast<double>(total[k]);
      if (k < kCategories && !is_communication(static_cast<Category>(k))) compute += total[k];
    }
    if (g == 0 || all > slowest_total) {
      slowest_total = all;
      slowest_compute = compute;
      slowest = total;
      slowest_gpu = g;
    }
    if (g == 0 || compute > busiest_compute) {
      busiest_compute = compute;
      busiest = total;
      busiest_gpu = g;
    }
  }
  const double per = 1e9 * iterations;
  out << "# breakdown per iteration (ms):";
  // "slowest GPU 12": the rows name GPUs, not ranks or stages.
  std::string head2 = fmt::format("#{:>17}", "");
  std::string mean_line = fmt::format(" {:>17}", "mean GPU");
  std::string slow_line = fmt::format(" {:>17}", fmt::format("slowest GPU {}", slowest_gpu));
  std::string busy_line = fmt::format(" {:>17}", fmt::format("busiest GPU {}", busiest_gpu));
  for (std::size_t k = 0; k < kBreakdownColumns; ++k) {
    const std::size_t width = std::max<std::size_t>(10, breakdown_column(k).size());
    head2 += fmt::format(" {:>{}}", breakdown_column(k), width);
    mean_line += fmt::format(" {:>{}.4f}", sums[k] / gpus / per, width);
    slow_line += fmt::format(" {:>{}.4f}", static_cast<double>(slowest[k]) / per, width);
    busy_line += fmt::format(" {:>{}.4f}", static_cast<double>(busiest[k]) / per, width);
  }
  out << "\n" << head2 << "\n" << mean_line << "\n" << slow_line << "\n";
  // The busiest GPU computes measurably more than the slowest (1%): a
  // straggler. Equal stages' rounding differences are not.
  if (busiest_gpu != slowest_gpu && busiest_compute > slowest_compute + slowest_compute / 100) {
    out << busy_line << "\n";
  }
}

Simulation make_training_simulation(std::unique_ptr<TrainingResults> results) {
  Simulation sim;
  sim.network = &results->network();
  sim.model = results->take_model();
  sim.results = std::move(results);
  return sim;
}

}  // namespace sipsim::workload
