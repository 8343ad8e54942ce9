// `sipsim analyze`: closed-form estimates of a scenario (DESIGN.md §7).
#include <spdlog/fmt/fmt.h>

#include <array>
#include <iostream>
#include <string>
#include <tuple>
#include <utility>

#include "estimates.hpp"
#include "sipsim/analytical/amped.hpp"
#include "sipsim/app/commands.hpp"
#include "sipsim/app/common.hpp"
#include "sipsim/base/units.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/workload/transformer/transformer.hpp"

namespace sipsim::app {

namespace mpi = boost::mpi;

namespace {
double us(pdes::Time t) {
  return static_cast<double>(t) / 1e6;
}

double ms(pdes::Time t) {
  return static_cast<double>(t) / 1e9;
}

std::string link_text(const analytical::AmpedLink& l) {
  return fmt::format("C {}, BW {}", base::format_time_ps(l.latency),
                     base::format_bandwidth_bps(l.rate_bps));
}

// A group's AMPeD split: "N_intra per node x N_inter node(s); intra-node C .., BW ..; ...".
std::string group_text(const analytical::AmpedGroup& g) {
  std::string out = fmt::format("{} per node x {} node(s)", g.intra, g.inter);
  if (g.intra > 1) out += "; intra-node " + link_text(g.intra_link);
  if (g.inter > 1) out += "; inter-node " + link_text(g.inter_link);
  return out;
}

// `analyze` for `workload: transformer`: AMPeD eq. 1-12 (analytical/amped.hpp)
// on the scenario's fabric and device, in the run summary's categories and
// units, with the assumptions it made. The transformer section is read again
// here with the workload's own reader (setup/ keeps its Config private).
void analyze_transformer(const setup::Setup& s, const fabric::Network& network, std::ostream& out) {
  namespace xf = workload::transformer;
  base::MapReader w = s.scenario.workload->as_map();
  w.required("type");
  xf::Config c = xf::read_transformer(w);
  c.accelerator = compute::read_accelerator(s.scenario.compute);
  const auto device = compute::make_device(c.accelerator);
  const analytical::AmpedFabric fabric = analytical::read_amped_fabric(c, network);
  const analytical::AmpedOptions options = analytical::amped_options(c);
  const analytical::AmpedEstimate e = analytical::estimate_amped(c, *device, fabric, options);
  const xf::ModelShape& m = c.model;
  const compute::Accelerator& a = c.accelerator;
  out << fmt::format(
      "# AMPeD (eq. 1-12) for transformer: {} layers, hidden {}, heads {}, seq {}, vocab {}, "
      "batch {} (micro {}), {}\n# tp {} x pp {} x dp {} = {} GPUs, {}, {} micro-batches | {}\n",
      m.layers, m.hidden, m.heads, m.seq, m.vocab, m.global_batch, m.micro_batch,
      compute::precision_name(m.precision), c.tp, c.pp, c.dp, c.gpus(),
      c.schedule == xf::Schedule::kGpipe ? "GPipe" : "1F1B", c.micro_batches(), network.describe());
  out << "# assumptions:\n";
  out << fmt::format(
      "#  compute: {} ops priced by the {} model, eff(ub = {}) = {:.4f}, op launch {} (minimum "
      "{})\n",
      a.name, a.model == compute::Model::kAmped ? "AMPeD (eq. 2-4)" : "roofline", m.micro_batch,
      static_cast<double>(e.efficiency_ppm) / 1e6, base::format_time_ps(a.launch_overhead_ps),
      base::format_time_ps(a.min_op_ps));
  out << "#  eq. 1: the logit layer is spread over the pipeline stages; the weight update "
         "(eq. 12) is the optimizer op of the first stage (Adam on its parameters)\n";
  if (c.tp > 1) {
    out << fmt::format(
        "#  tp: ring all-reduce (T = 2(N-1)/N), 4 of b*s*h per layer and micro-batch, "
        "{}\n",
        group_text(fabric.tp));
  }
  if (c.pp > 1) {
    out << fmt::format(
        "#  pp: one b*s*h message per micro-batch and pass, not overlapped with compute, on the "
        "slowest adjacent stages' link ({}): {}\n",
        fabric.pp.rate_bps == fabric.node_rate_bps ? "intra-node" : "inter-node",
        link_text(fabric.pp));
  }
  if (c.dp > 1) {
    out << fmt::format("#  dp: ring all-reduce of {} gradients after the backward pass, {}\n",
                       e.dp_parameters, group_text(fabric.dp));
  }
  out << fmt::format(
      "#  bubble (eq. 8): R = {}; all-reduces' reduction compute, ZeRO, MoE, sequence "
      "parallelism, DP overlap and activation recomputation are not modelled\n",
      c.schedule == workload::transformer::Schedule::kInterleaved
          ? fmt::format("1/{} (interleaved 1F1B, {} model chunks per GPU)", c.virtual_stages,
                        c.virtual_stages)
          : std::string("1 (GPipe and 1F1B alike)"));
  const std::string ring = "ring";
  for (const auto& [name, p, algorithm] :
       {std::tuple{"tp", c.tp, c.tp_algorithm}, std::tuple{"dp", c.dp, c.dp_algorithm}}) {
    if (p > 1 && collective::to_string(algorithm) != ring) {
      out << fmt::format(
          "#  {}: the scenario asks for {}; AMPeD prices a ring (run simulates {})\n", name,
          collective::to_string(algorithm), collective::to_string(algorithm));
    }
  }
  const std::array<std::pair<const char*, pdes::Time>, 7> columns = {
      std::pair{"forward", e.forward},
      {"backward", e.backward},
      {"optimizer", e.optimizer},
      {"tp-comm", e.tp_comm},
      {"pp-comm", e.pp_comm},
      {"dp-comm", e.dp_comm},
      {"bubble", e.bubble}};
  // Model FLOPs over a time without recomputation: run's "model TFLOP/s",
  // comparable to Megatron's count over a recomputing run (docs/validation.md).
  out << "# TFLOP/s/GPU: model FLOPs (72*B*s*l*h^2*(...)) over AMPeD's time, which has no "
         "recomputation (run's model TFLOP/s)\n";
  std::string head = fmt::format("#{:>9} {:>14} {:>15}", "model", "time(ms)", "TFLOP/s/GPU");
  std::string row =
      fmt::format(" {:>9} {:>14.6f} {:>15.2f}", "AMPeD", ms(e.iteration), e.tflops_per_gpu);
  for (const auto& [name, t] : columns) {
    head += fmt::format(" {:>10}", name);
    row += fmt::format(" {:>10.4f}", ms(t));
  }
  out << "# per iteration, one GPU; breakdown in ms:\n" << head << "\n" << row << "\n";
}
}  // namespace

int analyze_command(const std::string& path, const std::vector<std::string>& overrides,
                    std::uint64_t max_work, const mpi::communicator& comm) {
  auto s = load(path, overrides, comm);
  if (!s) return kExitBadInput;
  const setup::CollectiveJob* job = s->workload->collective_job();
  if (s->workload->type() == "transformer") {
    const std::unique_ptr<fabric::Network> network = network_or_report(*s, comm);
    if (!network) return kExitBadInput;
    if (comm.rank() == 0) analyze_transformer(*s, *network, std::cout);
    return kExitOk;
  }
  if (job == nullptr) {
    if (comm.rank() == 0) std::cout << s->workload->analysis(s->scenario.simulation) << "\n";
    return kExitOk;
  }
  const workload::CollectivesConfig& c = job->config;
  const std::unique_ptr<fabric::Network> network = network_or_report(*s, comm);
  if (!network) return kExitBadInput;
  const std::vector<std::uint32_t>& members = job->members;
  const auto p = static_cast<std::uint32_t>(members.size());
  EstimateProgress progress(comm);
  progress.add(estimate_tasks(*job).size());
  // The idle-fabric longest path beside each estimate (a lower bound; the
  // simulator's exact result where no two messages share a port), from the
  // same walk where the estimate walks level by level.
  const std::vector<Estimated> rows =
      estimate_job(*job, max_work, *network, comm, progress, /*with_idle=*/true);
  std::vector<std::string> idle(rows.size(), "-");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].idle) idle[i] = fmt::format("{:.3f}", us(*rows[i].idle));
  }
  progress.finish();
  if (comm.rank() != 0) return kExitOk;
  // RAMP §7.4.1's critical-path estimate (steps with their links' loads), and
  // the idle-fabric longest path beside it.
  std::cout << fmt::format("# critical-path estimate (RAMP §7.4.1): {} on {} nodes | {}\n",
                           collective::to_string(c.op), p, network->describe());
  std::cout << fmt::format(
      "#{:>13} {:>20} {:>6} {:>12} {:>11} {:>11} {:>11} {:>11} {:>11} {:>12}\n", "size",
      "algorithm", "steps", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "h2h(us)", "h2t(us)",
      "comp(us)", "idle(us)");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Estimated& r = rows[i];
    const std::string_view name = collective::to_string(r.algorithm);
    if (!r.estimate) {
      std::cout << fmt::format(" {:>13} {:>20} skipped: {}\n", r.bytes, name, r.skipped);
      continue;
    }
    const analytical::CollectiveEstimate& e = *r.estimate;
    const double algbw = gbytes_per_s(r.bytes, e.total);
    std::cout << fmt::format(
        " {:>13} {:>20} {:>6} {:>12.3f} {:>11.2f} {:>11.2f} {:>11.3f} {:>11.3f} {:>11.3f} "
        "{:>12}\n",
        r.bytes, name, e.steps, us(e.total), algbw,
        algbw * collective::bus_bandwidth_factor(c.op, p), us(e.h2h), us(e.h2t), us(e.compute),
        idle[i]);
  }
  return kExitOk;
}

}  // namespace sipsim::app
