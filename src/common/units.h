// Durations, rates and sizes as a user writes them ("30s", "1.5k/s", "4KiB"), read into exact
// integers and validated values, and written back: one grammar for the flags, the scenario and
// routes files, thresholds and SLOs. Configuration-time only: throws UsageError with one clear
// line. Stateless.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace proofload {

// "500ms", "10s", "1m", "1h", "1m30s", "2.5s", "250us", "10ns" ("µs" too). A bare number is
// seconds ("10", "2.5"). Units must go from largest to smallest, each at most once. Fractions
// are exact decimal (never binary floating point), rounded to the nearest ns. Negative, empty,
// garbage or larger than int64 nanoseconds (~292 years) throws UsageError.
int64_t parse_duration_ns(std::string_view text);

// A flag's duration that must be longer than 0 ("--hold", "30s"): 0 throws UsageError naming the
// flag.
int64_t parse_positive_duration_ns(std::string_view flag, std::string_view text);

// Requests per second: "1000", "1k", "2.5k", "1M", optionally followed by "/s" ("500/s"), or
// per minute with "/m" or "/min" ("6000/m" is 100).
// Zero is accepted (a stage may ramp to 0; the caller rejects 0 where it makes no sense).
// Negative, NaN, infinite, garbage, or above kMaxRatePerS throws UsageError.
double parse_rate_per_s(std::string_view text);

// One ns between arrivals is the finest a ns clock can schedule.
constexpr double kMaxRatePerS = 1e9;

// A count with an optional k (1e3) or M (1e6) suffix and "/s": "1000", "2.5k", "1M/s". Negative,
// NaN, infinite or garbage throws UsageError("invalid WHAT \"TEXT\": why").
double parse_scaled_number(std::string_view text, std::string_view what);

// A size in bytes: a whole number with an optional unit B, kB (1000), KiB (1024), MB or MiB,
// no space between ("512", "4KiB"); nullopt for anything else, or above `max` bytes.
std::optional<int64_t> parse_bytes(std::string_view text, int64_t max);

// "64 MiB", "64 KiB", "100 bytes": a size in its largest whole unit, as limits are stated.
std::string bytes_text(int64_t bytes);

// Shortest form that parse_duration_ns reads back exactly: "1m30s", "500ms", "2.5s", "1h",
// "0s", "-1.5ms". For messages and written specs.
std::string format_duration(int64_t ns);

}  // namespace proofload
