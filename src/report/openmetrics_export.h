// `proofload export DIR --format openmetrics`: a recorded run's windows in the OpenMetrics text
// format, each sample stamped with its window's end on the wall clock, so that a past run can be
// put into Prometheus beside the service's own series (`promtool tsdb create-blocks-from
// openmetrics FILE DATA_DIR`). The counters carry the names --metrics-listen serves while a run
// goes (docs/live.md); what only a window has (its latency percentiles, its rate) is a gauge.
// A pure function of result.json: the same file gives the same bytes.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace proofload::report {

// Throws std::runtime_error naming what is missing when `result` (a run's result.json, windows
// included) has no start_time or no windows.
std::string run_openmetrics(const nlohmann::json& result);

// "2026-12-02T20:39:41.189Z" in seconds since the Unix epoch; nullopt when not in that form.
std::optional<double> parse_utc_timestamp(const std::string& text);

}  // namespace proofload::report
