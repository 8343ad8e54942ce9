// SiP-Ring's controller: the App. A.1 wavelength planner every period, on the
// traffic the ring's legs carried in the last one.
#include "sipsim/fabric/sip/sip_ring.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "sipsim/base/units.hpp"
#include "sipsim/fabric/faults.hpp"
#include "sipsim/fabric/sip/ring_planner.hpp"

namespace sipsim::fabric {

namespace {

class SipRingController final : public CircuitController {
 public:
  explicit SipRingController(const SipRingSpec& spec) : spec_(spec), reach_(sip_ring_reach(spec)) {}

  // The ring starts lit for the job's whole traffic (its legs).
  CircuitPlan first_plan(std::span<const PairTraffic> job) override {
    std::vector<PairTraffic> legs;
    for (const PairTraffic& t : job) {
      for (std::uint32_t u = t.src; u != t.dst;) {
        const std::uint32_t next = leg_target(u, t.dst);
        legs.push_back({u, next, t.bytes});
        u = next;
      }
    }
    std::sort(legs.begin(), legs.end(), by_pair);
    std::vector<PairTraffic> merged;
    for (const PairTraffic& t : legs) {
      if (!merged.empty() && merged.back().src == t.src && merged.back().dst == t.dst) {
        merged.back().bytes += t.bytes;
      } else {
        merged.push_back(t);
      }
    }
    CircuitPlan plan = plan_for(merged, 0, 0);
    for (Circuit& c : plan.circuits) c.kept = c.units;
    return plan;
  }
  pdes::Time period() const override { return spec_.period; }
  pdes::Time reconfiguration_delay() const override { return spec_.reconfiguration_delay; }

  // An idle period, or one whose traffic is the last plan's, keeps the plan
  // (a ring all-reduce "needs no rescheduling", App. A.1).
  // A lost wavelength, or one back, re-plans too (docs/faults.md).
  std::optional<CircuitPlan> next_plan(const CircuitPlan&, std::span<const PairTraffic> demand,
                                       const pdes::EpochInfo& info) override {
    if (!replans(demand, info.time)) return std::nullopt;
    wavelengths_ = wavelengths_at(info.time);
    return plan_for(demand, info.rng.next_u64(), info.index + 1, info.shares);
  }
  // On several ranks, each fibre's A.1 steps 1-3 run on one rank
  // (plan_ring_fibres): the epoch's longest part, the same plan.
  std::vector<std::uint64_t> plan_share(const CircuitPlan&, std::span<const PairTraffic> demand,
                                        const pdes::EpochInfo& info) override {
    if (info.ranks < 2 || !replans(demand, info.time)) return {};
    set_demands(demand);
    RingPlanInput in = input(0, 0, {});
    in.wavelengths = wavelengths_at(info.time);
    return plan_ring_fibres(in, info.rank, info.ranks);
  }

  // Beyond the reach in both directions, a chunk relays through the GPU at
  // the reach in the shorter direction (the ring's own path, SiP-ML §5).
  std::uint32_t leg_target(std::uint32_t at, std::uint32_t dst) const override {
    const std::uint32_t cw = ring_hops(spec_.gpus, at, dst, RingDirection::kClockwise);
    const std::uint32_t ccw = spec_.gpus - cw;
    if (std::min(cw, ccw) <= reach_) return dst;
    return cw <= ccw ? (at + reach_) % spec_.gpus : (at + spec_.gpus - reach_) % spec_.gpus;
  }

  std::string describe() const override {
    return std::to_string(spec_.wavelengths) + " wavelengths of " +
           base::format_bandwidth_bps(spec_.wavelength_rate_bps) + ", reach " +
           std::to_string(reach_) + " hops, re-planned every " +
           base::format_time_ps(spec_.period) + " (dark " +
           base::format_time_ps(spec_.reconfiguration_delay) + ")";
  }
  std::vector<std::pair<std::string, std::string>> facts() const override {
    std::ostringstream budget;
    budget << reach_ << " hops: (hops + 1) x " << spec_.loss_per_node_db
           << " dB per node <= " << spec_.power_budget_db << " dB budget (degree " << reach_ + 1
           << ")";
    return {
        {"wavelengths per GPU", std::to_string(spec_.wavelengths)},
        {"bandwidth per GPU",
         base::format_bandwidth_bps(spec_.wavelength_rate_bps * spec_.wavelengths)},
        {"lightpath reach", budget.str()},
        {"planner", std::string("App. A.1 min-cost flow (") +
                        (spec_.solver == RingSolver::kShortestPath ? "shortest path in ring order"
                                                                   : "LEMON network simplex") +
                        "), randomized rounding"}};
  }

 private:
  static bool by_pair(const PairTraffic& a, const PairTraffic& b) {
    return std::tie(a.src, a.dst) < std::tie(b.src, b.dst);
  }

  // Traffic to plan for, and either new traffic or a change of wavelengths.
  bool replans(std::span<const PairTraffic> demand, pdes::Time t) const {
    return !demand.empty() && (!keeps_plan(demand) || wavelengths_at(t) != wavelengths_);
  }
  // An idle period, or one whose traffic is the last plan's.
  bool keeps_plan(std::span<const PairTraffic> demand) const {
    return demand.empty() ||
           std::equal(demand.begin(), demand.end(), planned_for_.begin(), planned_for_.end());
  }
  void set_demands(std::span<const PairTraffic> demand) {
    demands_.clear();
    for (const PairTraffic& t : demand) {
      demands_.push_back({t.src, t.dst, static_cast<double>(t.bytes)});
    }
  }
  RingPlanInput input(std::uint64_t seed, std::uint64_t epoch,
                      std::span<const std::vector<std::uint64_t>> planned) const {
    RingPlanInput in;
    in.gpus = spec_.gpus;
    in.wavelengths = wavelengths_;
    in.reach = reach_;
    in.demands = demands_;
    in.seed = seed;
    in.epoch = epoch;
    in.solver = spec_.solver;
    in.planned = planned;
    return in;
  }

  CircuitPlan plan_for(std::span<const PairTraffic> demand, std::uint64_t seed, std::uint64_t epoch,
                       std::span<const std::vector<std::uint64_t>> planned = {}) {
    set_demands(demand);
    RingPlan ring = plan_ring_wavelengths(input(seed, epoch, planned));
    // A wavelength stays lit where the same pair keeps it in the same
    // direction: both plans' grants are sorted by pair, so one merge finds
    // the overlaps.
    CircuitPlan plan;
    auto pair_less = [](const WavelengthGrant& a, const WavelengthGrant& b) {
      return std::tie(a.src, a.dst) < std::tie(b.src, b.dst);
    };
    auto old = lit_.begin();
    for (const WavelengthGrant& g : ring.grants) {
      if (plan.circuits.empty() || plan.circuits.back().src != g.src ||
          plan.circuits.back().dst != g.dst) {
        plan.circuits.push_back({g.src, g.dst, 0, 0});
        while (old != lit_.end() && pair_less(*old, g)) ++old;
      }
      Circuit& c = plan.circuits.back();
      c.units += g.count;
      for (auto o = old; o != lit_.end() && !pair_less(g, *o); ++o) {
        if (o->direction != g.direction) continue;
        const std::uint32_t lo = std::max(o->first, g.first);
        const std::uint32_t hi = std::min(o->first + o->count, g.first + g.count);
        if (lo < hi) c.kept += hi - lo;
      }
    }
    lit_ = std::move(ring.grants);
    planned_for_.assign(demand.begin(), demand.end());
    return plan;
  }

  // The wavelengths the ring has at t: W less those lost then. The planner
  // numbers the ones left 0 .. W' - 1 (which ones they are does not change
  // what they carry).
  std::uint32_t wavelengths_at(pdes::Time t) const {
    std::uint32_t lost = 0;
    for (const LostWavelength& l : spec_.lost) lost += active_at(l, t) ? 1 : 0;
    if (lost >= spec_.wavelengths) {
      throw std::runtime_error("sip-ring: every wavelength is lost at " + base::format_time_ps(t));
    }
    return spec_.wavelengths - lost;
  }

  SipRingSpec spec_;
  std::uint32_t reach_;
  std::uint32_t wavelengths_ = wavelengths_at(0);  // in the plan in force
  std::vector<RingDemand> demands_;                // the planner's input, reused
  std::vector<WavelengthGrant> lit_;               // the plan in force, sorted by pair
  std::vector<PairTraffic> planned_for_;
};

}  // namespace

std::uint32_t sip_ring_reach(const SipRingSpec& spec) {
  if (!(spec.loss_per_node_db > 0)) return spec.gpus / 2;
  const double interfaces = std::floor(spec.power_budget_db / spec.loss_per_node_db + 1e-9);
  if (interfaces < 2) return 0;
  return static_cast<std::uint32_t>(
      std::min<double>(interfaces - 1, static_cast<double>(spec.gpus / 2)));
}

std::unique_ptr<CircuitController> make_sip_ring_controller(const SipRingSpec& spec) {
  return std::make_unique<SipRingController>(spec);
}

std::unique_ptr<Network> make_sip_ring(const SipRingSpec& spec) {
  CircuitFabricSpec c = spec.transport;
  c.gpus = spec.gpus;
  c.units_per_gpu = spec.wavelengths;
  c.unit_rate_bps = spec.wavelength_rate_bps;
  c.name = "sip-ring";
  return make_circuit_network(c, make_sip_ring_controller(spec));
}

}  // namespace sipsim::fabric
