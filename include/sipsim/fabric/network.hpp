#pragma once
// The PDES side of a fabric (DESIGN.md §3): which LPs exist (nodes first, then
// switches), where they run (partition), the lookahead between partitions, and
// how a message of `bytes` from node a reaches node b.
//
// Transport guarantees messages between one pair of nodes are delivered in
// the order they were sent (a pair's traffic takes one path, and every link is
// FIFO), so receivers match messages per sender in order.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sipsim/pdes/model.hpp"

namespace sipsim::fabric {

// Event kinds at or above this value belong to the fabric.
inline constexpr std::uint32_t kFabricKindBase = 1u << 20;

// ceil(bytes * 8 / rate) in ps: the time `bytes` occupy a port of `rate_bps`.
pdes::Time serialization_ps(std::uint64_t bytes, std::uint64_t rate_bps);

struct Delivery {
  std::uint32_t src_node;
  std::uint64_t bytes;
  std::uint64_t tag;
};

// Where a network hands completed messages: the workload's node logic.
class MessageSink {
 public:
  virtual ~MessageSink() = default;
  virtual void delivered(const Delivery& delivery, pdes::Context& ctx) = 0;
};

// Energy of one bit carried over one node-to-node path of a fabric (its
// longest: every tier of a tree), in pJ, and where the figure comes from; NaN
// where the fabric has no sourced figure (docs/models.md, "Energy").
struct EnergyPerBit {
  double pj = std::numeric_limits<double>::quiet_NaN();
  std::string source = "none: no sourced energy figure for this fabric";
  bool known() const { return pj == pj; }
};

// Fabric statistics, summed over ranks by the caller.
// The bytes one ordered pair of nodes exchanges in one iteration of the job:
// what a fabric that plans circuits for the job reads (SiP-OCS's one-shot
// allocation, the pairs SiP-Ring's controller counts). A job's traffic is a
// list of them sorted by (src, dst), without zero or repeated pairs.
struct PairTraffic {
  std::uint32_t src = 0, dst = 0;
  std::uint64_t bytes = 0;
  friend bool operator==(const PairTraffic&, const PairTraffic&) = default;
};

struct NetworkStats {
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
  std::uint64_t chunk_hops = 0;  // routed fabrics: chunk transmissions over links
  pdes::Time max_queueing = 0;   // longest wait of a transmission for a busy port
};

class Network {
 public:
  virtual ~Network() = default;

  virtual std::uint32_t nodes() const = 0;
  virtual std::uint32_t lp_count() const = 0;
  virtual pdes::Partition partition(int ranks) const = 0;
  // The partition when the workload says which nodes are busy at the same time
  // (node_phase[n] for every node, e.g. its pipeline stage). A fabric whose
  // lookahead does not depend on the partition spreads every phase over all
  // ranks (partitioners::phased_blocks); the default keeps partition(ranks).
  virtual pdes::Partition phased_partition(int ranks,
                                           std::span<const std::uint32_t> /*node_phase*/) const {
    return partition(ranks);
  }
  // Smallest latency of a link between LPs on different ranks.
  virtual pdes::Time lookahead(const pdes::Partition& partition) const = 0;
  // No less than lookahead(p) for every partition p with a cut, and the same
  // at every rank count: a safe delay for events a model sends between node
  // LPs outside the fabric (the executor's replay synchronisation).
  virtual pdes::Time max_lookahead() const = 0;
  virtual void setup(const pdes::Partition& partition, int rank) = 0;

  // A fabric that plans its circuits for the job (SiP-OCS, SiP-Ring) asks for
  // the job's traffic, which the workload's model hands it once, before
  // partition() and setup(): the same list on every rank.
  virtual bool plans_for_job() const { return false; }
  virtual void plan_for_job(std::span<const PairTraffic> /*traffic*/) {}

  // Epochs of a fabric with a global controller (pdes::Model's, which the
  // workload's model forwards; DESIGN.md §2): the same contract.
  virtual pdes::Time next_epoch(pdes::Time /*after*/) const { return pdes::kTimeMax; }
  virtual std::size_t epoch_counters() const { return 0; }
  virtual void epoch_contribute(pdes::Time /*epoch*/, std::span<std::uint64_t> /*counters*/) {}
  virtual void epoch_plan(const pdes::EpochInfo& /*info*/,
                          std::span<const std::uint64_t> /*totals*/) {}

  // At node LP ctx.self(): starts sending `bytes` to `dst_node`. Returns the
  // time the last byte has left the sender (its port is free again).
  virtual pdes::Time send(pdes::Context& ctx, std::uint32_t dst_node, std::uint64_t bytes,
                          std::uint64_t tag) = 0;
  // At node LP ctx.self(): the same `bytes` to every node of `dsts` (the sends
  // of a multicast step, collective::Step::multicast). Separate messages by
  // default; RAMP transmits once per transceiver and lets its broadcast-and-
  // select subnets deliver to every rack (RAMP §6.1). Returns when the
  // sender's ports are free again.
  virtual pdes::Time multicast(pdes::Context& ctx, const std::vector<std::uint32_t>& dsts,
                               std::uint64_t bytes, std::uint64_t tag) {
    pdes::Time done = ctx.now();
    for (std::uint32_t d : dsts) done = std::max(done, send(ctx, d, bytes, tag));
    return done;
  }
  // Handles a fabric event (kind >= kFabricKindBase) at any LP; completed
  // messages are passed to `sink` at the destination node's LP.
  virtual void handle(const pdes::Event& event, pdes::Context& ctx, MessageSink& sink) = 0;

  // Wider windows (pdes::Model::remote_bound), after setup(): whether the
  // fabric bounds when its events reach another rank; then cut_distance(node),
  // a lower bound on the delay from anything a node sends to its first event
  // on another rank, and remote_bound(e, host_delay) for a fabric event `e`
  // of any rank, whose destination node may also send events outside the
  // fabric, host_delay or more later (kTimeMax: none). The defaults bound
  // nothing.
  virtual bool bounds_remote_events() const { return false; }
  virtual pdes::Time cut_distance(std::uint32_t /*node*/) const { return 0; }
  virtual pdes::Time remote_bound(const pdes::Event& e, pdes::Time /*host_delay*/) const {
    return e.time;
  }

  // Closed-form, uncongested delivery time of one message of `bytes` from a
  // to b sent at an idle fabric: what the simulator must reproduce exactly
  // when nothing else is in flight.
  virtual pdes::Time uncongested_ps(std::uint32_t a, std::uint32_t b,
                                    std::uint64_t bytes) const = 0;
  // How long, uncontended, the sender is busy with that message: from the send
  // until its last byte has left (what Network::send returns, minus now).
  virtual pdes::Time injection_ps(std::uint32_t a, std::uint32_t b, std::uint64_t bytes) const = 0;
  // Injection rate of a node (its total port bandwidth towards the fabric).
  virtual std::uint64_t node_rate_bps() const = 0;
  // The slowest link on the path from node a to node b: the rate at which a
  // lone message's data flows (RAMP §7.4's effective bandwidth of a step).
  virtual std::uint64_t path_rate_bps(std::uint32_t a, std::uint32_t b) const = 0;

  // The shared resources a message from a to b occupies (ports, links,
  // transceivers), each with its rate: what the critical-path estimator
  // (RAMP §7.4.1) loads with a step's concurrent messages. Ids are below
  // resource_count(). Appends to `out`.
  struct Resource {
    std::uint32_t id;
    std::uint64_t rate_bps;
  };
  virtual std::uint32_t resource_count() const = 0;
  virtual void path_resources(std::uint32_t a, std::uint32_t b,
                              std::vector<Resource>& out) const = 0;

  // What the estimators (analytical/) ask of every message a -> b of `bytes`,
  // in one call: injection_ps, uncongested_ps and path_rate_bps, and, when
  // `resources` is given, path_resources appended to it. Always equal to those
  // four queries (the default asks them); a fabric overrides it to share the
  // work they repeat (RAMP's transceiver groups, a routed fabric's route walk).
  struct PathQuote {
    pdes::Time injection = 0;
    pdes::Time uncongested = 0;
    std::uint64_t rate_bps = 0;
  };
  virtual PathQuote quote(std::uint32_t a, std::uint32_t b, std::uint64_t bytes,
                          std::vector<Resource>* resources) const;

  // A path as a few runs instead of one resource each (optional; the
  // estimators use it to load and query a run in O(1)): resources are laid out
  // on rings, ring r occupying positions [base, base + size) of a space of
  // run_space() positions, and a run covers `length` consecutive positions of
  // one ring from `first` (wrapping at the ring's end), all of one rate and
  // latency. The positions of a path's runs map one to one to the resources
  // path_resources lists (in order; no resource twice), so bytes added per
  // position are the resource loads. quote_runs fills `q` as quote() would and
  // appends the runs; it returns false (and appends nothing) where a fabric or
  // a pair has no such description, and the caller asks quote() instead.
  struct PathRun {
    std::uint32_t base = 0, size = 0, first = 0, length = 0;
    std::uint64_t rate_bps = 0;
    pdes::Time latency = 0;
  };
  virtual std::uint32_t run_space() const { return 0; }
  virtual bool quote_runs(std::uint32_t /*a*/, std::uint32_t /*b*/, std::uint64_t /*bytes*/,
                          PathQuote& /*q*/, std::vector<PathRun>& /*runs*/) const {
    return false;
  }

  // True when a node's messages leave through independent ports at once
  // (RAMP's transceivers); false when they share one injection port.
  virtual bool parallel_ports() const { return false; }

  virtual std::string describe() const = 0;
  // Facts for `sipsim info`: (name, value) lines.
  virtual std::vector<std::pair<std::string, std::string>> facts() const = 0;
  // What a bit sent costs (RAMP §4.3, Table 4, where the fabric is one of its
  // columns); unknown by default.
  virtual EnergyPerBit energy_pj_per_bit() const { return {}; }
  const NetworkStats& stats() const { return stats_; }

  // A named statistic of this rank's part of the fabric. The run file holds
  // each one combined over ranks (/fabric attributes): summed, or the largest.
  struct Counter {
    std::string name;
    std::uint64_t value = 0;
    bool max = false;
    // A wall-clock figure (a planner's time): not part of the results, so
    // the run file keeps it in /meta (fabric_<name>), not /fabric.
    bool wall = false;
  };
  // The same names in the same order on every rank: NetworkStats' counters,
  // then the fabric's own (RAMP's optical-rule counters, ...).
  virtual std::vector<Counter> counters() const;
  // Tables the fabric keeps identically on every rank (a controller's plans),
  // written once to /fabric/<name>/<column>: equal-length columns.
  struct ReportTable {
    std::string name;
    std::vector<std::string> columns;
    std::uint64_t rows = 0;
    // Column c's `rows` values, built when asked: the writer takes one column
    // at a time, so a long table (SiP-Ring's plan log) is never copied whole.
    // Valid while the network lives.
    std::function<std::vector<std::uint64_t>(std::size_t c)> column;
    std::vector<std::vector<std::uint64_t>> values() const {  // all of them (tests)
      std::vector<std::vector<std::uint64_t>> out;
      for (std::size_t c = 0; c < columns.size(); ++c) out.push_back(column(c));
      return out;
    }
  };
  virtual std::vector<ReportTable> report_tables() const { return {}; }
  // This rank's value of counter `name`; throws std::out_of_range for another name.
  std::uint64_t counter(std::string_view name) const;

 protected:
  NetworkStats stats_;
};

}  // namespace sipsim::fabric
