// SiP-OCS's controller: the App. A.2 allocation from the job's traffic, and
// in dynamic mode from the last 5d of traffic (SiP-ML §4.3, Fig. 9).
#include "sipsim/fabric/sip/sip_ocs.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "sipsim/base/units.hpp"
#include "sipsim/fabric/faults.hpp"

namespace sipsim::fabric {

namespace {

class SipOcsController final : public CircuitController {
 public:
  explicit SipOcsController(const SipOcsSpec& spec) : spec_(spec) {}

  CircuitPlan first_plan(std::span<const PairTraffic> job) override {
    job_.assign(job.begin(), job.end());
    CircuitPlan plan = allocate(job);
    for (Circuit& c : plan.circuits) c.kept = c.units;  // set up before the job starts
    return plan;
  }
  // SiP-ML §4.3: "we use the traffic matrix of the past 5d seconds to
  // reconfigure the circuit allocations. We maintain circuits for 5d".
  pdes::Time period() const override { return spec_.dynamic ? 5 * spec_.reconfiguration_delay : 0; }
  pdes::Time reconfiguration_delay() const override { return spec_.reconfiguration_delay; }
  std::optional<CircuitPlan> next_plan(const CircuitPlan&, std::span<const PairTraffic> demand,
                                       const pdes::EpochInfo& info) override {
    if (demand.empty()) return std::nullopt;  // an idle period: nothing to serve better
    now_ = info.time;
    // Pairs of the job idle in the last period keep a circuit where the
    // switches have ports to spare: as 1 byte of demand, which the max-min
    // objective serves with one circuit before it shares the rest by demand.
    // Without it a pair whose traffic starts would wait up to 5d for one.
    const std::vector<PairTraffic> wanted = with_idle_job_pairs(demand, job_);
    const std::vector<std::vector<int>> before = permutation_;
    CircuitPlan plan = allocate(wanted);
    // A circuit stays lit where its switch keeps the same input-output pair.
    for (Circuit& c : plan.circuits) {
      c.kept = 0;
      for (std::size_t k = 0; k < before.size(); ++k) {
        if (before[k][c.src] == static_cast<int>(c.dst) &&
            permutation_[k][c.src] == static_cast<int>(c.dst)) {
          ++c.kept;
        }
      }
    }
    return plan;
  }
  std::string describe() const override {
    std::ostringstream d;
    d << spec_.switches << " OCSs, " << (spec_.allocation == OcsMethod::ilp ? "ILP" : "heuristic")
      << " allocation, "
      << (spec_.dynamic
              ? "dynamic (every 5d, d = " + base::format_time_ps(spec_.reconfiguration_delay) + ")"
              : std::string("one-shot"));
    return d.str();
  }
  std::vector<std::pair<std::string, std::string>> facts() const override {
    return {{"optical circuit switches", std::to_string(spec_.switches)},
            {"degree", std::to_string(spec_.switches) + " (one circuit per switch)"},
            {"circuit allocation", spec_.allocation == OcsMethod::ilp ? "ILP (GLPK)" : "heuristic"},
            {"allocation bottleneck", bottleneck_}};
  }

 private:
  CircuitPlan allocate(std::span<const PairTraffic> traffic) {
    const std::size_t n = spec_.gpus;
    std::vector<double> tm(n * n, 0.0);
    for (const PairTraffic& t : traffic) tm[t.src * n + t.dst] += static_cast<double>(t.bytes);
    OcsAllocationOptions options;
    options.method = spec_.allocation;
    options.ilp_time_limit_s = spec_.ilp_time_limit_s;
    for (const FailedOcsPort& f : spec_.failed) {  // the faults on now (docs/faults.md)
      if (active_at(f, now_)) {
        options.failed_ports.emplace_back(static_cast<int>(f.gpu), static_cast<int>(f.ocs));
      }
    }
    const OcsAllocation a = allocate_ocs_circuits(static_cast<int>(spec_.gpus),
                                                  static_cast<int>(spec_.switches), tm, options);
    permutation_ = a.permutation;
    const double seconds = a.bottleneck_seconds(static_cast<double>(spec_.bandwidth_bps) / 8);
    std::ostringstream b;
    b << (seconds == seconds && seconds < 1e300 ? base::format_time_ps(static_cast<pdes::Time>(
                                                      seconds * static_cast<double>(pdes::kSecond)))
                                                : std::string("a pair with traffic has no circuit"))
      << " for the longest pair's traffic"
      << (a.proven_optimal ? "" : " (ILP stopped at its time limit)")
      << (a.dropped > 0 ? ", " + std::to_string(a.dropped) + " circuits unplaced (failed ports)"
                        : std::string());
    bottleneck_ = b.str();
    CircuitPlan plan;
    for (std::uint32_t i = 0; i < spec_.gpus; ++i) {
      for (std::uint32_t j = 0; j < spec_.gpus; ++j) {
        if (i == j) continue;
        const int c = a.circuits_between(static_cast<int>(i), static_cast<int>(j));
        if (c > 0) plan.circuits.push_back({i, j, static_cast<std::uint32_t>(c), 0});
      }
    }
    return plan;
  }

  SipOcsSpec spec_;
  pdes::Time now_ = 0;                         // the allocation's time
  std::vector<PairTraffic> job_;               // one iteration's traffic, sorted
  std::vector<std::vector<int>> permutation_;  // the allocation in force, [switch][gpu]
  std::string bottleneck_ = "not allocated yet";
};

}  // namespace

std::uint64_t sip_ocs_circuit_rate_bps(const SipOcsSpec& spec) {
  return spec.bandwidth_bps / spec.switches;
}

std::unique_ptr<CircuitController> make_sip_ocs_controller(const SipOcsSpec& spec) {
  return std::make_unique<SipOcsController>(spec);
}

std::unique_ptr<Network> make_sip_ocs(const SipOcsSpec& spec) {
  CircuitFabricSpec c = spec.transport;
  c.gpus = spec.gpus;
  c.units_per_gpu = spec.switches;
  c.unit_rate_bps = sip_ocs_circuit_rate_bps(spec);
  c.name = "sip-ocs";
  return make_circuit_network(c, make_sip_ocs_controller(spec));
}

}  // namespace sipsim::fabric
