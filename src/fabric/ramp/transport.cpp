#include "sipsim/fabric/ramp/transport.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "sipsim/base/flat_map.hpp"
#include "sipsim/base/units.hpp"
#include "sipsim/fabric/faults.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"
#include "sipsim/fabric/ramp/physical.hpp"
#include "sipsim/pdes/partitioners/blocks.hpp"

namespace sipsim::fabric {

namespace {

enum Kind : std::uint32_t {
  kToArbiter = kFabricKindBase + 16,  // a transfer's first bit reaches its subnet
  kToReceiver,                        // its last bit reaches the receiver
  kDeliverLate,                       // permissive mode: delivery after a rule-(b) wait
  kToArbiterMulticast,                // a multicast's first bit reaches its subnet
};

// data[3] of a transfer event: transceiver (16 bits) | slots (48). Its aux field
// carries the number of parts of the message (0 or 1: one part), so that the
// receiver need not recompute the pair's transceiver groups.
std::uint64_t pack(std::uint32_t t, std::uint64_t slots) {
  return (std::uint64_t{t} << 48) | slots;
}
std::uint32_t unpack_t(std::uint64_t w) {
  return static_cast<std::uint32_t>(w >> 48);
}
std::uint64_t unpack_slots(std::uint64_t w) {
  return w & ((std::uint64_t{1} << 48) - 1);
}

}  // namespace

std::uint64_t ramp_slot_bytes(const RampSpec& s) {
  // RAMP §4.1: the data part of a slot, after the reconfiguration guard band.
  __extension__ typedef unsigned __int128 U128;
  const U128 bits = static_cast<U128>(s.slot - s.reconfiguration) * s.line_rate_bps;
  return static_cast<std::uint64_t>(bits / (8 * static_cast<U128>(pdes::kSecond)));
}

class RampNetwork final : public Network {
 public:
  explicit RampNetwork(const RampSpec& spec) : s_(spec) {
    if (s_.x == 0 || s_.J == 0 || s_.Lambda == 0 || s_.b == 0) {
      throw std::invalid_argument("ramp: x, J, Lambda and b must be at least 1");
    }
    if (s_.J > s_.x) {
      throw std::invalid_argument("ramp: J (" + std::to_string(s_.J) + ") must not exceed x (" +
                                  std::to_string(s_.x) + ")");
    }
    if (s_.Lambda % s_.x != 0 || s_.Lambda / s_.x > s_.x) {
      throw std::invalid_argument(
          "ramp: Lambda (" + std::to_string(s_.Lambda) +
          ") must be a multiple D*x of x with D <= x (RAMP-x; docs/models.md)");
    }
    if (s_.x > 256) throw std::invalid_argument("ramp: x must be at most 256");
    if (s_.b > 255 || s_.x * s_.b > 65535) throw std::invalid_argument("ramp: b is too large");
    if (s_.line_rate_bps == 0) throw std::invalid_argument("ramp: line rate must be > 0");
    if (s_.slot <= s_.reconfiguration) {
      throw std::invalid_argument("ramp: the slot must be longer than the reconfiguration time");
    }
    slot_bytes_ = ramp_slot_bytes(s_);
    if (slot_bytes_ == 0) throw std::invalid_argument("ramp: a slot carries no data");
    if (s_.io_latency == 0 || s_.propagation == 0) {
      throw std::invalid_argument("ramp: I/O latency and propagation must be > 0");
    }
    shape_.x = s_.x;
    shape_.J = s_.J;
    shape_.D = s_.Lambda / s_.x;
    if (s_.job) {
      const ramp::RampShape& j = *s_.job;
      if (j.x != shape_.x || j.J != shape_.J || j.D != shape_.D) {
        throw std::invalid_argument("ramp: the job's (x, J, D) differ from the fabric's");
      }
      const std::uint32_t limit[4] = {j.x, j.x, j.J, j.D};
      for (int k = 0; k < 4; ++k) {
        if (j.active[k] == 0 || j.active[k] > limit[k]) {
          throw std::invalid_argument("ramp: the job's step sizes are out of range");
        }
      }
      shape_ = j;  // the transcoder serves this job (RAMP §6.3)
    }
    for (int k = 1; k <= 4; ++k) extra_[k] = ramp::extra_groups(k, shape_);
    if (s_.inner) {
      if (!s_.job) throw std::invalid_argument("ramp: inner groups without a job");
      for (int k = 1; k <= 4; ++k) {
        const std::uint32_t t = (*s_.inner)[k - 1];
        if (t == 0 || shape_.active[k - 1] % t != 0) {
          throw std::invalid_argument("ramp: the inner groups' step sizes must divide the job's");
        }
        inner_[k] = t;
        extra_inner_[k] = t >= 2 ? ramp::extra_groups(k, shape_, t) : 0;
      }
    }
    const std::uint64_t n = std::uint64_t{s_.x} * s_.J * s_.Lambda;
    if (n > (1u << 24)) throw std::invalid_argument("ramp: more than 2^24 nodes");
    nodes_ = static_cast<std::uint32_t>(n);
    // Every coordinate is below x <= 256: one byte each.
    coords_.resize(nodes_);
    for (std::uint32_t node = 0; node < nodes_; ++node) {
      const ramp::Coord c = ramp::coord_of_node(node, shape_);
      coords_[node] = c.g | c.j << 8 | c.delta << 16 | c.p << 24;
    }
    if (!s_.faults.empty()) {
      s_.permissive = true;  // rerouted transfers may meet others: serialised and counted
      for (const RampFault& f : s_.faults) {
        if ((f.subnet ? std::max(f.g_src, f.g_dst) >= s_.x : f.node >= nodes_) ||
            f.t >= s_.x * s_.b) {
          throw std::invalid_argument("ramp: fault target out of range: " + f.target);
        }
      }
      changes_ = FaultTimes(std::span<const RampFault>(s_.faults));
      apply_faults(0);
    }
  }

  // Faults change the usable transceivers at their times: epochs, so that
  // every rank reroutes at the same time (docs/faults.md).
  pdes::Time next_epoch(pdes::Time after) const override { return changes_.next(after); }
  void epoch_plan(const pdes::EpochInfo& info, std::span<const std::uint64_t> /*totals*/) override {
    apply_faults(info.time);
  }

  std::uint32_t nodes() const override { return nodes_; }
  std::uint32_t lp_count() const override { return nodes_; }
  // Node ids are group-major: contiguous blocks keep communication groups and
  // racks together (docs/architecture.md: RAMP partitions by group and rack).
  pdes::Partition partition(int ranks) const override {
    return pdes::partitioners::blocks(nodes_, ranks);
  }
  // The lookahead is the same for any partition, so a training job's stages
  // are spread over the ranks, each still in node-id blocks.
  pdes::Partition phased_partition(int ranks,
                                   std::span<const std::uint32_t> node_phase) const override {
    return pdes::partitioners::phased_blocks(node_phase, ranks);
  }
  // Every cross-LP event waits at least the I/O latency (sender -> arbiter)
  // or the propagation (arbiter -> receiver).
  pdes::Time lookahead(const pdes::Partition&) const override {
    return std::min(s_.io_latency, s_.propagation);
  }
  pdes::Time max_lookahead() const override { return std::min(s_.io_latency, s_.propagation); }
  void setup(const pdes::Partition& partition, int rank) override {
    const auto lps = partition.lps_of(rank);
    const std::size_t trx = std::size_t{s_.x} * s_.b;
    tx_free_.assign(lps.size() * trx, 0);
    rx_free_.assign(lps.size() * trx, 0);
    subnet_blocks_.assign(lps.size(), {});
    subnet_clocks_.clear();
    partial_.assign(lps.size(), {});
    stats_ = {};
    ramp_ = {};
  }

  pdes::Time send(pdes::Context& ctx, std::uint32_t dst, std::uint64_t bytes,
                  std::uint64_t tag) override {
    const std::uint32_t src = ctx.self();
    if (dst >= nodes_ || dst == src) {
      throw std::logic_error("node " + std::to_string(src) + " cannot send to node " +
                             std::to_string(dst));
    }
    ++stats_.messages;
    stats_.bytes += bytes;
    const ramp::TransceiverGroups groups = transceiver_groups(src, dst);
    thread_local std::vector<std::uint32_t> trx;
    trx.clear();
    for (std::uint32_t i = 0; i < groups.count; ++i) {
      for (std::uint32_t k = 0; k < s_.b; ++k) trx.push_back(groups.group(i, s_.x) * s_.b + k);
    }
    if (any_down_) route_around(src, dst, groups.first, trx);
    // The transceivers used carry equal parts in parallel (RAMP eq. 5).
    const auto parts = static_cast<std::uint32_t>(trx.size());
    const std::uint64_t slots = slots_of_parts(bytes, parts);
    const std::uint32_t arbiter = arbiter_of(dst);
    pdes::Time done = ctx.now();
    for (const std::uint32_t t : trx) {
      const pdes::Time start = book_transmitter(ctx, t, slots);
      done = std::max(done, start + slots * s_.slot);
      ctx.send(arbiter, start - ctx.now(), kToArbiter,
               {bytes, tag, (std::uint64_t{src} << 32) | dst, pack(t, slots)}, parts);
    }
    return done;
  }

  // Faults: keeps the transceivers of `trx` that work for the pair (both
  // ends' transceivers and their subnet up); with none left, the transceivers
  // of the nearest transceiver group after the pair's first that work; with
  // none at all, the pair is cut off.
  void route_around(std::uint32_t src, std::uint32_t dst, std::uint32_t first,
                    std::vector<std::uint32_t>& trx) const {
    std::erase_if(trx, [&](std::uint32_t t) { return !usable(src, dst, t); });
    for (std::uint32_t d = 1; trx.empty() && d < s_.x; ++d) {
      const std::uint32_t group = (first + d) % s_.x;
      for (std::uint32_t k = 0; k < s_.b; ++k) {
        if (usable(src, dst, group * s_.b + k)) trx.push_back(group * s_.b + k);
      }
    }
    if (trx.empty()) {
      throw std::runtime_error("node " + std::to_string(src) + " cannot reach node " +
                               std::to_string(dst) + ": the faults (" + down_words_ +
                               ") took every transceiver group between them");
    }
  }
  bool usable(std::uint32_t src, std::uint32_t dst, std::uint32_t t) const {
    const std::uint64_t trx = std::uint64_t{s_.x} * s_.b;
    const std::uint64_t gs = src / (s_.J * s_.Lambda), gd = dst / (s_.J * s_.Lambda);
    return !down_.contains(src * trx + t) && !down_.contains(dst * trx + t) &&
           !down_.contains(kSubnet + (gs * s_.x + gd) * trx + t);
  }
  // The faults on at t.
  void apply_faults(pdes::Time t) {
    const std::uint64_t trx = std::uint64_t{s_.x} * s_.b;
    down_.clear();
    down_words_.clear();
    for (const RampFault& f : s_.faults) {
      if (!active_at(f, t)) continue;
      down_.insert(f.subnet ? kSubnet + (std::uint64_t{f.g_src} * s_.x + f.g_dst) * trx + f.t
                            : f.node * trx + f.t);
      down_words_ += (down_words_.empty() ? "" : ", ") + f.target;
    }
    any_down_ = !down_.empty();
  }

  // Rule (a): transmitter t of this node sends one transfer after another; the
  // transfer's first bit leaves I/O latency after the request at the earliest.
  pdes::Time book_transmitter(pdes::Context& ctx, std::uint32_t t, std::uint64_t slots) {
    pdes::Time& free = tx_free_[std::size_t{ctx.self_index()} * s_.x * s_.b + t];
    const pdes::Time start = std::max(ctx.now() + s_.io_latency, free);
    stats_.max_queueing = std::max(stats_.max_queueing, start - (ctx.now() + s_.io_latency));
    free = start + slots * s_.slot;
    ++ramp_.transfers;
    ramp_.slots += slots;
    return start;
  }

  // RAMP §6.1's multicast: the destinations that share a group and a wavelength
  // are reached by one transmission on the sender's eq. 2 transceiver group
  // towards that group, (g_src + g_dst + j_src) mod x; the subnet's star coupler
  // carries it to every rack, and the listed racks' nodes receive it.
  pdes::Time multicast(pdes::Context& ctx, const std::vector<std::uint32_t>& dsts,
                       std::uint64_t bytes, std::uint64_t tag) override {
    const std::uint32_t src = ctx.self();
    const ramp::Coord cs = coord(src);
    if (any_down_) {
      // Under faults, one message per destination, each routed around them.
      pdes::Time done = ctx.now();
      for (const std::uint32_t dst : dsts) done = std::max(done, send(ctx, dst, bytes, tag));
      return done;
    }
    std::map<std::uint32_t, std::uint64_t> racks;  // arbiter of (g_dst, lambda) -> rack mask
    for (std::uint32_t dst : dsts) {
      if (dst >= nodes_ || dst == src || groups_of(src, dst) != 1) {
        throw std::logic_error("ramp: node " + std::to_string(src) + " cannot multicast to node " +
                               std::to_string(dst));
      }
      const std::uint32_t j = coord(dst).j;
      if (j >= 64) throw std::logic_error("ramp: multicast needs J <= 64");
      std::uint64_t& mask = racks[arbiter_of(dst)];
      if (mask >> j & 1u) throw std::logic_error("ramp: a multicast lists a node twice");
      mask |= std::uint64_t{1} << j;
    }
    stats_.messages += dsts.size();
    const std::uint64_t slots = slots_of(bytes, 1);
    if (slots >= (std::uint64_t{1} << 24)) throw std::logic_error("ramp: multicast too large");
    pdes::Time done = ctx.now();
    for (const auto& [arbiter, mask] : racks) {
      stats_.bytes += bytes;
      const std::uint32_t g_dst = arbiter / (s_.J * s_.Lambda);
      const std::uint32_t group = (cs.g + g_dst + cs.j) % s_.x;  // eq. 2
      for (std::uint32_t k = 0; k < s_.b; ++k) {
        const std::uint32_t t = group * s_.b + k;
        const pdes::Time start = book_transmitter(ctx, t, slots);
        done = std::max(done, start + slots * s_.slot);
        ctx.send(arbiter, start - ctx.now(), kToArbiterMulticast,
                 {bytes, tag, std::uint64_t{src} << 40 | std::uint64_t{t} << 24 | slots, mask});
      }
    }
    return done;
  }

  void handle(const pdes::Event& ev, pdes::Context& ctx, MessageSink& sink) override {
    switch (ev.kind) {
      case kToArbiter:
        arbitrate(ev, ctx);
        break;
      case kToArbiterMulticast:
        arbitrate_multicast(ev, ctx);
        break;
      case kToReceiver:
        receive(ev, ctx, sink);
        break;
      case kDeliverLate:
        complete(ev, ctx, sink);
        break;
      default:
        throw std::logic_error("ramp: unknown event kind " + std::to_string(ev.kind));
    }
  }

  // The closed forms use the transport's transceiver count per pair, so that an
  // idle-fabric estimate equals the simulation.
  pdes::Time uncongested_ps(std::uint32_t a, std::uint32_t b, std::uint64_t bytes) const override {
    return injection_ps(a, b, bytes) + s_.propagation;
  }
  pdes::Time injection_ps(std::uint32_t a, std::uint32_t b, std::uint64_t bytes) const override {
    return s_.io_latency + slots_of(bytes, groups_of(a, b)) * s_.slot;
  }
  std::uint64_t node_rate_bps() const override { return s_.line_rate_bps * s_.x * s_.b; }
  // A pair's data flows through the b transceivers of each group it uses at the
  // slot-payload rate (380 Gb/s per transceiver at the reference point; RAMP eq. 5
  // with (1 + #TRX_additional) groups).
  std::uint64_t path_rate_bps(std::uint32_t a, std::uint32_t b) const override {
    return slot_bytes_ * 8 * pdes::kSecond / s_.slot * s_.b * groups_of(a, b);
  }
  bool parallel_ports() const override { return true; }
  bool refuses_incast() const override { return !s_.permissive; }
  // The transmitting and the receiving transceiver groups of the pair, each
  // carrying an equal part of the message (RAMP eq. 4).
  std::uint32_t resource_count() const override { return 2 * nodes_ * s_.x; }
  void path_resources(std::uint32_t a, std::uint32_t b, std::vector<Resource>& out) const override {
    check_pair(a, b);
    const ramp::TransceiverGroups g = transceiver_groups(a, b);
    const std::uint64_t rate = path_rate_bps(a, b);  // of all groups together
    for (std::uint32_t i = 0; i < g.count; ++i) {
      const std::uint32_t t = g.group(i, s_.x);
      out.push_back({a * s_.x + t, rate});
      out.push_back({(nodes_ + b) * s_.x + t, rate});
    }
  }

  // The four queries above with the pair's transceiver groups computed once.
  PathQuote quote(std::uint32_t a, std::uint32_t b, std::uint64_t bytes,
                  std::vector<Resource>* resources) const override {
    const bool pair = a < nodes_ && b < nodes_ && a != b;  // else groups_of's one group
    ramp::TransceiverGroups g;
    if (resources != nullptr) check_pair(a, b);
    if (pair || resources != nullptr) g = transceiver_groups(a, b);
    const std::uint32_t groups = pair ? g.count : 1;
    PathQuote q;
    q.injection = s_.io_latency + slots_of(bytes, groups) * s_.slot;
    q.uncongested = q.injection + s_.propagation;
    q.rate_bps = slot_bytes_ * 8 * pdes::kSecond / s_.slot * s_.b * groups;
    if (resources != nullptr) {
      for (std::uint32_t i = 0; i < g.count; ++i) {
        const std::uint32_t t = g.group(i, s_.x);
        resources->push_back({a * s_.x + t, q.rate_bps});
        resources->push_back({(nodes_ + b) * s_.x + t, q.rate_bps});
      }
    }
    return q;
  }

  std::string describe() const override {
    return "ramp: " + std::to_string(nodes_) + " nodes (x=" + std::to_string(s_.x) +
           ", J=" + std::to_string(s_.J) + ", Lambda=" + std::to_string(s_.Lambda) +
           ", b=" + std::to_string(s_.b) + "), " + base::format_bandwidth_bps(node_rate_bps()) +
           " per node, time slots of " + base::format_time_ps(s_.slot) + " (" +
           base::format_bytes(slot_bytes_) + " per transceiver), propagation " +
           base::format_time_ps(s_.propagation) + (s_.permissive ? ", permissive" : "");
  }

  // Table 4's RAMP column: one hop through one transceiver (its SOAs inside).
  EnergyPerBit energy_pj_per_bit() const override {
    return {ramp::ramp_pj_per_bit_path(s_.line_rate_bps),
            "RAMP §4.3 Table 4 RAMP: one transceiver per path, 3.39 W / " +
                base::format_bandwidth_bps(s_.line_rate_bps) + " (SOAs inside)"};
  }

  std::vector<std::pair<std::string, std::string>> facts() const override {
    const std::uint64_t subnets = std::uint64_t{s_.b} * s_.x * s_.x * s_.x;
    const std::string rate = base::format_bandwidth_bps(node_rate_bps()) + " (x*b*B)";
    const std::string bis =
        base::format_capacity_bps(static_cast<double>(node_rate_bps()) * (nodes_ / 2)) +
        " (nodes/2 x capacity: non-blocking)";
    return {{"geometry", "x=" + std::to_string(s_.x) + " groups, J=" + std::to_string(s_.J) +
                             " racks/group, Lambda=" + std::to_string(s_.Lambda) +
                             " nodes/rack, b=" + std::to_string(s_.b)},
            {"node capacity", rate},
            {"transceivers per node", std::to_string(s_.x * s_.b)},
            {"subnets", std::to_string(subnets) + " (b*x^3)"},
            {"bisection bandwidth", bis},
            {"slot", base::format_time_ps(s_.slot) + ", " + std::to_string(slot_bytes_) +
                         " B per transceiver"},
            {"rules (b), (c)", s_.permissive ? "serialised and counted (permissive)" : "errors"},
            {"groups/pair (eq. 3-4)", groups_fact()},
            {"fabric state per node", state_fact()}};
  }

  // Optical-rule counters (RAMP §4.1, docs/models.md, "RAMP-x collectives") after the common ones.
  std::vector<Counter> counters() const override {
    std::vector<Counter> out = Report::counters();
    out.push_back({"transfers", ramp_.transfers, false});
    out.push_back({"slots", ramp_.slots, false});
    out.push_back({"rule_b_conflicts", ramp_.rule_b_conflicts, false});
    out.push_back({"rule_c_conflicts", ramp_.rule_c_conflicts, false});
    return out;
  }

 private:
  // RAMP §6.2.2 eq. 3-4 for the job's steps, e.g. "steps 1-4: 1, 3, -, - (job 32x4x1x1)".
  std::string groups_fact() const {
    if (!s_.job) return "1 (no RAMP-x job: eq. 3-4 not applied)";
    std::string out = "steps 1-4: ";
    for (int k = 1; k <= 4; ++k) {
      out += k > 1 ? ", " : "";
      out += shape_.active[k - 1] > 1 ? std::to_string(1 + ramp::extra_groups(k, shape_))
                                      : std::string("-");
    }
    out += " (job " + std::to_string(shape_.active[0]);
    for (int k = 1; k < 4; ++k) out += "x" + std::to_string(shape_.active[k]);
    out += ")";
    if (s_.inner) {  // e.g. "; inner groups 4x1x1x1: 3, -, -, -"
      out += "; inner groups " + std::to_string(inner_[1]);
      for (int k = 2; k <= 4; ++k) out += "x" + std::to_string(inner_[k]);
      out += ":";
      for (int k = 1; k <= 4; ++k) {
        out += k > 1 ? ", " : " ";
        out += inner_[k] > 1 && inner_[k] < shape_.active[k - 1]
                   ? std::to_string(1 + extra_inner_[k])
                   : std::string("-");
      }
    }
    return out;
  }
  // What the transport keeps per node while it runs (pending events aside): the
  // transmit and receive clocks of its transceivers and two small tables, plus,
  // on the x*Lambda arbiter nodes, a block of x*b rule-(c) clocks per g_src used.
  std::string state_fact() const {
    const std::uint64_t trx = std::uint64_t{s_.x} * s_.b;
    const std::uint64_t node =
        2 * trx * sizeof(pdes::Time) + 2 * sizeof(base::FlatMap<std::uint32_t, std::uint32_t>);
    return std::to_string(node) + " B, plus at most " +
           std::to_string(std::uint64_t{s_.x} * (trx * sizeof(pdes::Time) + 16)) +
           " B on each of the " + std::to_string(std::uint64_t{s_.x} * s_.Lambda) +
           " arbiter nodes (" + std::to_string(std::uint64_t{s_.x} * trx) +
           " (g_src, transceiver) clocks) and 16 B per part of a message in flight";
  }
  // Resources exist only between the fabric's nodes.
  void check_pair(std::uint32_t a, std::uint32_t b) const {
    if (a >= nodes_ || b >= nodes_) {
      throw std::logic_error("ramp: no path between nodes " + std::to_string(a) + " and " +
                             std::to_string(b) + " of " + std::to_string(nodes_));
    }
  }
  // Looked up, not divided out (callers pass nodes of the fabric): the transport and the executor
  // ask for the pair's transceiver groups of every message (RAMP §6.2.2 eq. 2-4).
  ramp::Coord coord(std::uint32_t node) const {
    const std::uint32_t c = coords_[node];
    return ramp::Coord{c & 0xff, c >> 8 & 0xff, c >> 16 & 0xff, c >> 24};
  }
  // ramp::transceivers_for_pair with the job's extra groups per step computed
  // once (extra_groups is O(x), and this runs for every message).
  ramp::TransceiverGroups transceiver_groups(std::uint32_t a, std::uint32_t b) const {
    const ramp::Coord ca = coord(a), cb = coord(b);
    const int step = ramp::step_of_pair(ca, cb, shape_);
    ramp::TransceiverGroups t;
    t.first = ramp::transceiver(step == 0 ? 1 : step, ca, cb, shape_);
    if (step != 0 && shape_.active[0] != 0) {
      t.count = 1 + extra_[step];
      t.stride = shape_.active[step - 1];
      if (inner_[step] >= 2 && inner_[step] < shape_.active[step - 1] &&
          offset(ca, step) / inner_[step] == offset(cb, step) / inner_[step]) {
        t.count = 1 + extra_inner_[step];
        t.stride = inner_[step];
      }
    }
    return t;
  }
  // A node's offset along step k in the job (geometry.hpp: g = c1 + c2 + c3 + c4 mod x, p = c2,
  // j = c3, delta = c4).
  std::uint32_t offset(const ramp::Coord& c, int step) const {
    switch (step) {
      case 1:
        return ramp::sub_mod(c.g, (c.p + c.j + c.delta) % s_.x, s_.x);
      case 2:
        return c.p;
      case 3:
        return c.j;
      default:
        return c.delta;
    }
  }
  // Transceiver groups of a transfer a -> b (1 without a job; the closed forms may be
  // asked about a == b or nodes outside the fabric, which use one group).
  std::uint32_t groups_of(std::uint32_t a, std::uint32_t b) const {
    if (a >= nodes_ || b >= nodes_ || a == b) return 1;
    return transceiver_groups(a, b).count;
  }
  // Slots of each part when `groups` groups of b transceivers share `bytes` equally.
  std::uint64_t slots_of(std::uint64_t bytes, std::uint32_t groups) const {
    return slots_of_parts(bytes, std::uint64_t{groups} * s_.b);
  }
  std::uint64_t slots_of_parts(std::uint64_t bytes, std::uint64_t parts) const {
    const std::uint64_t part = (bytes + parts - 1) / parts;
    return std::max<std::uint64_t>(1, (part + slot_bytes_ - 1) / slot_bytes_);
  }
  // Node (g, lambda mod J, lambda) arbitrates wavelength lambda on every subnet into
  // group g: the Lambda arbiters of a group are spread over its J racks (and so over
  // ranks), instead of all sitting in rack 0, whose LPs would do most of the work.
  std::uint32_t arbiter_of(std::uint32_t node) const {
    const std::uint32_t lambda = node % s_.Lambda;
    return rack_node(node / (s_.J * s_.Lambda), lambda % s_.J, lambda);
  }
  // Node (g, j, lambda).
  std::uint32_t rack_node(std::uint32_t g, std::uint32_t j, std::uint32_t lambda) const {
    return (g * s_.J + j) * s_.Lambda + lambda;
  }

  // Rule (c): one transmitter per wavelength per subnet (g_src, g_dst, t). At
  // the arbiter of (g_dst, lambda): when the transmission from `src` on
  // transceiver t may start (now, or later in permissive mode).
  pdes::Time claim_wavelength(pdes::Context& ctx, std::uint32_t src, std::uint32_t dst,
                              std::uint32_t t, pdes::Time dur) {
    const std::uint32_t g_src = src / (s_.J * s_.Lambda);
    pdes::Time& free = subnet_clock(ctx.self_index(), g_src, t);
    pdes::Time start = ctx.now();
    if (start < free) {
      ++ramp_.rule_c_conflicts;
      if (!s_.permissive) {
        throw std::runtime_error(
            "optical rule (c) violated: wavelength " + std::to_string(dst % s_.Lambda) +
            " of subnet (" + std::to_string(g_src) + ", " +
            std::to_string(dst / (s_.J * s_.Lambda)) + ", " + std::to_string(t) +
            ") is busy until " + base::format_time_ps_exact(free) + " when node " +
            std::to_string(src) + " starts sending to node " + std::to_string(dst) + " at " +
            base::format_time_ps_exact(start) +
            " (set fabric.permissive: true to serialise instead)");
      }
      start = free;  // permissive: wait for the wavelength
    }
    free = start + dur;
    return start;
  }
  // The rule-(c) clock of subnet (g_src, this arbiter's group, t) at the
  // arbiter with local index `local`. Clocks come in blocks of x*b, one per
  // g_src the arbiter has heard from: a transfer's lookup is one small map
  // probe plus an index, and the block's clocks are read in the order the
  // arbiter's events arrive (sorted by source), instead of a hash probe per
  // transfer missing the caches (11% of a 65,536-node all-reduce).
  pdes::Time& subnet_clock(std::uint32_t local, std::uint32_t g_src, std::uint32_t t) {
    const std::size_t trx = std::size_t{s_.x} * s_.b;
    auto& blocks = subnet_blocks_[local];
    std::uint32_t* block = blocks.find(g_src);
    if (block == nullptr) {
      block = &blocks[g_src];
      *block = static_cast<std::uint32_t>(subnet_clocks_.size() / trx);
      subnet_clocks_.resize(subnet_clocks_.size() + trx, 0);
    }
    return subnet_clocks_[*block * trx + t];
  }

  void arbitrate(const pdes::Event& ev, pdes::Context& ctx) {
    const auto src = static_cast<std::uint32_t>(ev.data[2] >> 32);
    const auto dst = static_cast<std::uint32_t>(ev.data[2]);
    const pdes::Time dur = unpack_slots(ev.data[3]) * s_.slot;
    const pdes::Time start = claim_wavelength(ctx, src, dst, unpack_t(ev.data[3]), dur);
    ctx.send(dst, start + s_.propagation + dur - ctx.now(), kToReceiver, ev.data, ev.aux);
  }

  // Rule (c) for a multicast, once for the transmission; then every listed
  // rack's node receives it (and checks rule (b)).
  void arbitrate_multicast(const pdes::Event& ev, pdes::Context& ctx) {
    const auto src = static_cast<std::uint32_t>(ev.data[2] >> 40);
    const auto t = static_cast<std::uint32_t>(ev.data[2] >> 24 & 0xffff);
    const std::uint64_t slots = ev.data[2] & 0xffffff;
    const pdes::Time start = claim_wavelength(ctx, src, ctx.self(), t, slots * s_.slot);
    for (std::uint64_t mask = ev.data[3]; mask != 0; mask &= mask - 1) {
      const auto j = static_cast<std::uint32_t>(std::countr_zero(mask));
      const std::uint32_t dst =
          rack_node(ctx.self() / (s_.J * s_.Lambda), j, ctx.self() % s_.Lambda);
      ctx.send(dst, start + s_.propagation + slots * s_.slot - ctx.now(), kToReceiver,
               {ev.data[0], ev.data[1], (std::uint64_t{src} << 32) | dst, pack(t, slots)},
               s_.b);  // a multicast uses one group: b parts
    }
  }

  // Rule (b): a receiving transceiver listens to one subnet at a time.
  void receive(const pdes::Event& ev, pdes::Context& ctx, MessageSink& sink) {
    const std::uint32_t t = unpack_t(ev.data[3]);
    const pdes::Time dur = unpack_slots(ev.data[3]) * s_.slot;
    pdes::Time& free = rx_free_[std::size_t{ctx.self_index()} * s_.x * s_.b + t];
    const pdes::Time start = ctx.now() - dur;
    if (start < free) {
      ++ramp_.rule_b_conflicts;
      if (!s_.permissive) {
        throw std::runtime_error("optical rule (b) violated: receiver transceiver " +
                                 std::to_string(t) + " of node " + std::to_string(ctx.self()) +
                                 " is busy until " + base::format_time_ps_exact(free) +
                                 " when a transfer from node " + std::to_string(ev.data[2] >> 32) +
                                 " starts at " + base::format_time_ps_exact(start) +
                                 " (set fabric.permissive: true to serialise instead)");
      }
      free += dur;
      ctx.send(ctx.self(), free - ctx.now(), kDeliverLate, ev.data, ev.aux);
      return;
    }
    free = ctx.now();
    complete(ev, ctx, sink);
  }

  // A part has fully arrived; the message is delivered with its last part.
  void complete(const pdes::Event& ev, pdes::Context& ctx, MessageSink& sink) {
    const auto src = static_cast<std::uint32_t>(ev.data[2] >> 32);
    if (ev.aux > 1) {
      auto& partial = partial_[ctx.self_index()];
      std::uint32_t& got = partial[src];
      if (++got < ev.aux) return;
      partial.erase(src);
    }
    sink.delivered({src, ev.data[0], ev.data[1]}, ctx);
  }

  RampSpec s_;
  ramp::RampShape shape_;
  std::uint32_t nodes_ = 0;
  std::uint64_t slot_bytes_ = 0;
  std::vector<pdes::Time> tx_free_, rx_free_;  // [local node][transceiver]
  std::uint32_t extra_[5] = {};                // ramp::extra_groups(step, shape_) for steps 1-4
  std::uint32_t inner_[5] = {};                // RampSpec::inner by step (0: none)
  std::uint32_t extra_inner_[5] = {};          // extra_groups(step, shape_, inner_[step])
  std::vector<std::uint32_t> coords_;          // per node: g | j << 8 | delta << 16 | p << 24
  // Rule (c) clocks of the arbiter nodes: per local node, g_src -> block of
  // x*b clocks (one per transceiver) in subnet_clocks_.
  std::vector<base::FlatMap<std::uint32_t, std::uint32_t>> subnet_blocks_;
  std::vector<pdes::Time> subnet_clocks_;
  std::vector<base::FlatMap<std::uint32_t, std::uint32_t>> partial_;  // per node: parts received
  RampStats ramp_;
  // Faults: the times they change, and what is down now: node * x*b + t for
  // a transceiver, kSubnet + (g_src * x + g_dst) * x*b + t for a subnet.
  static constexpr std::uint64_t kSubnet = std::uint64_t{1} << 62;
  FaultTimes changes_;
  std::unordered_set<std::uint64_t> down_;
  bool any_down_ = false;
  std::string down_words_;
};

std::unique_ptr<Network> make_ramp(const RampSpec& spec) {
  return std::make_unique<RampNetwork>(spec);
}

}  // namespace sipsim::fabric
