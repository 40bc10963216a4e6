// How the CSV files write a field (levels.csv, cells.csv): a number as the shortest text that
// reads back as the same double, a missing one as an empty field, text quoted (RFC 4180) only
// when it holds a comma, a quote or a line break. Pure.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

namespace proofload::report {

inline std::string csv_number(std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return "";
  return fmt::format("{}", *value);
}

inline std::string csv_count(std::optional<int64_t> value) {
  return value ? std::to_string(*value) : std::string();
}

inline std::string csv_text(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace proofload::report
