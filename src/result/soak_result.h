// A soak's result.json (schema proofload.soak/v2, kind "soak"; docs/result-schema.md "Soak") as
// one typed value, SoakResult, with its paired to_json and from_json: `proofload soak` writes it,
// `proofload report` and the soak's summary.md read it. The windows, drift, slowest request and
// marks are analyze::soak_analysis.h's values. The load itself is an ordinary run in the `run/`
// directory beside it (its 1 s windows, latency.hlog and observers' figures).
//
// Reading follows ladder_result.h: a missing or null optional key is "not recorded"; a missing
// required key (schema, kind, status, each window's index and requests) or a value of the wrong
// type throws std::runtime_error naming the key. Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analyze/soak_analysis.h"
#include "result/event.h"
#include "result/experiment_record.h"
#include "result/ladder_result.h"

namespace proofload::result {

// v2 names the drift's floor share `settings.drift_floor_share`; v1 named it `noise_floor`, which
// in a ladder means throughput noise. v1 is read as well.
constexpr const char* kSoakSchema = "proofload.soak/v2";
constexpr const char* kSoakSchemaV1 = "proofload.soak/v1";

// A --mark-at as asked: at `at_s` from the hold's start, `label`, and the command run then.
struct ScheduledMark {
  double at_s = 0;
  std::string label;
  std::string command;
};

// settings: how the soak was asked to run and judge.
struct SoakSettings {
  std::string loop;  // "open" or "closed"
  std::optional<double> rate_rps;
  std::optional<int64_t> connections;
  double hold_s = 0;
  double ramp_s = 0;  // 0: no ramp
  int64_t ramp_steps = 0;
  double window_s = 60;
  std::string bar;
  std::optional<double> canary_every_s;  // nullopt: no canaries
  std::vector<std::string> canaries;     // their names, as the scenario file gives them
  std::optional<double> drift_block_s;   // nullopt: quarters
  std::optional<double> drift_noise_ms;  // stated; nullopt: measured
  double drift_floor_share = 0.05;       // --drift-floor-share: drift's floor, a share of the p95
  double drift_floor_ms = analyze::kDefaultDriftFloorMs;  // the absolute floor of drift's noise
  std::string drift_fails = "rise";                       // "rise" or "any": which drift fails
  double mark_window_s = 120;
  std::vector<ScheduledMark> marks;
  std::optional<std::string> abort_when;
  std::vector<std::string> observe;
  bool server_observed = false;
};

// canaries: the known-answer checks of the whole soak.
struct CanaryTotals {
  int64_t right = 0;
  int64_t total = 0;
  int64_t retried = 0;  // needed their one retry (right or not in the end)
  // Of `retried`, right on the retry (the rest were wrong again); none: read from a result.json
  // written before it was counted.
  std::optional<int64_t> retried_right;
  struct Named {
    std::string name;
    int64_t right = 0, total = 0, retried = 0;
    std::string first_wrong;  // why the first wrong one was wrong, and when
  };
  std::vector<Named> by_name;
};

// summary: the short version's figures over the hold.
struct SoakSummary {
  int64_t requests = 0, errors = 0, status_429 = 0;
  std::optional<double> p50_median_ms, p95_median_ms, p95_min_ms, p95_max_ms;
  std::optional<double> throughput_median_rps, throughput_min_rps;
  double held_s = 0;  // the hold's windows, summed
};

// soak.server[]: a server's memory over the whole soak, per observed process, cgroup or pod (a
// k8s: observer's `memory_bytes{pod="..."}`): the first window's value, the last's, and the peak
// of every sample between.
struct ServerMemory {
  std::string source;  // the observer's spec: "pid:4242", "k8s:prod/app=lookup"
  std::string figure;  // "rss_bytes", "memory_bytes", "memory_bytes{pod=\"lookup-7d9f-abc\"}"
  double first_bytes = 0, last_bytes = 0, peak_bytes = 0;
};

// status, times, source, events and run directory: ExperimentRecord's (a rebuilt soak's from
// windows.csv, canaries.csv and marks.log).
struct SoakResult : ExperimentRecord {
  // When the hold began (wall clock, ns since the Unix epoch): marks from outside are placed by it.
  int64_t hold_start_unix_ns = 0;
  SoakSettings settings;
  SoakSummary summary;
  std::vector<analyze::SoakWindowRow> ramp;     // the ramp's windows
  std::vector<analyze::SoakWindowRow> windows;  // the hold's windows
  int64_t windows_missed = 0;
  CanaryTotals canaries;
  analyze::Drift drift;
  analyze::Slowest slowest;
  std::vector<analyze::MarkVerdict> marks;
  std::vector<ServerMemory> server;  // empty when no server observer reported memory
};

nlohmann::json soak_to_json(const SoakResult& result);
SoakResult soak_from_json(const nlohmann::json& result);

// One window's JSON (soak.windows[] and the ramp's), shared with the CSV reader's tests.
nlohmann::json soak_window_to_json(const analyze::SoakWindowRow& row);
analyze::SoakWindowRow soak_window_from_json(const JsonReader& window);

}  // namespace proofload::result
