// What every report.html shares beside page.h: the file's name and the fields of a run's windows it
// draws. Each experiment's page is declared in its own report header (soak_report.h's
// render_soak_html, ...), drawn by html/KIND_page.cc and linked into its report library.
#pragma once

namespace proofload::report::html {

// The fields of a run's windows[] that its page draws (report.js's windowCharts reads them).
inline constexpr const char* kWindowFields[] = {
    "start_s",        "duration_s", "warmup",   "drain",    "intended", "never_started",
    "throughput_rps", "latency_ms", "outcomes", "observed", "streams"};

// The file's name beside summary.md.
inline constexpr const char* kReportHtml = "report.html";

}  // namespace proofload::report::html
