// The parts of a run that come from a scenario file, as plan_run uses them: the scenario with the
// command line's -H headers, its thresholds with the flags', and what it asks for as result.json
// records it (templates, never secret values). Configuration time only; throws UsageError.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "measure/threshold.h"
#include "result/spec_record.h"
#include "workload/scenario.h"
#include "workload/workload.h"

namespace proofload::plan {

// The scenario with the command line's -H headers added to its defaults (a flag's header
// replaces the file's header of the same name).
workload::Scenario with_flag_headers(
    workload::Scenario scenario, const std::vector<std::pair<std::string, std::string>>& headers);

// Why a threshold's or SLO bound's scope (`write` in p99(write)) names nothing `scenario` sends:
// "'wrte' is no request or flow of s.yaml; did you mean 'write'?". "" when the scope is empty or
// names one of its requests or flows. Without a scenario every name is unknown.
std::string unknown_scope(const std::string& scope, const workload::Scenario* scenario);

// The scenario's thresholds (errors carry the file location) followed by the flags'.
std::vector<measure::Threshold> collect_thresholds(const workload::Scenario* scenario,
                                                   const std::vector<std::string>& flags);

// Header names and values for a recorded spec, sensitive values as [redacted].
std::vector<result::SpecHeader> headers_record(
    const std::vector<std::pair<std::string, std::string>>& headers);

// What the scenario asks for, for result.json's spec: requests (method, path template, header
// names and values, sensitive ones redacted), flows, the mix with each entry's share, data
// variables by kind, thresholds.
result::SpecScenario scenario_record(const workload::Scenario& scenario,
                                     const workload::Workload& workload);

}  // namespace proofload::plan
