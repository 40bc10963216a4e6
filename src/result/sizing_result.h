// A sizing's result.json (schema proofload.sizing/v1, kind "sizing"; docs/result-schema.md
// "Sizing") as one typed value, SizingResult, with its paired to_json and from_json: `proofload
// sizing` writes it, `proofload report` and the sizing's summary.md read it. Each configuration's
// ladder is an ordinary ladder directory (configs/NN-NAME/) beside it; what a script reads of it
// is here, in sizing.configs[]: each shape's best sustained, per core, peak, knee, throttling,
// memory and whether the generator was busy.
//
// Reading follows ladder_result.h: a missing or null optional key is "not recorded"; a missing
// required key or a value of the wrong type throws std::runtime_error naming the key. Pure.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "result/experiment_record.h"

namespace proofload::result {

constexpr const char* kSizingSchema = "proofload.sizing/v1";

// sizing.configs[]: one configuration and what its ladder showed.
struct SizingConfigRecord {
  std::string name;       // as given: "2x500m/1Gi", or a free-form name
  std::string directory;  // its ladder's directory, relative: "configs/01-2x500m-1Gi"
  std::string status;     // its ladder's: "complete", "failed", "interrupted", ...; "" not run
  std::string end_reason;
  // From an NxCPU/MEM name: instances, CPU limit per instance (cores), memory limit per instance.
  std::optional<int64_t> instances;
  std::optional<double> cpu_per_instance;
  std::optional<int64_t> memory_per_instance_bytes;
  // Cores of limit in all (instances × CPU, or --cores NAME=N); none: not known.
  std::optional<double> cores;
  std::string cores_basis;                   // "the name", "--cores"; "" when not known
  std::vector<std::string> targets;          // the URLs its ladder ran against
  std::optional<double> best_sustained_rps;  // goodput at the best level within the SLO
  std::optional<double> best_level;          // that level (connections or rate)
  std::optional<double> per_core_rps;        // best sustained / cores
  std::optional<double> peak_rps;            // the most goodput at a level whose errors met the SLO
  std::optional<double> knee_level;          // the ladder's knee (none: it did not buckle)
  std::optional<double> throttled_share;     // highest share of CFS periods throttled, any level
  std::optional<double> server_cores_max;    // highest mean server CPU use of a level, cores
  std::optional<double> best_p95_ms;         // p95 latency at the best sustained level
  // Instances whose CPU was observed (and added) at the level that observed most; nullopt when
  // no server CPU was. Fewer than `instances`: cores used and CPU per request cover only them.
  std::optional<int64_t> cpu_instances_observed;
  // The host's CPU was saturated (kHostSaturatedShare of all its cores busy) at a level: there
  // the generator and the instances, sharing it, may have been held back by the host.
  bool host_saturated = false;
  std::optional<double> memory_peak_bytes;   // highest memory (cgroup peak, or RSS) observed
  bool generator_busy = false;               // the generator used ≥ 80% of its cores at a level
  std::optional<double> noise_floor;         // the ladder's noise floor (share of throughput)
  std::string noise_floor_source;            // "stated", "measured", "default"
};

// --ready-timeout's default: the command's, and what a file that does not say is read as.
constexpr double kDefaultReadyTimeoutS = 120;

// settings: how the sizing was asked to run.
struct SizingSettings {
  std::optional<std::string> apply, restore, ready_until;
  double ready_timeout_s = kDefaultReadyTimeoutS;
  double hook_timeout_s = 60;
  std::string loop;  // the ladders' loop: "closed" or "open"
  std::vector<double> levels;
  bool search = false;
  double hold_s = 0, warmup_s = 0;
  std::string slo;
  std::vector<std::string> observe;  // as given, before ${PROOFLOAD_CONFIG} was replaced
};

struct SizingResult : ExperimentRecord {
  SizingSettings settings;
  std::vector<SizingConfigRecord> configs;  // in the order they ran (or were to run)
};

nlohmann::json sizing_to_json(const SizingResult& result);
SizingResult sizing_from_json(const nlohmann::json& result);

}  // namespace proofload::result
