#pragma once
// What `run` reports of the scenario's faults (docs/faults.md): the /faults
// table, the failure's /meta attributes and the summary's lines.
#include <optional>
#include <string>
#include <vector>

#include "sipsim/fabric/faults.hpp"
#include "sipsim/output/faults_table.hpp"
#include "sipsim/pdes/time.hpp"

namespace sipsim::app {

// How the run ended with respect to a GPU failure.
struct FaultOutcome {
  std::optional<fabric::Fault> failure;  // the GPU failure that stopped the job, if one did
  pdes::Time last_event = 0;             // the run's last event
};

// One /faults row per fault; `happened` when the run reached its time.
std::vector<output::FaultRow> fault_rows(const std::vector<fabric::Fault>& faults,
                                         const FaultOutcome& outcome);

// The summary's lines: "faults" (each fault) and, after a failure, "outcome".
std::vector<std::pair<std::string, std::string>> fault_summary(
    const std::vector<fabric::Fault>& faults, const FaultOutcome& outcome);

// "failed at 12.5 ms: gpu 3 failed", for /meta@failure and the summary.
std::string failure_text(const fabric::Fault& failure);

}  // namespace sipsim::app
