// A single run's summary.md, rendered from its result.json (schema "proofload.result/v1",
// docs/result-schema.md) alone. Pure functions of the JSON: they read no clock and no file, so
// `proofload report DIR` renders the same bytes again from the recorded data. Thread-safe.
#pragma once

#include <istream>
#include <nlohmann/json.hpp>
#include <string>

namespace proofload::report {

// summary.md: title and scope, the short version (a question per row: how much it carried, how
// fast, how many failed, thresholds, whether the generator was the limit, whether it ran to the
// end), then latency and service-time percentiles, outcomes with their denominators, named
// requests and flows (scenario runs), thresholds, observed sources, what this does not show (from
// the run's facts) and how to reproduce it. The directory of `proofload observe` (spec.command
// "observe": no load sent) gets the observers' part only. Reads no `windows`. Every number comes
// from `result`; a missing or null optional key reads as "not recorded" ("–" in a table). Throws
// std::runtime_error naming the key when a required one is missing (schema, status, summary), the
// schema is not proofload.result/v1, or a value has the wrong type.
std::string render_run_summary(const nlohmann::json& result);

// Parses result.json's text without its `windows` array (the summary does not read them), so
// that a long run's windows are never all held in memory at once. Throws
// nlohmann::json::parse_error when the text is not JSON.
nlohmann::json parse_result_for_summary(std::istream& in);

// Parses result.json's text with, of each window, only the fields report.html draws
// (html::kWindowFields), so that a long run's windows are held small.
nlohmann::json parse_result_for_report(std::istream& in);

}  // namespace proofload::report
