// Reading a level table (see level_table.h): an RFC 4180 record reader, then the header and one
// LevelRow per record. Throws UsageError only.
#include "analyze/level_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <optional>

#include "common/file_text.h"
#include "common/text.h"
#include "common/usage_error.h"

namespace proofload::analyze {
namespace {

enum class Column {
  kLevel,
  kRepeat,
  kTargetRps,
  kAchievedRps,
  kGoodputRps,
  kArrivalsRps,
  kFlowsPerS,
  kFlowSuccessRate,
  kP50Ms,
  kP95Ms,
  kP99Ms,
  kErrorRate,
  kErrors,
  kRequests,
  kResponses,
  kRate429,
  kNeverStarted,
  kServerCores,
  kServerThrottledShare,
  kServerQuotaCores,
  kServerCpuLimitCores,
  kGeneratorCores,
  kGeneratorBusy,
  kHostLoad1,
  kHostCpuBusy,
  kDurationS,
};
constexpr size_t kColumnCount = static_cast<size_t>(Column::kDurationS) + 1;

// In the order messages list them.
constexpr std::array<std::string_view, kColumnCount> kColumnNames = {
    "level",
    "repeat",
    "target_rps",
    "achieved_rps",
    "goodput_rps",
    "arrivals_rps",
    "flows_per_s",
    "flow_success_rate",
    "p50_ms",
    "p95_ms",
    "p99_ms",
    "error_rate",
    "errors",
    "requests",
    "responses",
    "rate_429",
    "never_started",
    "server_cores",
    "server_throttled_share",
    "server_quota_cores",
    "server_cpu_limit_cores",
    "generator_cores",
    "generator_busy",
    "host_load1",
    "host_cpu_busy",
    "duration_s",
};
constexpr Column kRequired[] = {Column::kLevel, Column::kAchievedRps};
// Written by proofload's own levels.csv; the analysis recomputes the verdict, and a row's status
// is not a figure.
// levels.csv's own columns the analysis does not read (a ladder's verdicts, its streams and
// accounting): read back without a note that they were left out.
// clang-format off
constexpr std::string_view kSilentlyIgnored[] = {
    "verdict", "status", "events_per_s", "stream_bytes_per_s", "tokens_per_s",
    "stream_ttfb_p95_ms", "ttft_p95_ms", "itl_p99_ms", "stream_goodput", "server_rss_bytes",
    "reconcile", "drop_share", "warmup_requests", "warmup_errors", "stream_headers_p95_ms"};
// clang-format on
constexpr std::string_view kRequiredText =
    "level, achieved_rps, and error_rate or both errors and requests, and a column for each "
    "metric the SLO names";

std::string_view name_of(Column column) { return kColumnNames[static_cast<size_t>(column)]; }

bool is_space(char c) { return c == ' ' || c == '\t'; }

std::string accepted_columns() {
  std::string out;
  for (std::string_view name : kColumnNames) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

// Throws "FILE:LINE: why".
class Failer {
 public:
  explicit Failer(const std::string& file) : file_(file) {}
  [[noreturn]] void fail(int line, const std::string& why) const {
    throw UsageError(fmt::format("{}:{}: {}", file_, line, why));
  }

 private:
  const std::string& file_;
};

struct Record {
  int line = 0;  // where the record starts (1-based)
  std::vector<std::string> cells;
};

// RFC 4180 records, one at a time. A quote opens a quoted field only at the start of a cell
// (spaces before it allowed); elsewhere it is an ordinary character.
class CsvReader {
 public:
  CsvReader(std::string_view text, const Failer& failer) : text_(text), failer_(failer) {
    if (text_.starts_with("\xEF\xBB\xBF")) text_.remove_prefix(3);  // spreadsheets write a BOM
  }

  // False at the end of the text.
  bool next(Record& record) {
    record.cells.clear();
    if (pos_ >= text_.size()) return false;
    record.line = line_;
    std::string cell;
    while (true) {
      if (pos_ >= text_.size()) break;
      const char c = text_[pos_];
      if (c == '"' && trim(cell).empty()) {
        cell = read_quoted(record.line);
        continue;
      }
      if (c == ',') {
        record.cells.push_back(std::move(cell));
        cell.clear();
        ++pos_;
        continue;
      }
      if (c == '\n' || c == '\r') {
        pos_ += (c == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ? 2 : 1;
        ++line_;
        break;
      }
      cell += c;
      ++pos_;
    }
    record.cells.push_back(std::move(cell));
    return true;
  }

 private:
  // From the opening quote to just after the closing one (and any spaces after it).
  std::string read_quoted(int record_line) {
    std::string value;
    ++pos_;
    while (true) {
      if (pos_ >= text_.size()) failer_.fail(record_line, "a quoted field is never closed");
      const char c = text_[pos_++];
      if (c == '"') {
        if (pos_ < text_.size() && text_[pos_] == '"') {
          value += '"';
          ++pos_;
          continue;
        }
        break;
      }
      if (c == '\n') ++line_;
      value += c;
    }
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
    if (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n' && text_[pos_] != '\r') {
      failer_.fail(line_, "text after the closing quote of \"" + value +
                              "\" (a quote inside a quoted field is written twice: \"\")");
    }
    return value;
  }

  std::string_view text_;
  const Failer& failer_;
  size_t pos_ = 0;
  int line_ = 1;
};

bool is_blank(const Record& record) {
  return record.cells.size() == 1 && trim(record.cells[0]).empty();
}

// Reads the cells of one data record, each by the rules of its column.
class RowReader {
 public:
  RowReader(const Record& record, const Failer& failer) : record_(record), failer_(failer) {}

  // A plain non-negative decimal; nullopt for an empty cell.
  std::optional<double> number(const std::string& cell, std::string_view column) const {
    const std::string_view text = trim(cell);
    if (text.empty()) return std::nullopt;
    const double value = to_double(text, text, column);
    if (value < 0) fail(column, text, "is negative");
    // Finite is not enough: a rate of 1e308 overflows every sum and ratio made of it.
    if (value > kMaxTableNumber) fail(column, text, "is above 1e15");
    return value;
  }

  double required_number(const std::string& cell, std::string_view column) const {
    const std::optional<double> value = number(cell, column);
    if (!value) {
      failer_.fail(record_.line,
                   fmt::format("column \"{}\" is empty (every row needs one)", column));
    }
    return *value;
  }

  // A share: 0..1, or a percentage 0%..100%.
  std::optional<double> share(const std::string& cell, std::string_view column) const {
    const std::string_view text = trim(cell);
    if (text.empty()) return std::nullopt;
    const bool percent = text.ends_with('%');
    const std::string_view digits = percent ? trim(text.substr(0, text.size() - 1)) : text;
    // "1.5%" is read as the decimal text "1.5e-2": the double nearest the exact share.
    const double value = to_double(std::string(digits) + (percent ? "e-2" : ""), text, column);
    if (value < 0) fail(column, text, "is negative");
    if (value > 1) {
      fail(column, text,
           percent
               ? "is above 100%"
               : "is above 1 (a share is 0..1; for a percentage write " + std::string(text) + "%)");
    }
    return value;
  }

  // A whole number at least `minimum`.
  std::optional<int64_t> whole(const std::string& cell, std::string_view column,
                               int64_t minimum) const {
    const std::optional<double> value = number(cell, column);
    if (!value) return std::nullopt;
    // Below 2^53 every whole number is exact in a double.
    if (*value != std::floor(*value) || *value > 9.0e15) {
      fail(column, trim(cell), "is not a whole number");
    }
    if (*value < static_cast<double>(minimum)) {
      fail(column, trim(cell), fmt::format("is below {}", minimum));
    }
    return static_cast<int64_t>(*value);
  }

  bool flag(const std::string& cell, std::string_view column) const {
    const std::string text = ascii_lowercase(trim(cell));
    if (text.empty() || text == "0" || text == "false") return false;
    if (text == "1" || text == "true") return true;
    fail(column, trim(cell), "is not 0, 1, true or false");
  }

  [[noreturn]] void fail(std::string_view column, std::string_view cell,
                         const std::string& why) const {
    failer_.fail(record_.line, fmt::format("column \"{}\": \"{}\" {}", column, cell, why));
  }

 private:
  double to_double(std::string_view number, std::string_view as_written,
                   std::string_view column) const {
    double value = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (number.empty() || ec != std::errc() || end != number.data() + number.size() ||
        !std::isfinite(value)) {
      fail(column, as_written, "is not a number");
    }
    return value;
  }

  const Record& record_;
  const Failer& failer_;
};

// A named request's own column, as levels.csv writes them for a scenario: "p99_ms(write)" (the
// figure's name case-insensitive, the request's as written).
enum class RouteField { kGoodputRps, kAchievedRps, kP50Ms, kP95Ms, kP99Ms, kErrorRate, kRequests };
constexpr std::string_view kRouteFieldNames[] = {"goodput_rps", "achieved_rps", "p50_ms",  "p95_ms",
                                                 "p99_ms",      "error_rate",   "requests"};

struct RouteColumn {
  size_t cell = 0;
  std::string route;
  RouteField field = RouteField::kGoodputRps;
  std::string name;  // "p99_ms(write)": the column's name in messages and in table.columns
};

std::optional<RouteColumn> route_column(std::string_view as_written, size_t cell) {
  const size_t open = as_written.find('(');
  if (open == std::string_view::npos || !as_written.ends_with(')') ||
      open + 2 >= as_written.size()) {
    return std::nullopt;
  }
  const std::string field = ascii_lowercase(as_written.substr(0, open));
  const std::string_view route = as_written.substr(open + 1, as_written.size() - open - 2);
  for (size_t f = 0; f < std::size(kRouteFieldNames); ++f) {
    if (kRouteFieldNames[f] != field) continue;
    return RouteColumn{cell, std::string(route), static_cast<RouteField>(f),
                       field + "(" + std::string(route) + ")"};
  }
  return std::nullopt;
}

// Which cell holds each known column (nullopt: not in the table), and each named request's.
using ColumnIndex = std::array<std::optional<size_t>, kColumnCount>;
struct Header {
  ColumnIndex index;
  std::vector<RouteColumn> routes;
};

Header read_header(const Record& header, const Failer& failer, LevelTable& table) {
  Header out;
  ColumnIndex& index = out.index;
  for (size_t i = 0; i < header.cells.size(); ++i) {
    const std::string_view as_written = trim(header.cells[i]);
    const std::string name = ascii_lowercase(as_written);
    if (name.empty()) {
      table.ignored_columns.push_back(fmt::format("(unnamed column {})", i + 1));
      continue;
    }
    if (std::optional<RouteColumn> route = route_column(as_written, i)) {
      if (std::find(table.columns.begin(), table.columns.end(), route->name) !=
          table.columns.end()) {
        failer.fail(header.line,
                    fmt::format("column \"{}\" appears twice in the header", route->name));
      }
      table.columns.push_back(route->name);
      out.routes.push_back(std::move(*route));
      continue;
    }
    size_t known = 0;
    while (known < kColumnCount && kColumnNames[known] != name) ++known;
    if (known == kColumnCount) {
      if (std::find(std::begin(kSilentlyIgnored), std::end(kSilentlyIgnored), name) ==
          std::end(kSilentlyIgnored)) {
        table.ignored_columns.emplace_back(as_written);
      }
      continue;
    }
    table.columns.emplace_back(kColumnNames[known]);
    if (index[known]) {
      failer.fail(header.line, fmt::format("column \"{}\" appears twice in the header", name));
    }
    index[known] = i;
  }
  auto has = [&](Column c) { return index[static_cast<size_t>(c)].has_value(); };
  for (Column required : kRequired) {
    if (!has(required)) {
      failer.fail(header.line,
                  fmt::format("missing column \"{}\" in the header (required: {}; accepted: {})",
                              name_of(required), kRequiredText, accepted_columns()));
    }
  }
  if (!has(Column::kErrorRate) && !(has(Column::kErrors) && has(Column::kRequests))) {
    const std::string found = has(Column::kErrors)     ? " (errors is there, requests is not)"
                              : has(Column::kRequests) ? " (requests is there, errors is not)"
                                                       : "";
    failer.fail(header.line,
                "no error rate in the header: add an error_rate column (a share 0..1 or a "
                "percentage like 1.5%) or both errors and requests columns" +
                    found);
  }
  table.has_targets = has(Column::kTargetRps);
  return out;
}

// A row's named requests, from their own columns, in the header's order.
void read_routes(const Record& record, const std::vector<RouteColumn>& columns,
                 const RowReader& reader, LevelRow& row) {
  for (const RouteColumn& c : columns) {
    auto it = std::find_if(row.routes.begin(), row.routes.end(),
                           [&](const LevelRoute& r) { return r.name == c.route; });
    LevelRoute& route = it != row.routes.end() ? *it : row.routes.emplace_back();
    route.name = c.route;
    const std::string& cell = record.cells[c.cell];
    switch (c.field) {
      case RouteField::kGoodputRps:
        route.goodput_rps = reader.number(cell, c.name);
        break;
      case RouteField::kAchievedRps:
        route.achieved_rps = reader.number(cell, c.name);
        break;
      case RouteField::kP50Ms:
        route.p50_ms = reader.number(cell, c.name);
        break;
      case RouteField::kP95Ms:
        route.p95_ms = reader.number(cell, c.name);
        break;
      case RouteField::kP99Ms:
        route.p99_ms = reader.number(cell, c.name);
        break;
      case RouteField::kErrorRate:
        route.error_rate = reader.share(cell, c.name);
        break;
      case RouteField::kRequests:
        route.requests = reader.whole(cell, c.name, 0);
        break;
    }
  }
}

LevelRow read_row(const Record& record, const Header& header, const Failer& failer,
                  std::map<double, int>& rows_per_level) {
  const ColumnIndex& index = header.index;
  const RowReader reader(record, failer);
  static const std::string kAbsent;
  auto cell = [&](Column c) -> const std::string& {
    const std::optional<size_t> i = index[static_cast<size_t>(c)];
    return i ? record.cells[*i] : kAbsent;
  };
  auto number = [&](Column c) { return reader.number(cell(c), name_of(c)); };
  auto share = [&](Column c) { return reader.share(cell(c), name_of(c)); };

  LevelRow row;
  row.level = reader.required_number(cell(Column::kLevel), name_of(Column::kLevel));
  const int nth = ++rows_per_level[row.level];
  const std::optional<int64_t> repeat =
      reader.whole(cell(Column::kRepeat), name_of(Column::kRepeat), 1);
  if (repeat && *repeat > std::numeric_limits<int>::max()) {
    reader.fail(name_of(Column::kRepeat), trim(cell(Column::kRepeat)), "is too large");
  }
  row.repeat = repeat ? static_cast<int>(*repeat) : nth;
  row.target_rps = number(Column::kTargetRps);
  row.achieved_rps =
      reader.required_number(cell(Column::kAchievedRps), name_of(Column::kAchievedRps));
  row.goodput_rps = number(Column::kGoodputRps);
  row.arrivals_rps = number(Column::kArrivalsRps);
  row.flows_per_s = number(Column::kFlowsPerS);
  row.flow_success_rate = share(Column::kFlowSuccessRate);
  row.p50_ms = number(Column::kP50Ms);
  row.p95_ms = number(Column::kP95Ms);
  row.p99_ms = number(Column::kP99Ms);
  row.requests = reader.whole(cell(Column::kRequests), name_of(Column::kRequests), 0);
  row.responses = reader.whole(cell(Column::kResponses), name_of(Column::kResponses), 0);
  row.error_rate = share(Column::kErrorRate);
  const std::optional<int64_t> errors =
      reader.whole(cell(Column::kErrors), name_of(Column::kErrors), 0);
  if (errors && row.requests && *errors > *row.requests) {
    failer.fail(record.line, fmt::format("{} errors out of {} requests (errors cannot exceed "
                                         "requests)",
                                         *errors, *row.requests));
  }
  if (!row.error_rate && errors && row.requests && *row.requests > 0) {
    row.error_rate = static_cast<double>(*errors) / static_cast<double>(*row.requests);
  }
  row.rate_429 = share(Column::kRate429);
  row.never_started = share(Column::kNeverStarted);
  row.server_cores = number(Column::kServerCores);
  row.server_throttled_share = share(Column::kServerThrottledShare);
  row.server_quota_cores = number(Column::kServerQuotaCores);
  row.server_cpu_limit_cores = number(Column::kServerCpuLimitCores);
  row.generator_cores = number(Column::kGeneratorCores);
  row.generator_busy = reader.flag(cell(Column::kGeneratorBusy), name_of(Column::kGeneratorBusy));
  row.host_load1 = number(Column::kHostLoad1);
  row.host_cpu_busy = share(Column::kHostCpuBusy);
  row.duration_s = number(Column::kDurationS);
  read_routes(record, header.routes, reader, row);
  return row;
}

}  // namespace

LevelTable parse_level_table(std::string_view csv_text, const std::string& file_name_for_errors) {
  const Failer failer(file_name_for_errors);
  CsvReader reader(csv_text, failer);
  LevelTable table;
  Record record;
  bool have_header = false;
  while ((have_header = reader.next(record)) && is_blank(record)) {
  }
  if (!have_header) {
    failer.fail(1,
                fmt::format("empty: expected a header row naming the columns ({})", kRequiredText));
  }
  const Record header = record;
  const Header columns = read_header(header, failer, table);

  std::map<double, int> rows_per_level;
  while (reader.next(record)) {
    if (is_blank(record)) continue;
    if (table.rows.size() == kMaxTableRows) {
      failer.fail(record.line, fmt::format("more than {} rows: a level table holds one row per "
                                           "level and repeat",
                                           kMaxTableRows));
    }
    if (record.cells.size() != header.cells.size()) {
      failer.fail(record.line, fmt::format("{} cells, but the header has {} columns",
                                           record.cells.size(), header.cells.size()));
    }
    table.rows.push_back(read_row(record, columns, failer, rows_per_level));
  }
  if (table.rows.empty()) failer.fail(header.line + 1, "no data rows after the header");
  return table;
}

void require_slo_columns(const LevelTable& table, const Slo& slo,
                         const std::string& file_name_for_errors) {
  auto has = [&](std::string_view column) {
    return std::find(table.columns.begin(), table.columns.end(), column) != table.columns.end();
  };
  for (const measure::Threshold& bound : slo.bounds) {
    const measure::MetricRef& m = bound.metric;
    std::string needs;
    bool held = true;
    switch (m.kind) {
      case measure::MetricRef::Kind::kPercentile:
        needs = m.percentile == 50 ? "p50_ms" : m.percentile == 95 ? "p95_ms" : "p99_ms";
        held = m.percentile == 50 || m.percentile == 95 || m.percentile == 99;
        break;
      case measure::MetricRef::Kind::kErrorRate:
        needs = "error_rate";
        break;
      case measure::MetricRef::Kind::kThroughput:
        needs = "achieved_rps";
        break;
      case measure::MetricRef::Kind::kGoodput:
        needs = "goodput_rps";
        break;
      case measure::MetricRef::Kind::kOutcomeRate:
        needs = "rate_429";
        held = m.scope.empty() && m.outcome == "status_429";
        break;
      case measure::MetricRef::Kind::kNeverStarted:
        needs = "never_started";
        held = m.scope.empty();
        break;
      case measure::MetricRef::Kind::kCount:
        needs = "requests";
        held = m.outcome == "requests";
        break;
      case measure::MetricRef::Kind::kMean:
      case measure::MetricRef::Kind::kMax:
      case measure::MetricRef::Kind::kReconcile:  // a server's count: no table column holds it
      case measure::MetricRef::Kind::kDrops:
      case measure::MetricRef::Kind::kStreamPercentile:  // streams: no table column holds them
      case measure::MetricRef::Kind::kStreamRate:
      case measure::MetricRef::Kind::kStreamGoodput:
        held = false;
        break;
    }
    if (!held) {
      throw UsageError(fmt::format(
          "{}: the SLO bound \"{}\" names {}, which a level table cannot hold (it has "
          "p50_ms, p95_ms, p99_ms, error_rate, rate_429, never_started, requests and the rates, "
          "and a named request's own, such as p99_ms(write))",
          file_name_for_errors, bound.expression, m.text()));
    }
    if (!m.scope.empty()) {
      needs += "(" + m.scope + ")";
    } else if (m.kind == measure::MetricRef::Kind::kErrorRate ||
               m.kind == measure::MetricRef::Kind::kThroughput ||
               m.kind == measure::MetricRef::Kind::kGoodput) {
      continue;  // required columns (goodput falls back to achieved less its errors)
    }
    if (!has(needs)) {
      throw UsageError(fmt::format(
          "{}: the SLO bound \"{}\" needs a {} column, and the table has none (its columns: {})",
          file_name_for_errors, bound.expression, needs, fmt::join(table.columns, ", ")));
    }
  }
}

LevelTable read_level_table(const std::filesystem::path& file) {
  const std::string name = file.string();
  return parse_level_table(read_bounded_file(name, "table", kMaxTableBytes), name);
}

}  // namespace proofload::analyze
