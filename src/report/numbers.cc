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

std::string arrivals_noun(const nlohmann::json& spec) {
  bool flows = false;
  bool requests = false;
  const nlohmann::json* mix = nullptr;
  if (spec.is_object() && spec.contains("scenario") && spec["scenario"].is_object() &&
      spec["scenario"].contains("mix") && spec["scenario"]["mix"].is_array()) {
    mix = &spec["scenario"]["mix"];
  }
  if (mix == nullptr) return "requests";
  for (const nlohmann::json& entry : *mix) {
    const bool is_flow = entry.is_object() && entry.value("kind", "") == "flow";
    (is_flow ? flows : requests) = true;
  }
  if (flows && requests) return "arrivals (requests and flows)";
  return flows ? "flows" : "requests";
}

std::optional<double> share(int64_t numerator, int64_t denominator) {
  if (denominator == 0) return std::nullopt;
  return static_cast<double>(numerator) / static_cast<double>(denominator);
}

namespace {

// Inserts a comma every three digits of an unsigned digit string.
std::string group_digits(const std::string& digits) {
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  const size_t first = digits.size() % 3 == 0 ? 3 : digits.size() % 3;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i >= first && (i - first) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

std::string with_thousands(int64_t value) {
  // Through uint64 so that INT64_MIN has a magnitude.
  const uint64_t magnitude =
      value < 0 ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  // Appends rather than `"-" + s`: g++ 12 at -O3 warns falsely (-Wrestrict) on the latter.
  std::string out = value < 0 ? "-" : "";
  out += group_digits(std::to_string(magnitude));
  return out;
}

std::string fixed_with_thousands(double value, int decimals) {
  std::string text = fmt::format("{:.{}f}", value, decimals);
  const bool negative = !text.empty() && text[0] == '-';
  if (negative) text.erase(0, 1);
  const size_t dot = text.find('.');
  const std::string integer = text.substr(0, dot);
  const std::string fraction = dot == std::string::npos ? "" : text.substr(dot);
  std::string out = negative ? "-" : "";
  out += group_digits(integer);
  out += fraction;
  return out;
}

std::string iso8601_utc(int64_t wall_ns) { return format_rfc3339_utc(wall_ns); }

}  // namespace proofload::report
