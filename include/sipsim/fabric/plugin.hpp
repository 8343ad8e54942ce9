#pragma once
// The fabric plug-in interface: what the rest of the simulator knows of a
// fabric family besides its Network. Each family implements it in
// fabric/<family>/plugin.cpp, one class per `fabric: type`, and exports a
// reader that setup/'s table lists in one line. The facts below are all a
// workload's mapping (workload/mapping/) needs to place a job on the fabric.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/faults.hpp"
#include "sipsim/fabric/network.hpp"
#include "sipsim/fabric/ramp/placement.hpp"

namespace sipsim::fabric {

// Where a group of p nodes sits in the fabric's structure, for the
// hierarchical collective algorithms. Empty: nothing known (the mapping then
// takes the most square split).
struct GroupShape {
  std::vector<std::uint32_t> torus;   // the 2D torus's {X, Y}
  std::vector<std::uint32_t> levels;  // the hierarchy's levels, innermost first
};

// What a fabric tells the mapping about itself.
struct Facts {
  // A fabric of direct circuits whose nodes each reach a limited number of
  // peers at once (SiP-OCS: Q circuits; SiP-Ring: its degree, from the power
  // budget, SiP-ML §5): that number, which a training job's mapping must
  // respect (SiP-ML §3.2). nullopt: no limit.
  std::optional<std::uint32_t> degree_limit;
  // The nodes sit in order on a ring on which a path of h hops occupies h
  // segments (SiP-Ring): groups are laid out folded, so that their own
  // rings' neighbours stay within 2 hops (SiP-ML §5). false: order is free.
  bool ring_order = false;
  // The fabric places jobs on sub-boxes of its geometry itself (RAMP §6.3).
  std::optional<ramp::SubBoxes> sub_boxes;
};

// What the job mapped onto the fabric asks of it, before build().
struct Service {
  // The job runs several collectives at once (training): RAMP-x keeps the
  // optical rules within one collective's step, not between concurrent
  // ones, so RAMP serialises a transfer that would break them and counts it
  // (fabric.permissive), unless the scenario set permissive itself.
  bool concurrent_collectives = false;
  // The placed job is the only one, its collectives run the fabric's own
  // algorithm: its transcoder gives the job's pairs the extra transceiver
  // groups that are safe for its sub-box (RAMP §6.2.2 eq. 3-4) and for its
  // innermost groups' (RampSpec::inner).
  std::optional<ramp::RampShape> job;
  std::optional<std::array<std::uint32_t, 4>> inner;
};

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view type() const = 0;
  virtual std::uint32_t nodes() const = 0;
  // The slowest rate any message's data may flow at (the slowest link, port
  // or transceiver slot): the bound on a collective's simulated time.
  virtual std::uint64_t slowest_rate_bps() const = 0;
  // Throws std::invalid_argument for parameters only the model can refuse
  // (none from a section its reader accepted).
  virtual std::unique_ptr<Network> build() const = 0;
  // Extra text for `sipsim info` (RAMP's power budget, power and cost), or "".
  virtual std::string physical_report() const { return ""; }

  virtual Facts facts() const { return {}; }
  // A group of p nodes, consecutive from a multiple of p when `contiguous`.
  virtual GroupShape group_shape(std::uint32_t /*p*/, bool /*contiguous*/) const { return {}; }
  virtual void serve(const Service& /*service*/) {}

  // Faults (docs/faults.md): the fabric kinds this fabric models and the
  // reader of their targets; then, before build(), the faults of those kinds
  // to apply. The default models none.
  virtual FaultTargets fault_targets() const { return {}; }
  virtual void set_faults(std::vector<Fault> /*faults*/) {}
};

// A fabric family's reader of one `fabric: type` section (the keys after
// `type`), for setup/'s table.
using PluginReader = std::unique_ptr<Plugin> (*)(base::MapReader& section);

}  // namespace sipsim::fabric
