// The adaptive search of the highest rate that meets an SLO (`proofload ladder --search`):
// exponential growth to bracket it, bisection to within a tolerance, then one confirming run at
// the rate found. A pure state machine: the caller runs next_rate() for as long as it likes and
// record()s whether the SLO held, so the search is tested against a simulated service.
// Not thread-safe (one search, one caller).
//
// The rules (docs/ladder.md states them for users):
// - Grow: run start_rps, then multiply by `growth` (capped at max_rps) while the SLO holds. The
//   first failure is the upper bound.
// - If start_rps itself fails, go down dividing by `growth` (never below min_rps) until a rate
//   passes; if min_rps fails too, the search ends with nothing found.
// - Bisect between the highest rate that passed (lo) and the lowest that failed (hi) while
//   (hi - lo) / lo > tolerance. Each midpoint lies strictly inside (lo, hi), so a noisy service
//   (a rate that passes once and fails the next time) can narrow the bracket only, never invert it.
// - If max_rps passes, there is nothing to bisect: the confirming run is at max_rps.
// - max_steps bounds the grow and bisect steps; on reaching it the best rate so far is confirmed.
// - Confirm: a run at lo (the caller holds it for the full length, the search steps may be
//   shorter). A short step just above capacity can pass (its queue had little time to grow):
//   when the confirming run breaks the SLO, the next one is confirm_step_down lower, up to
//   confirm_attempts runs in all. found_rps() is the rate confirmed, or lo when none held;
//   confirmed() says whether one did.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace proofload::analyze {

struct RateSearchOptions {
  double start_rps = 0;     // the first rate run; above 0
  double growth = 2;        // factor between grow steps; above 1
  double tolerance = 0.01;  // bisection stops at (hi - lo) / lo <= tolerance; in (0, 0.5]
  std::optional<double> max_rps = std::nullopt;  // never above it (--max-rate); >= start_rps
  double min_rps = 1;  // never run below it when going down; in (0, start_rps]
  int max_steps = 40;  // grow + bisect steps (the confirming runs are extra); at least 1
  int confirm_attempts = 3;         // confirming runs at most; at least 1
  double confirm_step_down = 0.05;  // each failed confirming run, the next is this much lower
};

// Why the search stopped searching (before its confirming runs): the bracket converged within the
// tolerance; a rate held up to --max-rate, or up to the highest rate a schedule can run; the step
// limit was reached while growing, or with a bracket, or going down; no rate passed down to the
// minimum.
enum class SearchStop {
  kConverged,
  kHeldToMaxRate,
  kHeldToCeiling,
  kStepLimitHeld,
  kStepLimitBracket,
  kStepLimitNothingPassed,
  kNothingPassed,
};

struct SearchEnd {
  SearchStop stop = SearchStop::kConverged;
  double rate_rps = 0;            // the rate it held up to, or went down to
  double lo_rps = 0, hi_rps = 0;  // the bracket (kConverged, kStepLimitBracket)
};

class RateSearch {
 public:
  enum class Phase { kGrow, kBisect, kConfirm, kDone };

  // Throws UsageError (one line naming the setting) for options outside the ranges above.
  explicit RateSearch(RateSearchOptions options);

  Phase phase() const { return phase_; }
  const RateSearchOptions& options() const { return options_; }

  // The rate to run next (kConfirm: the full-length confirming run); nullopt when done.
  std::optional<double> next_rate() const;

  // The outcome of running next_rate(): did the SLO hold? Throws std::logic_error when done.
  void record(bool passed);

  struct Step {
    double rate_rps = 0;
    Phase phase = Phase::kGrow;  // kGrow also for the steps down from a failing start
    bool passed = false;
  };
  // Every recorded step, in order, the confirming run included.
  const std::vector<Step>& steps() const { return steps_; }

  // The rate a confirming run held; else the highest rate that passed a search step; nullopt
  // if none passed.
  std::optional<double> found_rps() const { return confirmed_ ? confirmed_rps_ : lo_; }
  // A confirming run held (at found_rps()).
  bool confirmed() const { return confirmed_; }

  // Why it stopped searching; none while it searches (words::search_end_reason says why it
  // ended).
  const std::optional<SearchEnd>& stopped() const { return stopped_; }
  // The rates of the confirming runs that broke the SLO, in order.
  const std::vector<double>& failed_confirms() const { return failed_confirms_; }

 private:
  void after_grow(double rate, bool passed);
  void after_confirm(double rate, bool passed);
  void bisect_or_confirm();
  void confirm(SearchEnd end);
  void finish(SearchEnd end);
  double ceiling_rps() const;

  RateSearchOptions options_;
  Phase phase_ = Phase::kGrow;
  double next_rps_ = 0;
  std::optional<double> lo_;  // highest rate that passed
  std::optional<double> hi_;  // lowest rate that failed
  int search_steps_ = 0;      // grow + bisect steps recorded
  bool confirmed_ = false;
  std::optional<double> confirmed_rps_;
  std::vector<double> failed_confirms_;  // rates of the confirming runs that broke the SLO
  std::optional<SearchEnd> stopped_;
  std::vector<Step> steps_;
};

// "grow", "bisect", "confirm", "done".
std::string_view phase_text(RateSearch::Phase phase);

}  // namespace proofload::analyze
