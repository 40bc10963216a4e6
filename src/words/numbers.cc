// See numbers.h.
#include "words/numbers.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "common/text.h"

namespace proofload::words {
namespace {

constexpr int kMaxDecimals = 6;

bool is_whole(double value) { return value == std::floor(value) && std::abs(value) < 1e15; }

// Trailing zeros after the point dropped, and the point when nothing follows it.
std::string trimmed(std::string text) {
  if (text.find('.') == std::string::npos) return text;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

}  // namespace

std::string with_thousands(int64_t value) { return group_thousands(std::to_string(value)); }

std::string fixed_with_thousands(double value, int decimals) {
  return group_thousands(fmt::format("{:.{}f}", value, decimals));
}

std::string fixed(double value, int decimals) {
  int d = decimals;
  while (d < kMaxDecimals && value != 0 &&
         std::strtod(fmt::format("{:.{}f}", value, d).c_str(), nullptr) == 0) {
    ++d;
  }
  std::string text = fmt::format("{:.{}f}", value, d);
  if (text.starts_with("-") && std::strtod(text.c_str(), nullptr) == 0) text.erase(0, 1);
  return group_thousands(std::move(text));
}

std::string given_text(double value) { return trimmed(fixed(value, 3)); }

std::string rate_number(double rps) { return fixed(rps, std::abs(rps) >= 100 ? 0 : 1); }

std::string rate_text(double rps) { return rate_number(rps) + "/s"; }

std::string given_rate_text(double rps) { return given_text(rps) + "/s"; }

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

std::string given_percent_text(double share) { return given_text(share * 100) + "%"; }

std::string cores_text(double cores) { return fixed(cores, 2); }

std::string count_text(double count) {
  if (is_whole(count)) return with_thousands(static_cast<int64_t>(count));
  return fixed(count, 1);
}

std::string seconds_text(double seconds) {
  if (is_whole(seconds)) return fixed_with_thousands(seconds, 0) + " s";
  // Widened to milliseconds at most: a duration is not known closer than that (a wait of a
  // microsecond reads "0 s").
  std::string text = fmt::format("{:.{}f}", seconds, std::abs(seconds) < 10 ? 2 : 1);
  if (std::strtod(text.c_str(), nullptr) == 0) text = fmt::format("{:.3f}", seconds);
  text = trimmed(std::move(text));
  if (text == "-0") text = "0";
  return group_thousands(std::move(text)) + " s";
}

std::string duration_text(double seconds) {
  if (seconds >= 3600) return fmt::format("{:g} h", std::round(seconds / 360) / 10);
  if (seconds >= 120) return fmt::format("{:g} min", std::round(seconds / 6) / 10);
  return seconds_text(seconds);
}

std::string ms_text(double ms) {
  const double size = std::abs(ms);
  if (size >= 1000) return seconds_text(ms / 1000);
  return fixed(ms, size < 1 ? 3 : size < 100 ? 1 : 0) + " ms";
}

std::string rate_to_precision(double rps, double relative_precision) {
  if (!std::isfinite(rps)) return fmt::format("{}", rps);
  std::string text;
  for (int decimals = 0; decimals <= kMaxDecimals; ++decimals) {
    text = trimmed(fmt::format("{:.{}f}", rps, decimals));
    const double shown = std::strtod(text.c_str(), nullptr);
    if (std::abs(shown - rps) <= relative_precision * std::abs(rps)) break;
  }
  if (text == "-0") text = "0";
  return group_thousands(text);
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

}  // namespace proofload::words
