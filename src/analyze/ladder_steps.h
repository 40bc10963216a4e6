// The ladder's rules for a step from one level to the next: shared by the mix's analysis and each
// named request's (ladder_analysis.h states the rules; words/ladder_words.h says them). Pure;
// thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace proofload::analyze::steps {

// goodput / previous - 1; 0 from nothing to nothing (flat); none from nothing to something.
std::optional<double> gain(double previous_goodput, double goodput);

// The plateau: the first level from which every later step is flat or falling (gain < floor),
// with at least one such step. gains[i] is the step into level i (gains[0] is not read); a step
// without a gain (from nothing) grows.
std::optional<size_t> plateau_start(const std::vector<std::optional<double>>& gains, double floor);

}  // namespace proofload::analyze::steps
