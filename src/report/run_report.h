// A single run's summary.md, rendered from its result.json (schema "proofload.result/v2" or v1,
// docs/result-schema.md) alone. Pure functions of the JSON: they read no clock and no file, so
// `proofload report DIR` renders the same bytes again from the recorded data. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
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
// schema is not proofload.result/v2 or v1, or a value has the wrong type.
std::string render_run_summary(const nlohmann::json& result);

// Parses result.json's text without its `windows` array (the summary does not read them), so
// that a long run's windows are never all held in memory at once. Throws
// nlohmann::json::parse_error when the text is not JSON.
nlohmann::json parse_result_for_summary(std::istream& in);

// A run's result.json as its report.html reads it.
struct RunForReport {
  nlohmann::json result;         // windows[]: the points drawn (see DrawnWindows)
  int64_t windows = 0;           // windows the file holds
  size_t windows_per_point = 1;  // at most, in a group drawn as one point
};

// Parses result.json's text with its windows thinned as they are read (report/drawn_windows.h):
// of each, only the fields report.html draws (html::kWindowFields), and past
// DrawnWindows::kMaxDrawnPoints windows, groups of them; so a run of any length is held in
// bounded memory. Throws as parse_result_for_summary does.
RunForReport parse_result_for_report(std::istream& in);

namespace html {

// Its report.html, from its result.json with its windows as drawn (parse_result_for_report; a run
// that never finished has no summary and gets none) and the summary.md rendered from it
// (html/run_page.cc).
std::string render_run_html(const RunForReport& run, const std::string& summary_md);

}  // namespace html

}  // namespace proofload::report
