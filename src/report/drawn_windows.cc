#include "report/drawn_windows.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

#include "report/html/pages.h"

namespace proofload::report {
namespace {

using nlohmann::json;

double seconds_of(const json& window) {
  const auto it = window.find("duration_s");
  return it != window.end() && it->is_number() ? it->get<double>() : 0;
}

// Each number of `next` (in nested objects too) raised into `into` where it is higher: a group's
// percentiles are its windows' highest. A null is no number.
void keep_highest(json& into, const json& next) {
  if (!next.is_object()) return;
  if (!into.is_object()) {
    into = next;
    return;
  }
  for (const auto& [key, value] : next.items()) {
    json& mine = into[key];
    if (value.is_object()) {
      keep_highest(mine, value);
    } else if (value.is_number() &&
               (!mine.is_number() || value.get<double>() > mine.get<double>())) {
      mine = value;
    }
  }
}

void add_number(json& into, const json& next) {
  if (!next.is_number()) return;
  into = into.is_number() ? json(into.get<double>() + next.get<double>()) : next;
}

// Each count of `next` (outcomes by name) added into `into`.
void add_counts(json& into, const json& next) {
  if (!next.is_object()) return;
  if (!into.is_object()) into = json::object();
  for (const auto& [key, value] : next.items()) add_number(into[key], value);
}

// The time-weighted mean of a figure over the windows that have it: `into_s` and `next_s` are the
// seconds each side's value covers (0 when it has none).
json time_mean(const json& into, double into_s, const json& next, double next_s) {
  if (!next.is_number()) return into;
  if (!into.is_number() || into_s + next_s <= 0) return next;
  return (into.get<double>() * into_s + next.get<double>() * next_s) / (into_s + next_s);
}

bool is_peak(const std::string& name) {
  return name.size() > 5 && name.compare(name.size() - 5, 5, "_peak") == 0;
}

}  // namespace

bool DrawnWindows::same_phase(const json& a, const json& b) {
  return a.value("warmup", false) == b.value("warmup", false) &&
         a.value("drain", false) == b.value("drain", false);
}

void DrawnWindows::add(json window) {
  if (!window.is_object()) return;
  json kept = json::object();
  for (const char* key : html::kWindowFields) {
    const auto it = window.find(key);
    if (it != window.end()) kept[key] = std::move(*it);
  }
  ++windows_;
  Point next{.window = std::move(kept), .windows = 1, .observed_s = {}};
  if (!points_.empty() && points_.back().windows < group_ &&
      same_phase(points_.back().window, next.window)) {
    merge(points_.back(), std::move(next));
    return;
  }
  points_.push_back(std::move(next));
  // Past the bound: groups twice as large, by merging neighbours (a phase's edge stays an edge).
  while (points_.size() > kMaxDrawnPoints) {
    group_ *= 2;
    std::vector<Point> merged;
    merged.reserve(points_.size() / 2 + 3);
    for (Point& point : points_) {
      if (!merged.empty() && merged.back().windows + point.windows <= group_ &&
          same_phase(merged.back().window, point.window)) {
        merge(merged.back(), std::move(point));
      } else {
        merged.push_back(std::move(point));
      }
    }
    points_ = std::move(merged);
  }
}

double DrawnWindows::observed_seconds(const Point& point, const std::string& key) {
  const auto it = point.observed_s.find(key);
  return it != point.observed_s.end() ? it->second : seconds_of(point.window);
}

void DrawnWindows::merge(Point& into, Point&& next) {
  json& a = into.window;
  json& b = next.window;
  const double a_s = seconds_of(a);
  const double b_s = seconds_of(b);
  // Observed figures first: their weights are read from the durations before they are added.
  if (b.contains("observed") && b["observed"].is_object()) {
    json& observed = a["observed"];
    if (!observed.is_object()) observed = json::object();
    for (const auto& [source, figures] : b["observed"].items()) {
      if (!figures.is_object()) continue;
      json& mine = observed[source];
      if (!mine.is_object()) mine = json::object();
      for (const auto& [name, value] : figures.items()) {
        const std::string key = source + '\n' + name;
        const bool had = mine.contains(name) && mine[name].is_number();
        const double mine_s = had ? observed_seconds(into, key) : 0;
        const double value_s = value.is_number() ? observed_seconds(next, key) : 0;
        if (is_peak(name)) {
          keep_highest(mine, json{{name, value}});
        } else {
          mine[name] = time_mean(had ? mine[name] : json(), mine_s, value, value_s);
        }
        into.observed_s[key] = mine_s + value_s;
      }
    }
  }
  // A figure the group had that this window has not still covers only the group's seconds.
  if (a.contains("observed") && a["observed"].is_object()) {
    for (const auto& [source, figures] : a["observed"].items()) {
      if (!figures.is_object()) continue;
      for (const auto& [name, value] : figures.items()) {
        const std::string key = source + '\n' + name;
        if (value.is_number() && !into.observed_s.contains(key)) into.observed_s[key] = a_s;
      }
    }
  }
  a["throughput_rps"] =
      time_mean(a.value("throughput_rps", json()), a_s, b.value("throughput_rps", json()), b_s);
  add_number(a["duration_s"], b.value("duration_s", json()));
  add_number(a["intended"], b.value("intended", json()));
  add_number(a["never_started"], b.value("never_started", json()));
  add_counts(a["outcomes"], b.value("outcomes", json()));
  keep_highest(a["latency_ms"], b.value("latency_ms", json()));
  if (b.contains("streams")) keep_highest(a["streams"], b["streams"]);
  into.windows += next.windows;
}

json DrawnWindows::take() {
  json out = json::array();
  for (Point& point : points_) out.push_back(std::move(point.window));
  points_.clear();
  group_ = 1;
  windows_ = 0;
  return out;
}

}  // namespace proofload::report
