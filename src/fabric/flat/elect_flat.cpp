// SiP-ML's Elect-Flat (§4.1): the ideal non-blocking switch.
#include "sipsim/fabric/flat/elect_flat.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "sipsim/base/units.hpp"
#include "sipsim/fabric/faults.hpp"
#include "sipsim/pdes/partitioners/blocks.hpp"

namespace sipsim::fabric {

namespace {

enum Kind : std::uint32_t {
  kFlatArrive = kFabricKindBase,  // head of a message reaches the receiver's port
  kFlatDeliver,                   // last byte received
};

// ---------------------------------------------------------------------------
// Elect-Flat: per-node transmit and receive ports, nothing in between.
class FlatNetwork final : public Network {
 public:
  FlatNetwork(std::uint32_t nodes, std::uint64_t rate_bps, pdes::Time latency,
              std::vector<FlatFault> faults)
      : nodes_(nodes),
        rate_(rate_bps),
        latency_(latency),
        faults_(std::move(faults)),
        changes_(std::span<const FlatFault>(faults_)) {
    if (nodes == 0) throw std::invalid_argument("elect-flat needs at least one node");
    if (rate_bps == 0) throw std::invalid_argument("elect-flat bandwidth must be > 0");
    apply_faults(0);
  }

  std::uint32_t nodes() const override { return nodes_; }
  std::uint32_t lp_count() const override { return nodes_; }
  pdes::Partition partition(int ranks) const override {
    return pdes::partitioners::blocks(nodes_, ranks);
  }
  // Any partition has the same lookahead: spread each phase over the ranks.
  pdes::Partition phased_partition(int ranks,
                                   std::span<const std::uint32_t> node_phase) const override {
    return pdes::partitioners::phased_blocks(node_phase, ranks);
  }
  // Every node reaches every other through the ideal switch in `latency`.
  pdes::Time lookahead(const pdes::Partition&) const override { return latency_; }
  pdes::Time max_lookahead() const override { return latency_; }
  void setup(const pdes::Partition& partition, int rank) override {
    ports_.assign(partition.lps_of(rank).size(), Ports{});
    stats_ = {};
  }

  // Faults change the NICs' rates at their times: epochs (docs/faults.md).
  pdes::Time next_epoch(pdes::Time after) const override { return changes_.next(after); }
  void epoch_plan(const pdes::EpochInfo& info, std::span<const std::uint64_t> /*totals*/) override {
    apply_faults(info.time);
  }

  pdes::Time send(pdes::Context& ctx, std::uint32_t dst, std::uint64_t bytes,
                  std::uint64_t tag) override {
    check_dst(ctx, dst);
    Ports& p = ports_[ctx.self_index()];
    const pdes::Time start = std::max(ctx.now(), p.tx_free);
    stats_.max_queueing = std::max(stats_.max_queueing, start - ctx.now());
    check_path(ctx.self(), dst);
    p.tx_free = start + serialization_ps(bytes, nic_rate(ctx.self()));
    ctx.send(dst, start - ctx.now() + latency_, kFlatArrive, {bytes, tag, 0, 0});
    ++stats_.messages;
    stats_.bytes += bytes;
    return p.tx_free;
  }

  void handle(const pdes::Event& ev, pdes::Context& ctx, MessageSink& sink) override {
    if (ev.kind == kFlatArrive) {
      // The receive port serialises arrivals: incast costs time here.
      Ports& p = ports_[ctx.self_index()];
      const pdes::Time start = std::max(ctx.now(), p.rx_free);
      stats_.max_queueing = std::max(stats_.max_queueing, start - ctx.now());
      check_path(ev.src, ctx.self());
      p.rx_free = start + serialization_ps(ev.data[0], nic_rate(ctx.self()));
      ctx.send(ctx.self(), p.rx_free - ctx.now(), kFlatDeliver,
               {ev.data[0], ev.data[1], ev.src, 0});
    } else if (ev.kind == kFlatDeliver) {
      sink.delivered({static_cast<std::uint32_t>(ev.data[2]), ev.data[0], ev.data[1]}, ctx);
    } else {
      throw std::logic_error("elect-flat: unknown event kind " + std::to_string(ev.kind));
    }
  }

  pdes::Time uncongested_ps(std::uint32_t, std::uint32_t, std::uint64_t bytes) const override {
    return latency_ + serialization_ps(bytes, rate_);
  }
  pdes::Time injection_ps(std::uint32_t, std::uint32_t, std::uint64_t bytes) const override {
    return serialization_ps(bytes, rate_);
  }
  std::uint64_t node_rate_bps() const override { return rate_; }
  std::uint64_t path_rate_bps(std::uint32_t, std::uint32_t) const override { return rate_; }
  // The sender's transmit port and the receiver's receive port.
  std::uint32_t resource_count() const override { return 2 * nodes_; }
  void path_resources(std::uint32_t a, std::uint32_t b, std::vector<Resource>& out) const override {
    out.push_back({a, rate_});
    out.push_back({nodes_ + b, rate_});
  }
  std::string describe() const override {
    return "elect-flat: " + std::to_string(nodes_) + " nodes at " +
           base::format_bandwidth_bps(rate_) + ", latency " + base::format_time_ps(latency_);
  }
  std::vector<std::pair<std::string, std::string>> facts() const override {
    // Non-blocking: any half of the nodes can send to the other half at full rate.
    return {{"node bandwidth", base::format_bandwidth_bps(rate_)},
            {"latency", base::format_time_ps(latency_)},
            {"bisection bandwidth", base::format_bandwidth_bps(rate_ * (nodes_ / 2))}};
  }

 private:
  struct Ports {
    pdes::Time tx_free = 0;
    pdes::Time rx_free = 0;
  };
  void check_dst(const pdes::Context& ctx, std::uint32_t dst) const {
    if (dst >= nodes_ || dst == ctx.self()) {
      throw std::logic_error("node " + std::to_string(ctx.self()) + " cannot send to node " +
                             std::to_string(dst));
    }
  }

  // A message from src to dst with either NIC failed has no path.
  void check_path(std::uint32_t src, std::uint32_t dst) const {
    if (share_.empty()) return;
    const auto failed = [&](std::uint32_t n) {
      const auto it = share_.find(n);
      return it != share_.end() && it->second == 0.0;
    };
    if (failed(src) || failed(dst)) {
      throw std::runtime_error("node " + std::to_string(src) + " cannot reach node " +
                               std::to_string(dst) + ": the faults (" + down_words_ +
                               ") cut it off");
    }
  }
  // The rate of `node`'s NIC now (check_path refused a failed one).
  std::uint64_t nic_rate(std::uint32_t node) const {
    const auto it = share_.find(node);
    if (it == share_.end()) return rate_;
    return std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(static_cast<double>(rate_) * it->second));
  }
  // The faults on at t: each NIC's share of the rate (0: failed).
  void apply_faults(pdes::Time t) {
    share_.clear();
    down_words_.clear();
    for (const FlatFault& f : faults_) {
      if (!active_at(f, t)) continue;
      auto [it, fresh] = share_.try_emplace(f.node, 1.0);
      it->second *= f.factor;
      if (f.factor == 0.0) down_words_ += (down_words_.empty() ? "" : ", ") + f.target;
    }
  }

  std::uint32_t nodes_;
  std::uint64_t rate_;
  pdes::Time latency_;
  std::vector<Ports> ports_;
  std::vector<FlatFault> faults_;
  FaultTimes changes_;
  std::unordered_map<std::uint32_t, double> share_;  // NICs under a fault now
  std::string down_words_;
};
}  // namespace

std::unique_ptr<Network> make_elect_flat(std::uint32_t nodes, std::uint64_t rate_bps,
                                         pdes::Time latency, std::vector<FlatFault> faults) {
  return std::make_unique<FlatNetwork>(nodes, rate_bps, latency, std::move(faults));
}

}  // namespace sipsim::fabric
