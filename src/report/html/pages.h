// Each experiment's report.html: one function each, from the experiment's recorded result and
// the summary.md rendered from it (page.h draws the page; each function chooses its charts).
// Each is linked into its experiment's report library (src/report/CMakeLists.txt).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace proofload::result {
struct LadderResult;
struct SoakResult;
struct ProbeResult;
struct CompareResult;
struct SizingResult;
}  // namespace proofload::result

namespace proofload::report {
struct RunForReport;
}  // namespace proofload::report

namespace proofload::report::html {

// A run's: from its result.json with its windows as drawn (parse_result_for_report; a run that
// never finished has no summary and gets none).
std::string render_run_html(const RunForReport& run, const std::string& summary_md);
// A ladder's, a rate search's or an analysis's.
std::string render_ladder_html(const result::LadderResult& ladder, const std::string& summary_md);
std::string render_soak_html(const result::SoakResult& soak, const std::string& summary_md);
std::string render_probe_html(const result::ProbeResult& probe, const std::string& summary_md);
std::string render_compare_html(const result::CompareResult& compare,
                                const std::string& summary_md);
std::string render_sizing_html(const result::SizingResult& sizing, const std::string& summary_md);

// The fields of a run's windows[] that its page draws (report.js's windowCharts reads them).
inline constexpr const char* kWindowFields[] = {
    "start_s",        "duration_s", "warmup",   "drain",    "intended", "never_started",
    "throughput_rps", "latency_ms", "outcomes", "observed", "streams"};

// The file's name beside summary.md.
inline constexpr const char* kReportHtml = "report.html";

}  // namespace proofload::report::html
