// The median every analysis uses (a soak's windows, a probe's sources, a comparison's repeats):
// the mean of the middle two for an even count; none for none. Pure.
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

namespace proofload::analyze {

inline std::optional<double> median_of(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace proofload::analyze
