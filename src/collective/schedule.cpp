// Collective schedules from closed-form per-member rules (contract: schedule.hpp): the parts
// every algorithm shares. The algorithms themselves are rows of one table (registry.cpp), one
// file per family under algorithms/ and RAMP-x under ramp_x/; registry.hpp is their interface.
#include "sipsim/collective/schedule.hpp"

#include <array>
#include <memory>
#include <sstream>
#include <utility>

#include "registry.hpp"

namespace sipsim::collective {

namespace {

constexpr std::array<std::string_view, 9> kOpNames = {"all-reduce", "reduce-scatter", "all-gather",
                                                      "all-to-all", "broadcast",      "reduce",
                                                      "gather",     "scatter",        "barrier"};

std::vector<detail::Stage> build(const detail::Ctx& c) {
  detail::Stages st;
  detail::row(c.spec.algorithm).build(st, c);
  return std::move(st.list);
}

std::uint64_t chunk_count(const CollectiveSpec& s) {
  if (s.op == Op::kAllToAll) return std::uint64_t{s.p} * s.p;
  return detail::row(s.algorithm).chunks(s);
}

detail::U128 total_bytes(const CollectiveSpec& s) {
  if (s.op == Op::kBarrier) return 0;
  if (s.op == Op::kAllToAll) return detail::U128{s.bytes} * s.p;
  return s.bytes;
}

}  // namespace

struct Schedule::Plan {
  detail::Ctx ctx;
  std::vector<detail::Stage> stages;
  bool even_chunks = false;  // every chunk has the same size
};

// ---------------------------------------------------------------------------------------------
// Names.

std::string_view to_string(Op op) {
  const auto i = static_cast<std::size_t>(op);
  return i < kOpNames.size() ? kOpNames[i] : std::string_view("unknown-op");
}
std::optional<Op> parse_op(std::string_view name) {
  for (std::size_t i = 0; i < kOpNames.size(); ++i) {
    if (kOpNames[i] == name) return static_cast<Op>(i);
  }
  return std::nullopt;
}
std::vector<std::string> op_names() {
  return {kOpNames.begin(), kOpNames.end()};
}

double bus_bandwidth_factor(Op op, std::uint32_t p) {
  if (p == 0) return 0.0;
  const double n = p;
  switch (op) {
    case Op::kAllReduce:
      return 2.0 * (n - 1.0) / n;
    case Op::kReduceScatter:
    case Op::kAllGather:
    case Op::kAllToAll:
    case Op::kGather:
    case Op::kScatter:
      return (n - 1.0) / n;
    case Op::kBroadcast:
    case Op::kReduce:
      return 1.0;
    case Op::kBarrier:
      return 0.0;
  }
  return 0.0;
}

std::size_t levels(const Dims& dims) {
  std::size_t n = 0;
  while (n < dims.size() && dims[n] != 0) ++n;
  return n;
}

// The stream is built only for an error: Schedule checks every spec it is
// given, once per member and collective started.
std::string why_invalid(const CollectiveSpec& spec) {
  const detail::AlgorithmRow* row = detail::find_row(spec.algorithm);
  if (row != nullptr && row->implements(spec.op) && spec.p > 0 && spec.root < spec.p) {
    return row->why_invalid(spec);
  }
  std::ostringstream why;
  if (row == nullptr) {
    why << "unknown algorithm (row " << spec.algorithm.row() << ")";
  } else if (!row->implements(spec.op)) {
    why << "algorithm " << to_string(spec.algorithm) << " does not implement op "
        << to_string(spec.op);
  } else if (spec.p == 0) {
    why << "a collective needs p >= 1 members";
  } else {
    why << "root " << spec.root << " is not a member (p = " << spec.p << ")";
  }
  return why.str();
}

CollectiveSpec make_spec(Op op, Algorithm algorithm, std::uint32_t p, std::uint64_t bytes,
                         std::uint32_t root, const AlgorithmParams& params) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = algorithm;
  s.p = p;
  s.bytes = bytes;
  s.root = root;
  detail::row(algorithm).configure(s, params);
  return s;
}

WireStep wire_step(const Schedule& schedule, std::uint32_t i) {
  WireStep w;
  wire_step_into(schedule, i, w);
  return w;
}

void wire_step_into(const Schedule& schedule, std::uint32_t i, WireStep& w) {
  w.clear();
  const auto fast = detail::row(schedule.spec().algorithm).wire_step;
  if (fast != nullptr && fast(schedule, i, w)) return;
  w.clear();  // a closed form that does not apply may have started
  const Step step = schedule.step(i);
  w.out = outgoing(step);
  w.in = incoming(step);
  w.multicast = step.multicast;
  w.local = step.local;
  w.sources = step.sources;
  w.local_bytes = step.local_bytes;
}

// ---------------------------------------------------------------------------------------------
// Schedule.

Schedule::Schedule(const CollectiveSpec& spec, std::uint32_t member)
    : spec_(spec), member_(member) {
  std::string why = why_invalid(spec);
  if (why.empty() && member >= spec.p) {
    std::ostringstream s;
    s << "member " << member << " is not below p = " << spec.p;
    why = s.str();
  }
  if (!why.empty()) throw InvalidCollective(why);
  chunks_ = chunk_count(spec);
  auto plan = std::make_shared<Plan>();
  plan->ctx =
      detail::Ctx{spec, spec.p, member, chunks_, detail::ByteMap(total_bytes(spec), chunks_)};
  plan->stages = build(plan->ctx);
  plan->even_chunks = total_bytes(spec) % chunks_ == 0;
  std::uint64_t steps = 0;
  for (const detail::Stage& s : plan->stages) steps += s.steps;
  steps_ = detail::u32(steps);
  plan_ = std::move(plan);
}

std::uint64_t Schedule::chunk_bytes(std::uint64_t c) const {
  return plan_->ctx.map.chunk(c);
}

Step Schedule::step(std::uint32_t i) const {
  if (i >= steps_) {
    std::ostringstream s;
    s << "step " << i << " of a " << steps_ << "-step schedule";
    throw std::out_of_range(s.str());
  }
  Step out;
  for (const detail::Stage& s : plan_->stages) {
    if (i < s.steps) {
      s.emit(i, out);
      break;
    }
    i -= s.steps;
  }
  return out;
}

std::vector<Schedule::Run> Schedule::runs() const {
  std::vector<Run> out;
  std::uint32_t first = 0;
  for (const detail::Stage& s : plan_->stages) {
    if (s.uniform && plan_->even_chunks) {
      out.push_back({first, s.steps});
    } else {
      for (std::uint32_t i = 0; i < s.steps; ++i) out.push_back({first + i, 1});
    }
    first += s.steps;
  }
  return out;
}

}  // namespace sipsim::collective
