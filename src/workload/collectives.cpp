#include "sipsim/workload/collectives.hpp"

#include <mpi.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "sipsim/analytical/collective_estimate.hpp"
#include "sipsim/fabric/ramp/geometry.hpp"

namespace sipsim::workload {

namespace {
constexpr std::uint32_t kStepDone = 1;      // a step's local operation has finished
constexpr std::uint32_t kInstanceDone = 2;  // lock-step: the collective's last step ends
}  // namespace

std::vector<std::uint64_t> sweep_sizes(const CollectivesConfig& c) {
  if (c.factor < 2) throw std::invalid_argument("the size factor must be at least 2");
  if (c.min_bytes > c.max_bytes) throw std::invalid_argument("min size exceeds max size");
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t s = c.min_bytes;; s *= c.factor) {
    sizes.push_back(s);
    if (s == 0 || s > c.max_bytes / c.factor) break;
  }
  return sizes;
}

std::vector<std::uint32_t> group_nodes(const GroupSpec& g, std::uint32_t fabric_nodes) {
  if (g.stride == 0) throw std::invalid_argument("the group stride must be at least 1");
  if (g.first >= fabric_nodes) {
    throw std::invalid_argument("the group starts at node " + std::to_string(g.first) +
                                " but the fabric has " + std::to_string(fabric_nodes) + " nodes");
  }
  const std::uint64_t fit = (std::uint64_t{fabric_nodes} - g.first - 1) / g.stride + 1;
  const std::uint64_t count = g.count == 0 ? fit : g.count;
  if (count > fit) {
    throw std::invalid_argument("a group of " + std::to_string(count) + " nodes (first " +
                                std::to_string(g.first) + ", stride " + std::to_string(g.stride) +
                                ") does not fit in " + std::to_string(fabric_nodes) + " nodes");
  }
  std::vector<std::uint32_t> nodes(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    nodes[i] = static_cast<std::uint32_t>(g.first + i * g.stride);
  }
  return nodes;
}

CollectivesModel::CollectivesModel(const CollectivesConfig& config,
                                   std::unique_ptr<fabric::Network> network)
    : config_(config),
      network_(std::move(network)),
      roofline_(config.accelerator),
      members_(job_members(config, network_->nodes())),
      member_of_(network_->nodes(), -1) {
  for (std::size_t m = 0; m < members_.size(); ++m) {
    if (members_[m] >= member_of_.size() || member_of_[members_[m]] >= 0) {
      throw std::invalid_argument("the group's nodes must be distinct fabric nodes");
    }
    member_of_[members_[m]] = static_cast<std::int32_t>(m);
  }
  const std::vector<std::uint64_t> sizes = sweep_sizes(config_);
  if (!config_.per_size.empty() && config_.per_size.size() != sizes.size()) {
    throw std::invalid_argument("one algorithm per size is needed");
  }
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const auto algorithm = config_.per_size.empty() ? config_.algorithm : config_.per_size[k];
    const std::string why = collective::why_invalid(spec_for(sizes[k], algorithm));
    if (!why.empty()) throw std::invalid_argument(why);
    // RAMP §6.2.3: lock-step durations, the same for every iteration of a size.
    const std::vector<pdes::Time> lock_len =
        analytical::lockstep_rounds(spec_for(sizes[k], algorithm), members_, *network_, roofline_);
    for (std::uint32_t i = 0; i < config_.warmup + config_.iterations; ++i) {
      instances_.push_back({sizes[k], algorithm, lock_len, i, i < config_.warmup});
    }
  }
}

collective::CollectiveSpec make_spec(const CollectivesConfig& c, std::uint32_t p,
                                     std::uint64_t bytes, collective::Algorithm algorithm) {
  return collective::make_spec(c.op, algorithm, p, bytes, c.root, c.params);
}

std::vector<std::uint32_t> job_members(const CollectivesConfig& c, std::uint32_t fabric_nodes) {
  return c.nodes.empty() ? group_nodes(c.group, fabric_nodes) : c.nodes;
}

collective::CollectiveSpec CollectivesModel::spec_for(std::uint64_t bytes,
                                                      collective::Algorithm algorithm) const {
  return make_spec(config_, static_cast<std::uint32_t>(members_.size()), bytes, algorithm);
}

void CollectivesModel::setup(const pdes::Partition& partition, int rank) {
  network_->setup(partition, rank);
  const auto lps = partition.lps_of(rank);
  nodes_.assign(lps.size(), Node{});
  for (std::size_t i = 0; i < lps.size(); ++i) {
    if (lps[i] < member_of_.size()) nodes_[i].member = member_of_[lps[i]];
  }
  CollectiveRecord empty;
  empty.start = pdes::kTimeMax;
  local_records_.assign(instances_.size(), empty);
  for (std::size_t k = 0; k < instances_.size(); ++k) {
    local_records_[k].id = k;
    local_records_[k].bytes = instances_[k].bytes;
    local_records_[k].algorithm = instances_[k].algorithm;
    local_records_[k].iteration = instances_[k].iteration;
    local_records_[k].warmup = instances_[k].warmup;
  }
}

void CollectivesModel::init(pdes::Context& ctx) {
  Node& node = nodes_[ctx.self_index()];
  if (node.member >= 0 && !instances_.empty()) start_instance(node, ctx);
}

void CollectivesModel::handle(const pdes::Event& event, pdes::Context& ctx) {
  if (event.kind >= fabric::kFabricKindBase) {
    network_->handle(event, ctx, *this);
    return;
  }
  Node& node = nodes_[ctx.self_index()];
  if (event.kind == kInstanceDone) {
    finish_instance(node, ctx);
    return;
  }
  if (event.kind != kStepDone) {
    throw std::logic_error("collectives: unknown event kind " + std::to_string(event.kind));
  }
  ++node.step;
  start_step(node, ctx);
}

void CollectivesModel::start_instance(Node& node, pdes::Context& ctx) {
  const Instance& inst = instances_[node.instance];
  node.schedule.emplace(spec_for(inst.bytes, inst.algorithm),
                        static_cast<std::uint32_t>(node.member));
  node.step = 0;
  node.start = ctx.now();
  node.lock_t = ctx.now();
  node.compute = 0;
  node.h2t = 0;
  start_step(node, ctx);
}

void CollectivesModel::start_step(Node& node, pdes::Context& ctx) {
  if (node.step == node.schedule->steps()) {
    // In lock-step a member that is done early still ends with the others.
    const auto& lock_len = instances_[node.instance].lock_len;
    pdes::Time end = node.lock_t;
    for (std::size_t i = node.step; i < lock_len.size(); ++i) end += lock_len[i];
    if (end > ctx.now()) {
      node.step = static_cast<std::uint32_t>(std::max<std::size_t>(node.step, lock_len.size()));
      ctx.send(ctx.self(), end - ctx.now(), kInstanceDone);
      return;
    }
    finish_instance(node, ctx);
    return;
  }
  const collective::WireStep step = collective::wire_step(*node.schedule, node.step);
  node.sends_done = ctx.now();
  const std::uint32_t self = members_[static_cast<std::size_t>(node.member)];
  pdes::Time send_h2t = 0, recv_h2t = 0;
  if (step.multicast && !step.out.empty()) {
    // One multicast (RAMP §6.1): the same data to every peer.
    std::vector<std::uint32_t> peers;
    for (const collective::WireMessage& s : step.out) {
      if (s.bytes != step.out[0].bytes || s.parts != 1) {
        throw std::logic_error("a multicast step must send the same data to every peer");
      }
      peers.push_back(members_[s.peer]);
    }
    const std::uint64_t bytes = step.out[0].bytes;
    const std::uint64_t tag = (std::uint64_t{1} << 32) | node.instance;
    node.sends_done = std::max(node.sends_done, network_->multicast(ctx, peers, bytes, tag));
    send_h2t = fabric::serialization_ps(bytes, network_->path_rate_bps(self, peers[0]));
  }
  for (const collective::WireMessage& s : step.out) {
    if (step.multicast) break;
    const std::uint32_t peer = members_[s.peer];
    const std::uint64_t tag = (std::uint64_t{s.parts} << 32) | node.instance;
    node.sends_done = std::max(node.sends_done, network_->send(ctx, peer, s.bytes, tag));
    const pdes::Time t = fabric::serialization_ps(s.bytes, network_->path_rate_bps(self, peer));
    // Parallel ports (RAMP's transceivers) send at once; one port sends in turn.
    send_h2t = network_->parallel_ports() ? std::max(send_h2t, t) : send_h2t + t;
  }
  node.waiting = 0;
  for (const collective::WireMessage& r : step.in) {
    recv_h2t = std::max(recv_h2t, fabric::serialization_ps(
                                      r.bytes, network_->path_rate_bps(members_[r.peer], self)));
    auto it = node.early.find(r.peer);
    if (it != node.early.end() && !it->second.empty() &&
        static_cast<std::uint32_t>(it->second.front()) == node.instance) {
      check_parts(it->second.front(), r.parts, r.peer, node);
      it->second.pop_front();
      if (it->second.empty()) node.early.erase(it);
      continue;
    }
    node.expecting[r.peer].push_back(r.parts);
    ++node.waiting;
  }
  node.step_h2t = std::max(send_h2t, recv_h2t);
  switch (step.local) {
    case collective::LocalOp::kReduce:
      node.step_compute = roofline_.reduce_ps(step.sources, step.local_bytes);
      break;
    case collective::LocalOp::kCopy:
      node.step_compute = roofline_.copy_ps(step.local_bytes);
      break;
    case collective::LocalOp::kNone:
      node.step_compute = 0;
      break;
  }
  if (node.waiting == 0) receives_complete(node, ctx);
}

void CollectivesModel::receives_complete(Node& node, pdes::Context& ctx) {
  // The step ends when its data is in and its sends have left; then the
  // local operation runs.
  pdes::Time end = std::max(ctx.now(), node.sends_done) + node.step_compute;
  const auto& lock_len = instances_[node.instance].lock_len;
  if (node.step < lock_len.size()) end = std::max(end, node.lock_t + lock_len[node.step]);
  node.lock_t = end;
  node.compute += node.step_compute;
  node.h2t += node.step_h2t;
  ctx.send(ctx.self(), end - ctx.now(), kStepDone);
}

void CollectivesModel::delivered(const fabric::Delivery& d, pdes::Context& ctx) {
  Node& node = nodes_[ctx.self_index()];
  const std::int32_t peer_member = member_of_[d.src_node];
  if (node.member < 0 || peer_member < 0) {
    throw std::logic_error("node " + std::to_string(ctx.self()) +
                           " received a message outside the group from node " +
                           std::to_string(d.src_node));
  }
  const auto peer = static_cast<std::uint32_t>(peer_member);
  const auto instance = static_cast<std::uint32_t>(d.tag);
  auto it = node.expecting.find(peer);
  if (instance == node.instance && it != node.expecting.end()) {
    check_parts(d.tag, it->second.front(), peer, node);
    it->second.pop_front();
    if (it->second.empty()) node.expecting.erase(it);
    if (--node.waiting == 0) receives_complete(node, ctx);
    return;
  }
  node.early[peer].push_back(d.tag);  // for a later step or a later iteration
}

// The sender joined `tag >> 32` of its Sends into this message; the receiver
// must have joined as many Recvs, or the two schedules disagree.
void CollectivesModel::check_parts(std::uint64_t tag, std::uint32_t parts, std::uint32_t peer,
                                   const Node& node) const {
  if ((tag >> 32) != parts) {
    throw std::logic_error("collective schedule mismatch: member " + std::to_string(peer) +
                           " sent " + std::to_string(tag >> 32) +
                           " part(s) in one message, member " + std::to_string(node.member) +
                           " expects " + std::to_string(parts));
  }
}

void CollectivesModel::finish_instance(Node& node, pdes::Context& ctx) {
  CollectiveRecord& rec = local_records_[node.instance];
  rec.start = std::min(rec.start, node.start);
  const auto self = ctx.self();
  if (ctx.now() > rec.end || (ctx.now() == rec.end && self < rec.last_node)) {
    rec.end = ctx.now();
    rec.last_node = self;
    rec.compute = node.compute;
    rec.h2t = node.h2t;
  }
  node.schedule.reset();
  if (++node.instance < instances_.size()) start_instance(node, ctx);
}

std::vector<CollectiveRecord> CollectivesModel::gather_records(
    const boost::mpi::communicator& comm) const {
  static_assert(std::is_trivially_copyable_v<CollectiveRecord>);
  const std::size_t n = local_records_.size();
  std::vector<CollectiveRecord> all(n * static_cast<std::size_t>(comm.size()));
  MPI_Allgather(local_records_.data(), static_cast<int>(n * sizeof(CollectiveRecord)), MPI_BYTE,
                all.data(), static_cast<int>(n * sizeof(CollectiveRecord)), MPI_BYTE,
                MPI_Comm(comm));
  std::vector<CollectiveRecord> out = local_records_;
  for (std::size_t k = 0; k < n; ++k) {
    CollectiveRecord& r = out[k];
    r.start = pdes::kTimeMax;
    r.end = 0;
    bool any = false;
    for (int rank = 0; rank < comm.size(); ++rank) {
      const CollectiveRecord& x = all[static_cast<std::size_t>(rank) * n + k];
      if (x.start == pdes::kTimeMax) continue;  // no member on that rank
      r.start = std::min(r.start, x.start);
      if (!any || x.end > r.end || (x.end == r.end && x.last_node < r.last_node)) {
        r.end = x.end;
        r.last_node = x.last_node;
        r.compute = x.compute;
        r.h2t = x.h2t;
        r.h2h = x.h2h;
        any = true;
      }
    }
    if (!any) {
      r.start = 0;  // never ran (the simulation stopped early)
      continue;
    }
    // The breakdown spans the whole instance: from the first member's start.
    const pdes::Time busy = r.compute + r.h2t;
    r.h2h = r.end - r.start > busy ? r.end - r.start - busy : 0;
  }
  return out;
}

fabric::NetworkStats CollectivesModel::gather_stats(const boost::mpi::communicator& comm) const {
  const fabric::NetworkStats& s = network_->stats();
  std::uint64_t sums[3] = {s.messages, s.bytes, s.chunk_hops}, totals[3];
  MPI_Allreduce(sums, totals, 3, MPI_UINT64_T, MPI_SUM, MPI_Comm(comm));
  std::uint64_t q = s.max_queueing, qmax = 0;
  MPI_Allreduce(&q, &qmax, 1, MPI_UINT64_T, MPI_MAX, MPI_Comm(comm));
  return {totals[0], totals[1], totals[2], qmax};
}

}  // namespace sipsim::workload
