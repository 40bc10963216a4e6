// Abort rules (`--abort-when "errors > 50% for 10s"`): a run stops early when a condition on the
// whole run's metrics has held for a stated time, so a broken target is not hammered for the rest
// of a long ladder. Parsed at configuration time; watched over finished windows by the caller.
// The watch holds numbers; words/abort_words.h says why it triggered.
// parse_abort_rule is stateless and thread-safe; an AbortWatch belongs to one caller.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "measure/threshold.h"

namespace proofload::analyze {

struct AbortRule {
  std::string text;              // as written (surrounding whitespace removed)
  measure::Threshold condition;  // the run aborts while this "passes" (is true), not when it fails
  int64_t for_ns = 0;            // how long the condition must hold over consecutive windows
};

// CONDITION for DURATION. CONDITION is the threshold grammar (parse_threshold) on a metric of
// the whole run (no scope); DURATION is parse_duration_ns's ("10s", "1m30s"), above zero. The
// last " for " (any case, whitespace around it) splits the two. A missing "for DURATION", a scope,
// a bad condition or duration: UsageError with one line quoting the rule and the expected form.
AbortRule parse_abort_rule(std::string_view text);

// Watches one rule over finished windows. Warm-up is the caller's business: it passes only the
// windows that count.
class AbortWatch {
 public:
  explicit AbortWatch(AbortRule rule);

  // One finished window: its length and a lookup of the metric over that window (nullopt = no
  // data, which resets the streak like a window where the condition is false). Returns true once
  // the condition has held in consecutive windows totalling at least rule.for_ns, and from then
  // on (the verdict does not un-trigger).
  bool add_window(int64_t duration_ns, const measure::MetricLookup& lookup);

  bool triggered() const { return triggered_; }
  const AbortRule& rule() const { return rule_; }

  // Once triggered, the most extreme value of a window in the streak that triggered it (the
  // highest for > and >=, the lowest for < and <=, the last for ==); nullopt before.
  std::optional<double> worst() const;
  // The streak's length in ns (once triggered, the streak that triggered it).
  int64_t streak_ns() const { return streak_ns_; }

 private:
  AbortRule rule_;
  int64_t streak_ns_ = 0;
  double worst_ = 0;  // meaningful while streak_ns_ > 0
  bool triggered_ = false;
};

}  // namespace proofload::analyze
