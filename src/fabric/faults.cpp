// The `faults:` section (docs/faults.md): read, checked, described.
#include "sipsim/fabric/faults.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <unordered_map>

#include "sipsim/base/units.hpp"
#include "sipsim/pdes/random.hpp"

namespace sipsim::fabric {

namespace {

constexpr std::array<std::string_view, 8> kNames{
    "transceiver", "link", "switch", "nic", "ocs-port", "wavelength", "gpu", "gpu-slowdown"};

bool gpu_kind(FaultKind kind) {
  return kind == FaultKind::kGpu || kind == FaultKind::kGpuSlowdown;
}

std::string modelled_names(std::span<const FaultKind> modelled) {
  std::string out = "gpu, gpu-slowdown";
  for (const FaultKind k : modelled) out += fmt::format(", {}", to_string(k));
  return out;
}

// `factor`: required for a slowdown, optional for a degradable kind (the
// rate left; absent: failed), refused for the others.
void read_factor(base::MapReader& m, Fault& f) {
  if (f.kind == FaultKind::kGpuSlowdown) {
    const base::Value factor = m.required("factor");
    f.factor = factor.as_double();
    if (!(f.factor > 0.0 && f.factor < 1.0)) {
      factor.fail("must be between 0 and 1, excluded: the GPU's speed left (0.8: 80%)");
    }
  } else if (auto factor = m.optional("factor")) {
    if (!degradable(f.kind)) {
      factor->fail("only a gpu-slowdown, a link or a nic has a factor");
    }
    f.factor = factor->as_double();
    if (!(f.factor > 0.0 && f.factor < 1.0)) {
      factor->fail(
          "must be between 0 and 1, excluded: the rate left (0.5: half); leave it "
          "out for a failure");
    }
  }
}

// The entry's kind, refused if the fabric does not model it.
FaultKind read_kind(base::MapReader& m, const FaultTargets& fabric) {
  const base::Value kind = m.required("kind");
  const std::string name = kind.as_enum(std::vector<std::string>(kNames.begin(), kNames.end()));
  const auto k =
      static_cast<FaultKind>(std::find(kNames.begin(), kNames.end(), name) - kNames.begin());
  const std::span<const FaultKind> modelled = fabric.kinds;
  if (!gpu_kind(k) && std::find(modelled.begin(), modelled.end(), k) == modelled.end()) {
    kind.fail(fmt::format("faults of kind '{}' are not modelled on this fabric (modelled here: {})",
                          name, modelled_names(modelled)));
  }
  return k;
}

// `at`, before simulation.end_time.
pdes::Time read_at(base::MapReader& m, std::string_view key, pdes::Time end_time, bool required) {
  const std::optional<base::Value> at = required ? m.required(key) : m.optional(key);
  if (!at) return 0;
  const pdes::Time t = at->as_time_ps();
  if (t >= end_time) {
    at->fail(fmt::format("is at or after simulation.end_time ({}): the fault would never happen",
                         base::format_time_ps(end_time)));
  }
  return t;
}

// `until` after `at`; none for a GPU failure.
void read_until(base::MapReader& m, Fault& f) {
  if (auto until = m.optional("until")) {
    if (f.kind == FaultKind::kGpu) {
      until->fail("a failed GPU stops the job, so it has no repair: remove 'until'");
    }
    f.until = until->as_time_ps();
    if (f.until <= f.at) {
      until->fail(fmt::format("the repair must come after the failure (at {})",
                              base::format_time_ps(f.at)));
    }
  }
}

// The target: the GPU kinds' {gpu: N}, or the fabric's reader's.
void read_target(const base::Value& target, std::uint32_t nodes, const FaultTargets& fabric,
                 Fault& f) {
  if (!gpu_kind(f.kind)) {
    f.target = fabric.read(f.kind, target);
    f.where = target;
    if (fabric.capacity) {
      f.removed_bps = static_cast<double>(fabric.capacity(f.kind, target)) * (1.0 - f.factor);
    }
    return;
  }
  base::MapReader t = target.as_map();
  const base::Value gpu = t.required("gpu");
  if (nodes == 0) gpu.fail("GPU faults need a fabric: section");
  f.gpu = gpu.as_u32(0, nodes - 1);
  f.target = fmt::format("gpu {}", f.gpu);
  t.finish();
}

// One entry of the list; `nodes` bounds the GPU targets.
Fault read_entry(const base::Value& item, std::uint32_t nodes, pdes::Time end_time,
                 const FaultTargets& fabric) {
  base::MapReader m = item.as_map();
  Fault f;
  f.location = item.location();
  f.key = item.path();
  f.kind = read_kind(m, fabric);
  f.at = read_at(m, "at", end_time, true);
  read_until(m, f);
  read_factor(m, f);
  read_target(m.required("target"), nodes, fabric, f);
  m.finish();
  return f;
}

// The stream of `random:` draws: the run's seed, a key of its own (no LP has
// it), one stream per entry of the list.
constexpr std::uint32_t kFaultStreamLp = 0xFFFFFFF0u;
constexpr std::uint64_t kMaxDrawn = 100'000;

// A `random:` entry: `fraction` of the kind's targets, drawn without
// replacement, failed from `at` (until `until`); or, with `mtbf`, every
// target failing as a Poisson process of that mean time between failures
// over [0, over), each failure repaired `repair` later (a GPU's first ends
// the job). Drawn as one process over all targets (rate count / mtbf), a
// draw that hits a target still failed skipped.
std::vector<Fault> read_random(const base::Value& item, std::uint32_t nodes, pdes::Time end_time,
                               const FaultTargets& fabric, std::uint64_t seed,
                               std::uint32_t index) {
  base::MapReader m = item.as_map();
  Fault f;
  f.location = item.location();
  f.key = item.path();
  f.kind = read_kind(m, fabric);
  const std::uint64_t count = gpu_kind(f.kind) ? nodes : fabric.count ? fabric.count(f.kind) : 0;
  if (count == 0) {
    m.required("kind").fail(
        fmt::format("this fabric cannot list its {} targets for random draws", to_string(f.kind)));
  }
  read_factor(m, f);
  const auto target_of = [&](std::uint64_t i) {
    const std::string text =
        gpu_kind(f.kind) ? fmt::format("{{gpu: {}}}", i) : fabric.nth(f.kind, i);
    const base::Document doc = base::Document::load_string(text, f.key);
    Fault g = f;
    read_target(doc.root(), nodes, fabric, g);
    return g;
  };
  pdes::RandomStream rng(seed, kFaultStreamLp, index);
  std::vector<Fault> out;
  if (auto fraction = m.optional("fraction")) {
    const double x = fraction->as_double();
    if (!(x > 0 && x <= 1)) fraction->fail("must be in (0, 1]: the share of the targets that fail");
    f.at = read_at(m, "at", end_time, false);
    read_until(m, f);
    const auto k = static_cast<std::uint64_t>(std::llround(x * static_cast<double>(count)));
    if (k > kMaxDrawn) fraction->fail(fmt::format("draws {} faults, more than {}", k, kMaxDrawn));
    // Floyd's sampling: k distinct targets of count.
    std::set<std::uint64_t> chosen;
    for (std::uint64_t j = count - k; j < count; ++j) {
      const std::uint64_t t = rng.below(j + 1);
      chosen.insert(chosen.contains(t) ? j : t);
    }
    for (const std::uint64_t i : chosen) out.push_back(target_of(i));
  } else {
    const base::Value mtbf_value = m.required("mtbf");
    const pdes::Time mtbf = mtbf_value.as_time_ps();
    if (mtbf == 0) mtbf_value.fail("must be greater than 0");
    pdes::Time repair = pdes::kTimeMax;
    if (f.kind != FaultKind::kGpu) {
      const base::Value r = m.required("repair");
      repair = r.as_time_ps();
      if (repair == 0) r.fail("must be greater than 0");
    }
    const std::optional<base::Value> over_value = m.optional("over");
    if (!over_value && end_time == pdes::kTimeMax) {
      m.required("over").fail("needs a horizon: `over` or simulation.end_time");
    }
    const pdes::Time horizon = std::min(over_value ? over_value->as_time_ps() : end_time, end_time);
    // Refused before drawing when the expected count is past the limit.
    const double expected =
        static_cast<double>(count) * static_cast<double>(horizon) / static_cast<double>(mtbf);
    if (expected > static_cast<double>(kMaxDrawn)) {
      mtbf_value.fail(fmt::format("draws about {:.3g} faults over the horizon, more than {}",
                                  expected, kMaxDrawn));
    }
    std::unordered_map<std::uint64_t, pdes::Time> failed_until;
    const double mean = static_cast<double>(mtbf) / static_cast<double>(count);
    for (double t = 0;;) {
      t += rng.exponential(mean);
      if (t >= static_cast<double>(horizon)) break;
      const std::uint64_t i = rng.below(count);
      const auto at = static_cast<pdes::Time>(t);
      auto [it, fresh] = failed_until.try_emplace(i, 0);
      if (!fresh && it->second > at) continue;  // still failed: no second failure
      it->second = repair == pdes::kTimeMax ? pdes::kTimeMax : pdes::saturating_add(at, repair);
      Fault g = target_of(i);
      g.at = at;
      g.until = repair == pdes::kTimeMax ? pdes::kTimeMax : it->second;
      out.push_back(std::move(g));
      if (out.size() > kMaxDrawn)
        mtbf_value.fail(fmt::format("draws more than {} faults", kMaxDrawn));
    }
  }
  m.finish();
  return out;
}

}  // namespace

std::string_view to_string(FaultKind kind) {
  return kNames[static_cast<std::size_t>(kind)];
}

bool degradable(FaultKind kind) {
  return kind == FaultKind::kLink || kind == FaultKind::kNic;
}

std::vector<Fault> read_faults(const base::Value& section, std::uint32_t nodes, pdes::Time end_time,
                               const FaultTargets& fabric, std::uint64_t seed) {
  std::vector<Fault> out;
  const std::vector<base::Value> items = section.as_list();
  // Per target, the faults on it so far: two of one target may not overlap
  // in time (a GPU fails or slows down once at a time, a part fails once
  // until its repair).
  std::unordered_map<std::string, std::vector<std::size_t>> on_target;
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::vector<Fault> entry;
    if (items[i].is_map() && items[i].as_map().has("random")) {
      base::MapReader m = items[i].as_map();
      entry = read_random(m.required("random"), nodes, end_time, fabric, seed,
                          static_cast<std::uint32_t>(i));
      m.finish();
    } else {
      entry.push_back(read_entry(items[i], nodes, end_time, fabric));
    }
    for (Fault& f : entry) {
      const std::string key =
          gpu_kind(f.kind) ? f.target : fmt::format("{} {}", to_string(f.kind), f.target);
      std::vector<std::size_t>& same = on_target[key];
      for (const std::size_t j : same) {
        const Fault& g = out[j];
        if (f.at < g.until && g.at < f.until) {
          items[i].fail(
              fmt::format("overlaps fault {} ({} of {} from {}): one fault per target at "
                          "a time",
                          j, to_string(g.kind), g.target, base::format_time_ps(g.at)));
        }
      }
      same.push_back(out.size());
      out.push_back(std::move(f));
    }
  }
  return out;
}

std::uint32_t read_target_index(const base::Value& target, std::string_view key,
                                std::uint32_t count) {
  base::MapReader m = target.as_map();
  const std::uint32_t i = m.required(key).as_u32(0, count - 1);
  m.finish();
  return i;
}

std::optional<Fault> first_gpu_failure(std::span<const Fault> faults) {
  std::optional<Fault> first;
  for (const Fault& f : faults) {
    if (f.kind == FaultKind::kGpu && (!first || f.at < first->at)) first = f;
  }
  return first;
}

std::string describe(const Fault& f) {
  std::string out;
  if (f.kind == FaultKind::kGpu) {
    out = fmt::format("{} fails", f.target);
  } else if (f.factor > 0) {
    out = fmt::format("{} at {:g} of its {}", f.target, f.factor,
                      f.kind == FaultKind::kGpuSlowdown ? "speed" : "rate");
  } else {
    out = fmt::format("{} down", f.target);
  }
  out +=
      fmt::format(" {} {}", f.kind == FaultKind::kGpu ? "at" : "from", base::format_time_ps(f.at));
  if (f.until != pdes::kTimeMax) out += fmt::format(" until {}", base::format_time_ps(f.until));
  return out;
}

}  // namespace sipsim::fabric
