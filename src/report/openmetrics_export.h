// `proofload export DIR --format openmetrics`: a recorded run's windows in the OpenMetrics text
// format, each sample stamped with its window's end on the wall clock, so that a past run can be
// put into Prometheus beside the service's own series (`promtool tsdb create-blocks-from
// openmetrics FILE DATA_DIR`). The counters carry the names --metrics-listen serves while a run
// goes (docs/live.md); what only a window has (its latency percentiles, its rate) is a gauge.
// A pure function of result.json: the same file gives the same bytes.
#pragma once

#include <functional>
#include <istream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace proofload::report {

// Where the text goes, a piece at a time.
using OpenMetricsSink = std::function<void(std::string_view)>;

// Throws std::runtime_error naming what is missing when `result` (a run's result.json, windows
// included) has no started_at (a v1 file: start_time) or no windows.
std::string run_openmetrics(const nlohmann::json& result);

// The same text from a result.json being read: each window is parsed, counted and dropped, so
// memory holds the samples, never the file. Throws as run_openmetrics does, and as
// result::parse_recorded_json does when the file is not JSON or nests too deep.
void write_run_openmetrics(std::istream& result_json, const OpenMetricsSink& out);

// "2026-12-02T20:39:41.189Z" in seconds since the Unix epoch; nullopt when not in that form.
std::optional<double> parse_utc_timestamp(const std::string& text);

}  // namespace proofload::report
