#pragma once
// PHOLD's scenario keys (docs/scenarios.md, `type: phold`), read next to the
// model so that a new key touches only this folder.
#include "sipsim/base/yaml_reader.hpp"
#include "sipsim/pdes/models/phold.hpp"

namespace sipsim::pdes::models {

// Reads the keys of a `workload: {type: phold, ...}` section (all but `type`,
// which the caller has read). Throws base::ScenarioError naming the key.
PholdConfig read_phold(base::MapReader& section);

}  // namespace sipsim::pdes::models
