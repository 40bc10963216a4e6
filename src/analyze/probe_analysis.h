// A probe's judgement, pure over what each source recorded: per source, what was let through,
// the burst before the first 429 and from the totals, the sustained rate after the settle time
// and an expectation's PASS/FAIL; between sources, the correlation of their per-second
// let-through counts and how it reads; and the verdict (separate allowances, a shared one, or
// unclear) with its cause. The analysis is facts (numbers and enums); its sentences (the reason,
// each pair's meaning, each source's expect_reason, a variant's reason) are written by
// words/probe_words.h, which every caller runs after analyze_probe. The probe
// (experiments/probe.h) and `proofload report` on a killed probe both call these, and so can a
// merge of sources measured from several machines: nothing here assumes the sources ran in one
// process. No state, no I/O; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "measure/source_window.h"

namespace proofload::analyze {

// One second of one source: the requests that ended in it, by what the limit did with them.
// No source gets a billion answers in a second: a recorded count past this is a damaged file, and
// refused when read, so that sums over a long probe's seconds and sources cannot overflow.
constexpr int64_t kMaxProbeSecondCount = 1'000'000'000;

struct ProbeSecond {
  int64_t second = 0;       // from the probe's start (0 is the first second)
  int64_t let_through = 0;  // 2xx answers
  int64_t limited = 0;      // 429 answers
  int64_t other = 0;        // every other outcome: other statuses, connection failures, timeouts
  bool operator==(const ProbeSecond&) const = default;
};

// A rate-limit header one source saw (Retry-After, RateLimit-*, X-RateLimit-*): its first and
// last values over the probe. The engine notes them (measure/source_window.h).
using SeenHeader = measure::LimitHeader;

// What one source recorded: the input of the analysis, and what result.json keeps per source so
// that sources probed from several machines can be merged and analysed again.
struct ProbeSourceSeries {
  std::string address;  // the local address its connections were bound to
  std::vector<ProbeSecond> per_second;
  // The 2xx answers the source had before its first 429 (nullopt: no 429 came).
  std::optional<int64_t> let_through_before_first_429;
  std::vector<SeenHeader> headers;
  // Non-empty when the source's probe failed outright (nothing answered, it could not connect):
  // the source is named in the report, never averaged into the verdict.
  std::string failure;
  bool operator==(const ProbeSourceSeries&) const = default;
};

// The failure of a source that had neither a 2xx nor a 429 and no failure of its own.
inline constexpr std::string_view kNoAnswerFailure = "no answer from the server";

// `--expect '100/s,burst=600'`: the allowance each source should get. Judged per source: the
// sustained mean within `tolerance` (a share) of the rate, and the burst from the totals within
// `tolerance` of the burst plus one second of the rate (a second's worth of timing either way).
// Read from the flag or from result.json's settings by result/probe_expectation.h.
struct ProbeExpectation {
  double rate_per_s = 0;
  std::optional<int64_t> burst;
  double tolerance = 0.10;
  std::string text;  // as given
  bool operator==(const ProbeExpectation&) const = default;
};

struct SustainedRate {
  double mean = 0, min = 0, max = 0;  // let through per second
  int64_t seconds = 0;                // whole seconds from the settle time to the end
  bool operator==(const SustainedRate&) const = default;
};

// --expect's parts on one source: the sustained mean within the tolerance of the rate; the burst
// from the totals within `burst_slack` of the burst.
struct ProbeExpectCheck {
  bool rate_met = false;
  bool burst_met = true;   // true without a burst to judge
  double burst_slack = 0;  // requests either way: tolerance x burst + a second of the rate
  bool operator==(const ProbeExpectCheck&) const = default;
};

struct ProbeSourceFigures {
  std::string address;
  bool failed = false;  // the probe of this source failed outright: left out of the verdict
  std::string failure;
  int64_t let_through = 0, limited = 0, other = 0, total = 0;
  std::optional<int64_t> burst_before_first_429;
  // The first 429 came well before the totals' burst was spent (under 80% of it): the allowance
  // looks split over several instances, each refusing on its own share, so the burst before the
  // first 429 is only a lower bound of what the source gets. Never set when the verdict is a
  // shared allowance: each source's totals then hold a random share of one burst.
  bool burst_is_lower_bound = false;
  // let_through - sustained mean x duration (not below 0); nullopt without a sustained rate.
  std::optional<double> burst_from_totals;
  std::optional<SustainedRate> sustained;  // nullopt: no whole second after the settle time
  // --expect, judged: nullopt without one (or for a failed source).
  std::optional<bool> expect_met;
  // Each part of --expect, judged: nullopt when expect_met is (and for a source with no whole
  // second after the settle time, which is not judged).
  std::optional<ProbeExpectCheck> expect_check;
  std::string expect_reason;  // "sustained 99.8/s within 10% of 100/s; burst 597 within ..."
  std::vector<SeenHeader> headers;
  bool operator==(const ProbeSourceFigures&) const = default;
};

// How a pair's r reads. A pair inside the verdict's sharing group reads as the group does; any
// other pair from its own r: independent (|r| <= 0.2, or no r), sharing (r <= -0.5), weakly
// opposed (below -0.2) or moving together (above 0.2: the server, not the allowance).
enum class PairReading {
  kIndependent,
  kShare,
  kWeaklyOpposed,
  kMoveTogether,
  kShareInGroup,  // a pair of a sharing group of three or more: its own r is only near -1/(k-1)
};

struct ProbeCorrelation {
  std::string a, b;
  // Pearson's r of the two sources' per-second let-through counts over the seconds after the
  // settle time; nullopt when either count did not vary (then nothing moved them together).
  std::optional<double> r;
  // In words: "share one allowance: what one gains, the other loses", with as many allowances as
  // their sustained sum implies under --expect; a pair inside a sharing group says so.
  std::string meaning;
  PairReading reading = PairReading::kIndependent;
  // kShare and kShareInGroup: how many allowances the sharing sources' sustained means add up to
  // (their sum / the expected rate; the group's for a pair inside it). nullopt without --expect.
  std::optional<double> allowances;
  // kShareInGroup: the group's other sources, in the order given.
  std::vector<std::string> shared_with;
  bool operator==(const ProbeCorrelation&) const = default;
};

// The verdict's three values, as result.json's probe.verdict holds them.
inline constexpr std::string_view kSeparateAllowances = "separate allowances";
inline constexpr std::string_view kSharedAllowance = "shared allowance";
inline constexpr std::string_view kUnclear = "unclear";

// Why the verdict is what it is.
enum class ProbeCause {
  kNone,             // no analysis (the default)
  kNoAnswer,         // unclear: no source got an answer
  kOneSource,        // unclear: one source (answered), nothing to compare
  kNoCountedSecond,  // unclear: no whole second after the settle time
  kNo429,            // unclear: no 429 at all, no limit seen at this load
  kSharedGroup,      // shared: a group's per-second sum is far steadier than its parts
  kSharedPair,       // shared: a pair's per-second counts correlate at r <= -0.5
  kSharedTooLittle,  // shared: with --expect, too little in all for separate allowances
  kEachMetExpect,    // separate: each source met --expect on its own, and no pair shares
  kNearMedian,       // separate: without --expect, each source near the sources' median
  kMisses,           // unclear: some sources missed, with no sign of sharing
};

// A source that keeps the verdict from being separate allowances (ProbeCause::kMisses).
enum class ProbeMissKind {
  kNotJudged,      // --expect could not be judged (no sustained rate)
  kRate,           // its sustained mean missed --expect's rate
  kBurst,          // its burst from the totals missed --expect's burst
  kFarFromMedian,  // without --expect: its sustained mean lay beyond the tolerance of the median
};

struct ProbeMiss {
  size_t source = 0;  // index into ProbeAnalysis::sources
  ProbeMissKind kind = ProbeMissKind::kRate;
  bool operator==(const ProbeMiss&) const = default;
};

struct ProbeAnalysis {
  std::vector<ProbeSourceFigures> sources;     // in the order given
  std::vector<ProbeCorrelation> correlations;  // every pair of sources that did not fail
  std::string verdict;                         // one of the three above
  std::string reason;                          // why, with the numbers
  ProbeCause cause = ProbeCause::kNone;
  // What it was judged over: the probe's length and the settle time (s), --expect (nullopt
  // without one) and the tolerance applied (the expectation's, or the one given without it).
  double duration_s = 0;
  double settle_s = 0;
  std::optional<ProbeExpectation> expect;
  double tolerance = 0.10;
  // kSharedGroup: the variance of the group's per-second sum, and the sum of the members' own
  // variances (requests² per second²).
  double variance_of_sum = 0;
  double sum_of_variances = 0;
  // kSharedPair: the pair's r, and how many other pairs were at r <= -0.5 too.
  double shared_r = 0;
  int64_t other_opposed_pairs = 0;
  // With a shared allowance: the sharing sources' sustained means, summed (per second).
  double shared_sum = 0;
  // The lowest and highest sustained mean of the sources that answered, and (without --expect)
  // their median (per second).
  double lowest_sustained = 0;
  double highest_sustained = 0;
  std::optional<double> median_sustained;
  // kMisses: each source that missed, and how, in the order given.
  std::vector<ProbeMiss> misses;
  double sustained_sum = 0;                    // the sources' sustained means, summed
  std::optional<double> expected_sum;          // sources x the expected rate
  // With a shared allowance: the sources the verdict names as sharing (two, or a group whose
  // per-second sum is steady), in the order given; empty otherwise.
  std::vector<std::string> shared_by;
  // With a shared allowance and --expect: how many allowances the sharing sources' sustained
  // means add up to (their sum / the expected rate per allowance, unrounded: 1.99 is two
  // allowances split between them, not one). nullopt otherwise.
  std::optional<double> allowances_implied;
  bool operator==(const ProbeAnalysis&) const = default;
};

// The per-second cells analyze_probe allocates for these sources: the whole seconds it counts
// (from the settle time to the probe's last whole second, at most about 116 days) for each
// source that answered. A probe records a row per source per second, so a reader of a recorded
// probe can set this against the rows its file holds.
int64_t probe_window_cells(std::span<const ProbeSourceSeries> sources, double duration_s,
                           double settle_s);

// Judges the sources. `duration_s` is the probe's length (its last partial second is left out of
// the sustained rate); `settle_s` is when the sustained rate starts to be counted. A second a
// source has no row for counts 0 there (rows are matched by `second`, in any order). Without an
// expectation, `tolerance` is how far (a share) the sources' sustained means may lie from their
// median and still read as separate allowances; with one, the expectation's own tolerance is.
ProbeAnalysis analyze_probe(std::span<const ProbeSourceSeries> sources, double duration_s,
                            double settle_s, const std::optional<ProbeExpectation>& expect,
                            double tolerance = 0.10);

// A header variant: the probe repeated from one source with a header added.
struct ProbeVariantRun {
  std::string header;  // "Origin: https://example.test"
  std::string address;
  double duration_s = 0;
  int64_t let_through = 0, limited = 0, other = 0;
  bool operator==(const ProbeVariantRun&) const = default;
};

// Why a variant's verdict is what it is.
enum class VariantCause {
  kHeld,               // held: 429s came
  kNothingLetThrough,  // unclear: nothing let through and no 429
  kNoAllowance,        // unclear: no 429, but no allowance is known to set it against
  kBeyondAllowance,    // lifted: more let through than the allowance allows
  kWithinAllowance,    // unclear: no 429, within the allowance: sent too little to tell
};

struct ProbeVariantVerdict {
  ProbeVariantRun run;
  // true: the limit held (429s came); false: the header lifted it; nullopt: unclear.
  std::optional<bool> limited;
  std::string verdict;  // "held", "lifted" or "unclear"
  std::string reason;   // "60 of 60 let through: the header lifts the limit"
  VariantCause cause = VariantCause::kHeld;
  // The allowance it was judged against (per second, and the burst in requests).
  std::optional<double> allowance_per_s;
  std::optional<double> burst;
  bool operator==(const ProbeVariantVerdict&) const = default;
};

// Held when any 429 came. Lifted when none came and more was let through than the allowance
// allows over the run (`allowance_per_s` x duration + `burst`: the expectation's, or what the
// source sustained in the main probe); unclear when none came but the variant sent too little to
// tell (or no allowance is known).
ProbeVariantVerdict judge_variant(const ProbeVariantRun& run, std::optional<double> allowance_per_s,
                                  std::optional<double> burst);

// The allowance a variant from `address` is judged against: the expectation's rate and burst,
// else what that source sustained (and the burst its totals showed) in the main probe; nullopt
// both when neither is known.
struct VariantAllowance {
  std::optional<double> per_s;
  std::optional<double> burst;
};
VariantAllowance variant_allowance(const ProbeAnalysis& a, const std::string& address,
                                   const std::optional<ProbeExpectation>& expect);

}  // namespace proofload::analyze
