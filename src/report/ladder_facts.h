// The facts about a ladder's result that more than one part of its summary.md states: the
// analysis's levels and references, what was recorded and what was not, and the words shared by
// the short version, the findings and the limits. Internal to the ladder report. Pure;
// thread-safe.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyze/ladder_analysis.h"
#include "result/ladder_result.h"

namespace proofload::report::ladder {

using analyze::LevelAnalysis;
using result::LadderResult;

// The analysis's levels, ascending; empty when no level was measured (analysis null).
const std::vector<LevelAnalysis>& levels_of(const LadderResult& v);
// The knee, best sustained and peak levels of the analysis; nullptr when there is none.
const LevelAnalysis* knee_of(const LadderResult& v);
const LevelAnalysis* best_of(const LadderResult& v);
const LevelAnalysis* peak_of(const LadderResult& v);
// "closed", "open", or "" when neither the settings nor the analysis recorded it.
std::string loop_of(const LadderResult& v);
// The noise floor's value and source ("stated", "measured", "default"); nullopt and "" when the
// file did not record it.
std::optional<double> noise_floor_of(const LadderResult& v);
std::string noise_floor_source_of(const LadderResult& v);
// Whether 429 answers counted as errors (the settings' copy, else the analysis's); nullopt when
// neither was recorded.
std::optional<bool> count_429_of(const LadderResult& v);
// A level's verdict as written, "" when the file did not record it.
std::string verdict_of(const LadderResult& v, const LevelAnalysis& level);

// The server's CPU was observed (an observer other than the generator and the host), or the
// table gave server cores.
bool server_measured(const LadderResult& v);
// The most runs any level had (settings.repeat, or the analysis's repeats).
int runs_per_level(const LadderResult& v);
// "ladder", "search" or "table": where the levels came from, for Evidence cells.
std::string source_word(const LadderResult& v);
// The observed values of the SLO bounds a level failed: "p95 = 1,140.0 ms; errors = 3.2%".
std::string failed_bounds_text(const LevelAnalysis& level);
// Every SLO bound's observed value: "p95 = 3.0 ms, errors = 0%".
std::string bounds_text(const LevelAnalysis& level);
// The SLO in words: its description (or text), "not recorded" when neither is there.
std::string slo_words(const LadderResult& v);
// The noise floor as a percentage ("5.0%"), or "the noise floor" when not recorded.
std::string noise_floor_words(const LadderResult& v);
// Planned levels (settings.levels x repeats) with fewer recorded runs than planned.
std::vector<double> levels_not_run(const LadderResult& v);

// "none: the lowest level…" -> "the lowest level…": for sentences that already say "none".
std::string without_none(const std::string& text);
// A warning when the operating target is above the best sustained throughput within the SLO
// (or no level met the SLO), else "".
std::string operating_warning(const LadderResult& v);
// How long a search's confirming run was measured (its row's duration, else settings.hold_s).
std::optional<double> confirming_run_s(const LadderResult& v);

// "0.98 of the 1 core it could use (its one thread)": a level's server CPU against its limit.
std::string cpu_of_limit_text(const LevelAnalysis& level);
// "91,000,000 requests/day at the operating target", ... each rounded as the analysis recorded
// and said to come from the hold it was measured over; empty when none was computed.
std::vector<std::string> daily_parts(const LadderResult& v);
// The Evidence of the daily figures: "rate × 86,400 s, 3 significant digits".
std::string daily_rule_text(const LadderResult& v);
// Which observed source gave the server's CPU and its throttling, and which others measured the
// CPU too but were not used; "" when no server was observed.
std::string server_sources_text(const LadderResult& v);
// Levels of a ladder recorded with fewer runs than planned, and how many they had.
std::vector<std::pair<double, int>> short_levels(const LadderResult& v);

}  // namespace proofload::report::ladder
