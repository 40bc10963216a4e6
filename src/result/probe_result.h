// A probe's result.json (schema proofload.probe/v1, kind "probe"; docs/result-schema.md "Probe")
// as one typed value, ProbeResult, with its paired to_json and from_json: `proofload probe`
// writes it, `proofload report` and the probe's summary.md read it. Each source keeps its
// per-second counts (probe.sources[].per_second), so that the analysis can run again over sources
// merged from several machines. The load itself is an ordinary run in `run/` beside it, and each
// header variant's run in `variants/NN/`.
//
// Reading follows ladder_result.h: a missing or null optional key is "not recorded"; a missing
// required key or a value of the wrong type throws std::runtime_error naming the key. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analyze/probe_analysis.h"
#include "result/experiment_record.h"

namespace proofload::result {

constexpr const char* kProbeSchema = "proofload.probe/v1";

// settings: how the probe was asked to run and judge.
struct ProbeSettings {
  std::vector<std::string> sources;          // the local addresses, in order
  int64_t connections_per_source = 1;
  std::optional<double> rate_per_source;     // nullopt: flat out
  double duration_s = 0;
  double settle_s = 10;
  std::optional<std::string> expect;         // as given
  double tolerance = 0.10;
  std::vector<std::string> variants;         // "Name: value", as given
  double variant_duration_s = 0;
  std::string method = "GET";
  std::optional<std::string> scenario_request;  // the scenario's request name, when one was used
};

// status, times, source, events and run directory: ExperimentRecord's. A rebuilt probe (from its
// per-second CSVs) has no headers seen and no variants: they are not in those files.
struct ProbeResult : ExperimentRecord {
  ProbeSettings settings;
  double measured_s = 0;  // how long the probe's load ran
  std::vector<analyze::ProbeSourceSeries> series;  // what each source recorded
  analyze::ProbeAnalysis analysis;                 // judge_probe over `series`
  std::vector<analyze::ProbeVariantVerdict> variants;
};

// r.analysis from r.series and r.settings (the expectation re-read from its text), over
// measured_s (the planned duration before any was measured), with its words; and each variant
// judged, with its words, against the allowance: the expectation's when given, else what its
// source sustained in the main probe (with the burst from its totals). Throws UsageError for an
// expectation this version cannot read.
void judge_probe(ProbeResult& r);

// probe.sources[] holds each source's figures (analysis.sources) and its series' per_second and
// headers together; probe.correlations[], probe.verdict, probe.reason, probe.variants[].
nlohmann::json probe_to_json(const ProbeResult& result);
// Reads the file: its figures and sentences as recorded, the analysis's facts (the verdict's
// cause, each pair's reading, a variant's allowance...) judged again from its series (see
// probe_result.cc for when a damaged file's are not).
ProbeResult probe_from_json(const nlohmann::json& result);

}  // namespace proofload::result
