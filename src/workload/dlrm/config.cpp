// The keys of a `workload: {type: dlrm}` section (docs/scenarios.md).
#include <spdlog/fmt/fmt.h>

#include <string>
#include <vector>

#include "sipsim/workload/dlrm/dlrm.hpp"

namespace sipsim::workload::dlrm {

namespace {

__extension__ typedef unsigned __int128 U128;

constexpr std::uint32_t kMaxWidth = 1u << 20;  // an MLP layer's or the embedding's width

std::vector<std::uint32_t> read_layers(base::MapReader& m, std::string_view key) {
  const base::Value v = m.required(key);
  if (!v.is_list()) v.fail("must be a list of layer sizes, e.g. [1024, 1024, 1]");
  const std::vector<base::Value> items = v.as_list();
  if (items.empty() || items.size() > 64) v.fail("must list 1 to 64 layer sizes");
  std::vector<std::uint32_t> out;
  for (const base::Value& item : items) out.push_back(item.as_u32(1, kMaxWidth));
  return out;
}

// An algorithm key: `auto` (the default) or a name.
void read_algorithm(base::MapReader& m, std::string_view key, collective::Algorithm& algorithm,
                    bool& is_auto) {
  const std::optional<base::Value> v = m.optional(key);
  if (!v) return;
  std::vector<std::string> names = collective::algorithm_names();
  names.insert(names.begin(), "auto");
  const std::string name = v->as_enum(names);
  is_auto = name == "auto";
  if (!is_auto) algorithm = *collective::parse_algorithm(name);
}

}  // namespace

Config read_dlrm(base::MapReader& w) {
  Config c;
  c.gpus = w.required("gpus").as_u32(1, 1u << 24);
  {
    base::MapReader m = w.required("model").as_map();
    ModelShape& s = c.model;
    s.tables = m.required("tables").as_u32(1, 1u << 20);
    s.rows = m.required("rows").as_uint();
    if (s.rows == 0 || s.rows > (std::uint64_t{1} << 40)) {
      m.required("rows").fail("must be 1 to 2^40 rows per table");
    }
    s.dim = m.required("dim").as_u32(1, kMaxWidth);
    s.pooling = m.get_u32("pooling", 1, 1, 1u << 16);
    s.dense = m.required("dense").as_u32(1, kMaxWidth);
    s.bottom = read_layers(m, "bottom_mlp");
    s.top = read_layers(m, "top_mlp");
    if (s.bottom.back() != s.dim) {
      m.required("bottom_mlp")
          .fail(fmt::format("the last layer must output the embedding dimension (dim: {}): the dot "
                            "interaction pairs it with the tables' vectors",
                            s.dim));
    }
    const bool global = m.has("global_batch"), per_gpu = m.has("batch_per_gpu");
    if (global == per_gpu) {
      (global ? m.required("batch_per_gpu") : w.required("model"))
          .fail("give exactly one of global_batch and batch_per_gpu");
    }
    if (global) {
      s.global_batch = m.required("global_batch").as_u32(1, 1u << 30);
      if (s.global_batch % c.gpus != 0) {
        m.required("global_batch").fail(fmt::format("must be a multiple of gpus ({})", c.gpus));
      }
    } else {
      const std::uint64_t b = m.required("batch_per_gpu").as_u32(1, 1u << 30);
      if (b * c.gpus > (1u << 30)) {
        m.required("batch_per_gpu").fail("batch_per_gpu x gpus must be at most 2^30 samples");
      }
      s.global_batch = static_cast<std::uint32_t>(b * c.gpus);
    }
    if (auto p = m.optional("precision")) {
      const std::vector<std::string> names = {"fp32", "tf32", "fp16", "bf16", "fp8"};
      const std::string name = p->as_enum(names);
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i] == name) s.precision = static_cast<compute::Precision>(i);
      }
    }
    // Every op's FLOPs and bytes must stay well inside 64 bits: the busiest
    // op is an MLP of the local batch or a lookup over the global batch.
    const U128 b = s.global_batch / c.gpus;
    U128 mlp = 0;
    std::uint64_t in = s.dense;
    for (const std::uint32_t out : s.bottom) mlp += U128{in} * out, in = out;
    const U128 f = U128{s.tables} + 1;
    in = s.dim + static_cast<std::uint64_t>(f * (f - 1) / 2);
    for (const std::uint32_t out : s.top) mlp += U128{in} * out, in = out;
    mlp += f * f * s.dim;
    const U128 lookup = U128{s.global_batch} * s.pooling * s.dim * 3 * s.tables * 4;
    if (6 * b * mlp > (U128{1} << 60) || lookup > (U128{1} << 60) ||
        U128{s.rows} * s.dim * s.tables * 4 > (U128{1} << 62)) {
      w.required("model").fail(
          "an op would need more than 2^60 FLOPs or bytes: the model is too large for this "
          "simulator's integer op costs");
    }
    m.finish();
  }
  if (w.has("memory_share")) {
    c.memory_share = w.required("memory_share").as_bytes();
    if (c.memory_share == 0) w.required("memory_share").fail("must be more than 0 bytes");
  }
  c.iterations = w.get_u32("iterations", 1, 1, 10'000);
  if (auto m = w.optional("collectives")) {
    const std::string mode = m->as_enum({"simulate", "replay", "replay-shapes"});
    c.replay_collectives = mode == "replay"          ? collective::Replay::kCommunicator
                           : mode == "replay-shapes" ? collective::Replay::kShape
                                                     : collective::Replay::kNone;
  }
  if (auto a = w.optional("algorithms")) {
    base::MapReader m = a->as_map();
    read_algorithm(m, "all_to_all", c.all_to_all, c.auto_all_to_all);
    read_algorithm(m, "all_reduce", c.all_reduce, c.auto_all_reduce);
    m.finish();
  }
  return c;
}

}  // namespace sipsim::workload::dlrm
