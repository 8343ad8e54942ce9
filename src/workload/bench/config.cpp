// The keys of a `workload: {type: collectives}` section (docs/scenarios.md).
#include <algorithm>
#include <string>
#include <vector>

#include "sipsim/collective/ramp_x.hpp"
#include "sipsim/workload/bench/collectives.hpp"

namespace sipsim::workload {

CollectivesConfig read_collectives(base::MapReader& w, bool& auto_algorithm) {
  CollectivesConfig c;
  const std::string op = w.required("op").as_enum(collective::op_names());
  c.op = *collective::parse_op(op);
  std::vector<std::string> algos = collective::algorithm_names();
  algos.push_back("auto");
  const std::string algo = w.required("algorithm").as_enum(algos);
  auto_algorithm = algo == "auto";
  if (!auto_algorithm) c.algorithm = *collective::parse_algorithm(algo);
  if (auto among = w.optional("auto_among")) {
    if (!auto_algorithm) among->fail("needs `algorithm: auto`: it lists what `auto` chooses among");
    const std::vector<base::Value> list = among->as_list();
    if (list.empty()) among->fail("must name at least one algorithm");
    for (const base::Value& v : list) {
      const collective::Algorithm a =
          *collective::parse_algorithm(v.as_enum(collective::algorithm_names()));
      if (std::find(c.auto_among.begin(), c.auto_among.end(), a) != c.auto_among.end()) {
        v.fail("is listed twice");
      }
      c.auto_among.push_back(a);
    }
  }
  c.root = w.get_u32("root", 0);
  if (auto dims = w.optional("dims")) {
    const auto list = dims->as_list();
    if (list.size() < 2 || list.size() > collective::kMaxLevels) {
      dims->fail("expected 2 to " + std::to_string(collective::kMaxLevels) +
                 " numbers: the level sizes, innermost first (torus2d: [X, Y])");
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      c.params.hierarchy[i] = list[i].as_u32(1);
    }
    c.params.torus = c.params.hierarchy;  // the 2D torus needs exactly two
  }
  if (auto g = w.optional("group")) {
    base::MapReader m = g->as_map();
    c.group.first = m.get_u32("first", 0);
    c.group.count = m.get_u32("count", 0, 1);
    c.group.stride = m.get_u32("stride", 1, 1);
    m.finish();
  }
  if (w.has("size") && w.has("sizes")) w.required("sizes").fail("give either size or sizes");
  if (auto size = w.optional("size")) {
    c.min_bytes = c.max_bytes = size->as_bytes();
  } else {
    base::MapReader m = w.required("sizes").as_map();
    c.min_bytes = m.required("min").as_bytes();
    c.max_bytes = m.required("max").as_bytes();
    if (c.max_bytes < c.min_bytes) m.required("max").fail("must not be below min");
    c.factor = m.get_u32("factor", 2, 2, 1024);
    if (c.min_bytes == 0 && c.max_bytes > 0) m.required("min").fail("must be > 0 for a sweep");
    m.finish();
  }
  if (auto v = w.optional("ramp_broadcast")) {
    collective::ramp_x::set_tree_broadcast(c.params,
                                           v->as_enum({"tree", "scatter-all-gather"}) == "tree");
  }
  c.iterations = w.get_u32("iterations", 5, 1, 1'000'000);
  c.warmup = w.get_u32("warmup", 1, 0, 1'000'000);
  return c;
}

}  // namespace sipsim::workload
