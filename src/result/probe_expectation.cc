// See probe_expectation.h.
#include "result/probe_expectation.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "common/text.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "result/probe_result.h"

namespace proofload::result {
namespace {

constexpr const char* kExpectForm = "expected RATE[,burst=N], e.g. 100/s,burst=600";

[[noreturn]] void bad_expectation(const std::string& what) {
  throw UsageError(fmt::format("--expect: {} ({})", what, kExpectForm));
}

}  // namespace

analyze::ProbeExpectation parse_probe_expectation(std::string_view text, double tolerance) {
  if (!std::isfinite(tolerance) || tolerance < 0 || tolerance > 1) {
    throw UsageError(
        fmt::format("--expect: a tolerance of {} is not a share from 0 to 1 (10% is "
                    "0.1)",
                    tolerance));
  }
  analyze::ProbeExpectation e;
  e.tolerance = tolerance;
  e.text = std::string(trim(text));
  if (e.text.empty()) bad_expectation("empty");
  std::vector<std::string_view> parts;
  for (std::string_view rest = e.text;;) {
    const size_t comma = rest.find(',');
    parts.push_back(trim(rest.substr(0, comma)));
    if (parts.back().empty()) bad_expectation(fmt::format("\"{}\" has an empty part", e.text));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  try {
    e.rate_per_s = parse_rate_per_s(parts[0]);  // "6000/m" is 100/s
  } catch (const UsageError&) {
    bad_expectation(fmt::format("\"{}\" is not a rate like 100/s or 6000/m", parts[0]));
  }
  if (!(e.rate_per_s > 0)) {
    bad_expectation(fmt::format("the rate \"{}\" is not above 0", parts[0]));
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string_view part = parts[i];
    if (!part.starts_with("burst=")) bad_expectation(fmt::format("\"{}\" is not burst=N", part));
    if (e.burst) bad_expectation(fmt::format("\"{}\": the burst is given twice", part));
    const std::string_view value = trim(part.substr(6));
    int64_t burst = -1;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), burst);
    if (value.empty() || error != std::errc() || end != value.data() + value.size() || burst < 0) {
      bad_expectation(fmt::format("\"{}\" is not a whole number of requests", part));
    }
    e.burst = burst;
  }
  return e;
}

std::optional<analyze::ProbeExpectation> probe_expectation(const ProbeSettings& settings) {
  if (!settings.expect) return std::nullopt;
  return parse_probe_expectation(*settings.expect, settings.tolerance);
}

}  // namespace proofload::result
