// How a ladder report writes numbers and Markdown: thousands separators, units in words, a
// non-zero value never printed as zero, and the same conventions as the analysis's own texts
// ("2,066/s", "18.4 ms", "0.42%"), so that a table and the sentence next to it agree. Internal to
// the ladder report. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace proofload::report::ladder {

// The cell of a figure that was not measured (never "0", never "null").
inline constexpr std::string_view kNotMeasured = "–";

// `value` with `decimals` and thousands separators, widened (up to 6 decimals) so that a non-zero
// value does not print as 0.
std::string fixed(double value, int decimals);

// Throughput without its unit: "2,066", "99.8" (0 decimals from 100, else 1).
std::string rate_number(double rps);
// Throughput with its unit: "2,066/s".
std::string rate_text(double rps);
// A level as given: "512", "1,000", "2.5".
std::string level_text(double level);
// Latency in ms without its unit: "0.250", "18.4", "1,140.0" (3 decimals below 1 ms, else 1:
// the precision of the SLO's own observed values).
int ms_decimals(double ms);
// A share as a percentage: "0.42%" (2 decimals unless told; widened so that a non-zero share is
// not 0% and a share short of everything is not 100%).
std::string percent_text(double share, int decimals = 2);
// CPU in cores: "1.93".
std::string cores_text(double cores);
// A count: "2,994".
std::string count_text(double count);
// A duration: "30 s", "1.5 s", "0.12 s".
std::string seconds_text(double seconds);

// "a", "a and b", "a, b and c".
std::string list_text(const std::vector<std::string>& items);
// "8, 16 and 32" (levels as given).
std::string levels_text(const std::vector<double>& levels);

// Text safe inside a Markdown table cell: '|' escaped, line breaks as spaces.
std::string table_cell(std::string_view text);
// Inline code: `text` (with a longer fence when the text holds backticks).
std::string inline_code(std::string_view text);
// The command that reproduces a report, in a fenced code block (a longer fence when the command
// holds one), or "The command was not recorded." when it is empty; ends with a blank line.
std::string command_block(const std::string& command_line);
// A Markdown table row: "| a | b |".
std::string table_row(const std::vector<std::string>& cells);

// Digits after the decimal point of a printed number ("1,000.04" -> 2, "12" -> 0).
int decimals_in(std::string_view number);

// "none: the lowest level…" -> "None: the lowest level…".
std::string capitalized(std::string text);

}  // namespace proofload::report::ladder
