#pragma once
// The keys of a `fabric: {type: ramp}` section (docs/scenarios.md): the
// geometry (x, J, Lambda, b), line rate, subnet kind, slot timing, latencies,
// the physical inputs of RAMP §4.2-4.3 (fabric.physical) and the switches
// permissive, ignore_power_budget and extra_transceivers.
#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/fabric/ramp/physical.hpp"
#include "sipsim/fabric/ramp/transport.hpp"

namespace sipsim::fabric::ramp {

struct RampConfig {
  RampSpec spec;
  // Per-component inputs of the physical models (RAMP §4.2-4.3): fabric.physical.
  RampGeometry geometry;
  OpticalParams optics;
  CostInputs cost;
  PowerInputs power;
  bool ignore_power_budget = false;  // run a configuration whose optical power budget
                                     // fails (RAMP §4.2)
  bool permissive_given = false;     // fabric.permissive was in the scenario
  bool extra_transceivers = true;    // give a ramp-x job's pairs RAMP §6.2.2 eq. 3-4's
                                     // extra transceiver groups (RampSpec::job)
};

// Defaults: the 65,536-node reference point (RAMP §4.2, docs/models.md, "RAMP-x collectives").
// Refuses a geometry that fails the optical power budget (RAMP §4.2) unless ignore_power_budget is
// set; errors are base::ScenarioErrors at the key.
RampConfig read_ramp(base::MapReader& section);

}  // namespace sipsim::fabric::ramp
