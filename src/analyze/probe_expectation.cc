// See probe_analysis.h: the user's expectation (--expect) and the judgement of a header variant
// (--variant) against it.
#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "analyze/probe_analysis.h"
#include "common/text.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "words/numbers.h"

namespace proofload::analyze {
namespace {

using namespace words;

constexpr const char* kExpectForm = "expected RATE[,burst=N], e.g. 100/s,burst=600";

[[noreturn]] void bad_expectation(const std::string& what) {
  throw UsageError(fmt::format("--expect: {} ({})", what, kExpectForm));
}

}  // namespace

ProbeExpectation parse_probe_expectation(std::string_view text, double tolerance) {
  if (!std::isfinite(tolerance) || tolerance < 0 || tolerance > 1) {
    throw UsageError(
        fmt::format("--expect: a tolerance of {} is not a share from 0 to 1 (10% is "
                    "0.1)",
                    tolerance));
  }
  ProbeExpectation e;
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

ProbeVariantVerdict judge_variant(const ProbeVariantRun& run, std::optional<double> allowance_per_s,
                                  std::optional<double> burst) {
  ProbeVariantVerdict v;
  v.run = run;
  const int64_t total = run.let_through + run.limited + run.other;
  const auto unclear = [&](std::string reason) {
    v.verdict = "unclear";
    v.reason = std::move(reason);
    return v;
  };
  if (run.limited > 0) {
    v.limited = true;
    v.verdict = "held";
    v.reason = fmt::format("{} of {} let through, {} limited: the limit holds with the header",
                           count_text(run.let_through), count_text(total), count_text(run.limited));
    return v;
  }
  if (run.let_through == 0) {
    return unclear(fmt::format("nothing let through and no 429 ({} other of {}): cannot tell",
                               count_text(run.other), count_text(total)));
  }
  if (!allowance_per_s) {
    return unclear(
        fmt::format("no 429 and {} let through, but no allowance is known to set it "
                    "against: cannot tell",
                    count_text(run.let_through)));
  }
  const double allowed = *allowance_per_s * run.duration_s + burst.value_or(0);
  const std::string allowance =
      fmt::format("in {} s ({}{})", given_text(run.duration_s), rate_text(*allowance_per_s),
                  burst ? " + burst " + count_text(std::round(*burst)) : "");
  if (static_cast<double>(run.let_through) > allowed) {
    v.limited = false;
    v.verdict = "lifted";
    v.reason = fmt::format(
        "{} of {} let through and no 429, more than the allowance allows {}: "
        "the header lifts the limit",
        count_text(run.let_through), count_text(total), allowance);
    return v;
  }
  return unclear(
      fmt::format("no 429 and {} let through, within what the allowance allows {}: "
                  "sent too little to tell",
                  count_text(run.let_through), allowance));
}

}  // namespace proofload::analyze
