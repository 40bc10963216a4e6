// Number and Markdown conventions of the ladder report (see ladder_text.h).
#include "report/ladder_text.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "report/numbers.h"

namespace proofload::report::ladder {
namespace {

constexpr int kMaxDecimals = 6;

bool is_whole(double value) { return value == std::floor(value) && std::abs(value) < 1e15; }

}  // namespace

std::string fixed(double value, int decimals) {
  int d = decimals;
  while (d < kMaxDecimals && value != 0 &&
         std::strtod(fmt::format("{:.{}f}", value, d).c_str(), nullptr) == 0) {
    ++d;
  }
  return fixed_with_thousands(value, d);
}

std::string rate_number(double rps) { return fixed(rps, std::abs(rps) >= 100 ? 0 : 1); }

std::string rate_text(double rps) { return rate_number(rps) + "/s"; }

std::string level_text(double level) {
  if (is_whole(level)) return fixed_with_thousands(level, 0);
  // Shortest text that reads back as the same number: a level is shown as it was given.
  const std::string shortest = fmt::format("{}", level);
  if (shortest.find_first_of("eE") != std::string::npos) return shortest;
  return fixed_with_thousands(level, decimals_in(shortest));
}

int ms_decimals(double ms) { return std::abs(ms) < 1 ? 3 : 1; }

std::string percent_text(double share, int decimals) {
  int d = decimals;
  for (; d < kMaxDecimals; ++d) {
    const double shown = std::strtod(fmt::format("{:.{}f}", share * 100, d).c_str(), nullptr);
    if ((shown != 0 || share == 0) && (shown != 100 || share == 1)) break;
  }
  return fixed_with_thousands(share * 100, d) + "%";
}

std::string cores_text(double cores) { return fixed(cores, 2); }

std::string count_text(double count) {
  if (is_whole(count)) return with_thousands(static_cast<int64_t>(count));
  return fixed(count, 1);
}

std::string seconds_text(double seconds) {
  if (is_whole(seconds)) return fixed_with_thousands(seconds, 0) + " s";
  std::string text = fixed(seconds, std::abs(seconds) < 10 ? 2 : 1);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text + " s";
}

std::string list_text(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

std::string levels_text(const std::vector<double>& levels) {
  std::vector<std::string> items;
  for (double level : levels) items.push_back(level_text(level));
  return list_text(items);
}

std::string table_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string inline_code(std::string_view text) {
  std::string fence = "`";
  while (text.find(fence) != std::string_view::npos) fence += '`';
  // A fence of two or more needs spaces when the text starts or ends with a backtick.
  const bool pad = fence.size() > 1;
  return fence + (pad ? " " : "") + std::string(text) + (pad ? " " : "") + fence;
}

std::string command_block(const std::string& command_line) {
  if (command_line.empty()) return "The command was not recorded.\n\n";
  std::string fence = "```";
  while (command_line.find(fence) != std::string::npos) fence += '`';
  return fence + "\n" + command_line + "\n" + fence + "\n\n";
}

std::string table_row(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const std::string& cell : cells) out += " " + cell + " |";
  return out + "\n";
}

int decimals_in(std::string_view number) {
  const size_t dot = number.find('.');
  if (dot == std::string_view::npos) return 0;
  int count = 0;
  for (size_t i = dot + 1; i < number.size() && std::isdigit(static_cast<unsigned char>(number[i]));
       ++i) {
    ++count;
  }
  return count;
}

std::string capitalized(std::string text) {
  if (!text.empty()) text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  return text;
}

}  // namespace proofload::report::ladder
