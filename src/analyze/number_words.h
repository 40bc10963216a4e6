// Numbers in the words of an analysis's reasons ("2,066/s", "2.5 s", "a, b and c"): the report's
// conventions (report/numbers.h), which analyze does not depend on.
#pragma once

#include <string>
#include <vector>

namespace proofload::analyze::words {

// `value` with `decimals` (widened so that a non-zero value is not 0) and thousands separators.
std::string fixed_words(double value, int decimals);
// As given: "100", "2.5" (up to 3 decimals, trailing zeros dropped).
std::string given_words(double value);
std::string count_words(double count);
// A measured rate, as the report's tables print it: "99.8/s", "2,066/s".
std::string rate_words(double rate);
std::string given_rate_words(double rate);  // "100/s", "2.5/s"
std::string share_words(double share);      // 0.25: "25%"
std::string seconds_words(double seconds);  // "2.5 s"
std::string list_words(const std::vector<std::string>& items);  // "a, b and c"

}  // namespace proofload::analyze::words
