// How `proofload run` and `ladder` take their target: a URL, or a scenario file whose executor
// settings fill the flags the user did not give (flags win). The rest of what a scenario means
// for a run is plan/scenario_parts.h. Configuration time only; throws UsageError.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/run_flags.h"
#include "workload/scenario.h"

namespace proofload::cli {

// Whether the user gave a flag on the command line ("--rate", "-c", ...).
using FlagGiven = std::function<bool(const std::string& flag)>;

// Whether a flag of `app` was given; a name `app` does not define was not (a scenario setting
// that the command has no flag for, such as `ladder`'s --rate).
FlagGiven flags_given(CLI::App* app);

// `TARGET [URL]` of `run` and `ladder`: a URL, or a scenario file and optionally the URL that
// replaces its target; or none, when --target names the URL (flags.targets: the first becomes
// flags.url, the rest stay as further targets). Loads the scenario (its settings fill the flags
// not given) and sets flags.url. Throws UsageError (a second URL after a URL, no URL, a bad file).
std::optional<workload::Scenario> take_target(const std::vector<std::string>& targets,
                                              RunFlags& flags, const FlagGiven& given,
                                              const std::string& command);

// Copies the scenario's run settings (Scenario::settings) into the flags the user did not give.
void merge_scenario_settings(RunFlags& flags, const workload::Scenario& scenario,
                             const FlagGiven& given);

}  // namespace proofload::cli
