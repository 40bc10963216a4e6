// Each named request of a ladder's scenario on its own, level by level: a mix can still gain while
// one of its requests is flat at a limit (an 8-stage ramp whose writes held at ~77/s read "no
// plateau" for the mix). The rules are the mix's (ladder_analysis.h): a level's figures are the
// mean over the repeats that recorded the request (requests: the sum), the gains are of goodput,
// and the plateau is judged against the ladder's noise floor. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyze/level_row.h"

namespace proofload::analyze {

struct RouteLevel {
  double level = 0;
  // Successes of this request per second of the span, and its responses of any status; none
  // when no run of the level said (a table without the column).
  std::optional<double> goodput_rps, achieved_rps;
  std::optional<double> p50_ms, p95_ms, p99_ms, error_rate;
  std::optional<int64_t> requests;  // sum over repeats; none when a repeat did not say
  // From its previous level's goodput; none for the first, or without goodput here or there.
  std::optional<double> gain;
  // Its words (words::describe_ladder): "+0.4%: flat, inside the 5.0% noise floor"; "" without
  // a step (the first level, or no goodput here or at the level before).
  std::string gain_text;
};

struct RouteAnalysis {
  std::string name;
  std::vector<RouteLevel> levels;      // ascending: the ladder's levels that recorded it
  std::optional<size_t> plateau_from;  // index into levels
};

// `repeats_by_level`: each level's rows, ascending by level. Routes in the order first recorded;
// none when no row recorded any.
std::vector<RouteAnalysis> analyze_routes(
    const std::vector<std::vector<const LevelRow*>>& repeats_by_level, double noise_floor);

}  // namespace proofload::analyze
