// TopoOpt with reconfigurable circuits, as the RAMP paper compares against it
// (RAMP §7.5: "we assume the 3D-MEMs based system to allow circuit
// reconfiguration (necessary for full data-rate hybrid parallelism in DDL)
// ... we assume already defined circuits and discard any additional
// contribution due to the circuit reconfiguration time"; §7.4: for TopoOpt
// the estimator minimises "the number of logical circuits needed such that
// the effective degree is one and the bandwidth for collective operation is
// maximised"). Each GPU has `degree` transmit and receive ports of one circuit
// each; every period the controller gives them to the pairs that had traffic,
// so a GPU that talks to one peer (a ring's step) gets all its bandwidth.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <queue>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sipsim/base/units.hpp"
#include "sipsim/fabric/circuit/topoopt.hpp"

namespace sipsim::fabric {

namespace {

__extension__ typedef unsigned __int128 U128;

// A pair's claim on more circuits: its bytes per circuit so far (larger first),
// then the pair (smaller first), so that the plan is the same on every rank.
// Compared as bytes_a * units_b against bytes_b * units_a, exactly.
struct Claim {
  std::uint64_t bytes = 0;
  std::uint32_t units = 0;
  std::size_t index = 0;  // in the allocation's claims
  std::uint32_t src = 0, dst = 0;
  // a.bytes / a.units < b.bytes / b.units, ties by pair: the queue's top is the largest.
  friend bool operator<(const Claim& a, const Claim& b) {
    const U128 l = U128{a.bytes} * b.units;
    const U128 r = U128{b.bytes} * a.units;
    if (l != r) return l < r;
    return std::tie(a.src, a.dst) > std::tie(b.src, b.dst);
  }
};

class TopooptReconfigController final : public CircuitController {
 public:
  TopooptReconfigController(std::uint32_t gpus, std::uint32_t degree, TopooptReconfiguration r)
      : gpus_(gpus), degree_(degree), r_(r) {}

  CircuitPlan first_plan(std::span<const PairTraffic> job) override {
    job_.assign(job.begin(), job.end());
    CircuitPlan plan = allocate(job);
    for (Circuit& c : plan.circuits) c.kept = c.units;  // set up before the job starts
    return plan;
  }
  pdes::Time period() const override { return r_.period; }
  pdes::Time reconfiguration_delay() const override { return r_.delay; }

  // The pairs with traffic in the last period; the job's other pairs keep a
  // circuit where ports are left (1 byte of demand: served after every pair
  // with traffic has one), so that a pair whose traffic starts does not wait
  // a whole period for one.
  std::optional<CircuitPlan> next_plan(const CircuitPlan& current,
                                       std::span<const PairTraffic> demand,
                                       const pdes::EpochInfo&) override {
    if (demand.empty()) return std::nullopt;  // an idle period: nothing to serve better
    const std::vector<PairTraffic> wanted = with_idle_job_pairs(demand, job_);
    CircuitPlan plan = allocate(wanted);
    const auto same_circuits = [](const Circuit& a, const Circuit& b) {
      return a.src == b.src && a.dst == b.dst && a.units == b.units;
    };
    if (std::equal(plan.circuits.begin(), plan.circuits.end(), current.circuits.begin(),
                   current.circuits.end(), same_circuits)) {
      return std::nullopt;  // nothing to change
    }
    // A circuit stays lit where the pair keeps it: as many as both plans give it.
    std::size_t k = 0;
    for (Circuit& c : plan.circuits) {
      while (k < current.circuits.size() &&
             std::tie(current.circuits[k].src, current.circuits[k].dst) < std::tie(c.src, c.dst)) {
        ++k;
      }
      const bool same = k < current.circuits.size() && current.circuits[k].src == c.src &&
                        current.circuits[k].dst == c.dst;
      c.kept = same ? std::min(c.units, current.circuits[k].units) : 0;
    }
    return plan;
  }

  std::string describe() const override {
    std::ostringstream s;
    s << "circuits re-planned every " << base::format_time_ps(r_.period) << " from the traffic, "
      << degree_ << " per GPU, dark for " << base::format_time_ps(r_.delay) << " when changed";
    return s.str();
  }

 private:
  // Max-min by bytes per circuit: every pair with traffic gets one circuit
  // (largest first) while both its GPUs have a port left, then one more at a
  // time to the pair with the most bytes per circuit that can still grow.
  CircuitPlan allocate(std::span<const PairTraffic> traffic) const {
    std::vector<std::uint32_t> tx(gpus_, degree_), rx(gpus_, degree_);
    std::vector<Claim> claims;
    for (const PairTraffic& t : traffic) {
      if (t.bytes == 0 || t.src == t.dst) continue;
      claims.push_back({t.bytes, 0, claims.size(), t.src, t.dst});
    }
    std::vector<std::size_t> order(claims.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return std::tie(claims[b].bytes, claims[a].src, claims[a].dst) <
             std::tie(claims[a].bytes, claims[b].src, claims[b].dst);
    });
    std::priority_queue<Claim> grow;
    for (const std::size_t i : order) {
      Claim& c = claims[i];
      if (tx[c.src] == 0 || rx[c.dst] == 0) continue;
      --tx[c.src];
      --rx[c.dst];
      c.units = 1;
      grow.push(c);
    }
    while (!grow.empty()) {
      Claim c = grow.top();
      grow.pop();
      if (tx[c.src] == 0 || rx[c.dst] == 0) continue;  // it cannot grow
      --tx[c.src];
      --rx[c.dst];
      claims[c.index].units = ++c.units;
      grow.push(c);
    }
    CircuitPlan plan;
    for (const Claim& c : claims) {
      if (c.units > 0) plan.circuits.push_back({c.src, c.dst, c.units, 0});
    }
    std::sort(plan.circuits.begin(), plan.circuits.end(), [](const auto& a, const auto& b) {
      return std::tie(a.src, a.dst) < std::tie(b.src, b.dst);
    });
    return plan;
  }
  std::uint32_t gpus_, degree_;
  TopooptReconfiguration r_;
  std::vector<PairTraffic> job_;
};

}  // namespace

std::unique_ptr<CircuitController> make_topoopt_reconfig_controller(std::uint32_t gpus,
                                                                    std::uint32_t degree,
                                                                    TopooptReconfiguration r) {
  return std::make_unique<TopooptReconfigController>(gpus, degree, r);
}

}  // namespace sipsim::fabric
