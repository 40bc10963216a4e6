// The analysis of a ladder: levels in ascending order, each with one verdict (`clean`, `highest
// within SLO`, `knee`, `saturated`), the knee and why, best sustained throughput within the SLO,
// the peak, the plateau against the noise floor, per-core figures, a recommended operating target
// and daily capacity. Pure functions over recorded rows (analyze/level_row.h): a ladder run, a
// rate search and `proofload analyze FILE.csv` all end here. Thread-safe.
//
// The rules (docs/ladder.md states them for users):
// - Rows with the same `level` are repeats of it. A level's figures are the mean over its repeats
//   (requests: the sum; generator_busy: any; host_load1: the highest).
// - Rates are judged on goodput, successful requests per second of the measured span
//   (LevelRow::goodput()): the gains, the noise floor, the knee's throughput rules, best
//   sustained, the peak, per-core figures and the operating target. A level answering errors
//   fast carries nothing. Achieved (responses of any status) is reported beside it.
// - SLO: each bound is evaluated on every repeat; a level meets the SLO only when every repeat
//   meets every bound (a repeat that failed is never averaged into a pass). The level's shown
//   value per bound is the worst repeat's. No data never passes.
// - A percentile is untrusted ("marked, not trusted") when the smallest repeat has too few
//   requests for it (measure/percentile_trust.h: 10 at or beyond it, so p99 needs 1,000
//   requests, p95 200, p50 20). Unknown request counts mark nothing.
// - Noise floor: stated (options.noise_floor), else measured from repeats, else
//   kDefaultNoiseFloor, stated as a default. Measured, over the levels with 2 or more repeats, it
//   is the spread (the median of (max - min) / mean of goodput) plus, when repeats ran in
//   sequence, the drift over the time between two levels (the median, signed, of each level's
//   least-squares trend of goodput per run over its repeats, as a share of its mean, times the
//   most repeats of a level: the runs between the centres of adjacent levels); at least
//   kMinimumMeasuredNoiseFloor. A step compares runs further apart than any two repeats of a
//   level, so the spread alone is too small for it when the system drifts.
// - Gain of a level: goodput / previous level's goodput - 1. Inside the noise floor
//   (|gain| < floor) it is flat; else it grows or falls.
// - The knee is the first level that (a) breaks the SLO, or (b) has a target (open loop) and
//   achieves less than target * (1 - floor) in the target's unit (arrivals/s when an arrival is
//   a flow): the schedule was not kept. This counts answers of any status: errors are the SLO's
//   to judge, so a level inside its error budget is not called short for them as well. Or (c),
//   closed loop only, it is the saturation point: the next level gains (in goodput) less than
//   the floor while latency climbs (the next level's p95, or p50 when p95 is missing, is more
//   than (1 + floor) times this level's).
// - Best sustained: the level with the most goodput among those that meet the SLO; none when no
//   level does ("none: the lowest level was already past it").
// - Verdicts say what each level is, so the table and the short version never disagree: the
//   best sustained level is `highest within SLO` (`knee, highest within SLO` when it is the knee
//   too), wherever it lies; any other level before the knee is `clean`, the knee `knee`, and any
//   other level after it `saturated`.
// - Peak: the most goodput among the levels whose errors (every error, outcome-rate and
//   never-started bound of the SLO) meet the SLO; none when no level's do.
// - Plateau: the first level from which every later step is flat or falling (gain < floor),
//   with at least one such step; none otherwise.
// - Each named request of a scenario is judged on its own as well (route_analysis.h): its
//   figures per level and its own plateau, by the rules above and the same noise floor.
// - Operating target: options.operating_fraction of the knee's achieved throughput (headroom
//   1 / fraction), but never above best sustained (a knee that broke the SLO can carry more
//   than any level that met it; then the target is best sustained, and the headroom is the
//   knee's throughput over it). No knee: the fraction of the last level's, a lower bound since the
//   knee was not reached. None when the knee is the lowest level and breaks the SLO.
// - Daily capacity: requests per day (86,400 s) at the operating target and at best sustained,
//   rounded to kDailySignificantDigits significant digits: an extrapolation from a hold of
//   seconds carries no more.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/level_row.h"
#include "analyze/route_analysis.h"
#include "analyze/slo.h"
#include "measure/threshold.h"

namespace proofload::analyze {

constexpr double kDefaultNoiseFloor = 0.05;
constexpr double kMinimumMeasuredNoiseFloor = 0.01;
constexpr double kTailSamplesForTrust = 10;
constexpr double kDefaultOperatingFraction = 0.5;
constexpr double kSecondsPerDay = 86'400;
constexpr int kDailySignificantDigits = 3;

// `value` rounded to `digits` significant digits: 90,986,611 -> 91,000,000 with 3.
double round_significant(double value, int digits);

enum class Loop { kClosed, kOpen };
std::string_view loop_text(Loop loop);  // "closed", "open"

enum class Verdict { kClean, kHighestWithinSlo, kKnee, kKneeHighestWithinSlo, kSaturated };
// "clean", "highest within SLO", "knee", "knee, highest within SLO", "saturated".
std::string_view verdict_text(Verdict verdict);

// How a ladder's repeats were ordered: each level K times in a row, or the whole ladder K times.
// A table of unknown order is read as a sequence (the larger floor).
enum class RepeatOrder { kSequence, kInterleaved };

struct AnalysisOptions {
  Loop loop = Loop::kClosed;
  RepeatOrder repeat_order = RepeatOrder::kSequence;
  std::optional<double> noise_floor;  // stated by the user (0..1); else measured or the default
  double operating_fraction = kDefaultOperatingFraction;  // (0, 1]
};

struct NoiseFloor {
  enum class Source { kStated, kMeasured, kDefault };
  double value = kDefaultNoiseFloor;
  Source source = Source::kDefault;
  // Measured only: the parts of the floor, shares of goodput (0..1).
  std::optional<double> spread;  // median (max - min) / mean of goodput over a level's repeats
  std::optional<double> drift;   // drift over the time between two levels; 0 when interleaved
  int levels_measured = 0;       // the levels with 2 or more repeats it was measured over
  bool interleaved = false;      // measured over interleaved repeats (their spread holds drift)
  // Its words, filled by words::describe_ladder (words/ladder_words.h) and read back from
  // result.json: "6.7% (measured from repeats of 4 levels: a spread of 2.2% between a level's
  // repeats plus 4.5% of drift over the time between levels)", "5.0% (default: no repeats to
  // measure it from; set --repeat or --noise-floor)", "6.7% (stated with --noise-floor)".
  std::string text;
};
std::string_view noise_floor_source_text(NoiseFloor::Source source);  // "stated", "measured", ...

struct LevelAnalysis {
  double level = 0;
  int repeats = 0;
  std::optional<double> target_rps;
  double achieved_rps = 0;             // responses of any status per second
  double goodput_rps = 0;              // successes per second: what the rules judge
  std::optional<double> arrivals_rps;  // in the target's unit, when an arrival is a flow
  double achieved_in_target_unit = 0;
  std::optional<double> flows_per_s, flow_success_rate;
  std::optional<double> p50_ms, p95_ms, p99_ms;
  std::optional<int64_t> requests;  // sum over repeats; none when a repeat did not say
  std::optional<double> error_rate, rate_429, never_started;
  std::optional<double> server_cores, server_throttled_share, generator_cores, host_load1;
  std::optional<double> host_cpu_busy;  // the highest of its repeats
  std::optional<double> server_quota_cores, server_cpu_limit_cores;
  // The first repeat's: where the server figures came from, and what bounds its CPU.
  std::string server_cpu_source, server_throttle_source, server_cpu_limit_basis;
  // The server's mean CPU reached 90% of the most it could use (report::ServerFigures).
  bool server_cpu_bound = false;
  bool generator_busy = false;

  bool meets_slo = false;
  int failed_repeats = 0;                     // repeats that broke the SLO
  bool errors_meet_slo = true;                // every error-kind bound passed (may be a peak)
  std::vector<measure::ThresholdResult> slo;  // per bound, the worst repeat
  std::vector<std::string> untrusted;         // percentiles with too few samples: "p99", "p95"
  std::optional<double> gain;                 // from the previous level; none for the first
  // Its words (words::describe_ladder): "+1.3%: flat, inside the 6.7% noise floor"; "" for the
  // first.
  std::string gain_text;
  bool short_of_target = false;  // has a target and achieved < target * (1 - floor)
  std::optional<double> rps_per_server_core;
  std::optional<double> server_cpu_ms_per_request;
  std::optional<double> achieved_cv;  // run-to-run variation (sample stddev / mean), 2+ repeats
  std::optional<double> p95_cv;
  Verdict verdict = Verdict::kClean;
};

// Why a level is the knee: it broke the SLO; it fell short of its target rate by more than the
// noise floor; or it is the saturation point (the next level stops growing while latency climbs
// by more than the floor).
enum class KneeCause { kNone, kBreaksSlo, kShortOfTarget, kSaturation };

// What the operating target is a fraction of: the knee; the best sustained level, when the
// fraction of the knee would be above it; the highest level tested, with no knee; none when the
// lowest level already broke the SLO.
enum class OperatingBasis { kNone, kKnee, kBestSustained, kHighestTested };

// The analysis is facts (numbers and enums); its sentences (the *_text, knee_reason and
// operating_basis strings) are written by words::describe_ladder, which every caller runs after
// analyze_ladder, and read back from result.json by its from_json.
struct LadderAnalysis {
  Loop loop = Loop::kClosed;
  Slo slo;
  NoiseFloor noise_floor;
  std::vector<LevelAnalysis> levels;  // ascending by level
  std::optional<size_t> knee;         // index into levels
  KneeCause knee_cause = KneeCause::kNone;
  bool knee_latency_is_p50 = false;  // a saturation point judged on p50 (p95 was not measured)
  // "breaks the SLO: p95 = 1,140 ms (bound p95 <= 1s)"; "achieved 2,066/s falls short of the
  // 2,500/s target by 17.4% (beyond the 5.0% noise floor)"; "saturation point: the next level
  // gains +1.3% (inside the 5.0% noise floor) while p95 climbs from 184 ms to 317 ms". "" if none.
  std::string knee_reason;
  std::optional<size_t> best_sustained;
  std::string best_sustained_text;  // "1,930/s at level 512" or "none: the lowest level was already
                                    // past it"
  std::optional<size_t> peak;       // most goodput among levels whose errors meet the SLO
  std::optional<size_t> plateau_from;
  double operating_fraction = kDefaultOperatingFraction;
  std::optional<double> operating_target_rps;
  std::optional<double> operating_headroom;  // the knee's (or highest level's) throughput / target
  OperatingBasis operating_basis_kind = OperatingBasis::kNone;
  // "50% of the knee (2,066/s at level 6): 2.0x headroom"; "50% of the highest level tested
  // (no knee reached: the true headroom is larger)"; "none: the lowest level already broke the
  // SLO".
  std::string operating_basis;
  std::optional<double> daily_requests_at_operating_target;
  std::optional<double> daily_requests_at_best_sustained;
  // Each named request of a scenario on its own (route_analysis.h); empty without a scenario.
  std::vector<RouteAnalysis> routes;
};

// Throws UsageError when `rows` is empty, when a row has a negative or non-finite level or
// achieved_rps, or when operating_fraction or noise_floor is outside (0, 1].
LadderAnalysis analyze_ladder(const std::vector<LevelRow>& rows, const Slo& slo,
                              const AnalysisOptions& options);

}  // namespace proofload::analyze
