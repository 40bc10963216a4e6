// What a ladder records (its file form, result::LadderResult, is in src/result): one row per
// level out of a finished run, the analysis recomputed from the recorded rows and settings, and
// the directory's files (result.json, summary.md, levels.csv) written atomically. Shared by
// `proofload ladder`, `proofload analyze` and `proofload report`, so that every report is
// rendered the same way from the same data. Pure except write_ladder_directory; thread-safe.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "analyze/ladder_analysis.h"
#include "analyze/level_row.h"
#include "analyze/slo.h"
#include "report/run_result.h"
#include "result/ladder_result.h"

namespace proofload::experiments {

// One level as the analysis reads it, from the level's run: achieved throughput, latency
// percentiles, error, 429 and never-started shares, the server's CPU and throttling (the first
// observed source other than the generator and the host that reports CPU), the generator's
// CPU and its 80% flag, the host's load, and every SLO metric the fixed fields do not hold.
analyze::LevelRow row_from_run(const report::RunResult& run, double level, int repeat,
                               bool open_loop, const analyze::Slo& slo);

// The analysis of `result`'s recorded rows under its recorded settings (loop, slo,
// count_429_as_error, noise_floor, operating_fraction); for a search, of the rows of its grow
// and bisect steps. nullopt when there is no row yet. Throws UsageError for settings that do not
// parse (a hand-edited file).
std::optional<analyze::LadderAnalysis> analysis_of(const result::LadderResult& result);

// The SLO a ladder was judged by, as its settings record it (the default when none is).
// Throws UsageError for one that does not parse.
analyze::Slo slo_of(const result::LadderSettings& settings);

// Sets result.analysis = analysis_of(result) and writes result.json, summary.md and levels.csv
// into `directory` (each atomically). Throws std::runtime_error on I/O failure.
void write_ladder_directory(const std::filesystem::path& directory, result::LadderResult& result);

// Lowercase hex SHA-256 of a file's bytes; "" when it cannot be read.
std::string file_sha256(const std::filesystem::path& file);

}  // namespace proofload::experiments
