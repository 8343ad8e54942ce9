// The `faults:` section (docs/faults.md): read, checked, described.
#include "sipsim/fabric/faults.hpp"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <array>

#include "sipsim/base/units.hpp"

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

// One entry of the list; `nodes` bounds the GPU targets.
Fault read_entry(const base::Value& item, std::uint32_t nodes, pdes::Time end_time,
                 const FaultTargets& fabric) {
  const std::span<const FaultKind> modelled = fabric.kinds;
  base::MapReader m = item.as_map();
  Fault f;
  f.location = item.location();
  f.key = item.path();
  const base::Value kind = m.required("kind");
  const std::string name = kind.as_enum(std::vector<std::string>(kNames.begin(), kNames.end()));
  f.kind = static_cast<FaultKind>(std::find(kNames.begin(), kNames.end(), name) - kNames.begin());
  if (!gpu_kind(f.kind) && std::find(modelled.begin(), modelled.end(), f.kind) == modelled.end()) {
    kind.fail(fmt::format("faults of kind '{}' are not modelled on this fabric (modelled here: {})",
                          name, modelled_names(modelled)));
  }
  const base::Value at = m.required("at");
  f.at = at.as_time_ps();
  if (f.at >= end_time) {
    at.fail(fmt::format("is at or after simulation.end_time ({}): the fault would never happen",
                        base::format_time_ps(end_time)));
  }
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
  read_factor(m, f);
  const base::Value target = m.required("target");
  if (!gpu_kind(f.kind)) {
    f.target = fabric.read(f.kind, target);
    f.where = target;
    m.finish();
    return f;
  }
  base::MapReader t = target.as_map();
  const base::Value gpu = t.required("gpu");
  if (nodes == 0) gpu.fail("GPU faults need a fabric: section");
  f.gpu = gpu.as_u32(0, nodes - 1);
  f.target = fmt::format("gpu {}", f.gpu);
  t.finish();
  m.finish();
  return f;
}

bool same_target(const Fault& a, const Fault& b) {
  const bool a_gpu = gpu_kind(a.kind), b_gpu = gpu_kind(b.kind);
  if (a_gpu || b_gpu) return a_gpu && b_gpu && a.gpu == b.gpu;
  return a.kind == b.kind && a.target == b.target;
}

}  // namespace

std::string_view to_string(FaultKind kind) {
  return kNames[static_cast<std::size_t>(kind)];
}

bool degradable(FaultKind kind) {
  return kind == FaultKind::kLink || kind == FaultKind::kNic;
}

std::vector<Fault> read_faults(const base::Value& section, std::uint32_t nodes, pdes::Time end_time,
                               const FaultTargets& fabric) {
  std::vector<Fault> out;
  const std::vector<base::Value> items = section.as_list();
  for (std::size_t i = 0; i < items.size(); ++i) {
    Fault f = read_entry(items[i], nodes, end_time, fabric);
    // Two faults of one target may not overlap in time: a GPU fails or slows
    // down once at a time, a part fails once until its repair.
    for (std::size_t j = 0; j < out.size(); ++j) {
      const Fault& g = out[j];
      if (same_target(f, g) && f.at < g.until && g.at < f.until) {
        items[i].fail(
            fmt::format("overlaps fault {} ({} of {} from {}): one fault per target at "
                        "a time",
                        j, to_string(g.kind), g.target, base::format_time_ps(g.at)));
      }
    }
    out.push_back(std::move(f));
  }
  return out;
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
