// A probe's result from what it recorded, one way whether the probe finished or was killed:
// complete_probe runs the analysis over the sources' series and judges the variants; a probe
// that did not write its result.json is rebuilt from probe-plan.json (written when the load
// started) and the per-second CSVs it streamed (sources/ADDRESS.csv). One caller at a time per
// directory.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "result/probe_result.h"

namespace proofload::experiments {

inline constexpr const char* kProbePlanJson = "probe-plan.json";
inline constexpr const char* kProbeSourcesDir = "sources";

// sources/ADDRESS.csv (":" of an IPv6 address becomes "_": a file name anywhere).
std::filesystem::path probe_csv_path(const std::filesystem::path& directory,
                                     const std::string& address);

// r.analysis from r.series and r.settings, and each variant judged, with their words:
// result::judge_probe, the judgement that result.json's reader repeats for the analysis's facts.
void complete_probe(result::ProbeResult& r);

// Separate allowances (for a segment, not judged: its sources are compared in the merge), every
// --expect met and no variant lifted the limit: what exit 0 says (99 otherwise).
bool probe_held(const result::ProbeResult& r);

// Whether `directory` holds a probe (its probe-plan.json).
bool is_probe_directory(const std::filesystem::path& directory);

// The probe's result: result.json when the probe finished it; else rebuilt from
// probe-plan.json and the sources' CSVs (status "interrupted", rebuilt = true; the variants and
// the headers seen are not in those files). Throws std::runtime_error naming the file that
// cannot be read.
result::ProbeResult read_or_rebuild_probe(const std::filesystem::path& directory);

// Writes result.json, every source's CSV and summary.md, each atomically.
void write_probe_directory(const std::filesystem::path& directory, const result::ProbeResult& r);

}  // namespace proofload::experiments
