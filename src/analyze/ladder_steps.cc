// See ladder_steps.h.
#include "analyze/ladder_steps.h"

namespace proofload::analyze::steps {

std::optional<double> gain(double previous_goodput, double goodput) {
  if (previous_goodput > 0) return goodput / previous_goodput - 1;
  if (goodput == 0) return 0.0;  // nothing, then nothing: flat
  return std::nullopt;
}

std::optional<size_t> plateau_start(const std::vector<std::optional<double>>& gains, double floor) {
  // Scan back from the last step while each stops growing.
  std::optional<size_t> from;
  for (size_t i = gains.size(); i-- > 1;) {
    if (!gains[i] || *gains[i] >= floor) break;
    from = i - 1;
  }
  return from;
}

}  // namespace proofload::analyze::steps
