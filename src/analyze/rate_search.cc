// The rate search's state machine (see rate_search.h). Configuration errors throw UsageError;
// misuse by the caller (recording after the end) throws std::logic_error.
#include "analyze/rate_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <utility>

#include "common/text.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "words/numbers.h"

namespace proofload::analyze {
namespace {

[[noreturn]] void bad_option(const std::string& why) { throw UsageError("rate search: " + why); }

}  // namespace

std::string_view phase_text(RateSearch::Phase phase) {
  switch (phase) {
    case RateSearch::Phase::kGrow:
      return "grow";
    case RateSearch::Phase::kBisect:
      return "bisect";
    case RateSearch::Phase::kConfirm:
      return "confirm";
    case RateSearch::Phase::kDone:
      return "done";
  }
  return "?";
}

RateSearch::RateSearch(RateSearchOptions options) : options_(std::move(options)) {
  const RateSearchOptions& o = options_;
  // Negated comparisons so that NaN is rejected too.
  if (!(o.start_rps > 0) || !(o.start_rps <= kMaxRatePerS)) {
    bad_option(fmt::format("the start rate must be above 0/s and at most {}/s (got {})",
                           words::rate_to_precision(kMaxRatePerS), o.start_rps));
  }
  if (!(o.growth > 1) || !std::isfinite(o.growth)) {
    bad_option(fmt::format("the growth factor must be above 1, like 2 (got {})", o.growth));
  }
  if (!(o.tolerance > 0 && o.tolerance <= 0.5)) {
    bad_option("the tolerance must be above 0% and at most 50%, like 1% (got " +
               (std::isfinite(o.tolerance) ? words::given_percent_text(o.tolerance)
                                           : fmt::format("{}", o.tolerance)) +
               ")");
  }
  if (o.max_rps) {
    if (!(*o.max_rps >= o.start_rps) || !(*o.max_rps <= kMaxRatePerS)) {
      bad_option(
          fmt::format("--max-rate {}/s must be at least the start rate {}/s and at most {}/s",
                      words::rate_to_precision(*o.max_rps), words::rate_to_precision(o.start_rps),
                      words::rate_to_precision(kMaxRatePerS)));
    }
  }
  if (!(o.min_rps > 0 && o.min_rps <= o.start_rps)) {
    bad_option(
        fmt::format("the minimum rate must be above 0/s and at most the start rate {}/s "
                    "(got {}/s)",
                    words::rate_to_precision(o.start_rps), o.min_rps));
  }
  if (o.max_steps < 1) {
    bad_option(fmt::format("the step limit must be at least 1 (got {})", o.max_steps));
  }
  if (o.confirm_attempts < 1) {
    bad_option(fmt::format("confirming runs must be at least 1 (got {})", o.confirm_attempts));
  }
  if (!(o.confirm_step_down > 0 && o.confirm_step_down < 1)) {
    bad_option(fmt::format("the confirming step down must be above 0% and below 100% (got {})",
                           o.confirm_step_down));
  }
  next_rps_ = o.start_rps;
}

std::optional<double> RateSearch::next_rate() const {
  if (phase_ == Phase::kDone) return std::nullopt;
  return next_rps_;
}

double RateSearch::ceiling_rps() const {
  // Without --max-rate the search still stops where a schedule can no longer go.
  return options_.max_rps.value_or(kMaxRatePerS);
}

void RateSearch::record(bool passed) {
  if (phase_ == Phase::kDone) {
    throw std::logic_error("RateSearch::record called after the search ended");
  }
  const double rate = next_rps_;
  steps_.push_back(Step{rate, phase_, passed});
  switch (phase_) {
    case Phase::kConfirm:
      after_confirm(rate, passed);
      return;
    case Phase::kGrow:
      ++search_steps_;
      after_grow(rate, passed);
      return;
    case Phase::kBisect:
      ++search_steps_;
      (passed ? lo_ : hi_) = rate;
      bisect_or_confirm();
      return;
    case Phase::kDone:
      return;
  }
}

void RateSearch::after_grow(double rate, bool passed) {
  if (passed) {
    lo_ = rate;
    // Going down from a failing start: this pass closes the bracket.
    if (hi_) return bisect_or_confirm();
    if (rate >= ceiling_rps()) {
      return confirm(
          {options_.max_rps ? SearchStop::kHeldToMaxRate : SearchStop::kHeldToCeiling, rate});
    }
    if (search_steps_ >= options_.max_steps) return confirm({SearchStop::kStepLimitHeld, rate});
    next_rps_ = std::min(rate * options_.growth, ceiling_rps());
    return;
  }
  hi_ = rate;
  if (lo_) return bisect_or_confirm();
  if (rate <= options_.min_rps) return finish({SearchStop::kNothingPassed, rate});
  if (search_steps_ >= options_.max_steps) {
    return finish({SearchStop::kStepLimitNothingPassed, rate});
  }
  next_rps_ = std::max(rate / options_.growth, options_.min_rps);
}

void RateSearch::after_confirm(double rate, bool passed) {
  if (passed) {
    confirmed_ = true;
    confirmed_rps_ = rate;
    phase_ = Phase::kDone;
    return;
  }
  failed_confirms_.push_back(rate);
  const double lower = rate * (1 - options_.confirm_step_down);
  if (static_cast<int>(failed_confirms_.size()) < options_.confirm_attempts &&
      lower >= options_.min_rps) {
    next_rps_ = lower;
    return;
  }
  phase_ = Phase::kDone;
}

void RateSearch::bisect_or_confirm() {
  const double lo = *lo_;
  const double hi = *hi_;
  if ((hi - lo) / lo <= options_.tolerance) return confirm({SearchStop::kConverged, 0, lo, hi});
  if (search_steps_ >= options_.max_steps) {
    return confirm({SearchStop::kStepLimitBracket, 0, lo, hi});
  }
  phase_ = Phase::kBisect;
  next_rps_ = lo + (hi - lo) / 2;
}

void RateSearch::confirm(SearchEnd end) {
  stopped_ = end;
  phase_ = Phase::kConfirm;
  next_rps_ = *lo_;
}

void RateSearch::finish(SearchEnd end) {
  stopped_ = end;
  phase_ = Phase::kDone;
}

}  // namespace proofload::analyze
