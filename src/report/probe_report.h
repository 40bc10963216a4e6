// A probe's summary.md and its per-second CSVs, rendered from its result (result/probe_result.h)
// alone, so `proofload report DIR` renders the same bytes again. The shape of ../shared/REPORTS.md:
// title and scope; the short version ("does each address get its own allowance?", "what burst
// does each get?", "does a header lift the limit?"); a row per source; the correlations and what
// they mean; header variants; findings; what this does not show; reproduce. Pure; thread-safe.
#pragma once

#include <string>

#include "analyze/probe_analysis.h"
#include "result/probe_result.h"

namespace proofload::report {

std::string render_probe_summary(const result::ProbeResult& probe);

// One source's per-second CSV (sources/ADDRESS.csv): a header line, then a row per second:
// second,let_through,limited,other,first_429 (first_429: the 2xx before the source's first 429,
// only on the second it came in; empty elsewhere). The probe streams the same rows as it runs
// (probe_csv_row, a line without its end, as report::LineFile appends it); `proofload report` on
// a killed probe reads them back (parse_probe_csv).
inline constexpr const char* kProbeCsvHeader = "second,let_through,limited,other,first_429";
std::string probe_csv_row(const analyze::ProbeSecond& second,
                          std::optional<int64_t> let_through_before_first_429);
std::string render_probe_csv(const analyze::ProbeSourceSeries& series);
// Reads a CSV written so (a last line cut short by a kill is dropped) into per_second and
// let_through_before_first_429; throws std::runtime_error naming the line for anything else.
void parse_probe_csv(std::string_view text, analyze::ProbeSourceSeries& series);

namespace html {

// Its report.html, from its result and the summary.md rendered from it (html/probe_page.cc).
std::string render_probe_html(const result::ProbeResult& probe, const std::string& summary_md);

}  // namespace html

}  // namespace proofload::report
