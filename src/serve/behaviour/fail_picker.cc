// FailPicker: probabilities turned into integer thresholds once, so a pick is exact integer
// comparisons. Immutable after construction; thread-safe.
#include "serve/behaviour/fail_picker.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/usage_error.h"

namespace proofload::serve {

std::string_view failure_name(Failure failure) {
  switch (failure) {
    case Failure::kNone:
      return "none";
    case Failure::kStatus500:
      return "500";
    case Failure::kStatus503:
      return "503";
    case Failure::kReset:
      return "reset";
    case Failure::kGarbage:
      return "garbage";
    case Failure::kTrickle:
      return "trickle";
    case Failure::kOversizedHeader:
      return "oversized_header";
  }
  return "none";
}

FailPicker::FailPicker(const FailProbabilities& probabilities) {
  const double values[kFailureKinds] = {probabilities.status_500, probabilities.status_503,
                                        probabilities.reset,      probabilities.garbage,
                                        probabilities.trickle,    probabilities.oversized_header};
  constexpr double kScale = 0x1.0p53;
  double cumulative = 0;
  for (size_t i = 0; i < kFailureKinds; ++i) {
    if (!(values[i] >= 0 && values[i] <= 1)) {
      throw UsageError("fail: probability of " +
                       std::string(failure_name(static_cast<Failure>(i + 1))) +
                       " must be between 0 and 1");
    }
    cumulative += values[i];
    // Rounding in the sum may pass 1 by an ulp or so; more than that is a configuration error.
    if (cumulative > 1 + 1e-9) throw UsageError("fail: probabilities add up to more than 1");
    thresholds_[i] = static_cast<uint64_t>(std::llround(std::min(cumulative, 1.0) * kScale));
  }
}

}  // namespace proofload::serve
