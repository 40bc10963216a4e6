// A comparison's summary.md and cells.csv, rendered from its result (result/compare_result.h)
// alone, so `proofload report DIR` renders the same bytes again. The shape of
// ../shared/REPORTS.md: title and scope; the short version (is B faster, per condition, how it
// was judged, errors on each side); a row per check with A, B, B/A, the noise it was judged
// against and the verdict; findings; what this does not show; reproduce. Pure; thread-safe.
#pragma once

#include <string>

#include "result/compare_result.h"

namespace proofload::report {

std::string render_compare_summary(const result::CompareResult& compare);

// Every cell's run, a row each in the order run:
// side,check,condition,repeat,value,requests,errors,status,directory (value in the metric's unit:
// ms for latency and CPU per request, requests/s for throughput; empty when not measured).
std::string render_compare_csv(const result::CompareResult& compare);

namespace html {

// Its report.html, from its result and the summary.md rendered from it (html/compare_page.cc).
std::string render_compare_html(const result::CompareResult& compare,
                                const std::string& summary_md);

}  // namespace html

}  // namespace proofload::report
