// A run's windows as OpenMetrics samples (see openmetrics_export.h).
#include "report/openmetrics_export.h"

#include <fmt/format.h>

#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <stdexcept>

#include "common/text.h"
#include "result/recorded_json.h"

namespace proofload::report {
namespace {

using nlohmann::json;

// One family's samples, grouped by label set in the order first seen (OpenMetrics wants a
// family's samples together, each series' timestamps increasing).
struct Family {
  std::string name, type, help;
  std::vector<std::string> label_sets;                                    // in first-seen order
  std::map<std::string, std::vector<std::pair<double, double>>> samples;  // labels -> (t, value)

  void add(const std::string& labels, double t, double value) {
    auto [it, fresh] = samples.try_emplace(labels);
    if (fresh) label_sets.push_back(labels);
    it->second.emplace_back(t, value);
  }
  // Samples are stamped `start` + their time; written a series at a time.
  void write(double start, const OpenMetricsSink& out) const {
    if (label_sets.empty()) return;
    const std::string sample_name = type == "counter" ? name + "_total" : name;
    out(fmt::format("# TYPE {} {}\n# HELP {} {}\n", name, type, name, help));
    for (const std::string& labels : label_sets) {
      std::string series;
      for (const auto& [t, value] : samples.at(labels)) {
        series += fmt::format("{}{} {} {:.3f}\n", sample_name, labels, value, start + t);
      }
      out(series);
    }
  }
};

std::string label(const std::string& name, const std::string& value) {
  return name + "=\"" + escape_label_value(value) + "\"";
}

double number_or(const json& object, const char* key, double fallback) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

}  // namespace

std::optional<double> parse_utc_timestamp(const std::string& text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0;
  double second = 0;
  char zone = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf%c", &year, &month, &day, &hour, &minute,
                  &second, &zone) != 7 ||
      zone != 'Z') {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  return static_cast<double>(timegm(&tm)) + second;
}

namespace {

// Every family of a run's export, fed one window at a time: a long run's windows are read as
// they are parsed and dropped (a 943 MB result.json would otherwise be held whole, and then some).
// Samples keep their time from the run's start; the start is added as they are written.
struct RunFamilies {
  Family requests{"proofload_requests",
                  "counter",
                  "Requests that ended, by outcome (never_started included), from the run's "
                  "start, warm-up included.",
                  {},
                  {}};
  Family intended{"proofload_intended",
                  "counter",
                  "Requests the schedule intended, from the run's start.",
                  {},
                  {}};
  Family rate{"proofload_window_responses_per_second",
              "gauge",
              "Responses of any status per second of the window that ends here.",
              {},
              {}};
  Family latency{"proofload_window_latency_seconds",
                 "gauge",
                 "The window's latency percentile (from the intended start), by percentile; "
                 "100 is the window's slowest.",
                 {},
                 {}};
  Family in_flight{
      "proofload_in_flight", "gauge", "Requests in flight at the window's end.", {}, {}};
  Family warmup{"proofload_warmup", "gauge", "1 for a window of the warm-up.", {}, {}};
  Family observed{"proofload_observed",
                  "gauge",
                  "What each observer saw in the window (source: the observer's label, as in "
                  "result.json; figure: cpu_cores, memory_bytes, ...).",
                  {},
                  {}};
  std::map<std::string, double> outcome_totals;
  double intended_total = 0;

  void add_window(const json& w) {
    if (!w.is_object()) return;
    const double t = number_or(w, "start_s", 0) + number_or(w, "duration_s", 0);
    if (w.contains("outcomes") && w["outcomes"].is_object()) {
      for (const auto& [outcome, count] : w["outcomes"].items()) {
        if (count.is_number()) outcome_totals[outcome] += count.get<double>();
      }
    }
    // Every outcome seen so far, in every window after it: a counter's series has no holes.
    for (const auto& [outcome, total] : outcome_totals) {
      requests.add("{" + label("outcome", outcome) + "}", t, total);
    }
    intended_total += number_or(w, "intended", 0);
    intended.add("", t, intended_total);
    if (w.contains("throughput_rps") && w["throughput_rps"].is_number()) {
      rate.add("", t, w["throughput_rps"].get<double>());
    }
    if (w.contains("latency_ms") && w["latency_ms"].is_object()) {
      for (const auto& [key, percentile] : {std::pair{"p50", "50"}, std::pair{"p90", "90"},
                                            std::pair{"p99", "99"}, std::pair{"max", "100"}}) {
        const json& l = w["latency_ms"];
        if (l.contains(key) && l[key].is_number()) {
          latency.add("{" + label("percentile", percentile) + "}", t, l[key].get<double>() / 1e3);
        }
      }
    }
    in_flight.add("", t, number_or(w, "in_flight", 0));
    warmup.add("", t, w.value("warmup", false) ? 1 : 0);
    if (w.contains("observed") && w["observed"].is_object()) {
      for (const auto& [source, figures] : w["observed"].items()) {
        if (!figures.is_object()) continue;
        for (const auto& [figure, value] : figures.items()) {
          if (!value.is_number() || figure == "samples" || figure == "gaps") continue;
          observed.add("{" + label("source", source) + "," + label("figure", figure) + "}", t,
                       value.get<double>());
        }
      }
    }
  }

  void write(double start, const OpenMetricsSink& out) const {
    for (const Family* f :
         {&requests, &intended, &rate, &latency, &in_flight, &warmup, &observed}) {
      f->write(start, out);
    }
    out("# EOF\n");
  }
};

double start_of(const json& result) {
  // started_at (v2), or start_time (v1).
  std::string text;
  if (result.is_object()) text = result.value("started_at", result.value("start_time", ""));
  const std::optional<double> start = parse_utc_timestamp(text);
  if (!start) {
    throw std::runtime_error("result.json has no started_at of the form 2026-01-31T12:00:00.000Z");
  }
  return *start;
}

[[noreturn]] void no_windows() {
  throw std::runtime_error("result.json has no windows (a run that never finished a window)");
}

}  // namespace

std::string run_openmetrics(const json& result) {
  const double start = start_of(result);
  if (!result.contains("windows") || !result["windows"].is_array()) no_windows();
  RunFamilies families;
  for (const json& w : result["windows"]) families.add_window(w);
  std::string out;
  families.write(start, [&out](std::string_view text) { out += text; });
  return out;
}

void write_run_openmetrics(std::istream& result_json, const OpenMetricsSink& out) {
  RunFamilies families;
  bool saw_windows = false;
  bool in_windows = false;
  // A window is added when its object closes (depth 2 inside the top-level "windows") and then
  // dropped; of the rest only the start (started_at, or a v1 file's start_time) is kept.
  const json::parser_callback_t each_window = [&](int depth, json::parse_event_t event,
                                                  json& parsed) {
    if (depth == 1 && event == json::parse_event_t::key) {
      in_windows = parsed == "windows";
      saw_windows = saw_windows || in_windows;
      return in_windows || parsed == "started_at" || parsed == "start_time";
    }
    if (in_windows && depth == 2 && event == json::parse_event_t::object_end) {
      families.add_window(parsed);
      return false;
    }
    return true;
  };
  const json head = result::parse_recorded_json(result_json, each_window);
  const double start = start_of(head);
  if (!saw_windows) no_windows();
  families.write(start, out);
}

}  // namespace proofload::report
