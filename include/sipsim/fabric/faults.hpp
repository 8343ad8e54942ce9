#pragma once
// The scenario's `faults:` section (docs/faults.md): what fails, when, and
// until when. A fault names its target by the fabric's own addressing; the
// GPU kinds (a fabric node's accelerator) are the same on every fabric, and
// the interpreter applies them (workload/). This file only reads and checks
// the list: each consumer applies the kinds it models.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/pdes/time.hpp"

namespace sipsim::fabric {

enum class FaultKind : std::uint8_t {
  kTransceiver,
  kLink,
  kSwitch,
  kNic,
  kOcsPort,
  kWavelength,
  kGpu,          // the GPU fails: the job stops
  kGpuSlowdown,  // the GPU computes at `factor` of its speed
};

std::string_view to_string(FaultKind kind);

struct Fault {
  FaultKind kind = FaultKind::kGpu;
  pdes::Time at = 0;
  pdes::Time until = pdes::kTimeMax;  // the repair; kTimeMax: none
  double factor = 0.0;    // the share left: gpu-slowdown's speed, a degraded link's or NIC's rate
                          // (0: failed), in [0, 1)
  std::uint32_t gpu = 0;  // the GPU kinds' target: a fabric node
  std::optional<base::Value> where;  // the fabric kinds' target, read by the fabric
  double removed_bps = 0;     // fabric kinds: the capacity it takes (its share when degraded)
  std::string target;         // the target in words, for the table and messages
  std::string location, key;  // the entry's, for errors found later
};

// What a fabric models of the fabric kinds: which kinds, and the reader of a
// target (its words, or a base::ScenarioError at the offending key).
struct FaultTargets {
  std::vector<FaultKind> kinds;
  std::function<std::string(FaultKind, const base::Value&)> read;
  // For `random:` draws: how many targets of a kind the fabric has (0: it
  // cannot list them), and the i-th as a target map in YAML
  // ("{node: 5, transceiver: 3}"). The GPU kinds need neither.
  std::function<std::uint64_t(FaultKind)> count;
  std::function<std::string(FaultKind, std::uint64_t)> nth;
  // The capacity a target carries when healthy, in bit/s, every direction
  // summed (a link's two, a transceiver's transmit and receive); 0: unknown.
  std::function<std::uint64_t(FaultKind, const base::Value&)> capacity;
};

// Reads the section (a list of entries; empty is a healthy run) and checks
// what needs no fabric: known kinds and keys, `until` after `at`, a factor
// only where it means something. `nodes`: the fabric's, for the GPU kinds'
// targets; `end_time`: simulation.end_time (a fault at or after it is an
// error). Throws base::ScenarioError at the offending key. A kind the fabric
// does not model is refused here too; `fabric` reads the targets of the
// kinds it models (its reader checks them against the fabric). A
// `random:` entry expands into faults drawn with `seed` (the run's: the
// same faults on every rank and at every rank count).
std::vector<Fault> read_faults(const base::Value& section, std::uint32_t nodes, pdes::Time end_time,
                               const FaultTargets& fabric = {}, std::uint64_t seed = 1);

// Whether a kind's `factor` is a share of a rate (link, nic): absent, the
// part failed.
bool degradable(FaultKind kind);

// The first GPU failure (kind gpu): the time the job stops, or nullopt.
std::optional<Fault> first_gpu_failure(std::span<const Fault> faults);

// One line per fault for the run summary ("gpu 3 at 0.8 of its speed from 1ms").
std::string describe(const Fault& fault);

// A target map of one key, {key: i} with 0 <= i < count (a node, a
// wavelength): i, or a base::ScenarioError at the key.
std::uint32_t read_target_index(const base::Value& target, std::string_view key,
                                std::uint32_t count);

// What the fabrics share about their own fault records (anything with `at`
// and `until`): whether one is on at t, and the times at which any begins or
// ends, which a fabric declares as epochs so that its state changes there.
template <class F>
bool active_at(const F& f, pdes::Time t) {
  return f.at <= t && t < f.until;
}
class FaultTimes {
 public:
  FaultTimes() = default;
  template <class F>
  explicit FaultTimes(std::span<const F> faults) {
    for (const F& f : faults) {
      times_.push_back(f.at);
      if (f.until != pdes::kTimeMax) times_.push_back(f.until);
    }
    std::sort(times_.begin(), times_.end());
    times_.erase(std::unique(times_.begin(), times_.end()), times_.end());
  }
  // The first change strictly after `after` (kTimeMax: none).
  pdes::Time next(pdes::Time after) const {
    const auto it = std::upper_bound(times_.begin(), times_.end(), after);
    return it == times_.end() ? pdes::kTimeMax : *it;
  }

 private:
  std::vector<pdes::Time> times_;
};

}  // namespace sipsim::fabric
