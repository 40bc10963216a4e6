// How `proofload run` takes a scenario file: its executor settings fill the flags the user did not
// give (flags win), its requests compile into the workload, its thresholds join the --threshold
// flags, and what it asks for is recorded in the spec (templates, never secret values).
// Configuration time only; throws UsageError.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analyze/threshold.h"
#include "cli/run_flags.h"
#include "http/url.h"
#include "workload/scenario.h"
#include "workload/workload.h"

namespace proofload::cli {

// Whether the user gave a flag on the command line ("--rate", "-c", ...).
using FlagGiven = std::function<bool(const std::string& flag)>;

// `TARGET [URL]` of `run` and `ladder`: a URL, or a scenario file and optionally the URL that
// replaces its target. Loads the scenario (its settings fill the flags not given) and sets
// flags.url. Throws UsageError (a second URL after a URL, a bad file).
std::optional<workload::Scenario> take_target(const std::vector<std::string>& targets,
                                              RunFlags& flags, const FlagGiven& given,
                                              const std::string& command);

// Copies the scenario's executor settings into the flags the user did not give.
void merge_scenario_settings(RunFlags& flags, const workload::Scenario& scenario,
                             const FlagGiven& given);

// The scenario with the command line's -H headers added to its defaults (a flag's header
// replaces the file's header of the same name).
workload::Scenario with_flag_headers(workload::Scenario scenario,
                                     const std::vector<std::pair<std::string, std::string>>& headers);

// The scenario's thresholds (errors carry the file location) followed by the flags'.
std::vector<analyze::Threshold> collect_thresholds(const workload::Scenario* scenario,
                                                   const std::vector<std::string>& flags);

// What the scenario asks for, for result.json's spec: requests (method, path template, header
// names and values, sensitive ones redacted), flows, the mix with each entry's share, data
// variables by kind, thresholds.
nlohmann::json scenario_spec_json(const workload::Scenario& scenario,
                                  const workload::Workload& workload);

}  // namespace proofload::cli
