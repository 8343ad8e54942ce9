#pragma once
// The scenario's `faults:` section (docs/faults.md): what fails, when, and
// until when. A fault names its target by the fabric's own addressing; the
// GPU kinds (a fabric node's accelerator) are the same on every fabric, and
// the interpreter applies them (workload/). This file only reads and checks
// the list: each consumer applies the kinds it models.
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
// kinds it models (the fabric checks their ranges when it builds). A
// `random:` entry expands into faults drawn with `seed` (the run's: the
// same faults on every rank and at every rank count).
std::vector<Fault> read_faults(const base::Value& section, std::uint32_t nodes, pdes::Time end_time,
                               const FaultTargets& fabric = {}, std::uint64_t seed = 1);

// Whether a kind's `factor` is a share of a rate (link, nic): absent, the
// part failed.
bool degradable(FaultKind kind);

// The first GPU failure (kind gpu): the time the job stops, or nullopt.
std::optional<Fault> first_gpu_failure(std::span<const Fault> faults);

// One line per fault for the run summary ("gpu-slowdown gpu 3 at 0.8 from 1 ms").
std::string describe(const Fault& fault);

}  // namespace sipsim::fabric
