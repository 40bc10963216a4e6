// A ladder's report: summary.md and levels.csv rendered from its result.json (schema
// "proofload.ladder/v1", kinds "ladder", "search" and "analyze"; docs/result-schema.md "Ladder").
// Pure functions of the JSON: they read no clock and no file, so `proofload report DIR` renders
// the same bytes again from the recorded data. Thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "result/ladder_result.h"

namespace proofload::report {

// summary.md: title and scope, the short version (a question per row), the levels table,
// findings, what this does not show, the hooks and drain waits between levels, a search's steps,
// and how to reproduce it. Every number comes from `result`; a missing or null optional key reads
// as "not measured"; a null `analysis` (no level measured yet: a pre-check or the first drain
// gate failed) gives the title, why nothing was measured, the events and how to reproduce it.
// Throws std::runtime_error naming the key when a required one is missing (schema, kind, status;
// in an analysis, its levels with each level's level and achieved_rps) or a value has the wrong
// type.
std::string render_ladder_summary(const nlohmann::json& result);
std::string render_ladder_summary(const result::LadderResult& result);

// levels.csv: one line per recorded row, in the order run, under the header of the columns
// docs/result-schema.md lists (level, repeat, target_rps, achieved_rps, ... verdict, the streams'
// and warm-up's), then each named request's own (goodput_rps(NAME) ... requests(NAME)) when
// the rows have routes: what `proofload analyze` reads back. Numbers are plain and round-trip exactly (no
// separators), null is an empty cell, generator_busy is 0 or 1, verdict is the analysis's verdict
// of the row's level. Throws std::runtime_error when schema or rows (each with level and
// achieved_rps) is missing.
std::string render_levels_csv(const nlohmann::json& result);
std::string render_levels_csv(const result::LadderResult& result);

namespace html {

// Its report.html (a ladder's, a rate search's or an analysis's), from its result and the
// summary.md rendered from it (html/ladder_page.cc).
std::string render_ladder_html(const result::LadderResult& ladder, const std::string& summary_md);

}  // namespace html

}  // namespace proofload::report
