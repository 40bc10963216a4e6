// How a report writes Markdown: table rows and cells, inline code and the command block that
// reproduces it (numbers: words/numbers.h). Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace proofload::report::markdown {

// The cell of a figure that was not measured (never "0", never "null").
inline constexpr std::string_view kNotMeasured = "–";

// Text safe inside a Markdown table cell: '|' escaped, line breaks as spaces.
std::string table_cell(std::string_view text);
// Inline code: `text` (with a longer fence when the text holds backticks).
std::string inline_code(std::string_view text);
// The command that reproduces a report, in a fenced code block (a longer fence when the command
// holds one), or "The command was not recorded." when it is empty; ends with a blank line.
std::string command_block(const std::string& command_line);
// A Markdown table row: "| a | b |".
std::string table_row(const std::vector<std::string>& cells);

}  // namespace proofload::report::markdown
