// Shared number conventions of the report formats (see numbers.h).
#include "report/numbers.h"

#include <fmt/format.h>
#include <time.h>

#include <cmath>

#include "common/clock.h"
#include "common/wall_time.h"

namespace proofload::report {

std::optional<double> percentile_ms(const measure::HdrHistogram& us, double percentile) {
  if (us.total_count() == 0) return std::nullopt;
  return static_cast<double>(us.value_at_percentile(percentile)) / 1000.0;
}

std::optional<double> max_ms(const measure::HdrHistogram& us) {
  if (us.total_count() == 0) return std::nullopt;
  return static_cast<double>(us.max()) / 1000.0;
}

PercentileSpectrum percentile_spectrum(const measure::HdrHistogram& us) {
  PercentileSpectrum spectrum;
  const int64_t count = us.total_count();
  if (count == 0) return spectrum;
  constexpr int kStepsPerHalving = 5;  // HdrHistogram's own percentile output's default
  for (int step = 0;; ++step) {
    const double remaining = std::pow(0.5, static_cast<double>(step) / kStepsPerHalving);
    if (remaining * static_cast<double>(count) < 1.0) break;
    // Rounded to a millionth of a percent: the file reads 12.944944, not 12.944943670387588.
    const double percentile = std::round(1e8 * (1.0 - remaining)) / 1e6;
    spectrum.percentiles.push_back(percentile);
    spectrum.ms.push_back(static_cast<double>(us.value_at_percentile(percentile)) / 1000.0);
  }
  spectrum.percentiles.push_back(100.0);
  spectrum.ms.push_back(static_cast<double>(us.max()) / 1000.0);
  return spectrum;
}

std::optional<double> mean_ms(const measure::HdrHistogram& us) {
  if (us.total_count() == 0) return std::nullopt;
  return std::round(us.mean()) / 1000.0;
}

int64_t started_requests(const measure::WindowStats& w) {
  return w.ended() - w.count(measure::Outcome::kNeverStarted);
}

std::string arrivals_noun(const result::SpecRecord& spec) {
  bool flows = false;
  bool requests = false;
  if (!spec.scenario || !spec.scenario->mix) return "requests";
  for (const result::SpecMixEntry& entry : *spec.scenario->mix) {
    const bool is_flow = entry.kind.get() == "flow";
    (is_flow ? flows : requests) = true;
  }
  if (flows && requests) return "arrivals (requests and flows)";
  return flows ? "flows" : "requests";
}

std::optional<double> share(int64_t numerator, int64_t denominator) {
  if (denominator == 0) return std::nullopt;
  return static_cast<double>(numerator) / static_cast<double>(denominator);
}

std::string iso8601_utc(int64_t wall_ns) { return format_rfc3339_utc(wall_ns); }

}  // namespace proofload::report
