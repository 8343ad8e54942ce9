// The process groups of a chakra workload (docs/models.md, "Chakra traces"):
// each GPU collective runs on the group its pg_name lists in
// `process_groups`, else on the GPUs its involved_dim spans in
// `dimensions`, else on all GPUs (PyTorch's default group).
#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sipsim/workload/chakra/chakra.hpp"

namespace sipsim::workload::chakra {

namespace {

constexpr std::uint32_t kNone = Groups::kNone;

std::uint32_t all_true(std::uint32_t dims) {
  return dims >= 32 ? ~0u : (std::uint32_t{1} << dims) - 1;
}

// An involved_dim that leaves a dimension out (absent or all true: all GPUs).
bool partial(const Node& n) {
  return n.involved_dims > 0 && n.involved_dim != all_true(n.involved_dims);
}

std::string dims_label(std::uint32_t mask, std::uint32_t dims) {
  std::string out = "dims [";
  for (std::uint32_t i = 0; i < dims; ++i)
    out += fmt::format("{}{}", i > 0 ? ", " : "", (mask >> i) & 1);
  return out + "]";
}

class Resolver {
 public:
  explicit Resolver(Config& c) : c_(c), g_(c.groups) {}

  // The family of collective n, created on first use; "" or the error.
  std::string resolve(const Trace& t, const Node& n) {
    const std::string& pg = t.names[n.pg_name];
    if (const auto it = c_.process_groups.find(pg);
        n.pg_name != 0 && it != c_.process_groups.end()) {
      if (!g_.by_pg.contains(pg)) g_.by_pg[pg] = add_pg(pg, it->second);
      return "";
    }
    if (n.pg_name != 0 &&
        std::find(g_.unlisted.begin(), g_.unlisted.end(), pg) == g_.unlisted.end())
      g_.unlisted.push_back(pg);
    if (!partial(n)) {
      if (g_.all == kNone) g_.all = add("all GPUs", std::vector<std::uint32_t>(c_.gpus, 0), 1);
      return "";
    }
    if (c_.dimensions.empty()) {
      return fmt::format(
          "{}: attr involved_dim: {} leaves dimensions out, but the workload has no "
          "`dimensions`",
          t.where(n), dims_label(n.involved_dim, n.involved_dims));
    }
    if (n.involved_dims != c_.dimensions.size()) {
      return fmt::format("{}: attr involved_dim: {} dimensions, but `dimensions` has {}",
                         t.where(n), n.involved_dims, c_.dimensions.size());
    }
    const std::uint64_t key = std::uint64_t{n.involved_dims} << 32 | n.involved_dim;
    if (!g_.by_dims.contains(key)) g_.by_dims[key] = add_dims(n.involved_dim);
    return "";
  }

 private:
  // Blocks of size * stride GPUs, each `stride` groups of `size` GPUs
  // `stride` apart; a listed group is the one part.
  std::uint32_t add_pg(const std::string& name, const ProcessGroup& pg) {
    const std::string label = fmt::format("pg '{}'", name);
    std::vector<std::uint32_t> part(c_.gpus, kNone);
    if (!pg.ranks.empty()) {
      for (const std::uint32_t r : pg.ranks) part[r] = 0;
      return add(label, std::move(part), 1);
    }
    const std::uint32_t block = pg.size * pg.stride;
    for (std::uint32_t g = 0; g < c_.gpus; ++g) part[g] = g / block * pg.stride + g % pg.stride;
    return add(label, std::move(part), c_.gpus / pg.size);
  }

  // The part of a GPU: its coordinates in the dimensions left out.
  std::uint32_t add_dims(std::uint32_t mask) {
    std::vector<std::uint32_t> part(c_.gpus, 0);
    std::uint32_t parts = 1;
    for (std::uint32_t g = 0; g < c_.gpus; ++g) {
      std::uint32_t rest = g, id = 0, radix = 1;
      for (std::size_t i = 0; i < c_.dimensions.size(); ++i) {
        const std::uint32_t d = c_.dimensions[i];
        if (((mask >> i) & 1) == 0) {
          id += rest % d * radix;
          radix *= d;
        }
        rest /= d;
      }
      part[g] = id;
      parts = radix;
    }
    return add(dims_label(mask, static_cast<std::uint32_t>(c_.dimensions.size())), std::move(part),
               parts);
  }

  // A family of `parts` equal groups; its groups of two or more GPUs become
  // communicators, one per distinct member list.
  std::uint32_t add(std::string label, std::vector<std::uint32_t> part, std::uint32_t parts) {
    std::vector<std::vector<std::uint32_t>> groups(parts);
    for (std::uint32_t g = 0; g < c_.gpus; ++g)
      if (part[g] != kNone) groups[part[g]].push_back(g);
    Groups::Family f;
    std::tie(f.size, f.consecutive) = Groups::shape(groups[0]);
    f.groups = parts;
    f.comm.assign(c_.gpus, kNone);
    for (std::uint32_t p = 0; p < parts && f.size > 1; ++p) {
      const auto [it, added] =
          comms_.try_emplace(groups[p], static_cast<std::uint32_t>(g_.members.size()));
      if (added) {
        g_.names.push_back(parts == 1 ? (f.size == c_.gpus ? "all" : label)
                                      : fmt::format("{} #{}", label, p));
        g_.members.push_back(groups[p]);
      }
      for (const std::uint32_t g : groups[p]) f.comm[g] = it->second;
    }
    f.label = std::move(label);
    g_.families.push_back(std::move(f));
    return static_cast<std::uint32_t>(g_.families.size() - 1);
  }

  Config& c_;
  Groups& g_;
  std::map<std::vector<std::uint32_t>, std::uint32_t> comms_;  // members -> communicator
};

}  // namespace

std::uint32_t Groups::family_of(const Trace& t, const Node& n) const {
  if (n.pg_name != 0) {
    if (const auto it = by_pg.find(t.names[n.pg_name]); it != by_pg.end()) return it->second;
  }
  if (partial(n)) return by_dims.at(std::uint64_t{n.involved_dims} << 32 | n.involved_dim);
  return all;
}

std::uint32_t Groups::member(std::uint32_t comm, std::uint32_t gpu) const {
  const std::vector<std::uint32_t>& m = members[comm];
  return static_cast<std::uint32_t>(std::lower_bound(m.begin(), m.end(), gpu) - m.begin());
}

std::string Groups::describe(std::string_view indent) const {
  std::string out;
  for (const Family& f : families) {
    out += fmt::format("{}{}: {} group{} of {} GPU{}{}\n", indent, f.label, f.groups,
                       f.groups == 1 ? "" : "s", f.size, f.size == 1 ? "" : "s",
                       f.size == 1 ? " (collectives are no-ops)" : "");
  }
  for (const std::string& pg : unlisted)
    out += fmt::format("{}pg '{}': not in process_groups, on all GPUs\n", indent, pg);
  return out;
}

namespace {

// The GPU of trace t (all GPUs for a replicated trace) that runs a
// collective on listed ranks without being among them, or kNone.
std::uint32_t outsider(const Config& c, std::uint32_t t, const std::vector<std::uint32_t>& ranks) {
  if (c.traces.size() > 1) return std::binary_search(ranks.begin(), ranks.end(), t) ? kNone : t;
  for (std::uint32_t g = 0; g < c.gpus && ranks.size() < c.gpus; ++g)
    if (!std::binary_search(ranks.begin(), ranks.end(), g)) return g;
  return kNone;
}

}  // namespace

std::string build_groups(Config& c) {
  c.groups = Groups();
  Resolver r(c);
  for (std::uint32_t t = 0; t < c.traces.size(); ++t) {
    const Trace& trace = c.traces[t];
    for (const std::uint32_t i : trace.order) {
      const Node& n = trace.nodes[i];
      if (n.type != NodeType::kCommColl || n.cpu_op) continue;
      if (std::string e = r.resolve(trace, n); !e.empty()) return e;
      const auto pg = c.process_groups.find(trace.names[n.pg_name]);
      if (n.pg_name == 0 || pg == c.process_groups.end() || pg->second.ranks.empty()) continue;
      if (const std::uint32_t g = outsider(c, t, pg->second.ranks); g != kNone) {
        return fmt::format(
            "{}: attr pg_name: GPU {} runs a collective on pg '{}', whose ranks are [{}]",
            trace.where(n), g, pg->first, fmt::join(pg->second.ranks, ", "));
      }
    }
  }
  return "";
}

}  // namespace sipsim::workload::chakra
