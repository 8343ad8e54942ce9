// The routed packet fabric: chunks hop vertex to vertex, each output link a FIFO.
#include "sipsim/fabric/routed/routed_network.hpp"

#include <algorithm>
#include <array>
#include <queue>
#include <span>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "sipsim/base/units.hpp"
#include "sipsim/fabric/routed/port_lps.hpp"
#include "sipsim/pdes/partitioners/groups.hpp"

namespace sipsim::fabric {

namespace {

// A chunk event's payload: message bytes, tag, the chunk's tail lag (when its
// last byte arrives, after the event: 0 under store-and-forward and on the
// last hop), route (src << 32 | dst); aux is 1 for a message's last chunk.
enum Kind : std::uint32_t {
  kChunk = kFabricKindBase + 2,  // a chunk's first byte (store-and-forward: all) is at a vertex
};

// serialization_ps with a small memo: the estimators quote millions of
// messages of a few sizes over links of one rate, each a 128-bit division.
pdes::Time memo_serialization_ps(std::uint64_t bytes, std::uint64_t rate_bps) {
  struct Entry {
    std::uint64_t bytes = 0, rate = 0;
    pdes::Time ps = 0;
  };
  thread_local std::array<Entry, 8> memo{};
  Entry& e = memo[(bytes ^ (bytes >> 20) ^ rate_bps) & 7];
  if (e.rate != rate_bps || e.bytes != bytes)
    e = {bytes, rate_bps, serialization_ps(bytes, rate_bps)};
  return e.ps;
}

// ---------------------------------------------------------------------------
// Routed packet fabric: chunks hop vertex to vertex, each output link a FIFO
// and each switch output link an LP of its own (PortLps).
class RoutedNetwork final : public Network {
 public:
  RoutedNetwork(std::unique_ptr<Topology> topology, std::uint64_t chunk_bytes,
                pdes::Time io_latency, Forwarding forwarding)
      : topo_(std::move(topology)),
        chunk_(chunk_bytes),
        io_(io_latency),
        cut_through_(forwarding == Forwarding::kCutThrough),
        link_free_(topo_->links().size(), 0),
        has_runs_(topo_->run_positions() > 0),
        lps_(*topo_) {
    if (chunk_bytes == 0) throw std::invalid_argument("chunk size must be > 0");
    for (const Link& l : topo_->links()) {
      if (l.rate_bps == 0) throw std::invalid_argument("a link has a rate of 0 bit/s");
    }
    const std::vector<Link>& links = topo_->links();
    uniform_ = !links.empty() && std::all_of(links.begin(), links.end(), [&](const Link& l) {
      return l.rate_bps == links.front().rate_bps && l.latency == links.front().latency;
    });
  }

  std::uint32_t nodes() const override { return topo_->nodes(); }
  std::uint32_t lp_count() const override { return lps_.count(); }

  // The nodes' locality groups in contiguous, node-balanced blocks of ranks,
  // so that a server never straddles two ranks; the switches and their ports
  // follow the nodes (PortLps::owners).
  pdes::Partition partition(int ranks) const override {
    std::vector<std::uint64_t> nodes_in(topo_->groups(), 0);
    for (Vertex v = 0; v < topo_->nodes(); ++v) ++nodes_in[topo_->group_of(v)];
    std::vector<std::uint32_t> group(topo_->vertices(), pdes::partitioners::kSpread);
    for (Vertex v = 0; v < topo_->nodes(); ++v) group[v] = topo_->group_of(v);
    const pdes::Partition nodes = pdes::partitioners::groups(group, nodes_in, ranks);
    return pdes::Partition::from_owners(lps_.owners(nodes), ranks);
  }

  pdes::Time lookahead(const pdes::Partition& p) const override { return lps_.lookahead(p); }
  // A cut link's latency is at most the longest link's.
  pdes::Time max_lookahead() const override {
    pdes::Time longest = 0;
    for (const Link& l : topo_->links()) longest = std::max(longest, l.latency);
    return longest;
  }

  void setup(const pdes::Partition& partition, int rank) override {
    // Only nodes take deliveries; they have the lowest ids, so the first
    // local indices.
    const auto lps = partition.lps_of(rank);
    partial_.assign(
        static_cast<std::size_t>(std::count_if(lps.begin(), lps.end(),
                                               [&](pdes::LpId lp) { return lp < topo_->nodes(); })),
        {});
    std::fill(link_free_.begin(), link_free_.end(), 0);
    stats_ = {};
    owner_.resize(lps_.count());
    for (pdes::LpId lp = 0; lp < lps_.count(); ++lp) owner_[lp] = partition.owner(lp);
    cut_distance_ = lps_.cut_distances(owner_);
  }

  // A chunk follows its route; each link it crosses on its own rank adds its
  // latency; the first cut link bounds what it leads to on another rank.
  bool bounds_remote_events() const override { return true; }
  pdes::Time cut_distance(std::uint32_t node) const override { return cut_distance_[node]; }
  bool stays_local(std::uint32_t src, std::uint32_t dst) const override {
    thread_local std::vector<LinkId> path;
    path.clear();
    if (!topo_->route(src, dst, (std::uint64_t{src} << 32) | dst, path)) return false;
    return owner_[dst] == owner_[src] && std::all_of(path.begin(), path.end(), [&](LinkId id) {
             return owner_[lps_.holder(id)] == owner_[src];
           });
  }
  pdes::Time remote_bound(const pdes::Event& e) const override {
    const auto dst = static_cast<std::uint32_t>(e.data[3]);
    pdes::Time t = e.time;
    for (pdes::LpId at = e.dst; at != dst;) {
      const LinkId id = lps_.is_port(at) ? lps_.link_of(at) : topo_->next_link(at, dst, e.data[3]);
      if (id == kNoLink) return e.time;  // handle() reports it
      const Link& l = topo_->link(id);
      t += l.latency;
      const pdes::LpId next = lps_.next(l.to, dst, e.data[3]);
      if (owner_[next] != owner_[at]) return t;
      at = next;
    }
    return pdes::kTimeMax;
  }

  // Faults change the topology at their times (FaultedTopology): epochs, so
  // that no window straddles a change of the routes its bounds walked.
  pdes::Time next_epoch(pdes::Time after) const override { return topo_->next_change(after); }
  void epoch_plan(const pdes::EpochInfo& info, std::span<const std::uint64_t> /*totals*/) override {
    topo_->apply_changes(info.time);
  }

  pdes::Time send(pdes::Context& ctx, std::uint32_t dst, std::uint64_t bytes,
                  std::uint64_t tag) override {
    if (dst >= topo_->nodes() || dst == ctx.self()) {
      throw std::logic_error("node " + std::to_string(ctx.self()) + " cannot send to node " +
                             std::to_string(dst));
    }
    ++stats_.messages;
    stats_.bytes += bytes;
    const std::uint64_t route = (std::uint64_t{ctx.self()} << 32) | dst;
    pdes::Time done = ctx.now();
    const pdes::Time ready = ctx.now() + io_;
    const std::uint64_t n = chunks_of(bytes);  // a zero-byte message travels as one empty chunk
    for (std::uint64_t k = 1; k <= n; ++k) {
      done = forward(ctx, ready, ready, dst, {bytes, tag, 0, route}, k == n ? 1 : 0);
    }
    return done;
  }

  void handle(const pdes::Event& ev, pdes::Context& ctx, MessageSink& sink) override {
    if (ev.kind != kChunk) {
      throw std::logic_error("routed fabric: unknown event kind " + std::to_string(ev.kind));
    }
    const auto src = static_cast<std::uint32_t>(ev.data[3] >> 32);
    const auto dst = static_cast<std::uint32_t>(ev.data[3]);
    if (lps_.is_port(ctx.self())) {
      reserve(ctx, lps_.link_of(ctx.self()), ctx.now(), ctx.now() + ev.data[2], dst, ev.data,
              ev.aux);
      return;
    }
    if (ctx.self() != dst) {
      forward(ctx, ctx.now(), ctx.now() + ev.data[2], dst, ev.data, ev.aux);
      return;
    }
    const std::uint64_t msg_bytes = ev.data[0];
    if (msg_bytes <= chunk_) {  // single-chunk message
      sink.delivered({src, msg_bytes, ev.data[1]}, ctx);
      return;
    }
    // Chunks of one pair arrive in order, so one counter per sender suffices.
    auto& partial = partial_[ctx.self_index()];
    std::uint64_t& got = partial[src];
    got += chunk_bytes(msg_bytes, ev.aux);
    if (got == msg_bytes) {
      partial.erase(src);
      sink.delivered({src, msg_bytes, ev.data[1]}, ctx);
    }
  }

  pdes::Time uncongested_ps(std::uint32_t a, std::uint32_t b, std::uint64_t bytes) const override {
    // Store-and-forward pipeline of n chunks over the path's h links (each
    // FIFO): chunk k leaves link j when it has arrived and chunk k-1 has left,
    // a max-plus grid whose longest path has a closed form, O(h) instead of
    // O(n h): chunks 1..n-1 are full (size C), the last has c_n bytes; the path
    // runs the full chunks' rows up to some link j2, spending the n-2 extra
    // full-chunk cells on the slowest link so far, then the last chunk's row
    // from j2 on; every link adds its latency once.
    //   T = sum_j l_j + max_j2 [ sum_{j<=j2} s(C,j) + (n-2) max_{j<=j2} s(C,j)
    //                             + sum_{j>=j2} s(c_n,j) ]   (n >= 2)
    if (has_runs_) {
      PathQuote q;
      thread_local std::vector<PathRun> runs;
      runs.clear();
      if (quote_runs(a, b, bytes, q, runs)) return q.uncongested;
    }
    return pipeline_ps(route(a, b), bytes);
  }

  // The node's I/O latency, then the chunks one after another on the first
  // link of the pair's path.
  pdes::Time injection_ps(std::uint32_t a, std::uint32_t b, std::uint64_t bytes) const override {
    const LinkId first = topo_->next_link(a, b, (std::uint64_t{a} << 32) | b);
    if (first == kNoLink) return 0;
    const std::uint64_t rate = topo_->link(first).rate_bps;
    const std::uint64_t full = bytes / chunk_, rest = bytes % chunk_;
    pdes::Time t = io_ + full * serialization_ps(chunk_, rate);
    if (rest > 0 || full == 0) t += serialization_ps(rest, rate);
    return t;
  }

  // Walks the path without building it: this runs for every message.
  std::uint64_t path_rate_bps(std::uint32_t a, std::uint32_t b) const override {
    if (has_runs_) {
      PathQuote q;
      thread_local std::vector<PathRun> runs;
      runs.clear();
      if (quote_runs(a, b, 0, q, runs)) return q.rate_bps;
    }
    std::uint64_t rate = ~std::uint64_t{0};
    const std::uint64_t flow = (std::uint64_t{a} << 32) | b;
    std::uint32_t hops = 0;
    for (Vertex v = a; v != b; ++hops) {
      const LinkId l = topo_->next_link(v, b, flow);
      if (l == kNoLink || hops > topo_->vertices()) return 0;
      rate = std::min(rate, topo_->link(l).rate_bps);
      v = topo_->link(l).to;
    }
    return rate;
  }

  // The links of the pair's path (its ECMP choice).
  std::uint32_t resource_count() const override {
    return static_cast<std::uint32_t>(topo_->links().size());
  }
  void path_resources(std::uint32_t a, std::uint32_t b, std::vector<Resource>& out) const override {
    const std::uint64_t flow = (std::uint64_t{a} << 32) | b;
    std::uint32_t hops = 0;
    for (Vertex v = a; v != b; ++hops) {
      const LinkId l = topo_->next_link(v, b, flow);
      if (l == kNoLink || hops > topo_->vertices()) {
        throw std::logic_error("routed fabric: no route from node " + std::to_string(a) +
                               " to node " + std::to_string(b));
      }
      out.push_back({static_cast<std::uint32_t>(l), topo_->link(l).rate_bps});
      v = topo_->link(l).to;
    }
  }

  // The four queries above from one walk of the pair's route (each of them
  // walks it): the same numbers, the same links. Pairs without a route (or a
  // == b) take the separate queries, which report them as before.
  PathQuote quote(std::uint32_t a, std::uint32_t b, std::uint64_t bytes,
                  std::vector<Resource>* resources) const override {
    if (has_runs_) {
      PathQuote q;
      thread_local std::vector<PathRun> runs;
      runs.clear();
      if (quote_runs(a, b, bytes, q, runs)) {
        if (resources != nullptr) {
          for (const PathRun& r : runs) {
            for (std::uint32_t k = 0, pos = r.first; k < r.length; ++k, ++pos) {
              if (pos == r.size) pos = 0;
              resources->push_back({topo_->run_link(r.base + pos), r.rate_bps});
            }
          }
        }
        return q;
      }
    }
    thread_local std::vector<LinkId> path;
    path.clear();
    if (a == b || !topo_->route(a, b, (std::uint64_t{a} << 32) | b, path) || path.empty()) {
      return CostModel::quote(a, b, bytes, resources);
    }
    PathQuote q;
    const std::uint64_t first = topo_->link(path.front()).rate_bps;
    const std::uint64_t full = bytes / chunk_, rest = bytes % chunk_;
    q.injection = io_ + full * serialization_ps(chunk_, first);
    if (rest > 0 || full == 0) q.injection += serialization_ps(rest, first);
    q.uncongested = pipeline_ps(path, bytes);
    q.rate_bps = ~std::uint64_t{0};
    for (const LinkId l : path) q.rate_bps = std::min(q.rate_bps, topo_->link(l).rate_bps);
    if (resources != nullptr) {
      for (const LinkId l : path) {
        resources->push_back({static_cast<std::uint32_t>(l), topo_->link(l).rate_bps});
      }
    }
    return q;
  }

  // send() reserves each message's first link at once: a node's sends run
  // together, sharing only the links their paths have in common.
  bool concurrent_sends() const override { return true; }

  std::uint32_t run_space() const override { return topo_->run_positions(); }

  // quote() from the topology's runs: the same injection, pipeline (in closed
  // form per run, see pipeline_ps) and bottleneck rate, without a walk.
  bool quote_runs(std::uint32_t a, std::uint32_t b, std::uint64_t bytes, PathQuote& q,
                  std::vector<PathRun>& runs) const override {
    thread_local std::vector<RouteRun> route;
    route.clear();
    if (!has_runs_ || a == b || !topo_->route_runs(a, b, (std::uint64_t{a} << 32) | b, route) ||
        route.empty()) {
      return false;
    }
    const std::size_t begin = runs.size();
    for (const RouteRun& r : route) {
      if (uniform_) {  // every link alike: no lookup of the run's first link
        const Link& l = topo_->links().front();
        runs.push_back({r.base, r.size, r.first, r.length, l.rate_bps, l.latency});
      } else {
        const Link& l = topo_->link(topo_->run_link(r.base + r.first));
        runs.push_back({r.base, r.size, r.first, r.length, l.rate_bps, l.latency});
      }
    }
    const std::span<const PathRun> mine(runs.data() + begin, runs.size() - begin);
    // The quote is a function of the bytes, the runs' lengths, rates and
    // latencies, the chunk size and the I/O latency only, and the estimators
    // quote a level's messages mostly with one displacement (a torus is
    // translation-invariant): the last quote is kept with all of its inputs.
    struct Last {
      std::uint64_t chunk = 0, bytes = 0;
      pdes::Time io = 0;
      bool cut_through = false;
      std::size_t n = 0;
      std::array<std::uint64_t, 3 * kMemoRuns> runs{};
      PathQuote q;
    };
    thread_local Last last;
    const bool memo = mine.size() <= kMemoRuns;
    if (memo && last.n == mine.size() && last.bytes == bytes && last.chunk == chunk_ &&
        last.io == io_ && last.cut_through == cut_through_ && [&] {
          for (std::size_t k = 0; k < mine.size(); ++k) {
            if (last.runs[3 * k] != mine[k].length || last.runs[3 * k + 1] != mine[k].rate_bps ||
                last.runs[3 * k + 2] != mine[k].latency) {
              return false;
            }
          }
          return true;
        }()) {
      q = last.q;
      return true;
    }
    const std::uint64_t first = mine.front().rate_bps;
    const std::uint64_t full = bytes / chunk_, rest = bytes % chunk_;
    q.injection = io_ + full * memo_serialization_ps(chunk_, first);
    if (rest > 0 || full == 0) q.injection += memo_serialization_ps(rest, first);
    q.uncongested = pipeline_ps(mine, bytes);
    q.rate_bps = ~std::uint64_t{0};
    for (const PathRun& r : mine) q.rate_bps = std::min(q.rate_bps, r.rate_bps);
    if (memo) {
      last.chunk = chunk_;
      last.bytes = bytes;
      last.io = io_;
      last.cut_through = cut_through_;
      last.n = mine.size();
      for (std::size_t k = 0; k < mine.size(); ++k) {
        last.runs[3 * k] = mine[k].length;
        last.runs[3 * k + 1] = mine[k].rate_bps;
        last.runs[3 * k + 2] = mine[k].latency;
      }
      last.q = q;
    }
    return true;
  }

  std::uint64_t node_rate_bps() const override {
    std::uint64_t rate = 0;
    for (LinkId l : topo_->out_links(0)) rate += topo_->link(l).rate_bps;
    return rate;
  }
  std::string describe() const override {
    return topo_->describe() + ", chunks of " + base::format_bytes(chunk_) +
           (cut_through_ ? ", cut-through" : "") +
           (io_ > 0 ? ", node I/O latency " + base::format_time_ps(io_) : std::string());
  }
  const Topology& topology() const { return *topo_; }
  EnergyPerBit energy_pj_per_bit() const override { return topo_->energy_pj_per_bit(); }
  std::vector<std::pair<std::string, std::string>> facts() const override {
    std::uint64_t capacity = 0;
    pdes::Time min_latency = pdes::kTimeMax, max_latency = 0;
    for (const Link& l : topo_->links()) {
      capacity += l.rate_bps;
      min_latency = std::min(min_latency, l.latency);
      max_latency = std::max(max_latency, l.latency);
    }
    return {{"switches", std::to_string(topo_->switches())},
            {"directed links", std::to_string(topo_->links().size())},
            {"total link capacity", base::format_bandwidth_bps(capacity)},
            {"node injection bandwidth", base::format_bandwidth_bps(node_rate_bps())},
            {"link latency",
             base::format_time_ps(min_latency) + " .. " + base::format_time_ps(max_latency)},
            {"chunk size", base::format_bytes(chunk_)},
            {"forwarding", cut_through_ ? "cut-through" : "store-and-forward"},
            {"node I/O latency", base::format_time_ps(io_)},
            {"locality groups", std::to_string(topo_->groups())}};
  }

 private:
  // uncongested_ps of a message of `bytes` over `path` (see there).
  pdes::Time pipeline_ps(const std::vector<LinkId>& path, std::uint64_t bytes) const {
    const std::uint64_t n = std::max<std::uint64_t>(1, (bytes + chunk_ - 1) / chunk_);
    const std::uint64_t last = bytes - (n - 1) * chunk_;
    // A chunk's serialization on the links of one rate (every link of a torus)
    // is computed once: 128-bit divisions per hop made long routes slow.
    std::uint64_t rate = 0;  // no link has rate 0
    pdes::Time s_last = 0, s_full = 0;
    auto at_rate = [&](const Link& l) {
      if (l.rate_bps != rate) {
        rate = l.rate_bps;
        s_last = serialization_ps(last, rate);
        s_full = serialization_ps(chunk_, rate);
      }
    };
    pdes::Time latency = 0, tail = 0;
    for (const LinkId id : path) {
      const Link& l = topo_->link(id);
      at_rate(l);
      latency += l.latency;
      tail += s_last;  // sum_{j >= j2} s(c_n, j) for j2 = 1
    }
    latency += io_;  // the node's in-out latency before the first link
    if (cut_through_) {
      // Cut-through: chunk k leaves link j when its head is there and chunk
      // k-1 has left, but not before its own tail has arrived; the longest
      // path in that max-plus grid spends the n-1 full chunks on the slowest
      // link up to some link m, then the last chunk on m:
      //   T = io + sum_j l_j + max_m [ (n-1) max_{j<=m} s(C,j) + s(c_n,m) ]
      pdes::Time slowest = 0, best = 0;
      for (const LinkId id : path) {
        at_rate(topo_->link(id));
        slowest = std::max(slowest, s_full);
        best = std::max(best, (n - 1) * slowest + s_last);
      }
      return latency + best;
    }
    if (n == 1) return latency + tail;
    pdes::Time head = 0, slowest = 0, best = 0;
    for (const LinkId id : path) {
      at_rate(topo_->link(id));
      head += s_full;
      slowest = std::max(slowest, s_full);
      best = std::max(best, head + (n - 2) * slowest + tail);
      tail -= s_last;
    }
    return latency + best;
  }

  // pipeline_ps over runs of equal links: within a run the candidate
  // head + (n-2) slowest + tail grows by s(C) - s(c_n) >= 0 per link, so its
  // largest value is the run's last link's, the same integers as the walk's.
  pdes::Time pipeline_ps(std::span<const PathRun> runs, std::uint64_t bytes) const {
    const std::uint64_t n = std::max<std::uint64_t>(1, (bytes + chunk_ - 1) / chunk_);
    const std::uint64_t last = bytes - (n - 1) * chunk_;
    std::uint64_t rate = 0;
    pdes::Time s_last = 0, s_full = 0;
    auto at_rate = [&](std::uint64_t r) {
      if (r != rate) {
        rate = r;
        s_last = memo_serialization_ps(last, rate);
        s_full = memo_serialization_ps(chunk_, rate);
      }
    };
    pdes::Time latency = io_, tail = 0;
    for (const PathRun& r : runs) {
      at_rate(r.rate_bps);
      latency += r.length * r.latency;
      tail += r.length * s_last;
    }
    if (cut_through_) {  // the walk's formula; a run's links are alike
      pdes::Time slowest = 0, best = 0;
      for (const PathRun& r : runs) {
        if (r.length == 0) continue;
        at_rate(r.rate_bps);
        slowest = std::max(slowest, s_full);
        best = std::max(best, (n - 1) * slowest + s_last);
      }
      return latency + best;
    }
    if (n == 1) return latency + tail;
    pdes::Time head = 0, slowest = 0, best = 0;
    for (const PathRun& r : runs) {
      if (r.length == 0) continue;
      at_rate(r.rate_bps);
      head += r.length * s_full;
      slowest = std::max(slowest, s_full);
      tail -= (r.length - 1) * s_last;
      best = std::max(best, head + (n - 2) * slowest + tail);
      tail -= s_last;
    }
    return latency + best;
  }

  // The links a message from node a to node b takes (the pair's one path).
  std::vector<LinkId> route(std::uint32_t a, std::uint32_t b) const {
    std::vector<LinkId> path;
    const std::uint64_t flow = (std::uint64_t{a} << 32) | b;
    for (Vertex v = a; v != b;) {
      const LinkId l = topo_->next_link(v, b, flow);
      if (l == kNoLink || path.size() > topo_->vertices()) {
        throw std::logic_error("no route from node " + std::to_string(a) + " to " +
                               std::to_string(b));
      }
      path.push_back(l);
      v = topo_->link(l).to;
    }
    return path;
  }

  std::uint64_t chunks_of(std::uint64_t bytes) const {
    return std::max<std::uint64_t>(1, (bytes + chunk_ - 1) / chunk_);
  }
  // The bytes of a message's chunk: full ones, then the rest.
  std::uint64_t chunk_bytes(std::uint64_t msg_bytes, std::uint32_t last) const {
    return last != 0 ? msg_bytes - (chunks_of(msg_bytes) - 1) * chunk_ : chunk_;
  }

  // Reserves the next link towards dst for one chunk whose first byte is here
  // at `head` and last byte at `tail` (the same under store-and-forward and at
  // the source), and sends it on: to the next switch when its head arrives
  // there under cut-through, else (and to the destination) when its tail does.
  pdes::Time forward(pdes::Context& ctx, pdes::Time head, pdes::Time tail, std::uint32_t dst,
                     pdes::Payload chunk, std::uint32_t last) {
    const LinkId id = topo_->next_link(ctx.self(), dst, chunk[3]);
    if (id == kNoLink) {
      throw std::logic_error("no route from vertex " + std::to_string(ctx.self()) + " to node " +
                             std::to_string(dst));
    }
    return reserve(ctx, id, head, tail, dst, chunk, last);
  }
  // The same on link `id`, held by this LP; the chunk goes on to the LP that
  // handles it at the link's far end (PortLps::next).
  pdes::Time reserve(pdes::Context& ctx, LinkId id, pdes::Time head, pdes::Time tail,
                     std::uint32_t dst, pdes::Payload chunk, std::uint32_t last) {
    const Link& l = topo_->link(id);
    const pdes::Time start = std::max(head, link_free_[id]);
    stats_.max_queueing = std::max(stats_.max_queueing, start - head);
    const pdes::Time finish =
        std::max(start + serialization_ps(chunk_bytes(chunk[0], last), l.rate_bps), tail);
    link_free_[id] = finish;
    ++stats_.chunk_hops;
    const pdes::LpId next = lps_.next(l.to, dst, chunk[3]);
    if (cut_through_ && l.to != dst) {
      chunk[2] = finish - start;
      ctx.send(next, start + l.latency - ctx.now(), kChunk, chunk, last);
    } else {
      chunk[2] = 0;
      ctx.send(next, finish + l.latency - ctx.now(), kChunk, chunk, last);
    }
    return finish;
  }

  std::unique_ptr<Topology> topo_;
  std::uint64_t chunk_;
  pdes::Time io_;  // per message, before its first chunk may leave the node (RAMP §7.5)
  bool cut_through_;
  std::vector<pdes::Time> link_free_;  // indexed by link id; only local links are used
  bool has_runs_;         // the topology describes routes as runs (Topology::route_runs)
  bool uniform_ = false;  // every link has the first link's rate and latency
  static constexpr std::size_t kMemoRuns = 4;  // quote_runs remembers routes of up to 4 runs
  std::vector<std::unordered_map<std::uint32_t, std::uint64_t>> partial_;  // per local node
  PortLps lps_;
  std::vector<int> owner_;                // rank of every LP (setup)
  std::vector<pdes::Time> cut_distance_;  // per LP (PortLps::cut_distances)
};

}  // namespace

std::unique_ptr<Network> make_routed(std::unique_ptr<Topology> topology, std::uint64_t chunk_bytes,
                                     pdes::Time io_latency, Forwarding forwarding) {
  return std::make_unique<RoutedNetwork>(std::move(topology), chunk_bytes, io_latency, forwarding);
}

}  // namespace sipsim::fabric
