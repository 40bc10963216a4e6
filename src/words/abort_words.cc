// See abort_words.h.
#include "words/abort_words.h"

#include "measure/threshold.h"
#include "words/numbers.h"

namespace proofload::words {

std::string abort_reason(const analyze::AbortWatch& watch) {
  if (!watch.triggered()) return "";
  const std::optional<double> worst = watch.worst();
  const auto results = measure::evaluate_thresholds(
      {watch.rule().condition}, [&](const measure::MetricRef&) { return worst; });
  return watch.rule().text + ": " + results.front().observed_text + " over the last " +
         seconds_text(static_cast<double>(watch.streak_ns()) / 1e9);
}

}  // namespace proofload::words
