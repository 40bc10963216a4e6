// See route_analysis.h.
#include "analyze/route_analysis.h"

#include <algorithm>

#include "analyze/ladder_steps.h"

namespace proofload::analyze {
namespace {

// The mean over the values present; none when none is.
std::optional<double> mean_present(const std::vector<std::optional<double>>& values) {
  double sum = 0;
  int count = 0;
  for (const std::optional<double>& value : values) {
    if (const std::optional<double> v = finite_or_none(value)) {
      sum += *v;
      ++count;
    }
  }
  if (count == 0) return std::nullopt;
  return sum / count;
}

// The request's figures at one level, or none when no repeat there recorded it.
std::optional<RouteLevel> level_of(const std::vector<const LevelRow*>& repeats,
                                   const std::string& name) {
  std::vector<const LevelRoute*> found;
  for (const LevelRow* row : repeats) {
    for (const LevelRoute& route : row->routes) {
      if (route.name == name) found.push_back(&route);
    }
  }
  if (found.empty()) return std::nullopt;
  RouteLevel level;
  level.level = repeats.front()->level;
  auto mean = [&](auto field) {
    std::vector<std::optional<double>> values;
    for (const LevelRoute* route : found) values.push_back(std::optional<double>(route->*field));
    return mean_present(values);
  };
  level.goodput_rps = mean(&LevelRoute::goodput_rps);
  level.achieved_rps = mean(&LevelRoute::achieved_rps);
  level.p50_ms = mean(&LevelRoute::p50_ms);
  level.p95_ms = mean(&LevelRoute::p95_ms);
  level.p99_ms = mean(&LevelRoute::p99_ms);
  level.error_rate = mean(&LevelRoute::error_rate);
  int64_t requests = 0;
  bool all_said = true;
  for (const LevelRoute* route : found) {
    all_said = all_said && route->requests.has_value();
    requests += route->requests.value_or(0);
  }
  if (all_said) level.requests = requests;
  return level;
}

}  // namespace

std::vector<RouteAnalysis> analyze_routes(
    const std::vector<std::vector<const LevelRow*>>& repeats_by_level, double noise_floor) {
  std::vector<std::string> names;
  for (const std::vector<const LevelRow*>& repeats : repeats_by_level) {
    for (const LevelRow* row : repeats) {
      for (const LevelRoute& route : row->routes) {
        if (std::find(names.begin(), names.end(), route.name) == names.end()) {
          names.push_back(route.name);
        }
      }
    }
  }
  std::vector<RouteAnalysis> out;
  for (const std::string& name : names) {
    RouteAnalysis& route = out.emplace_back();
    route.name = name;
    std::vector<std::optional<double>> gains;
    for (const std::vector<const LevelRow*>& repeats : repeats_by_level) {
      if (repeats.empty()) continue;
      std::optional<RouteLevel> level = level_of(repeats, name);
      if (!level) continue;
      const std::optional<double> previous =
          route.levels.empty() ? std::nullopt : route.levels.back().goodput_rps;
      if (previous && level->goodput_rps) level->gain = steps::gain(*previous, *level->goodput_rps);
      gains.push_back(level->gain);
      route.levels.push_back(std::move(*level));
    }
    route.plateau_from = steps::plateau_start(gains, noise_floor);
  }
  return out;
}

}  // namespace proofload::analyze
