// windows.csv: one row per window (warm-up windows included and flagged), for spreadsheets and
// pandas. Streamed a row at a time while the run goes on. Pure functions, thread-safe.
#pragma once

#include <string>
#include <vector>

#include "report/run_result.h"

namespace proofload::report {

// The header line, ending in '\n'. `observed_columns` ("self.cpu_cores", ...) come last.
// A run that streams has the stream columns (kStreamColumns) before the observed ones.
std::string windows_csv_header(const std::vector<std::string>& observed_columns = {},
                               bool streams = false);
// One window's row, ending in '\n'. Seconds with 3 decimals, ms with 3 (microseconds),
// throughput with 1; an empty cell where there is no value (a percentile of an empty window, an
// observation that failed or does not apply).
std::string windows_csv_row(const WindowSummary& w,
                            const std::vector<std::string>& observed_columns = {},
                            bool streams = false);
// The whole file: header and every window of the run.
std::string windows_csv(const RunResult& result);

}  // namespace proofload::report
