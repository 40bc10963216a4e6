// A ladder's analysis as result.json holds it (`analysis`, docs/result-schema.md "Ladder"): one
// typed value, analyze::LadderAnalysis, written by analysis_to_json and read back by
// analysis_from_json, so the writer and every reader of the file share one definition. Scripts
// read levels[].level, levels[].verdict, best_sustained {level, achieved_rps} or null, peak
// {level, achieved_rps}, knee {level, achieved_rps, reason} or null, plateau {from_level} (null
// inside when none), operating_target_rps (null when none). Whole levels are written as integers
// (100, not 100.0), daily capacity as whole requests, and operating.headroom is null when there
// is no operating target. Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include "analyze/ladder_analysis.h"

namespace proofload::result {

nlohmann::json analysis_to_json(const analyze::LadderAnalysis& analysis);

// The inverse, for a file this or an earlier proofload wrote: a key that is missing or null is
// the field's "not recorded" (nullopt, "", the default), goodput_rps falls back to achieved_rps
// (files before goodput), levels are put in ascending order, and knee, best_sustained, peak and
// plateau are found among them by their level. Throws std::runtime_error naming the key
// ("ladder result.json: analysis.levels[2].achieved_rps ...") for a missing required key
// (levels, each level's `level` and `achieved_rps`), a value of the wrong type, an unknown
// verdict, loop or noise-floor source, an SLO that does not parse, or a reference to a level
// that is not among the levels.
analyze::LadderAnalysis analysis_from_json(const nlohmann::json& analysis);

}  // namespace proofload::result
