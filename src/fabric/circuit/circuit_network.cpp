// Reconfigurable circuit fabrics: chunks on direct circuits between GPUs,
// relayed along the plan's circuits, re-planned at epochs (docs/architecture.md).
#include "sipsim/fabric/circuit/circuit_network.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sipsim/base/flat_map.hpp"
#include "sipsim/base/units.hpp"
#include "sipsim/pdes/partitioners/blocks.hpp"

namespace sipsim::fabric {

namespace {

enum Kind : std::uint32_t {
  kArrive = kFabricKindBase + 16,  // a chunk has arrived at a GPU (at the LP of that GPU)
  kTxDone = kFabricKindBase + 17,  // a GPU's circuit to data[0] is free again
  kKick = kFabricKindBase + 18,    // a GPU starts what a plan or a lit circuit now allows
};

constexpr std::uint16_t kFar = std::numeric_limits<std::uint16_t>::max();

// A chunk waiting at a GPU (its source or a relay).
struct Chunk {
  std::uint64_t msg_bytes = 0, tag = 0, seq = 0;
  std::uint32_t src = 0, dst = 0;
  std::uint32_t bytes = 0;
  std::uint64_t order = 0;  // the GPU's arrival order: re-routing keeps it
};

class CircuitNetwork final : public Network {
 public:
  CircuitNetwork(const CircuitFabricSpec& spec, std::unique_ptr<CircuitController> controller)
      : spec_(spec), controller_(std::move(controller)) {
    if (spec_.gpus < 2) throw std::invalid_argument(spec_.name + ": at least 2 GPUs");
    if (spec_.unit_rate_bps == 0) throw std::invalid_argument(spec_.name + ": rate must be > 0");
    if (spec_.latency == 0) {
      // The latency is the lookahead between ranks (docs/architecture.md).
      throw std::invalid_argument(spec_.name + ": latency must be > 0");
    }
    if (spec_.units_per_gpu == 0) throw std::invalid_argument(spec_.name + ": no circuits per GPU");
    if (spec_.chunk_bytes == 0 || spec_.chunk_bytes > (1ULL << 31)) {
      throw std::invalid_argument(spec_.name + ": chunk must be 1 B .. 2 GiB");
    }
  }

  std::uint32_t nodes() const override { return spec_.gpus; }
  std::uint32_t lp_count() const override { return spec_.gpus; }
  pdes::Partition partition(int ranks) const override {
    return pdes::partitioners::blocks(spec_.gpus, ranks);
  }
  // Every circuit has the same latency: spread each phase over the ranks.
  pdes::Partition phased_partition(int ranks,
                                   std::span<const std::uint32_t> node_phase) const override {
    return pdes::partitioners::phased_blocks(node_phase, ranks);
  }
  pdes::Time lookahead(const pdes::Partition&) const override { return spec_.latency; }
  pdes::Time max_lookahead() const override { return spec_.latency; }

  bool plans_for_job() const override { return true; }
  void plan_for_job(std::span<const PairTraffic> traffic) override {
    pairs_.clear();
    for (const PairTraffic& t : traffic) {
      if (t.src >= spec_.gpus || t.dst >= spec_.gpus) {
        throw std::invalid_argument(spec_.name + ": traffic for a GPU beyond the fabric's " +
                                    std::to_string(spec_.gpus));
      }
      // The controller counts the legs a pair's chunks take.
      for (std::uint32_t u = t.src; u != t.dst;) {
        const std::uint32_t next = controller_->leg_target(u, t.dst);
        pairs_.push_back({u, next});
        u = next;
      }
    }
    std::sort(pairs_.begin(), pairs_.end());
    pairs_.erase(std::unique(pairs_.begin(), pairs_.end()), pairs_.end());
    const auto t0 = std::chrono::steady_clock::now();
    set_plan(controller_->first_plan(traffic), 0, 0);
    planner_ns_ += static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
            .count());
    planned_ = true;
  }

  void setup(const pdes::Partition& partition, int rank) override {
    if (!planned_) {
      throw std::logic_error(spec_.name + ": the job's traffic was not given before setup");
    }
    stats_ = {};
    if (rank != 0) {
      keep_log_ = false;
      std::vector<PlanRecord>().swap(log_);
    }
    const auto lps = partition.lps_of(rank);
    local_.assign(lps.begin(), lps.end());
    gpus_.assign(lps.size(), Gpu{});
    index_of_.assign(spec_.gpus, kNotLocal);
    for (std::uint32_t i = 0; i < lps.size(); ++i) {
      index_of_[lps[i]] = i;
      rebuild_ports(gpus_[i], lps[i], 0);
    }
    offered_.assign(pairs_.size(), 0);
    delivered_.assign(pairs_.size(), 0);
    delivered_before_.assign(pairs_.size(), 0);
  }

  pdes::Time send(pdes::Context& ctx, std::uint32_t dst, std::uint64_t bytes,
                  std::uint64_t tag) override {
    const std::uint32_t self = ctx.self();
    if (dst >= spec_.gpus || dst == self) {
      throw std::logic_error(spec_.name + ": GPU " + std::to_string(self) + " cannot send to " +
                             std::to_string(dst));
    }
    ++stats_.messages;
    stats_.bytes += bytes;
    Gpu& g = gpus_[ctx.self_index()];
    const std::uint64_t seq = g.next_seq[dst]++;
    const std::uint64_t n =
        std::max<std::uint64_t>(1, (bytes + spec_.chunk_bytes - 1) / spec_.chunk_bytes);
    for (std::uint64_t k = 0; k < n; ++k) {
      const std::uint64_t c = k + 1 < n ? spec_.chunk_bytes : bytes - (n - 1) * spec_.chunk_bytes;
      enqueue(g, self, {bytes, tag, seq, self, dst, static_cast<std::uint32_t>(c), 0});
    }
    pump(g, self, ctx);
    // The message is the GPU interface's now; its sender goes on.
    return ctx.now();
  }

  void handle(const pdes::Event& ev, pdes::Context& ctx, MessageSink& sink) override {
    const std::uint32_t self = ctx.self();
    Gpu& g = gpus_[ctx.self_index()];
    switch (ev.kind) {
      case kArrive: {
        // data: message bytes, tag, (message number << 32 | the GPU this
        // hop left), (source << 32 | destination); aux: the chunk's bytes.
        Chunk c{ev.data[0],
                ev.data[1],
                ev.data[2] >> 32,
                static_cast<std::uint32_t>(ev.data[3] >> 32),
                static_cast<std::uint32_t>(ev.data[3]),
                ev.aux,
                0};
        if (controller_->period() > 0) {
          delivered_[pair_index(static_cast<std::uint32_t>(ev.data[2]), self)] += c.bytes;
        }
        if (c.dst == self) {
          arrived(g, c, ctx, sink);
          return;
        }
        enqueue(g, self, c);  // a relay: store and forward
        break;
      }
      case kTxDone: {
        std::erase(g.transmitting, static_cast<std::uint32_t>(ev.data[0]));
        if (Port* p = port_to(g, static_cast<std::uint32_t>(ev.data[0]))) p->busy = false;
        break;
      }
      case kKick:
        if (ev.time >= g.kick_at) g.kick_at = pdes::kTimeMax;
        break;
      default:
        throw std::logic_error(spec_.name + ": unknown event kind " + std::to_string(ev.kind));
    }
    pump(g, self, ctx);
  }

  // Epochs: the controller's period.
  pdes::Time next_epoch(pdes::Time after) const override {
    const pdes::Time period = controller_->period();
    if (period == 0) return pdes::kTimeMax;
    return (after / period + 1) * period;
  }
  std::size_t epoch_counters() const override {
    return controller_->period() > 0 ? pairs_.size() : 0;
  }
  // Demand of a pair in the last period: its bytes offered since the run
  // began minus those delivered by the previous epoch, i.e. what was left
  // then plus what came since. The source adds the first, the destination
  // subtracts the second (the sum is taken modulo 2^64, docs/architecture.md).
  void epoch_contribute(pdes::Time, std::span<std::uint64_t> counters) override {
    for (std::size_t k = 0; k < pairs_.size(); ++k) {
      if (index_of_[pairs_[k].first] != kNotLocal) counters[k] += offered_[k];
      if (index_of_[pairs_[k].second] != kNotLocal) {
        counters[k] -= delivered_before_[k];
        delivered_before_[k] = delivered_[k];
      }
    }
  }
  std::vector<std::uint64_t> epoch_share(const pdes::EpochInfo& info,
                                         std::span<const std::uint64_t> totals) override {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::uint64_t> share = controller_->plan_share(plan_, demand_of(totals), info);
    planner_ns_ += static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
            .count());
    return share;
  }
  void epoch_plan(const pdes::EpochInfo& info, std::span<const std::uint64_t> totals) override {
    const std::vector<PairTraffic> demand = demand_of(totals);
    const auto t0 = std::chrono::steady_clock::now();
    std::optional<CircuitPlan> next = controller_->next_plan(plan_, demand, info);
    planner_ns_ += static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
            .count());
    ++epochs_;
    if (!next) return;
    set_plan(std::move(*next), info.time, info.index + 1);
    for (std::uint32_t i = 0; i < gpus_.size(); ++i) rebuild_ports(gpus_[i], local_[i], info.time);
  }

  // A direct circuit of the plan, else the hops of a shortest relay path
  // (under plans that change, the pair's legs); before the job's plan, one
  // hop at the GPU's full bandwidth.
  pdes::Time uncongested_ps(std::uint32_t a, std::uint32_t b, std::uint64_t bytes) const override {
    const std::vector<std::uint64_t> rates = path_rates(a, b);
    const std::uint64_t n =
        std::max<std::uint64_t>(1, (bytes + spec_.chunk_bytes - 1) / spec_.chunk_bytes);
    const std::uint64_t last = bytes - (n - 1) * spec_.chunk_bytes;
    // Store-and-forward over h hops (the routed fabric's closed form):
    // max over the hop j2 where the last chunk's row begins.
    pdes::Time tail = 0;
    for (const std::uint64_t r : rates) tail += serialization_ps(last, r);
    const pdes::Time latency = rates.size() * spec_.latency;
    if (n == 1) return latency + tail;
    pdes::Time head = 0, slowest = 0, best = 0;
    for (const std::uint64_t r : rates) {
      const pdes::Time full = serialization_ps(spec_.chunk_bytes, r);
      head += full;
      slowest = std::max(slowest, full);
      best = std::max(best, head + (n - 2) * slowest + tail);
      tail -= serialization_ps(last, r);
    }
    return latency + best;
  }
  // The message is handed over at once (send() returns its time).
  pdes::Time injection_ps(std::uint32_t, std::uint32_t, std::uint64_t) const override { return 0; }
  std::uint64_t node_rate_bps() const override {
    if (!planned_) return full_rate();
    std::uint64_t most = 0;
    for (std::uint32_t v = 0; v < spec_.gpus; ++v) {
      std::uint64_t units = 0;
      for (std::uint32_t k = out_begin_[v]; k < out_begin_[v + 1]; ++k) {
        units += plan_.circuits[k].units;
      }
      most = std::max(most, units);
    }
    return std::max<std::uint64_t>(1, most) * spec_.unit_rate_bps;
  }
  std::uint64_t path_rate_bps(std::uint32_t a, std::uint32_t b) const override {
    std::uint64_t rate = ~std::uint64_t{0};
    for (const std::uint64_t r : path_rates(a, b)) rate = std::min(rate, r);
    return rate;
  }
  // One resource per circuit of the plan (the pair's direct circuit or its
  // relay hops); pairs without a path use their source's first circuit.
  // Before the job's plan (the estimators of `algorithm: auto` run first),
  // each GPU's send and receive side at its full bandwidth.
  std::uint32_t resource_count() const override {
    return std::max<std::uint32_t>(2 * spec_.gpus,
                                   static_cast<std::uint32_t>(plan_.circuits.size()));
  }
  void path_resources(std::uint32_t a, std::uint32_t b, std::vector<Resource>& out) const override {
    if (!planned_) {
      out.push_back({a, full_rate()});
      out.push_back({spec_.gpus + b, full_rate()});
      return;
    }
    for (std::uint32_t v = a; v != b;) {
      const std::uint32_t k = hop_circuit(v, b);
      if (k == kNoCircuit) {
        out.push_back({0, spec_.unit_rate_bps});
        return;
      }
      const Circuit& c = plan_.circuits[k];
      out.push_back({k, c.units * spec_.unit_rate_bps});
      v = c.dst;
    }
  }

  std::string describe() const override {
    return spec_.name + ": " + std::to_string(spec_.gpus) + " GPUs, circuits of " +
           base::format_bandwidth_bps(spec_.unit_rate_bps) + ", latency " +
           base::format_time_ps(spec_.latency) + ", chunks of " +
           base::format_bytes(spec_.chunk_bytes) + "; " + controller_->describe();
  }
  std::vector<std::pair<std::string, std::string>> facts() const override {
    std::vector<std::pair<std::string, std::string>> f = {
        {"circuit rate", base::format_bandwidth_bps(spec_.unit_rate_bps)},
        {"circuit latency", base::format_time_ps(spec_.latency)},
        {"chunk size", base::format_bytes(spec_.chunk_bytes)},
        {"re-planning period", controller_->period() > 0
                                   ? base::format_time_ps(controller_->period())
                                   : std::string("none (one plan for the job)")},
        {"reconfiguration delay", base::format_time_ps(controller_->reconfiguration_delay())}};
    for (auto& kv : controller_->facts()) f.push_back(std::move(kv));
    return f;
  }

  // The plans' counters are the controller's, the same on every rank: max.
  std::vector<Counter> counters() const override {
    std::vector<Counter> c = Report::counters();
    c.push_back({"relayed_chunks", relayed_, false});
    c.push_back({"epochs", epochs_, true});
    c.push_back({"plans", plans_, true});
    c.push_back({"circuits_changed", changed_units_, true});
    c.push_back({"dark_circuit_ps", dark_ps_, true});
    c.push_back({"planner_ns", planner_ns_, true, true});
    return c;
  }
  std::vector<ReportTable> report_tables() const override {
    if (!spec_.log_plans) return {};
    ReportTable t;
    t.name = "plans";
    t.columns = {"time_ps", "epoch", "src", "dst", "units", "kept"};
    t.rows = log_rows_;
    t.column = [this](std::size_t c) {
      std::vector<std::uint64_t> v;
      v.reserve(log_.size());
      for (const PlanRecord& r : log_) {
        const std::uint64_t fields[] = {r.time, r.epoch, r.src, r.dst, r.units, r.kept};
        v.push_back(fields[c]);
      }
      return v;
    };
    return {std::move(t)};
  }

 private:
  static constexpr std::uint32_t kNotLocal = ~std::uint32_t{0};
  static constexpr std::uint32_t kNoCircuit = ~std::uint32_t{0};
  static constexpr std::uint64_t kMaxBurst = 1ULL << 31;  // an event's aux holds the bytes

  // A GPU's circuit to one peer: FIFO, one chunk on it at a time.
  struct Port {
    std::uint32_t peer = 0;
    std::uint32_t units = 0, kept = 0;
    pdes::Time lit_at = 0;  // before it, only `kept` units carry data
    bool busy = false;
    std::deque<Chunk> queue;
  };
  struct Gpu {
    std::vector<Port> ports;                  // by peer
    std::deque<Chunk> waiting;                // no path in the plan: the next plan decides
    std::vector<std::uint32_t> transmitting;  // peers with a chunk on the wire
    base::FlatMap<std::uint32_t, std::uint64_t> next_seq;  // by destination
    // Reassembly. Chunks of a pair mostly arrive in order: per source, the
    // next message to deliver and its bytes so far. The rest (a new plan can
    // overtake an old path) by (source, message): bytes so far, and
    // messages complete but held until the earlier ones are delivered.
    struct InOrder {
      std::uint64_t seq = 0, got = 0;
    };
    base::FlatMap<std::uint32_t, InOrder> expected;
    std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint64_t> partial;
    std::map<std::pair<std::uint32_t, std::uint64_t>, Delivery> ready;
    std::uint64_t order = 0;
    pdes::Time kick_at = pdes::kTimeMax;
  };

  std::size_t pair_index(std::uint32_t src, std::uint32_t dst) const {
    const auto it = std::lower_bound(pairs_.begin(), pairs_.end(), std::make_pair(src, dst));
    if (it == pairs_.end() || *it != std::make_pair(src, dst)) {
      throw std::logic_error(spec_.name + ": GPU " + std::to_string(src) + " sends to GPU " +
                             std::to_string(dst) +
                             ", a pair that the job's traffic matrix does not have");
    }
    return static_cast<std::size_t>(it - pairs_.begin());
  }

  // The controller's input at an epoch: the pairs with bytes offered or
  // undelivered, summed over the ranks.
  std::vector<PairTraffic> demand_of(std::span<const std::uint64_t> totals) const {
    std::vector<PairTraffic> demand;
    for (std::size_t k = 0; k < pairs_.size(); ++k) {
      if (totals[k] > 0) demand.push_back({pairs_[k].first, pairs_[k].second, totals[k]});
    }
    return demand;
  }

  void log(const PlanRecord& r) {
    ++log_rows_;
    if (keep_log_) log_.push_back(r);
  }

  // Installs `plan` (all ranks): adjacency, the relay cache, the log.
  void set_plan(CircuitPlan plan, pdes::Time t, std::uint64_t epoch) {
    for (std::size_t k = 0; k < plan.circuits.size(); ++k) {
      const Circuit& c = plan.circuits[k];
      if (c.src >= spec_.gpus || c.dst >= spec_.gpus || c.src == c.dst || c.units == 0 ||
          c.kept > c.units ||
          (k > 0 && std::tie(plan.circuits[k - 1].src, plan.circuits[k - 1].dst) >=
                        std::tie(c.src, c.dst))) {
        throw std::logic_error(spec_.name + ": the controller's plan is malformed at circuit " +
                               std::to_string(k) + " (GPU " + std::to_string(c.src) + " -> GPU " +
                               std::to_string(c.dst) + ", " + std::to_string(c.units) + " units, " +
                               std::to_string(c.kept) + " kept)");
      }
    }
    // The log keeps what changed: a pair's new units (0: its circuit is gone).
    if (spec_.log_plans) {
      auto a = plan_.circuits.begin();
      const auto a_end = plan_.circuits.end();
      for (const Circuit& c : plan.circuits) {
        for (; a != a_end && std::tie(a->src, a->dst) < std::tie(c.src, c.dst); ++a) {
          log({t, epoch, a->src, a->dst, 0, 0});
        }
        const bool same = a != a_end && a->src == c.src && a->dst == c.dst;
        if (!same || a->units != c.units || c.kept != c.units) {
          log({t, epoch, c.src, c.dst, c.units, c.kept});
        }
        if (same) ++a;
      }
      for (; a != a_end; ++a) log({t, epoch, a->src, a->dst, 0, 0});
    }
    plan_ = std::move(plan);
    out_begin_.assign(spec_.gpus + 1, 0);
    in_begin_.assign(spec_.gpus + 1, 0);
    for (const Circuit& c : plan_.circuits) {
      ++out_begin_[c.src + 1];
      ++in_begin_[c.dst + 1];
    }
    for (std::uint32_t v = 0; v < spec_.gpus; ++v) {
      out_begin_[v + 1] += out_begin_[v];
      in_begin_[v + 1] += in_begin_[v];
    }
    in_.assign(plan_.circuits.size(), 0);
    std::vector<std::uint32_t> fill(in_begin_.begin(), in_begin_.end() - 1);
    for (std::uint32_t k = 0; k < plan_.circuits.size(); ++k)
      in_[fill[plan_.circuits[k].dst]++] = k;
    hops_to_.assign(spec_.gpus, {});
    ++plans_;
    for (const Circuit& c : plan_.circuits) {
      if (epoch > 0) {
        changed_units_ += c.units - c.kept;
        dark_ps_ += (c.units - c.kept) * controller_->reconfiguration_delay();
      }
    }
  }

  // Hops from every GPU to `dst` over the plan's circuits (a BFS backwards
  // from dst, once per destination and plan).
  const std::vector<std::uint16_t>& hops_to(std::uint32_t dst) const {
    std::vector<std::uint16_t>& h = hops_to_[dst];
    if (!h.empty()) return h;
    h.assign(spec_.gpus, kFar);
    std::vector<std::uint32_t> queue{dst};
    h[dst] = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const std::uint32_t v = queue[head];
      for (std::uint32_t i = in_begin_[v]; i < in_begin_[v + 1]; ++i) {
        const std::uint32_t u = plan_.circuits[in_[i]].src;
        if (h[u] == kFar) {
          h[u] = static_cast<std::uint16_t>(h[v] + 1);
          queue.push_back(u);
        }
      }
    }
    return h;
  }

  // The circuit a chunk at `at` for `dst` takes next: the direct one, else
  // the one to the peer nearest dst (the lowest peer id among equals).
  std::uint32_t next_circuit(std::uint32_t at, std::uint32_t dst) const {
    const std::uint32_t b = out_begin_[at], e = out_begin_[at + 1];
    const auto first = plan_.circuits.begin();
    const auto it = std::lower_bound(first + b, first + e, dst,
                                     [](const Circuit& c, std::uint32_t d) { return c.dst < d; });
    if (it != first + e && it->dst == dst) return static_cast<std::uint32_t>(it - first);
    const std::vector<std::uint16_t>& h = hops_to(dst);
    std::uint32_t best = kNoCircuit;
    std::uint16_t nearest = kFar;
    for (std::uint32_t k = b; k < e; ++k) {
      if (h[plan_.circuits[k].dst] < nearest) {
        nearest = h[plan_.circuits[k].dst];
        best = k;
      }
    }
    return best;
  }

  std::uint64_t full_rate() const { return spec_.units_per_gpu * spec_.unit_rate_bps; }
  // The circuit a lone chunk at `at` for `dst` takes (route()): under plans
  // that change, only the one to its leg's end.
  std::uint32_t hop_circuit(std::uint32_t at, std::uint32_t dst) const {
    if (controller_->period() == 0) return next_circuit(at, dst);
    const std::uint32_t target = controller_->leg_target(at, dst);
    const auto first = plan_.circuits.begin(), end = first + out_begin_[at + 1];
    const auto it = std::lower_bound(first + out_begin_[at], end, target,
                                     [](const Circuit& c, std::uint32_t d) { return c.dst < d; });
    return it != end && it->dst == target ? static_cast<std::uint32_t>(it - first) : kNoCircuit;
  }
  std::vector<std::uint64_t> path_rates(std::uint32_t a, std::uint32_t b) const {
    if (!planned_) return {full_rate()};
    std::vector<std::uint64_t> rates;
    for (std::uint32_t v = a; v != b && rates.size() <= spec_.gpus;) {
      const std::uint32_t k = hop_circuit(v, b);
      if (k == kNoCircuit) return {spec_.unit_rate_bps};
      rates.push_back(plan_.circuits[k].units * spec_.unit_rate_bps);
      v = plan_.circuits[k].dst;
    }
    return rates;
  }

  Port* port_to(Gpu& g, std::uint32_t peer) {
    const auto it = std::lower_bound(g.ports.begin(), g.ports.end(), peer,
                                     [](const Port& p, std::uint32_t q) { return p.peer < q; });
    return it != g.ports.end() && it->peer == peer ? &*it : nullptr;
  }

  void enqueue(Gpu& g, std::uint32_t self, Chunk c) {
    c.order = g.order++;
    if (controller_->period() > 0) {
      offered_[pair_index(self, controller_->leg_target(self, c.dst))] += c.bytes;
    }
    route(g, self, c);
  }
  // A fixed plan relays along its shortest paths. Plans that change send a
  // chunk only over a circuit to its leg's end and let it wait for one
  // otherwise: a chunk relayed along one plan's path could be left where the
  // next plan has none (docs/models.md, "Circuit fabrics").
  void route(Gpu& g, std::uint32_t self, const Chunk& c) {
    std::uint32_t peer = kNoCircuit;
    if (controller_->period() > 0) {
      const std::uint32_t target = controller_->leg_target(self, c.dst);
      if (port_to(g, target) != nullptr) peer = target;
    } else if (const std::uint32_t k = next_circuit(self, c.dst); k != kNoCircuit) {
      peer = plan_.circuits[k].dst;
    }
    if (peer == kNoCircuit) {
      if (controller_->period() == 0) {  // no later plan can give it one
        throw std::invalid_argument(
            spec_.name + ": the job's circuits leave no path from GPU " + std::to_string(self) +
            " to GPU " + std::to_string(c.dst) + " (" + controller_->describe() +
            "); more circuits per GPU, or a job whose GPUs talk to fewer peers");
      }
      g.waiting.push_back(c);
      return;
    }
    port_to(g, peer)->queue.push_back(c);
  }

  // A new plan at this GPU: its ports, and every chunk it holds re-routed in
  // its arrival order.
  void rebuild_ports(Gpu& g, std::uint32_t self, pdes::Time t) {
    // A peer that keeps a circuit keeps its queue (its chunks' legs end
    // there); the chunks of circuits gone and those waiting are routed again
    // in their arrival order.
    std::vector<Port> ports;  // a deque's move may throw: reserve, never copy
    ports.reserve(out_begin_[self + 1] - out_begin_[self]);
    std::vector<Chunk> held(g.waiting.begin(), g.waiting.end());
    g.waiting.clear();
    auto old = g.ports.begin();
    for (std::uint32_t k = out_begin_[self]; k < out_begin_[self + 1]; ++k) {
      const Circuit& c = plan_.circuits[k];
      for (; old != g.ports.end() && old->peer < c.dst; ++old) {
        held.insert(held.end(), old->queue.begin(), old->queue.end());
      }
      Port p;
      if (old != g.ports.end() && old->peer == c.dst) p.queue = std::move((old++)->queue);
      p.peer = c.dst;
      p.units = c.units;
      p.kept = c.kept;
      p.lit_at = c.kept < c.units ? t + controller_->reconfiguration_delay() : t;
      p.busy =
          std::find(g.transmitting.begin(), g.transmitting.end(), c.dst) != g.transmitting.end();
      ports.push_back(std::move(p));
    }
    for (; old != g.ports.end(); ++old) {
      held.insert(held.end(), old->queue.begin(), old->queue.end());
    }
    g.ports = std::move(ports);
    std::sort(held.begin(), held.end(),
              [](const Chunk& a, const Chunk& b) { return a.order < b.order; });
    for (const Chunk& c : held) route(g, self, c);
  }

  // Starts a chunk on every free, lit circuit with a queue; a GPU holding
  // chunks is woken at the next epoch (a new plan may move them) and when a
  // dark circuit it waits for lights up.
  void pump(Gpu& g, std::uint32_t self, pdes::Context& ctx) {
    const pdes::Time now = ctx.now();
    bool holds = !g.waiting.empty();
    for (Port& p : g.ports) {
      if (p.queue.empty()) continue;
      holds = true;
      if (p.busy) continue;
      const std::uint32_t units = now < p.lit_at ? p.kept : p.units;
      if (units == 0) {
        wake(g, self, p.lit_at, ctx);
        continue;
      }
      const Chunk c = p.queue.front();
      p.queue.pop_front();
      const std::uint64_t rate = units * spec_.unit_rate_bps;
      pdes::Time tx = serialization_ps(c.bytes, rate);
      // On its last hop, the message's next chunks queued right behind it
      // go in the same transmission, as long as each would have started
      // before anything could change the circuit (the next epoch, or the
      // dark units lighting up) and arrives in the same period as the first
      // (the epoch counters see it then): the same times and plans as chunk
      // by chunk, with two events instead of two per chunk.
      std::uint64_t bytes = c.bytes, chunks = 1;
      if (p.peer == c.dst) {
        const pdes::Time period = controller_->period();
        pdes::Time horizon = period > 0 ? next_epoch(now) : pdes::kTimeMax;
        if (now < p.lit_at) horizon = std::min(horizon, p.lit_at);
        const pdes::Time arrives_in = period > 0 ? (now + tx + spec_.latency) / period : 0;
        while (!p.queue.empty() && now + tx < horizon) {
          const Chunk& n = p.queue.front();
          if (n.seq != c.seq || n.src != c.src || n.dst != c.dst || bytes + n.bytes > kMaxBurst) {
            break;
          }
          const pdes::Time more = serialization_ps(n.bytes, rate);
          if (period > 0 && (now + tx + more + spec_.latency) / period != arrives_in) break;
          tx += more;
          bytes += n.bytes;
          ++chunks;
          p.queue.pop_front();
        }
      }
      ctx.send(p.peer, tx + spec_.latency, kArrive,
               {c.msg_bytes, c.tag, (c.seq << 32) | self, (std::uint64_t{c.src} << 32) | c.dst},
               static_cast<std::uint32_t>(bytes));
      ctx.send(self, tx, kTxDone, {p.peer, 0, 0, 0});
      p.busy = true;
      g.transmitting.push_back(p.peer);
      stats_.chunk_hops += chunks;
      if (c.src != self) relayed_ += chunks;
    }
    if (holds && controller_->period() > 0) wake(g, self, next_epoch(now), ctx);
  }
  void wake(Gpu& g, std::uint32_t self, pdes::Time at, pdes::Context& ctx) {
    if (at >= g.kick_at || at == pdes::kTimeMax) return;
    g.kick_at = at;
    ctx.send(self, at - ctx.now(), kKick);
  }

  void arrived(Gpu& g, const Chunk& c, pdes::Context& ctx, MessageSink& sink) {
    Gpu::InOrder& in = g.expected[c.src];
    if (c.seq == in.seq) {  // the message the pair delivers next
      in.got += c.bytes;
      if (in.got < c.msg_bytes) return;
      in = {in.seq + 1, 0};
      sink.delivered({c.src, c.msg_bytes, c.tag}, ctx);
      // Later messages that were complete, or partly here, before it.
      for (;;) {
        Gpu::InOrder& now = *g.expected.find(c.src);
        if (const auto it = g.ready.find({c.src, now.seq}); it != g.ready.end()) {
          const Delivery d = it->second;
          g.ready.erase(it);
          now = {now.seq + 1, 0};
          sink.delivered(d, ctx);
          continue;
        }
        if (const auto it = g.partial.find({c.src, now.seq}); it != g.partial.end()) {
          now.got = it->second;
          g.partial.erase(it);
        }
        return;
      }
    }
    const std::pair<std::uint32_t, std::uint64_t> key{c.src, c.seq};
    std::uint64_t& got = g.partial[key];
    got += c.bytes;
    if (got < c.msg_bytes) return;
    g.partial.erase(key);
    g.ready.emplace(key, Delivery{c.src, c.msg_bytes, c.tag});
  }

  CircuitFabricSpec spec_;
  std::unique_ptr<CircuitController> controller_;
  // The job's pairs (sorted): the controller's counters.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs_;
  bool planned_ = false;
  // The plan in force, the same on every rank, and its adjacency.
  CircuitPlan plan_;
  std::vector<std::uint32_t> out_begin_, in_begin_, in_;
  mutable std::vector<std::vector<std::uint16_t>> hops_to_;
  // Rank 0 writes the plan log (report_tables): only it keeps the rows, the
  // other ranks their count (SiP-Ring at 1,024 GPUs: 7.9 M rows, 250 MB).
  std::vector<PlanRecord> log_;
  std::uint64_t log_rows_ = 0;
  bool keep_log_ = true;
  std::uint64_t epochs_ = 0, plans_ = 0, changed_units_ = 0, dark_ps_ = 0, planner_ns_ = 0;
  // This rank's GPUs.
  std::vector<std::uint32_t> local_, index_of_;
  std::vector<Gpu> gpus_;
  std::vector<std::uint64_t> offered_, delivered_, delivered_before_;
  std::uint64_t relayed_ = 0;
};

}  // namespace

CircuitFabricSpec read_circuit_transport(base::MapReader& f, std::uint64_t default_chunk) {
  CircuitFabricSpec t;
  t.latency = f.required("latency").as_time_ps();
  if (t.latency == 0) f.required("latency").fail("must be > 0 (it is the lookahead between ranks)");
  t.chunk_bytes = f.get_bytes("chunk", default_chunk);
  if (t.chunk_bytes == 0 || t.chunk_bytes > (1ULL << 31)) {
    f.required("chunk").fail("must be 1 B .. 2 GiB");
  }
  t.log_plans = f.get_bool("log_plans", true);
  return t;
}

std::string periods_per_chunk_problem(std::uint64_t rate_bps, std::uint64_t chunk_bytes,
                                      pdes::Time period, const char* circuit) {
  if (period == 0 || rate_bps == 0) return "";
  // In picoseconds, as the transport times a chunk: bits x 10^12 / rate.
  const long double chunk_ps =
      static_cast<long double>(chunk_bytes) * 8.0L * 1e12L / static_cast<long double>(rate_bps);
  const long double periods = chunk_ps / static_cast<long double>(period);
  if (periods <= static_cast<long double>(kMaxPeriodsPerChunk)) return "";
  const long double least_bps = static_cast<long double>(chunk_bytes) * 8.0L * 1e12L /
                                (static_cast<long double>(period) * kMaxPeriodsPerChunk);
  return fmt::format(
      "at {} one {} chunk takes {} on a {}, {:.3g} re-planning periods of {}: the run would "
      "need that many epochs per chunk. A chunk may span at most {} periods; here the rate must "
      "be at least {} (or the chunk smaller, or the period longer)",
      base::format_bandwidth_bps(rate_bps), base::format_bytes(chunk_bytes),
      chunk_ps < 1.8e19L ? base::format_time_ps(static_cast<pdes::Time>(chunk_ps))
                         : fmt::format("{:.3g} s", static_cast<double>(chunk_ps / 1e12L)),
      circuit, static_cast<double>(periods), base::format_time_ps(period), kMaxPeriodsPerChunk,
      base::format_bandwidth_bps(static_cast<std::uint64_t>(std::ceil(least_bps))));
}

std::unique_ptr<Network> make_circuit_network(const CircuitFabricSpec& spec,
                                              std::unique_ptr<CircuitController> controller) {
  return std::make_unique<CircuitNetwork>(spec, std::move(controller));
}

}  // namespace sipsim::fabric
