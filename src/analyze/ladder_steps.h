// The ladder's rules for a step from one level to the next, and their words: shared by the mix's
// analysis and each named request's (ladder_analysis.h states the rules). Pure; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace proofload::analyze::steps {

// "+1.3%", "-7.0%": one decimal, more when one would put the gain on the other side of the
// floor than its verdict (4.96% is flat inside 5%, so it is not printed as 5.0%).
std::string signed_gain_text(double gain, double floor);

// goodput / previous - 1; 0 from nothing to nothing (flat); none from nothing to something.
std::optional<double> gain(double previous_goodput, double goodput);

// "+1.3%: flat, inside the 6.7% noise floor", "-7.0%: falls, beyond the 5.0% noise floor";
// without a gain, "grows from nothing (the level before had no goodput)".
std::string gain_text(std::optional<double> gain, double floor);

// The plateau: the first level from which every later step is flat or falling (gain < floor),
// with at least one such step. gains[i] is the step into level i (gains[0] is not read); a step
// without a gain (from nothing) grows.
std::optional<size_t> plateau_start(const std::vector<std::optional<double>>& gains, double floor);

}  // namespace proofload::analyze::steps
