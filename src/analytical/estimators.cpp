// analytical/'s implementation of the workloads' estimator interface
// (workload/estimators.hpp): the critical path (RAMP §7.4.1) and AMPeD.
#include "sipsim/analytical/estimators.hpp"

#include <spdlog/fmt/fmt.h>

#include <array>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#include "sipsim/analytical/amped.hpp"
#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/base/units.hpp"
#include "sipsim/compute/roofline.hpp"
#include "sipsim/workload/transformer/transformer.hpp"

namespace sipsim::analytical {

std::optional<pdes::Time> Estimators::critical_path(const collective::CollectiveSpec& spec,
                                                    const std::vector<std::uint32_t>& members,
                                                    const fabric::Network& network,
                                                    const compute::Device& device) const {
  try {
    return estimate_critical_path(spec, members, network, device, max_work_).total;
  } catch (const EstimateTooLarge&) {
    return std::nullopt;
  }
}

// Both with the waits overlapping the idle-fabric time (Waiting::kOverlapped),
// so that a relayed path's per-hop latency and the sharing are not added.
std::optional<workload::Estimators::Contention> Estimators::contention(
    const collective::CollectiveSpec& spec, const std::vector<std::vector<std::uint32_t>>& comms,
    const fabric::Network& network, const compute::Device& device) const {
  if (comms.empty()) return std::nullopt;
  try {
    Contention c;
    c.alone = estimate_concurrent_critical_paths(spec, std::span(comms).first(1), network, device,
                                                 max_work_, Waiting::kOverlapped)
                  .front()
                  .total;
    for (const CollectiveEstimate& e : estimate_concurrent_critical_paths(
             spec, comms, network, device, max_work_, Waiting::kOverlapped)) {
      c.together.push_back(e.total);
    }
    return c;
  } catch (const EstimateTooLarge&) {
    return std::nullopt;
  }
}

std::uint64_t Estimators::work(const collective::CollectiveSpec& spec) const {
  return critical_path_work(spec);
}

std::uint64_t Estimators::work_lower_bound(const collective::CollectiveSpec& spec) const {
  return critical_path_work_lower_bound(spec);
}

namespace {

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

}  // namespace

// AMPeD eq. 1-12 (amped.hpp) on the scenario's fabric and device, in the run
// summary's categories and units, with the assumptions it made.
std::string Estimators::amped_report(const workload::transformer::Config& c,
                                     const fabric::Network& network) const {
  namespace xf = workload::transformer;
  std::ostringstream out;
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
      c.schedule == xf::Schedule::kInterleaved
          ? fmt::format("interleaved 1F1B (v {})", c.virtual_stages)
          : std::string(xf::schedule_name(c.schedule)),
      c.micro_batches(), network.describe());
  out << "# assumptions:\n";
  const std::string efficiency =
      a.model == compute::Model::kGemm
          ? fmt::format("each GEMM by its shape ({}), sustained share {:.3f}",
                        compute::gemm_text(a.gemm), static_cast<double>(a.gemm.sustained_ppm) / 1e6)
          : fmt::format("eff(ub = {}) = {:.4f}", m.micro_batch,
                        static_cast<double>(e.efficiency_ppm) / 1e6);
  out << fmt::format(
      "#  compute: {} ops priced by the {} model, {}, op launch {} (minimum {}); recompute {}\n",
      a.name, compute::model_name(a.model), efficiency, base::format_time_ps(a.launch_overhead_ps),
      base::format_time_ps(a.min_op_ps), xf::recompute_name(c.recompute));
  out << "#  eq. 1: the logit layer runs on the last stage, whose pace the pipeline follows "
         "(eq. 8's bubble is of the mean stage); the weight update (eq. 12) is the optimizer op "
         "of the first stage (Adam on its parameters)\n";
  if (c.tp > 1) {
    out << fmt::format(
        "#  tp: ring all-reduce (T = 2(N-1)/N), 4 of b*s*h per layer and micro-batch{}{}{}, "
        "{}\n",
        c.recompute == xf::Recompute::kFull ? " (6 with full recomputation)" : "",
        c.sequence_parallel ? ", each a reduce-scatter and an all-gather" : "",
        c.tp_overlap ? ", the backward ones behind their block's first weight gradient" : "",
        group_text(fabric.tp));
  }
  if (c.pp > 1) {
    out << fmt::format(
        "#  pp: one {} message per micro-batch, pass and model chunk, not overlapped with "
        "compute, on the slowest adjacent stages' link ({}): {}\n",
        c.sequence_parallel     ? "b*s*h/tp"
        : xf::scatter_gather(c) ? "b*s*h/tp (then all-gathered over TP)"
                                : "b*s*h",
        fabric.pp.rate_bps == fabric.node_rate_bps ? "intra-node" : "inter-node",
        link_text(fabric.pp));
  }
  if (c.dp > 1) {
    out << fmt::format("#  dp: ring all-reduce of {} gradients after the backward pass, {}\n",
                       e.dp_parameters, group_text(fabric.dp));
  }
  out << fmt::format(
      "#  bubble (eq. 8): R = {}; all-reduces' reduction compute, ZeRO, MoE and DP overlap "
      "are not modelled\n",
      c.schedule == workload::transformer::Schedule::kInterleaved
          ? fmt::format("1/{} (interleaved 1F1B, {} model chunks per GPU)", c.virtual_stages,
                        c.virtual_stages)
          : std::string("1 (GPipe and 1F1B alike)"));
  const std::string ring = "ring";
  for (const auto& [name, p, algorithm] :
       {std::tuple{"tp", c.tp, c.groups[xf::kTpGroup].algorithm},
        std::tuple{"dp", c.dp, c.groups[xf::kDpGroup].algorithm}}) {
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
  // Both of run's counts, over the estimate's time, which includes the
  // recomputation as run simulates it.
  out << fmt::format(
      "# per GPU over the iteration: HW TFLOP/s, the FLOPs the GPUs execute with recompute "
      "{}{}; model TFLOP/s, 3 x forward (72*B*s*l*h^2*(...))\n",
      xf::recompute_name(c.recompute),
      c.recompute == xf::Recompute::kNone   ? " (= the model FLOPs)"
      : c.recompute == xf::Recompute::kFull ? " (Megatron's count, 96*B*s*l*h^2*(...))"
                                            : "");
  std::string head = fmt::format("#{:>9} {:>14} {:>13} {:>13}", "model", "time(ms)", "HW TFLOP/s",
                                 "model TFLOP/s");
  std::string row = fmt::format(" {:>9} {:>14.6f} {:>13.2f} {:>13.2f}", "AMPeD", ms(e.iteration),
                                e.hardware_tflops_per_gpu, e.model_tflops_per_gpu);
  for (const auto& [name, t] : columns) {
    head += fmt::format(" {:>10}", name);
    row += fmt::format(" {:>10.4f}", ms(t));
  }
  out << "# per iteration, one GPU; breakdown in ms:\n" << head << "\n" << row;
  return out.str();
}

}  // namespace sipsim::analytical
