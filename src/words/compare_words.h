// A comparison's analysis in words: each check's reason, the counts' headline, the statistic and
// the cold warning. The analysis (analyze/compare_analysis.h) is numbers and enums; these are its
// sentences, written once into its text fields, which result.json records and the report
// quotes. Pure; thread-safe.
#pragma once

#include <span>
#include <string>

#include "analyze/compare_analysis.h"

namespace proofload::words {

// "B 12.0% lower, outside the noise of 5.0% (minimum effect)", "2 repeats of A and 3 of B: a
// verdict needs 3 of each", "B had 40 errors in 100 requests (40.0%), above 1.0%: …".
std::string verdict_reason(const analyze::CompareVerdict& v,
                           const analyze::CompareOptions& options);

// "B faster on 26 of 28 checks, level on 2, slower on none" (", not judged on 1" when any).
std::string counts_text(const analyze::CompareCounts& c);

// The rule, in words, for the report.
std::string statistic_text(const analyze::CompareOptions& options);

// When cold checks are cold_diluted: "the cold p50 is of warm requests: …"; else "".
std::string cold_warning(std::span<const analyze::CompareVerdict> checks,
                         const analyze::CompareOptions& options);

// Writes every sentence above into `a`'s text fields.
void describe_compare(analyze::CompareAnalysis& a);

// analyze::analyze_compare with its words: the analysis as a comparison records it.
analyze::CompareAnalysis described_compare(std::span<const analyze::CompareCell> cells,
                                           const analyze::CompareOptions& options);

}  // namespace proofload::words
