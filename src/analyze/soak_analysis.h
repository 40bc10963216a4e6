// A soak's judgement, pure over what it recorded: the bar each window meets or misses, drift
// from the first quarter of the hold to the last (and by blocks), the slowest request, and each
// mark's verdict from the windows around it. The soak runner (experiments/soak.h) and `proofload
// report` on a soak killed before its end both call these, so a report says the same whether it
// was written at the end or rebuilt from windows.csv. Numbers and enums: words/soak_words.h says
// them. No state, no I/O; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/median.h"

namespace proofload::analyze {

// A part of the bar a window broke (judge_window): which part, what the window had and the
// part's limit. words/soak_words.h says it ("errors 1.17% > 1%", "p95 2 s >= 2 s").
enum class BarPart {
  kNoRequest,      // nothing ended in the window
  kErrors,         // observed and limit: shares 0..1
  k429s,           // observed and limit: shares 0..1
  kPercentile,     // observed and limit: ms; `percentile` says which
  kTtftP95,        // observed and limit: ms
  kItlP99,         // observed and limit: ms
  kStreamGoodput,  // observed and limit: shares 0..1 (a lower bound)
  kCanaries,       // wrong of checked
};
struct BarMiss {
  BarPart part = BarPart::kNoRequest;
  int percentile = 0;              // kPercentile: 50, 95 or 99
  std::optional<double> observed;  // none: not measured (no response, no stream ended)
  double limit = 0;
  bool inclusive = false;          // the bar's part: "<=" (">=" for a lower bound)
  int64_t wrong = 0, checked = 0;  // kCanaries
};

// One soak window (a minute by default), folded from the run's 1 s records.
struct SoakWindowRow {
  int64_t index = 0;       // from 0 at the start of the hold (ramp windows count down: -1, ...)
  bool ramp = false;       // recorded during the ramp: not judged for drift or marks' baselines
  double start_s = 0;      // from the start of the hold (negative in the ramp)
  double duration_s = 0;   // the window's length (the last one may be shorter)
  int64_t requests = 0;    // requests that ended in the window (never-started ones included)
  int64_t errors = 0;      // of them, not successes: any error status (429 too), check failed,
                           // connection and protocol failures, timeouts, never started
  int64_t status_429 = 0;  // of the errors, 429 Too Many Requests
  std::optional<double> p50_ms, p95_ms, p99_ms;  // latency of the responses (none: no response)
  std::optional<double> slowest_ms;              // the slowest response's latency
  double slowest_at_s = 0;     // the start of the second it ended in, from the hold's start
  double throughput_rps = 0;   // responses (any status) per second of the window
  // A soak of streams: the window's streams (none: nothing streamed, or no stream ended in it).
  std::optional<double> ttft_p95_ms;     // time to first content event, from the intended start
  std::optional<double> itl_p99_ms;      // gaps between content events
  std::optional<double> tokens_per_s;    // of the streams that completed in the window
  std::optional<double> stream_goodput;  // with --goodput: share of ended streams that met it
  int64_t canaries_right = 0;  // known-answer checks that ended in the window
  int64_t canaries_wrong = 0;
  // Observers' samples that failed in the window (kubectl failing, an endpoint down), and the
  // first such source with its reason: what the server side is missing there.
  int64_t observer_gaps = 0;
  std::string observer_gap;  // "k8s:prod/app=x: kubectl get pods failed: exit 1: ..."
  // Set by judge_window.
  bool bar_met = true;
  std::vector<BarMiss> misses;  // the parts of the bar it broke, in the bar's order
  // Its words (words::describe_window), as windows.csv and result.json record them: why it
  // missed, "errors 4.1% > 1%", "p95 2.3 s >= 2 s".
  std::vector<std::string> reasons;
};

// `--bar 'errors<=1%,p95<2s,canaries'`: every part must hold for a window to meet it.
struct SoakBar {
  struct Percentile {
    int percentile = 95;  // 50, 95 or 99 (what a window keeps)
    double limit_ms = 0;
    bool inclusive = false;  // "<=" (else "<")
  };
  std::optional<double> max_error_share;  // errors / requests, 0..1
  bool errors_inclusive = true;
  std::optional<double> max_429_share;  // `429s<=X%`
  std::vector<Percentile> latency;
  bool canaries = false;  // every canary of the window right
  // A soak of streams: `ttft_p95<500ms`, `itl_p99<100ms` (upper bounds, like the percentiles'),
  // `stream_goodput>=90%` (a lower bound on the share of streams that met --goodput).
  struct StreamBound {
    std::string figure;  // "ttft_p95" or "itl_p99"
    double limit_ms = 0;
    bool inclusive = false;
  };
  std::vector<StreamBound> stream_latency;
  std::optional<double> min_stream_goodput;
  bool stream_goodput_inclusive = true;
  std::string text;       // as given
};

inline constexpr std::string_view kDefaultSoakBar = "errors<=1%,p95<2s,canaries";

// Parts separated by commas: errors<=X% (or <), 429s<=X%, pNN<DURATION (or <=; NN one of 50, 95,
// 99), canaries. Throws UsageError naming the part and the expected form.
SoakBar parse_soak_bar(std::string_view text);

// Sets row.bar_met and row.misses. A window in which nothing ended misses (BarPart::kNoRequest).
void judge_window(const SoakBar& bar, SoakWindowRow& row);

struct DriftBlock {
  double start_s = 0;  // from the hold's start
  double end_s = 0;
  std::optional<double> median_p95_ms;  // over the block's windows with a p95
  std::optional<double> change_ms;      // against the first block
  bool outside_noise = false;           // |change| > noise
};

// Which of measured noise's three parts is the largest (and so the noise).
enum class DriftNoisePart { kSpread, kRelativeFloor, kAbsoluteFloor };

struct Drift {
  // Hold windows with a p95 (fewer than kMinDriftWindows: not judged).
  int64_t windows_with_p95 = 0;
  std::optional<double> first_quarter_p95_ms;  // median of the first quarter's window p95s
  std::optional<double> last_quarter_p95_ms;
  std::vector<DriftBlock> blocks;
  double noise_ms = 0;       // what a difference must exceed to be drift
  std::string noise_source;  // "measured" or "stated"
  // Its words (words::describe_drift): how the noise was had.
  std::string noise_text;
  // Measured noise only: its three parts, of which noise_ms is the largest.
  std::optional<double> spread_ms;          // the window-to-window spread (jitter)
  std::optional<double> relative_floor_ms;  // the noise floor (a share) of the first quarter's p95
  std::optional<double> absolute_floor_ms;  // the absolute floor (--drift-floor)
  std::optional<double> relative_floor_share;  // its share (DriftRule::floor_share), 0..1
  DriftNoisePart noise_largest = DriftNoisePart::kSpread;  // measured: which part is noise_ms
  std::string verdict;    // "drift", "no drift", or "not judged" (too few windows)
  std::string direction;  // "rose" or "fell" (last quarter against first); "" when not judged
  // The verdict fails the soak: drift that rose, or that fell when --drift-fails any.
  bool fails = false;
  // Its words (words::describe_drift): "p95 rose 31.2 ms (20.4 -> 51.6 ms), beyond the noise
  // of 1.0 ms".
  std::string reason;
};

// Fewer hold windows with a p95 than this: drift is not judged (two per quarter at least).
constexpr int kMinDriftWindows = 8;
// Drift blocks shorter than this are called short in a soak's "What this does not show": a
// host's scheduling moves a p95 by milliseconds in stretches of several seconds, and a short
// block's median can ride one. A steady 5 ms route's 2 s windows wandered from 5.3 to 7.7 ms over
// 40 s on a 2-core VM, in stretches of up to eight windows; a minute holds several stretches.
constexpr double kShortDriftBlockS = 60;
// The absolute floor by default: a smaller change of p95 is scheduling jitter on most hosts, not
// a finding, however small the latency it is a share of.
constexpr double kDefaultDriftFloorMs = 1.0;

// Which drift fails a soak: a rise of latency only (a fall is reported), or either.
enum class DriftFails { kRise, kAny };
std::string_view drift_fails_text(DriftFails fails);  // "rise", "any"

struct DriftRule {
  double block_s = 0;                     // <= 0: quarters
  std::optional<double> stated_noise_ms;  // --drift-noise: replaces the measured noise
  double floor_share =
      0.05;  // the relative floor (--drift-floor-share), a share of the first quarter's p95
  double floor_ms = kDefaultDriftFloorMs;  // the absolute floor (--drift-floor)
  DriftFails fails = DriftFails::kRise;    // --drift-fails
};

// Drift over the hold's windows (ramp windows are left out). The noise is the stated one, else
// the largest of the window-to-window spread (the median absolute change of p95 from one window
// of the hold to the next: jitter, which a slow drift hardly moves), the relative floor
// (floor_share of the first quarter's median p95: differences smaller than the ladder's noise
// floor are not findings) and the absolute floor (floor_ms: a change of a fraction of a
// millisecond on a fast server is not one either). A change beyond the noise is drift; it fails
// the soak when latency rose, or fell with DriftFails::kAny.
Drift analyze_drift(std::span<const SoakWindowRow> rows, const DriftRule& rule);

// The slowest response of the hold: its latency and when.
struct Slowest {
  std::optional<double> ms;
  double at_s = 0;
};
Slowest slowest_of(std::span<const SoakWindowRow> rows);

// A mark: a moment the soak was told about (a rollback, a deleted pod).
struct Mark {
  std::string label;
  double at_s = 0;                     // from the hold's start
  std::string source;                  // "scheduled" (--mark-at) or "external" (proofload mark)
  std::optional<std::string> command;  // scheduled: the hook run at that moment
  std::optional<int> exit_code;        // its exit status (nullopt: no hook, or it did not exit)
  std::string hook_outcome;            // "exit 0", "timed out after 60 s (killed)", ...
};

struct MarkVerdict {
  Mark mark;
  std::optional<double> baseline_p95_ms;  // median p95 of the hold's windows before the mark
  std::optional<double> worst_p95_ms;     // the worst p95 of the windows around it
  int64_t windows = 0;                    // windows around it
  int64_t requests = 0, errors = 0, status_429 = 0, canaries_wrong = 0;
  double throughput_rps = 0;  // mean over the windows around it
  std::string verdict;        // "PASS", "FAIL", or "not judged" (no window around it)
  int64_t windows_missed = 0;         // of the windows around it, those that missed the bar
  double first_missed_offset_s = 0;   // FAIL: the first that missed, its start from the mark
  std::vector<BarMiss> first_missed;  // FAIL: what it missed
  // Its words (words::describe_mark): why the verdict.
  std::string reason;
};

// Judges a mark from the windows overlapping [at - window_s, at + window_s]: FAIL when any of
// them missed the bar (first_missed says the first and why), PASS otherwise. The rows must be
// judged (judge_window) already.
MarkVerdict judge_mark(std::span<const SoakWindowRow> rows, const Mark& mark, double window_s);

// "0 of 1,440 windows missed the bar" figures over the hold's windows.
int64_t windows_missed(std::span<const SoakWindowRow> rows);

}  // namespace proofload::analyze
