// Parsing of the user's timing input (durations, rates, stages) into exact integers and
// validated values. Configuration-time only: throws UsageError with one clear line. Stateless.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace proofload::schedule {

// "500ms", "10s", "1m", "1h", "1m30s", "2.5s", "250us", "10ns" ("µs" too). A bare number is
// seconds ("10", "2.5"). Units must go from largest to smallest, each at most once. Fractions
// are exact decimal (never binary floating point), rounded to the nearest ns. Negative, empty,
// garbage or larger than int64 nanoseconds (~292 years) throws UsageError.
int64_t parse_duration_ns(std::string_view text);

// Requests per second: "1000", "1k", "2.5k", "1M", optionally followed by "/s" ("500/s").
// Zero is accepted (a stage may ramp to 0; the caller rejects 0 where it makes no sense).
// Negative, NaN, infinite, garbage, or above kMaxRatePerS throws UsageError.
double parse_rate_per_s(std::string_view text);

// One ns between arrivals is the finest a ns clock can schedule.
constexpr double kMaxRatePerS = 1e9;

// One stage of a ramping run: over `duration_ns`, the target (a rate per second for open loop,
// a number of connections for closed loop) moves linearly from the previous stage's target to
// this one's.
struct Stage {
  int64_t duration_ns;
  double target;
  bool operator==(const Stage&) const = default;
};

// "10s:100,30s:1000,10s:0": comma-separated DURATION:TARGET pairs (spaces around items are
// ignored; targets accept the same suffixes as rates). Zero-length stages are allowed (a jump);
// a total of zero is not.
std::vector<Stage> parse_stages(std::string_view text);

// Shortest form that parse_duration_ns reads back exactly: "1m30s", "500ms", "2.5s", "1h",
// "0s", "-1.5ms". For messages and written specs.
std::string format_duration(int64_t ns);

}  // namespace proofload::schedule
