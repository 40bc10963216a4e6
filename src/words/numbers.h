// How a figure is written, in every output: thousands separators, units in words, a non-zero value
// never printed as zero, a level or a setting as it was given ("2,066/s", "18.4 ms", "0.42%",
// "2.5 s"), so that a table, the sentence beside it and the terminal agree. One definition of
// each rule (the reports' and the analyses' alike). Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace proofload::words {

// 1234567 -> "1,234,567"; -1234 -> "-1,234".
std::string with_thousands(int64_t value);
// 1234.5678 with 2 decimals -> "1,234.57".
std::string fixed_with_thousands(double value, int decimals);

// `value` with `decimals` and thousands separators, widened (up to 6 decimals) so that a non-zero
// value does not print as 0; a value that rounds to zero is "0", never "-0".
std::string fixed(double value, int decimals);
// A number as it was given (a setting, a tolerance): "100", "2.5", "0.125" (up to 3 decimals,
// widened as `fixed`, trailing zeros dropped).
std::string given_text(double value);

// Throughput without its unit: "2,066", "99.8" (0 decimals from 100, else 1).
std::string rate_number(double rps);
// Throughput with its unit: "2,066/s".
std::string rate_text(double rps);
// A rate as it was given: "100/s", "2.5/s".
std::string given_rate_text(double rps);
// A level as given: "512", "1,000", "2.5".
std::string level_text(double level);
// Latency in ms: the decimals its figures are written with (3 below 1 ms, else 1: the precision
// of the SLO's own observed values).
int ms_decimals(double ms);
// A share as a percentage: "0.42%" (2 decimals unless told; widened so that a non-zero share is
// not 0% and a share short of everything is not 100%).
std::string percent_text(double share, int decimals = 2);
// A share as it was given: 0.25 -> "25%", 0.125 -> "12.5%".
std::string given_percent_text(double share);
// CPU in cores: "1.93".
std::string cores_text(double cores);
// A count: "2,994" (a fractional one, as a mean, with 1 decimal).
std::string count_text(double count);
// A duration: "30 s", "1.5 s", "0.12 s", "0.004 s" (2 decimals below 10 s, else 1, up to 3 for a
// short one; trailing zeros dropped; under half a millisecond, "0 s").
std::string seconds_text(double seconds);
// A longer duration: seconds as seconds_text below 2 minutes, then minutes, and hours from one
// hour, to a tenth ("90 s", "2.5 min", "12 h").
std::string duration_text(double seconds);
// Latency in a sentence: "0.250 ms", "18.4 ms", "250 ms", from a second in seconds ("2 s",
// "1.14 s"): 3 decimals below 1 ms, 1 below 100 ms, none to 1 s (a figure's own precision, not
// a table's column, whose unit stays ms).
std::string ms_text(double ms);
// A rate without its unit, with the fewest decimals (up to 6) that keep it within
// `relative_precision` of its value: a search's bracket ("148.4", "1.563", "1,234,567").
std::string rate_to_precision(double rps, double relative_precision = 0.0005);

// "a", "a and b", "a, b and c".
std::string list_text(const std::vector<std::string>& items);
// "8, 16 and 32" (levels as given).
std::string levels_text(const std::vector<double>& levels);

// Digits after the decimal point of a printed number ("1,000.04" -> 2, "12" -> 0).
int decimals_in(std::string_view number);
// "none: the lowest level…" -> "None: the lowest level…".
std::string capitalized(std::string text);

}  // namespace proofload::words
