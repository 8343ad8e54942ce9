// The benchmark's program (a loop of one collective per size) and its group.
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sipsim/workload/bench/collectives.hpp"

namespace sipsim::workload {

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

CollectivesBenchmark::CollectivesBenchmark(const CollectivesConfig& config,
                                           std::unique_ptr<fabric::Network> network)
    : config_(config), members_(job_members(config, network->nodes())) {
  std::vector<char> seen(network->nodes(), 0);
  for (std::uint32_t n : members_) {
    if (n >= seen.size() || seen[n]) {
      throw std::invalid_argument("the group's nodes must be distinct fabric nodes");
    }
    seen[n] = 1;
  }
  const std::vector<std::uint64_t> sizes = sweep_sizes(config_);
  if (!config_.per_size.empty() && config_.per_size.size() != sizes.size()) {
    throw std::invalid_argument("one algorithm per size is needed");
  }
  // One program for every member: instance k is a collective after instance k - 1.
  ProgramSet set;
  set.comms.push_back({"group", members_, config_.params});
  Program program("collectives");
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const auto algorithm = config_.per_size.empty() ? config_.algorithm : config_.per_size[k];
    const std::string why = collective::why_invalid(spec_for(sizes[k], algorithm));
    if (!why.empty()) throw std::invalid_argument(why);
    for (std::uint32_t i = 0; i < config_.warmup + config_.iterations; ++i) {
      CollectiveRecord rec;
      rec.id = local_records_.size();
      rec.bytes = sizes[k];
      rec.algorithm = algorithm;
      rec.iteration = i;
      rec.warmup = i < config_.warmup;
      rec.start = pdes::kTimeMax;
      local_records_.push_back(rec);
      const collective::CollectiveCall call{config_.op, algorithm, sizes[k], config_.root};
      if (program.size() == 0) {
        program.collective(Category::kCollective, 0, call);
      } else {
        program.collective(Category::kCollective, 0, call, {program.size() - 1});
      }
    }
  }
  set.programs.push_back(std::move(program));
  set.bindings.resize(network->nodes());
  for (std::uint32_t m = 0; m < members_.size(); ++m) {
    Binding b;
    b.comms.push_back({0, m});
    set.bindings[members_[m]] = std::move(b);
  }
  owned_ = std::make_unique<Interpreter>(std::move(set), std::move(network),
                                         std::make_unique<compute::Roofline>(config_.accelerator));
  interpreter_ = owned_.get();
  interpreter_->set_observer(this);
}

std::unique_ptr<Interpreter> CollectivesBenchmark::take_model() {
  return std::move(owned_);
}

Simulation make_collectives_benchmark(const CollectivesConfig& config,
                                      std::unique_ptr<fabric::Network> network) {
  auto bench = std::make_unique<CollectivesBenchmark>(config, std::move(network));
  Simulation sim;
  sim.network = &bench->network();
  sim.model = bench->take_model();
  sim.results = std::move(bench);
  return sim;
}

collective::CollectiveSpec make_spec(const CollectivesConfig& c, std::uint32_t p,
                                     std::uint64_t bytes, collective::Algorithm algorithm) {
  return collective::make_spec(c.op, algorithm, p, bytes, c.root, c.params);
}

bool auto_may_choose(const CollectivesConfig& c, collective::Algorithm algorithm) {
  return c.auto_among.empty() ||
         std::find(c.auto_among.begin(), c.auto_among.end(), algorithm) != c.auto_among.end();
}

std::vector<std::uint32_t> job_members(const CollectivesConfig& c, std::uint32_t fabric_nodes) {
  return c.nodes.empty() ? group_nodes(c.group, fabric_nodes) : c.nodes;
}

collective::CollectiveSpec CollectivesBenchmark::spec_for(std::uint64_t bytes,
                                                          collective::Algorithm algorithm) const {
  return make_spec(config_, static_cast<std::uint32_t>(members_.size()), bytes, algorithm);
}

}  // namespace sipsim::workload
