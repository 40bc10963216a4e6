// A probe's analysis in words: the verdict's reason, each pair's meaning, each source's judgement
// against --expect and each header variant's reason. The analysis (analyze/probe_analysis.h) is
// numbers and enums; these are its sentences, written once into its text fields, which
// result.json records and the report quotes. Pure; thread-safe.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "analyze/probe_analysis.h"

namespace proofload::words {

// r as the reasons write it: two decimals, a true minus sign ("−0.96", "0.08"; "0.00" for
// -0.001); the report's tables use it too, so that a table and its sentence agree.
std::string correlation_text(double r);

// "127.0.0.2 and 127.0.0.3 share one allowance: their per-second counts correlate at r = −0.98
// and together they got 100/s, against 2 × 100/s expected: 1.00 allowance of 100/s", "no 429 in
// 60 s: no limit was seen at this load", "each of the 3 sources met 100/s on its own (…)".
std::string probe_reason(const analyze::ProbeAnalysis& a);

// "independent: each has its own allowance", "share two allowances: what one gains, the other
// loses", "share one allowance with 127.0.0.4: the group's per-second sum is steady".
std::string pair_meaning(const analyze::ProbeCorrelation& c);

// "sustained 99.8/s, within 10% of 100/s; burst from the totals 597, within 160 of 600"; "not
// judged: no whole second after the settle time"; "" without --expect or for a failed source.
std::string expect_reason(const analyze::ProbeAnalysis& a, const analyze::ProbeSourceFigures& f);

// Writes every sentence above into `a`'s text fields (the reason, each pair's meaning, each
// source's expect_reason).
void describe_probe(analyze::ProbeAnalysis& a);

// analyze::analyze_probe with its words: the analysis as a probe records it.
analyze::ProbeAnalysis described_probe(std::span<const analyze::ProbeSourceSeries> sources,
                                       double duration_s, double settle_s,
                                       const std::optional<analyze::ProbeExpectation>& expect,
                                       double tolerance = 0.10);

// "412 of 3,120 let through, 2,708 limited: the limit holds with the header", "3,120 of 3,120
// let through and no 429, more than the allowance allows in 5 s (100/s + burst 600): the header
// lifts the limit".
std::string variant_reason(const analyze::ProbeVariantVerdict& v);

// analyze::judge_variant with its words.
analyze::ProbeVariantVerdict described_variant(const analyze::ProbeVariantRun& run,
                                               std::optional<double> allowance_per_s,
                                               std::optional<double> burst);

}  // namespace proofload::words
