// The CSV table `proofload analyze FILE.csv` reads: one row per level (and repeat) of a ladder run
// by any tool (k6, wrk, a spreadsheet, proofload's own levels.csv), turned into the rows the
// ladder analysis reads. Configuration-time only: every mistake is a UsageError of one line,
// "FILE:LINE: ...". Stateless functions; thread-safe.
//
// The table (docs/analyze.md states it for users):
// - A header row names the columns, in any order; names are case-insensitive, spaces around them
//   trimmed. Required: level, achieved_rps, and either error_rate or both errors and requests,
//   and (require_slo_columns) a column for each metric the SLO names: most published tables give
//   only p95 or p99. Optional: repeat, target_rps, goodput_rps, arrivals_rps,
//   flows_per_s, flow_success_rate, p50_ms, p95_ms, p99_ms, requests,
//   responses, rate_429, never_started, server_cores, server_throttled_share,
//   server_quota_cores, server_cpu_limit_cores, generator_cores, generator_busy, host_load1,
//   duration_s. A metric without a column is "not measured" in the report.
// - Shares (error_rate, rate_429, never_started, server_throttled_share) are 0..1 or a percentage
//   ("1.5%"), and so is flow_success_rate. error_rate, when not given, is errors / requests.
//   generator_busy is 0, 1, true or false. Every other value is a plain non-negative decimal;
//   requests, errors and repeat are whole numbers.
// - An empty cell is "not given" (level and achieved_rps must be given). Without a repeat column
//   (or with its cell empty) the Nth row of a level is its repeat N.
// - A named request's own figures (levels.csv writes them for a scenario's requests) are the
//   columns goodput_rps(NAME), achieved_rps(NAME), p50_ms(NAME), p95_ms(NAME), p99_ms(NAME),
//   error_rate(NAME) and requests(NAME), read into the row's routes by the rules above.
// - Unknown columns are listed in ignored_columns for the caller to warn about; proofload's own
//   `verdict` and `status` columns are ignored silently. A column with no name is listed as
//   "(unnamed column N)".
// - RFC 4180: quoted fields may hold commas, doubled quotes and line breaks; lines end in LF or
//   CRLF; the last newline is optional; blank lines and a UTF-8 byte-order mark are skipped.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/level_row.h"
#include "analyze/slo.h"

namespace proofload::analyze {

// A table is read up to kMaxTableBytes and kMaxTableRows rows (time and memory are linear in
// the rows: about 20 KB each through the analysis and its report), its numbers up to 1e15.
constexpr size_t kMaxTableRows = 10'000;
constexpr int64_t kMaxTableBytes = int64_t{64} << 20;
constexpr double kMaxTableNumber = 1e15;

struct LevelTable {
  std::vector<LevelRow> rows;        // in the order of the file
  bool has_targets = false;          // the table has a target_rps column
  std::vector<std::string> columns;  // the known columns it has, by their names above
  // Columns read from the header but not used, as written there, in order.
  std::vector<std::string> ignored_columns;
};

// `file_name_for_errors` opens every error message ("levels.csv:4: ...").
LevelTable parse_level_table(std::string_view csv_text, const std::string& file_name_for_errors);

// Throws UsageError ("FILE: ...") when a bound of `slo` names a metric the table has no column
// for, or one no level table can hold (p99.9, a mean, a scoped rate(status_429)). A named
// request's p50/p95/p99, errors, rates and requests are held by its own columns (p99_ms(write)).
void require_slo_columns(const LevelTable& table, const Slo& slo,
                         const std::string& file_name_for_errors);

// Reads and parses `file`; "cannot read FILE: reason" when it cannot be read.
LevelTable read_level_table(const std::filesystem::path& file);

}  // namespace proofload::analyze
