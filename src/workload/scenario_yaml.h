// Scenario files: YAML text in, a validated Scenario out (the format is in docs/scenario.md).
// Configuration-time only: every mistake is a UsageError with one line
// "FILE:LINE:COLUMN: message". Stateless; safe to call from any thread.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "workload/scenario.h"

namespace proofload::workload {

// Parses scenario text. `file_name` labels messages and becomes Scenario::file; relative paths
// of data files are resolved against `base_dir` (they are read now, so an unreadable file is an
// error here). Secrets (${env:NAME}, ${file:PATH}) are kept as references, never read.
//
// Rejects: YAML syntax errors; unknown keys (naming the nearest allowed one); wrong types; bad
// durations, rates and counts; checks, extractions and thresholds their own parsers reject;
// malformed template references; names that name nothing (with the nearest name); and any
// ${variable} that is not set where it is used (see docs/scenario.md, "Variables").
//
// When the file has no `mix`, Scenario::mix is filled with what it implies: every flow and
// every request that is not a step of a flow, each with weight 1.
Scenario parse_scenario_yaml(std::string_view text, std::string_view file_name,
                             const std::filesystem::path& base_dir);

// Reads a file ("cannot read scenario file 'x': reason" when it cannot be read) and parses it
// with base_dir = the file's directory.
Scenario load_scenario_file(const std::string& path);

}  // namespace proofload::workload
