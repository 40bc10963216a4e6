// A soak's analysis in words: each window's reasons for missing the bar, the drift's noise and
// verdict, each mark's reason. The analysis (analyze/soak_analysis.h) is numbers and enums; these
// are its sentences, written once into its text fields, which windows.csv and result.json record
// and the report quotes. Pure; thread-safe.
#pragma once

#include <span>
#include <string>

#include "analyze/soak_analysis.h"

namespace proofload::words {

// "errors 1.17% > 1%", "429s 5.17% > 5%", "p95 2 s >= 2 s", "ttft_p95 640 ms >= 500 ms",
// "stream_goodput 50.00% < 90%", "1 of 3 canaries wrong", "p95 not measured (no response)",
// "no request ended".
std::string bar_miss_text(const analyze::BarMiss& miss);

// Writes row.reasons from row.misses.
void describe_window(analyze::SoakWindowRow& row);

// analyze::judge_window with its words: the window as a soak records it.
void judge_and_describe_window(const analyze::SoakBar& bar, analyze::SoakWindowRow& row);

// Writes d.noise_text ("measured: the absolute floor, the largest of ...", "stated: 5.0 ms") and
// d.reason ("p95 rose 31.2 ms (20.4 ms -> 51.6 ms), beyond the noise of 1.0 ms").
void describe_drift(analyze::Drift& d);

// analyze::analyze_drift with its words.
analyze::Drift described_drift(std::span<const analyze::SoakWindowRow> rows,
                               const analyze::DriftRule& rule);

// Writes v.reason: "2 of 3 windows around it missed the bar; the first, at -60 s: errors 50.00%
// > 1%", "all 3 windows around it met the bar; worst p95 12 ms against a baseline of 10 ms".
void describe_mark(analyze::MarkVerdict& v);

// analyze::judge_mark with its words.
analyze::MarkVerdict described_mark(std::span<const analyze::SoakWindowRow> rows,
                                    const analyze::Mark& mark, double window_s);

}  // namespace proofload::words
