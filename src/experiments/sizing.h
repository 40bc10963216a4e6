// `proofload sizing`: which shape carries most? The same ladder (or rate search) over several
// configurations of the service. Before each, an apply hook puts the configuration in place (its
// name and parts in the environment) and a ready gate waits until the service answers; then the
// ladder runs as an ordinary ladder in configs/NN-NAME/. A restore hook runs once at the end, on
// every exit path (an error, an abort, Ctrl-C, SIGTERM). The sizing's result.json and summary.md
// are rewritten after every configuration.
// Runs on the caller's thread; one sizing per process (it owns SIGINT/SIGTERM while it runs).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "experiments/ladder.h"
#include "result/sizing_result.h"

namespace proofload::experiments {

// One configuration, from its name. "2x500m/1Gi" is N instances x CPU limit each / memory limit
// each: CPU in cores ("0.5", "2") or millicores ("500m"), memory in bytes or with a Kubernetes
// unit (Ki, Mi, Gi, Ti; k, M, G, T). Any other name is free-form: its parts are unknown.
struct SizingConfig {
  std::string name;  // as given
  std::string slug;  // for file names: every character but [A-Za-z0-9._-] made '-'
  std::optional<int> instances;
  std::optional<double> cpu_per_instance;  // cores
  std::string cpu_text;                    // "500m", as written
  std::optional<int64_t> memory_per_instance_bytes;
  std::string memory_text;      // "1Gi", as written
  std::optional<double> cores;  // of limit in all: instances × CPU, or given (--cores NAME=N)
  std::string cores_basis;      // "the name", "--cores"; "" when not known
};

// Parses a name (never fails for a free-form one; throws UsageError for an empty name or one with
// a comma, quote or control character, which no hook could take safely).
SizingConfig parse_sizing_config(const std::string& name);

// "--configs A,B,C" with the "--cores NAME=N" given; throws UsageError (a repeated name, a
// --cores for no config, N not above 0).
std::vector<SizingConfig> parse_sizing_configs(const std::string& list,
                                               const std::vector<std::string>& cores_given);

// The hooks' environment for a configuration: PROOFLOAD_CONFIG (the name),
// PROOFLOAD_CONFIG_SLUG, PROOFLOAD_CONFIG_INDEX (from 1) and, when known, PROOFLOAD_INSTANCES,
// PROOFLOAD_CPU (cores per instance), PROOFLOAD_CPU_MILLI, PROOFLOAD_MEMORY (as written),
// PROOFLOAD_MEMORY_BYTES, PROOFLOAD_CORES (in all).
std::vector<std::pair<std::string, std::string>> config_env(const SizingConfig& config, int index);

// `text` with ${PROOFLOAD_CONFIG} and the other variables of config_env replaced (an --observe
// spec, a target URL): each is resolved again after its configuration's apply.
std::string substitute_config(const std::string& text,
                              const std::vector<std::pair<std::string, std::string>>& env);

// A configuration's --observe specs: its variables replaced (substitute_config), and each spec
// that names ${INSTANCE} made one per instance, ${INSTANCE} = 0 to N-1 (N from the name, 1 when
// the name does not say), so every instance a shape has is observed, its CPU added, and none it
// lacks is asked for.
std::vector<std::string> config_observers(
    const std::vector<std::string>& specs, const SizingConfig& config,
    const std::vector<std::pair<std::string, std::string>>& env);

struct SizingPlan {
  std::vector<SizingConfig> configs;
  // Each configuration's ladder: its out_dir, observers and targets are set per configuration;
  // its own restore is never set (the sizing's restore runs once, at the very end).
  LadderPlan ladder;
  std::optional<std::string> apply;  // before each configuration
  bool fail_if_none = false;  // exit 99 when no configuration had a level within the SLO
  // Its directory, command line, live outputs (which each configuration's ladder feeds) and
  // guards: the ready gate after each apply (guards.drain_until: URL (2xx) or command (exit 0)),
  // and the hooks' restore (once at the end, on every exit path) and timeout.
  ExperimentContext context;
  result::SizingSettings settings;  // as result.json records them
};

// `--plan`: every apply, level and restore in order, and the total time. Sends nothing.
std::string describe_sizing_plan(const SizingPlan& plan);

// "configs/01-2x500m-1Gi": a configuration's ladder directory, relative to the sizing's.
std::string config_directory(const SizingConfig& config, int index);

// The file the apply hook may write the configuration's target URLs to, one a line (its path is
// in PROOFLOAD_TARGETS_FILE): when it does, they replace the command's targets for that
// configuration (several instances on their own ports, for instance).
inline constexpr const char* kTargetsFile = "targets.txt";

struct SizingOutcome {
  result::SizingResult result;  // as written to out_dir/result.json
  // 0 complete; 1 failed (a hook, the ready gate, a ladder that could not run); 99 with
  // --fail-if-none when no configuration met the SLO; 130 interrupted.
  int exit_code = 0;
};

SizingOutcome run_sizing(const SizingPlan& plan);

}  // namespace proofload::experiments
