// An abort rule's finding in words (analyze/abort_rule.h holds its numbers). Pure; thread-safe.
#pragma once

#include <string>

#include "analyze/abort_rule.h"

namespace proofload::words {

// "errors > 50% for 10s: errors = 83.2% over the last 10 s": the rule, the most extreme value of
// a window in the streak that triggered it (by the threshold's own rules, so the number agrees
// with the condition) and the streak's length. "" before the rule triggered.
std::string abort_reason(const analyze::AbortWatch& watch);

}  // namespace proofload::words
