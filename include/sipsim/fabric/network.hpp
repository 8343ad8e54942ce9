#pragma once
// The PDES side of a fabric (docs/architecture.md): which LPs exist (nodes first, then
// switches), where they run (partition), the lookahead between partitions, and
// how a message of `bytes` from node a reaches node b.
//
// Transport guarantees messages between one pair of nodes are delivered in
// the order they were sent (a pair's traffic takes one path, and every link is
// FIFO), so receivers match messages per sender in order.
//
// A fabric's other jobs are interfaces of their own, which Network derives
// from so that every fabric is all of them and a caller takes the narrowest:
// its closed forms (CostModel: the estimators), what it reports (Report: the
// run file, `info`) and its controller's epochs (Epochs).
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "sipsim/fabric/cost_model.hpp"
#include "sipsim/fabric/epochs.hpp"
#include "sipsim/fabric/report.hpp"
#include "sipsim/pdes/model.hpp"

namespace sipsim::fabric {

// Event kinds at or above this value belong to the fabric.
inline constexpr std::uint32_t kFabricKindBase = 1u << 20;

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

// The bytes one ordered pair of nodes exchanges in one iteration of the job:
// what a fabric that plans circuits for the job reads (SiP-OCS's one-shot
// allocation, the pairs SiP-Ring's controller counts). A job's traffic is a
// list of them sorted by (src, dst), without zero or repeated pairs.
struct PairTraffic {
  std::uint32_t src = 0, dst = 0;
  std::uint64_t bytes = 0;
  friend bool operator==(const PairTraffic&, const PairTraffic&) = default;
};

// CostModel first: its calls from the estimators' loops then need no
// adjustment of `this`, as Network's own (send, handle) need none.
class Network : public CostModel, public Report, public Epochs {
 public:
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

  // Wider windows (pdes::Model::remote_bound and remote_floor), after
  // setup(): whether the fabric bounds when its events reach another rank;
  // then cut_distance(node), a lower bound on the delay from anything a node
  // sends to its first event on another rank; stays_local(src, dst), whether
  // everything a message from node src to node dst puts in the fabric runs
  // on src's rank (its route and dst); and remote_bound(e) for a fabric event
  // `e` of any rank: a lower bound on the time of every event on another rank
  // that `e` leads to on its way to its destination node (kTimeMax: none);
  // what that node does on arrival is the host's to bound. The defaults
  // bound nothing.
  virtual bool bounds_remote_events() const { return false; }
  virtual pdes::Time cut_distance(std::uint32_t /*node*/) const { return 0; }
  virtual bool stays_local(std::uint32_t /*src*/, std::uint32_t /*dst*/) const { return false; }
  virtual pdes::Time remote_bound(const pdes::Event& e) const { return e.time; }
};

}  // namespace sipsim::fabric
