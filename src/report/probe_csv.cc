// A probe source's per-second CSV (see probe_report.h): written a row at a time as the probe
// runs, read back by `proofload report` when the probe was killed before its result.json.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <vector>

#include "report/probe_report.h"

namespace proofload::report {
namespace {

constexpr std::string_view kRowForm =
    "expected second,let_through,limited,other,first_429: whole numbers, first_429 may be empty";

[[noreturn]] void bad_line(size_t line, const std::string& why) {
  throw std::runtime_error(fmt::format("line {}: {}", line, why));
}

// A whole number 0 or more, the whole field.
std::optional<int64_t> whole_number(std::string_view field) {
  int64_t value = -1;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (field.empty() || error != std::errc() || end != field.data() + field.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

// A line as an error quotes it: its start only, so a damaged file's megabyte line stays one
// readable line of error.
std::string quoted(std::string_view line) {
  constexpr size_t kShown = 60;
  return "\"" + std::string(line.substr(0, kShown)) + (line.size() > kShown ? "...\"" : "\"");
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  for (size_t comma = line.find(',');; comma = line.find(',')) {
    fields.push_back(line.substr(0, comma));
    if (comma == std::string_view::npos) return fields;
    line.remove_prefix(comma + 1);
  }
}

}  // namespace

std::string probe_csv_row(const analyze::ProbeSecond& second,
                          std::optional<int64_t> let_through_before_first_429) {
  return fmt::format(
      "{},{},{},{},{}", second.second, second.let_through, second.limited, second.other,
      let_through_before_first_429 ? std::to_string(*let_through_before_first_429) : std::string());
}

std::string render_probe_csv(const analyze::ProbeSourceSeries& series) {
  // first_429 goes on the earliest second with a 429, as the probe streams it; a series that
  // has a count but no such second (edited by hand) keeps it on its last row, so it is not lost.
  std::optional<size_t> first_429_row;
  for (size_t i = 0; i < series.per_second.size(); ++i) {
    const analyze::ProbeSecond& s = series.per_second[i];
    if (s.limited > 0 && (!first_429_row || s.second < series.per_second[*first_429_row].second)) {
      first_429_row = i;
    }
  }
  if (!first_429_row && !series.per_second.empty()) first_429_row = series.per_second.size() - 1;
  std::string out = std::string(kProbeCsvHeader) + "\n";
  for (size_t i = 0; i < series.per_second.size(); ++i) {
    out += probe_csv_row(series.per_second[i],
                         i == first_429_row ? series.let_through_before_first_429 : std::nullopt);
    out += '\n';
  }
  return out;
}

void parse_probe_csv(std::string_view text, analyze::ProbeSourceSeries& series) {
  series.per_second.clear();
  series.let_through_before_first_429.reset();
  const std::string_view header = kProbeCsvHeader;
  std::optional<size_t> first_429_line;
  size_t line_number = 0;
  // Only lines ended by '\n': a last line without one was cut short by a kill, and is dropped.
  for (size_t end = text.find('\n'); end != std::string_view::npos; end = text.find('\n')) {
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end + 1);
    ++line_number;
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line_number == 1) {
      if (line != header)
        bad_line(1, fmt::format("expected the header {}, got {}", header, quoted(line)));
      continue;
    }
    const std::vector<std::string_view> fields = split_fields(line);
    std::vector<int64_t> numbers;
    for (size_t i = 0; i < 4 && fields.size() == 5; ++i) {
      if (const std::optional<int64_t> n = whole_number(fields[i])) numbers.push_back(*n);
    }
    const bool too_many =  // a damaged file: sums over it must not overflow
        numbers.size() == 4 &&
        std::max({numbers[1], numbers[2], numbers[3]}) > analyze::kMaxProbeSecondCount;
    if (numbers.size() != 4 || too_many || (!fields[4].empty() && !whole_number(fields[4]))) {
      bad_line(line_number, fmt::format("{}, got {}", kRowForm, quoted(line)));
    }
    series.per_second.push_back({numbers[0], numbers[1], numbers[2], numbers[3]});
    if (fields[4].empty()) continue;
    if (first_429_line) {
      bad_line(line_number,
               fmt::format("a second first_429 (the first is on line {})", *first_429_line));
    }
    first_429_line = line_number;
    series.let_through_before_first_429 = whole_number(fields[4]);
  }
}

}  // namespace proofload::report
