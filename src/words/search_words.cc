// See search_words.h.
#include "words/search_words.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "words/numbers.h"

namespace proofload::words {
namespace {

using analyze::SearchEnd;
using analyze::SearchStop;

// Both ends of a bracket, with enough decimals that they do not print alike.
std::string between(double lo, double hi) {
  double precision = 0.0005;
  std::pair<std::string, std::string> texts{rate_to_precision(lo, precision),
                                            rate_to_precision(hi, precision)};
  while (texts.first == texts.second && precision > 1e-12) {
    precision /= 10;
    texts = {rate_to_precision(lo, precision), rate_to_precision(hi, precision)};
  }
  return "between " + texts.first + "/s and " + texts.second + "/s";
}

std::string stop_text(const SearchEnd& end, const analyze::RateSearchOptions& options) {
  const std::string step_limit = fmt::format("step limit ({}) reached: ", options.max_steps);
  const std::string rate = rate_to_precision(end.rate_rps) + "/s";
  switch (end.stop) {
    case SearchStop::kConverged:
      return "converged within " + given_percent_text(options.tolerance) + ": " +
             between(end.lo_rps, end.hi_rps);
    case SearchStop::kHeldToMaxRate:
      return "held the SLO up to --max-rate " + rate;
    case SearchStop::kHeldToCeiling:
      return "held the SLO up to " + rate + ", the highest rate a schedule can run";
    case SearchStop::kStepLimitHeld:
      return step_limit + "held the SLO up to " + rate;
    case SearchStop::kStepLimitBracket:
      return step_limit + between(end.lo_rps, end.hi_rps);
    case SearchStop::kStepLimitNothingPassed:
      return step_limit + "no rate passed down to " + rate;
    case SearchStop::kNothingPassed:
      return "no rate passed down to " + rate;
  }
  return "";
}

// "run at 506/s", "runs at 506/s, 481/s and 457/s".
std::string confirming_runs(const std::vector<double>& rates) {
  std::vector<std::string> items;
  for (double rate : rates) items.push_back(rate_to_precision(rate) + "/s");
  return (rates.size() == 1 ? "run at " : "runs at ") + list_text(items);
}

}  // namespace

std::string search_end_reason(const analyze::RateSearch& search) {
  if (search.phase() != analyze::RateSearch::Phase::kDone || !search.stopped()) return "";
  const std::vector<double>& failed = search.failed_confirms();
  const std::string stopped = stop_text(*search.stopped(), search.options());
  if (search.confirmed()) {
    if (failed.empty()) return stopped;
    return stopped + "; confirmed at " + rate_to_precision(search.found_rps().value_or(0)) +
           "/s after the confirming " + confirming_runs(failed) + " broke the SLO";
  }
  if (!failed.empty()) return "the confirming " + confirming_runs(failed) + " broke the SLO";
  return stopped;
}

}  // namespace proofload::words
