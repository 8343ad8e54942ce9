// The keys of a `workload: {type: transformer}` section (docs/scenarios.md).
#include <spdlog/fmt/fmt.h>

#include <string>
#include <vector>

#include "sipsim/workload/transformer/transformer.hpp"

namespace sipsim::workload::transformer {

namespace {

__extension__ typedef unsigned __int128 U128;

// Orders of the three axes, innermost first, as `mapping` names them.
const std::vector<std::string>& mapping_names() {
  static const std::vector<std::string> kNames = {"tp-dp-pp", "tp-pp-dp", "dp-tp-pp",
                                                  "dp-pp-tp", "pp-tp-dp", "pp-dp-tp"};
  return kNames;
}

std::array<Axis, 3> parse_mapping(const std::string& name) {
  std::array<Axis, 3> out{};
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string part = name.substr(i * 3, 2);
    out[i] = part == "tp" ? Axis::kTp : part == "dp" ? Axis::kDp : Axis::kPp;
  }
  return out;
}

collective::Algorithm read_algorithm(base::MapReader& m, std::string_view key,
                                     const char* fallback = "ring", bool* is_auto = nullptr) {
  const std::optional<base::Value> v = m.optional(key);
  if (!v) return collective::algorithm(fallback);
  std::vector<std::string> names = collective::algorithm_names();
  if (is_auto) names.insert(names.begin(), "auto");
  const std::string name = v->as_enum(names);
  if (name == "auto") {
    *is_auto = true;
    return collective::algorithm(fallback);
  }
  return *collective::parse_algorithm(name);
}

}  // namespace

const char* schedule_name(Schedule s) {
  return s == Schedule::kGpipe ? "GPipe" : s == Schedule::kOneFOneB ? "1F1B" : "interleaved 1F1B";
}

const char* recompute_name(Recompute r) {
  return r == Recompute::kNone ? "none" : r == Recompute::kSelective ? "selective" : "full";
}

namespace {

// The checks, in order, that keep every op's costs inside this simulator's
// integer types; `m` is the model section.
void check_model_size(base::MapReader& m, const ModelShape& s) {
  // Every op's FLOPs and bytes must stay well inside 64 bits.
  const U128 b = s.micro_batch, sq = s.seq, h = s.hidden;
  const U128 flops =
      2 * b * sq * (4 * h * h + 2 * h * s.ffn) + 4 * b * sq * sq * h + 2 * b * sq * h * s.vocab;
  if (flops > (U128{1} << 60)) {
    m.required("micro_batch")
        .fail(
            "one micro-batch of one layer needs more than 2^60 FLOPs: the model is too "
            "large for this simulator's integer op costs");
  }
  // Parameters (and the optimizer's bytes, 32 per parameter) likewise.
  const U128 params =
      U128{s.layers} * (4 * h * h + 2 * h * s.ffn + 9 * h + s.ffn) + (U128{s.vocab} + sq) * h;
  if (params > (U128{1} << 56)) {
    m.required("layers").fail(
        "the model has more than 2^56 parameters: too large for this "
        "simulator's integer op costs");
  }
}

ModelShape read_model(base::MapReader& w) {
  base::MapReader m = w.required("model").as_map();
  ModelShape s;
  s.layers = m.required("layers").as_u32(1, 100'000);
  s.hidden = m.required("hidden").as_u32(1, 1u << 20);
  s.heads = m.required("heads").as_u32(1, 1u << 16);
  s.ffn = m.has("ffn") ? m.required("ffn").as_u32(1, 1u << 22) : 4 * s.hidden;
  s.seq = m.required("seq").as_u32(1, 1u << 24);
  // 0: no embedding and logit layer, a stack of encoder blocks (RAMP §7.3).
  s.vocab = m.required("vocab").as_u32(0, 1u << 26);
  s.global_batch = m.required("global_batch").as_u32(1, 1u << 26);
  s.micro_batch = m.get_u32("micro_batch", 1, 1, 1u << 20);
  if (auto p = m.optional("precision")) {
    const std::vector<std::string> names = {"fp32", "tf32", "fp16", "bf16", "fp8"};
    const std::string name = p->as_enum(names);
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) s.precision = static_cast<compute::Precision>(i);
    }
  }
  if (s.hidden % s.heads != 0) {
    m.required("heads").fail(fmt::format("must divide hidden ({})", s.hidden));
  }
  check_model_size(m, s);
  m.finish();
  return s;
}

// tp, pp, dp, sequence parallelism and ZeRO, checked against the model.
void read_parallelism(base::MapReader& w, Config& c) {
  base::MapReader m = w.required("parallelism").as_map();
  c.tp = m.get_u32("tp", 1, 1, 1u << 16);
  c.pp = m.get_u32("pp", 1, 1, 1u << 16);
  c.dp = m.get_u32("dp", 1, 1, 1u << 20);
  if (std::uint64_t{c.tp} * c.pp * c.dp > (1u << 24)) {
    m.required("dp").fail("tp x pp x dp must be at most 2^24 GPUs");
  }
  if (c.model.heads % c.tp != 0) {
    m.required("tp").fail(fmt::format("must divide model.heads ({})", c.model.heads));
  }
  if (c.model.ffn % c.tp != 0) {
    m.required("tp").fail(fmt::format("must divide model.ffn ({})", c.model.ffn));
  }
  if (auto v = m.optional("sequence_parallel")) c.sequence_parallel = v->as_bool();
  c.zero = m.get_u32("zero", 0, 0, 3);
  if (c.sequence_parallel && c.model.seq % c.tp != 0) {
    m.required("sequence_parallel")
        .fail(fmt::format("needs tp ({}) to divide model.seq ({})", c.tp, c.model.seq));
  }
  if (c.model.layers % c.pp != 0) {
    m.required("pp").fail(fmt::format("must divide model.layers ({})", c.model.layers));
  }
  if (c.model.global_batch % (std::uint64_t{c.dp} * c.model.micro_batch) != 0) {
    (m.has("dp") ? m.required("dp") : w.required("parallelism"))
        .fail(fmt::format("dp x model.micro_batch ({} x {}) must divide model.global_batch ({})",
                          c.dp, c.model.micro_batch, c.model.global_batch));
  }
  m.finish();
}

// The pipeline schedule and, interleaved, its virtual stages.
void read_schedule(base::MapReader& w, Config& c) {
  if (auto s = w.optional("schedule")) {
    const std::string name = s->as_enum({"gpipe", "1f1b", "interleaved-1f1b"});
    c.schedule = name == "gpipe"  ? Schedule::kGpipe
                 : name == "1f1b" ? Schedule::kOneFOneB
                                  : Schedule::kInterleaved;
  }
  if (auto v = w.optional("virtual_stages")) {
    c.virtual_stages = v->as_u32(1, 1024);
    if (c.schedule != Schedule::kInterleaved) v->fail("needs schedule: interleaved-1f1b");
  }
  if (c.schedule != Schedule::kInterleaved) return;
  const auto here = [&]() { return w.required("schedule"); };
  if (c.pp < 3) {
    here().fail(fmt::format("needs parallelism.pp >= 3 (it is {})", c.pp));
  }
  if (c.micro_batches() % c.pp != 0) {
    here().fail(fmt::format("needs pp ({}) to divide the micro-batches per pipeline ({})", c.pp,
                            c.micro_batches()));
  }
  if (c.model.layers % (std::uint64_t{c.pp} * c.virtual_stages) != 0) {
    (w.has("virtual_stages") ? w.required("virtual_stages") : here())
        .fail(fmt::format("pp x virtual_stages ({} x {}) must divide model.layers ({})", c.pp,
                          c.virtual_stages, c.model.layers));
  }
}

// The `moe` section, checked against the data parallelism and ZeRO.
Moe read_moe(const base::Value& v, const Config& c) {
  base::MapReader m = v.as_map();
  Moe e;
  e.experts = m.required("experts").as_u32(1, 1u << 16);
  e.top_k = m.get_u32("top_k", 1, 1, e.experts);
  e.every = m.get_u32("every", 1, 1, c.model.layers);
  e.ep = m.get_u32("ep", 1, 1, c.dp);
  if (auto f = m.optional("capacity_factor")) {
    const double x = f->as_double();
    if (!(x >= 0.001 && x <= 1000)) f->fail("must be a number from 0.001 to 1000");
    e.capacity_permille = static_cast<std::uint32_t>(x * 1000 + 0.5);
  }
  if (c.dp % e.ep != 0 || e.experts % e.ep != 0) {
    m.required("ep").fail(
        fmt::format("must divide parallelism.dp ({}) and experts ({})", c.dp, e.experts));
  }
  if (c.zero > 0) {
    m.value().fail("ZeRO (parallelism.zero) with MoE is not modelled; use zero: 0");
  }
  m.finish();
  return e;
}

// The `algorithms` section: tp and dp may be `auto`.
void read_algorithms(const base::Value& v, Config& c) {
  base::MapReader m = v.as_map();
  c.groups[kTpGroup].algorithm = read_algorithm(m, "tp", "ring", &c.groups[kTpGroup].automatic);
  c.groups[kDpGroup].algorithm = read_algorithm(m, "dp", "ring", &c.groups[kDpGroup].automatic);
  c.groups[kTpGroup].given = m.has("tp") && !c.groups[kTpGroup].automatic;
  c.groups[kDpGroup].given = m.has("dp") && !c.groups[kDpGroup].automatic;
  c.groups[kEpGroup].algorithm = read_algorithm(m, "ep", "direct");
  m.finish();
}

// Ops of all stage programs: about 12 per layer and micro-batch, 18 with
// full recomputation, 3 more with ZeRO-3, 6 with MoE, 4 with tp_overlap (memory and build time stay
// small: 2^21 ops are about 100 MB).
void check_program_size(base::MapReader& w, const Config& c) {
  const std::uint32_t per_layer = (c.recompute == Recompute::kFull ? 18 : 12) +
                                  (c.zero == 3 ? 3 : 0) + (c.moe.experts > 0 ? 6 : 0) +
                                  (c.tp_overlap ? 4 : 0);
  const std::uint64_t ops = std::uint64_t{c.micro_batches()} * c.model.layers * per_layer;
  if (ops > (1u << 21)) {
    w.required("model").fail(fmt::format(
        "the programs would hold about {} ops (micro-batches per pipeline x layers x {}); at "
        "most 2^21 are allowed",
        ops, per_layer));
  }
}

}  // namespace

Config read_transformer(base::MapReader& w) {
  Config c;
  c.model = read_model(w);
  read_parallelism(w, c);
  read_schedule(w, c);
  if (auto r = w.optional("recompute")) {
    const std::string name = r->as_enum({"none", "selective", "full"});
    c.recompute = name == "none"        ? Recompute::kNone
                  : name == "selective" ? Recompute::kSelective
                                        : Recompute::kFull;
  }
  if (auto v = w.optional("moe")) c.moe = read_moe(*v, c);
  if (auto v = w.optional("memory_check")) c.memory_check = v->as_bool();
  if (auto v = w.optional("dp_overlap")) c.dp_overlap = v->as_bool();
  if (auto v = w.optional("tp_overlap")) c.tp_overlap = v->as_bool();
  if (auto v = w.optional("pp_scatter_gather")) c.pp_scatter_gather = v->as_bool();
  if (auto v = w.optional("dp_bucket_bytes")) {
    c.dp_bucket_bytes = v->as_bytes();
    if (c.dp_bucket_bytes == 0) v->fail("must be at least 1B");
  }
  c.iterations = w.get_u32("iterations", 1, 1, 10'000);
  if (auto m = w.optional("mapping")) c.order = parse_mapping(m->as_enum(mapping_names()));
  if (auto m = w.optional("collectives")) {
    const std::string mode = m->as_enum({"simulate", "replay", "replay-shapes"});
    c.replay_collectives = mode == "replay"          ? collective::Replay::kCommunicator
                           : mode == "replay-shapes" ? collective::Replay::kShape
                                                     : collective::Replay::kNone;
  }
  if (auto a = w.optional("algorithms")) read_algorithms(*a, c);
  check_program_size(w, c);
  return c;
}

}  // namespace sipsim::workload::transformer
