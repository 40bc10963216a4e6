// A comparison's judgement, pure over what each cell recorded: for every check (a request under
// a condition, such as "cold" or "warm at 0.5 CPU"), the median of A's repeats and of B's, the
// ratio B/A, the noise the difference is judged against, and a verdict: B `faster`, `level` or
// `slower`, or `not judged` with too few repeats. Then the headline ("B faster on 26 of 28
// checks, level on 2, slower on none") and the same counts per condition. `proofload compare`
// (a later part of the compare issue) runs the matrix; this is its analysis, and runs the same
// over recorded cells. No state, no I/O; thread-safe.
//
// The statistic, as the report states it: a check's difference |B/A - 1| of the medians is a
// finding only when it exceeds both the minimum effect (5% by default) and the spread between
// repeats on either side ((max - min) / median of A's repeats, and of B's). A difference inside
// that noise is `level`, never a verdict. Fewer repeats than the minimum (3 by default) on
// either side, or a side with no value, is `not judged`, and said; so is a check with more than
// max_error_share (1%) of a side's requests in error, for every metric but throughput.
//
// A cold cell is cold only at its start: after the reset, only its first request is surely a
// miss (a cache fills with it). That slow request is a run's pNN (nearest rank) only when
// n < 1 / (1 - NN/100) for a run of n requests (p50: 1, p95: 19, p99: 99); a cold check
// whose runs sent more is flagged (cold_diluted) and the analysis says so (cold_warning): its
// figure is of warm requests. Throughput and CPU per request are rates over the whole cell, and
// are not flagged.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace proofload::analyze {

enum class CompareMetric { kP50, kP95, kP99, kThroughput, kCpuPerRequest };

// "p50", "p95", "p99", "throughput", "cpu_per_request"; UsageError naming the choices otherwise.
CompareMetric parse_compare_metric(std::string_view text);
std::string_view compare_metric_name(CompareMetric metric);
// Latency and CPU per request: lower is better. Throughput: higher is.
bool lower_is_better(CompareMetric metric);

// One check under one condition, as the matrix recorded it: the metric of each repeat of A and
// of B (in the order run), and what went wrong on each side.
struct CompareCell {
  std::string name;       // the check: "lookup"
  std::string condition;  // "cold", "warm at 0.5 CPU"; "" when the matrix has none
  std::vector<double> a, b;
  int64_t a_requests = 0, b_requests = 0;
  int64_t a_errors = 0, b_errors = 0;  // errors and incomplete answers, over the repeats
};

struct CompareOptions {
  CompareMetric metric = CompareMetric::kP50;
  double min_effect = 0.05;  // a share: smaller differences are never findings
  int min_repeats = 3;       // on each side, for a verdict
  // A side whose errors are more than this share of its requests is not compared on latency or
  // CPU: answers that fail fast are not faster (throughput counts answers of any status).
  double max_error_share = 0.01;
};

inline constexpr std::string_view kFaster = "faster";
inline constexpr std::string_view kLevel = "level";
inline constexpr std::string_view kSlower = "slower";
inline constexpr std::string_view kNotJudged = "not judged";

// Why a check has its verdict: too few repeats on a side; too many errors on a side; no ratio (A's
// median is 0); the difference is outside the noise (a finding) or inside it (level).
enum class VerdictCause { kTooFewRepeats, kErrors, kNoRatio, kOutsideNoise, kInsideNoise };
// What set the noise a difference had to exceed.
enum class NoiseSource { kMinimumEffect, kSpreadOfA, kSpreadOfB };

// The analysis is facts; its sentences (reason, the counts' text, statistic, cold_warning) are
// written by words::describe_compare (words/compare_words.h), and result.json records them.
struct CompareVerdict {
  std::string name, condition;
  std::optional<double> a, b;      // the medians of the repeats
  std::optional<double> ratio;     // b / a
  std::optional<double> spread_a;  // (max - min) / median of the repeats; nullopt under 2
  std::optional<double> spread_b;
  double noise = 0;  // what |ratio - 1| had to exceed: the largest of min_effect and the spreads
  std::string verdict;  // kFaster, kLevel, kSlower or kNotJudged
  VerdictCause cause = VerdictCause::kTooFewRepeats;
  NoiseSource noise_source = NoiseSource::kMinimumEffect;
  size_t a_repeats = 0, b_repeats = 0;  // the repeats with a value
  bool errors_on_b = false;             // kErrors: B's errors (else A's) were over the bar
  // Its words: "B 12.0% lower, outside the noise of 5.0% (minimum effect)".
  std::string reason;
  int64_t a_requests = 0, b_requests = 0, a_errors = 0, b_errors = 0;
  // A cold check whose runs sent more requests than its first one can decide the metric for:
  // the larger side's requests per run.
  bool cold_diluted = false;
  int64_t requests_per_run = 0;
};

// A condition made cold by the --reset hook: "cold", "cold at 0.5 CPU".
bool is_cold_condition(std::string_view condition);
// The most requests a run may send for its slowest (its cold first) to be `metric` (p50: 1,
// p95: 19, p99: 99); none for throughput and CPU per request.
std::optional<int64_t> first_request_decides_up_to(CompareMetric metric);

struct CompareCounts {
  int64_t faster = 0, level = 0, slower = 0, not_judged = 0, total = 0;
  // "B faster on 26 of 28 checks, level on 2, slower on none" (", not judged on 1" when any).
  std::string text;
};

struct CompareAnalysis {
  CompareOptions options;              // what it was judged with
  std::string metric;                  // compare_metric_name
  std::vector<CompareVerdict> checks;  // in the order of the cells
  CompareCounts headline;
  // The same counts per condition, in the order conditions first appear (none when no cell
  // names one): "cold at 0.5 CPU: faster on 6 of 7 checks, level on 1".
  std::vector<std::pair<std::string, CompareCounts>> by_condition;
  std::string statistic;  // the rule, in words, for the report
  // When cold checks are cold_diluted: "The cold p50 is of warm requests: ...", else "".
  std::string cold_warning;
};

CompareVerdict judge_check(const CompareCell& cell, const CompareOptions& options);
CompareCounts count_verdicts(std::span<const CompareVerdict> checks);
CompareAnalysis analyze_compare(std::span<const CompareCell> cells, const CompareOptions& options);

}  // namespace proofload::analyze
