// Number conventions every report format shares: histogram values in microseconds become
// milliseconds with microsecond precision, an empty histogram has no percentiles (not zero),
// and counts read with thousands separators (words/numbers.h writes them). Pure functions,
// thread-safe.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "measure/hdr_histogram.h"
#include "measure/window_stats.h"
#include "result/spec_record.h"

namespace proofload::report {

// The value at `percentile` (nearest rank) in ms, or nullopt for an empty histogram.
std::optional<double> percentile_ms(const measure::HdrHistogram& us, double percentile);
// Largest recorded value in ms (bucket's highest equivalent), or nullopt when empty.
std::optional<double> max_ms(const measure::HdrHistogram& us);
// Exact mean rounded to the microsecond, in ms, or nullopt when empty.
std::optional<double> mean_ms(const measure::HdrHistogram& us);

// The percentile spectrum HdrHistogram's plots draw: the value (ms) at 0%, then five steps per
// halving of the distance to 100% (50%, 56.5%, ..., 75%, ...) while one value in the count still
// resolves the step, then the maximum at 100%. Empty for an empty histogram.
struct PercentileSpectrum {
  std::vector<double> percentiles, ms;
};
PercentileSpectrum percentile_spectrum(const measure::HdrHistogram& us);

// Requests that were started and ended (every outcome but never-started): the denominator of
// error shares.
int64_t started_requests(const measure::WindowStats& w);
// numerator / denominator, or nullopt when the denominator is 0 (a share of nothing).
std::optional<double> share(int64_t numerator, int64_t denominator);

// What one arrival of the run is, in the plural, for "635 of 1,200 flows offered": "flows"
// when every pick of the scenario's mix is a flow, "requests" when none is, "arrivals
// (requests and flows)" for a mix of both. `spec` is result.json's spec.
std::string arrivals_noun(const result::SpecRecord& spec);

// ns since the Unix epoch -> "2024-05-01T12:00:00.123Z" (UTC, millisecond precision).
std::string iso8601_utc(int64_t wall_ns);

}  // namespace proofload::report
