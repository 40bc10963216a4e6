// Builds result.json from a RunResult. Milliseconds carry microsecond precision; a percentile of
// nothing is null, never 0, so that "no data" cannot be read as "fast".
#include "report/result_json.h"

#include <array>
#include <optional>

#include "report/numbers.h"

namespace proofload::report {
namespace {

using measure::Outcome;
using measure::WindowStats;
using nlohmann::json;

json number_or_null(std::optional<double> value) { return value ? json(*value) : json(nullptr); }

// {p50, p90, p99, [p99_9,] max, mean} in ms.
json latency_json(const LatencySummary& l, bool with_p99_9) {
  json out = {{"p50", number_or_null(l.p50_ms)},
              {"p90", number_or_null(l.p90_ms)},
              {"p99", number_or_null(l.p99_ms)},
              {"max", number_or_null(l.max_ms)},
              {"mean", number_or_null(l.mean_ms)}};
  if (with_p99_9) out["p99_9"] = number_or_null(l.p99_9_ms);
  return out;
}

json outcomes_json(const std::array<int64_t, measure::kOutcomeCount>& outcomes,
                   bool only_non_zero) {
  json out = json::object();
  for (int i = 0; i < measure::kOutcomeCount; ++i) {
    if (only_non_zero && outcomes[i] == 0) continue;
    out[std::string(measure::kOutcomeNames[i])] = outcomes[i];
  }
  return out;
}

json status_json(const WindowStats& w) {
  json out = json::object();
  for (int code = 0; code < measure::kStatusSlots; ++code) {
    if (w.status[code] == 0) continue;
    out[code == measure::kStatusOther ? std::string("other") : std::to_string(code)] =
        w.status[code];
  }
  return out;
}

double seconds(int64_t ns) { return static_cast<double>(ns) / 1e9; }

json summary_json(const RunResult& result) {
  const WindowStats& t = result.total;
  const int64_t never_started = t.count(Outcome::kNeverStarted);
  const int64_t responses = t.responses();
  const measure::MeasuredSpan& span = result.span;
  const bool has_span = span.duration_ns > 0;
  const measure::SpanCounts& c = span.counts;
  return {{"requests", responses},
          {"intended", t.intended},
          {"errors", t.errors()},
          {"error_rate", number_or_null(share(t.errors(), started_requests(t)))},
          {"never_started", never_started},
          {"never_started_share", number_or_null(share(never_started, t.intended))},
          {"throughput_rps", has_span ? json(result.throughput_rps()) : json(nullptr)},
          {"goodput_rps", has_span ? json(result.goodput_rps()) : json(nullptr)},
          {"duration_s", result.measured_duration_s},
          // The numerators of the rates: what ended inside the measured span.
          {"span",
           {{"responses", c.responses},
            {"successes", c.successes},
            {"iterations", c.iterations},
            {"iterations_succeeded", c.iterations_succeeded},
            {"flows", c.flows},
            {"flows_succeeded", c.flows_succeeded},
            {"extended_to_last_response", span.extended_to_last_response}}},
          {"latency_ms", latency_json(summarize_latency(t.latency_us), true)},
          {"service_time_ms", latency_json(summarize_latency(t.service_us), true)},
          {"ttfb_ms", latency_json(summarize_latency(t.ttfb_us), true)},
          {"outcomes", outcomes_json(t.outcomes, false)},
          {"status", status_json(t)},
          {"bytes_in", t.bytes_in},
          {"bytes_out", t.bytes_out},
          {"connects", t.connects}};
}

// By named request: what each `requests:` entry of a scenario got (measured part).
json requests_by_name_json(const RunResult& result) {
  json out = json::object();
  for (size_t i = 0; i < result.request_names.size() && i < result.named_total.requests.size();
       ++i) {
    const measure::RequestStats& r = result.named_total.requests[i];
    int64_t ended = r.ended();
    int64_t errors = 0;
    int64_t responses = 0;
    for (int o = 0; o < measure::kOutcomeCount; ++o) {
      if (measure::outcome_is_error(static_cast<Outcome>(o))) errors += r.outcomes[o];
      if (measure::outcome_has_response(static_cast<Outcome>(o))) responses += r.outcomes[o];
    }
    json throughput =
        result.span.duration_ns > 0 ? json(result.span.per_s(r.span_responses)) : json(nullptr);
    out[result.request_names[i]] = {
        {"requests", ended},
        {"responses", responses},
        {"errors", errors},
        {"error_rate", number_or_null(share(errors, ended))},
        {"throughput_rps", throughput},
        {"latency_ms", latency_json(summarize_latency(r.latency_us), true)},
        {"outcomes", outcomes_json(r.outcomes, false)}};
  }
  return out;
}

// By flow: its own denominator (flows, not requests). The success rate is over flows that
// finished; flows the end of the run cut short are counted apart as abandoned.
json flows_json(const RunResult& result) {
  json out = json::object();
  for (size_t i = 0; i < result.flow_names.size() && i < result.named_total.flows.size(); ++i) {
    const measure::FlowStats& f = result.named_total.flows[i];
    out[result.flow_names[i]] = {
        {"started", f.started},
        {"succeeded", f.succeeded},
        {"failed", f.failed},
        {"abandoned", f.abandoned},
        {"success_rate", number_or_null(share(f.succeeded, f.succeeded + f.failed))},
        {"duration_ms", latency_json(summarize_latency(f.duration_us), true)}};
  }
  return out;
}

json text_or_null(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

json server_json(const ServerFigures& s) {
  return {{"cpu_cores_mean", number_or_null(s.cpu_cores_mean)},
          {"cpu_cores_max", number_or_null(s.cpu_cores_max)},
          {"cpu_source", text_or_null(s.cpu_source)},
          {"cpu_also_measured_by", s.cpu_also_measured_by},
          {"throttled_share_mean", number_or_null(s.throttled_share_mean)},
          {"quota_cores", number_or_null(s.quota_cores)},
          {"cgroup_source", text_or_null(s.cgroup_source)},
          {"cpu_limit_cores", number_or_null(s.cpu_limit_cores)},
          {"cpu_limit_basis", text_or_null(s.cpu_limit_basis)},
          {"cpu_bound", s.cpu_bound()}};
}

json thresholds_json(const RunResult& result) {
  json out = json::array();
  for (const ThresholdVerdict& t : result.thresholds) {
    out.push_back({{"expression", t.expression},
                   {"observed", number_or_null(t.observed)},
                   {"observed_text", t.observed_text},
                   {"passed", t.passed}});
  }
  return out;
}

}  // namespace

json figures_json(const std::vector<std::pair<std::string, double>>& figures) {
  json out = json::object();
  for (const auto& [name, value] : figures) out[name] = value;
  return out;
}

json observed_window_json(const std::vector<ObservedFigures>& observed) {
  json out = json::object();
  for (const ObservedFigures& o : observed) {
    json entry = figures_json(o.figures);
    entry["samples"] = o.samples;
    entry["gaps"] = o.gaps;
    if (!o.last_error.empty()) entry["error"] = o.last_error;
    out[o.label] = std::move(entry);
  }
  return out;
}

json window_to_json(const WindowSummary& w) {
  const double duration_s = seconds(w.duration_ns);
  json throughput =
      duration_s > 0 ? json(static_cast<double>(w.responses()) / duration_s) : json(nullptr);
  json out = {{"index", w.index},
              {"start_s", seconds(w.start_ns)},
              {"duration_s", duration_s},
              {"warmup", w.warmup},
              {"drain", w.drain},
              {"requests", w.responses()},
              {"intended", w.intended},
              {"errors", w.errors()},
              {"never_started", w.count(Outcome::kNeverStarted)},
              {"throughput_rps", throughput},
              {"latency_ms", latency_json(w.latency, false)},
              {"outcomes", outcomes_json(w.outcomes, true)},
              {"in_flight", w.in_flight_end},
              {"queued", w.queued_end}};
  if (!w.observed.empty()) out["observed"] = observed_window_json(w.observed);
  return out;
}

namespace {

json header_json(const RunResult& result, const char* status) {
  return {{"schema", kResultSchema},
          {"status", status},
          {"proofload_version", result.proofload_version},
          {"command_line", result.command_line},
          {"start_time", iso8601_utc(result.start_wall_ns)},
          {"window_s", seconds(result.window_ns)},
          {"spec", result.spec}};
}

}  // namespace

json result_to_json(const RunResult& result) {
  json out = header_json(result, result.aborted       ? "aborted"
                                 : result.interrupted ? "interrupted"
                                                      : "complete");
  out["end_reason"] = result.end_reason;
  out["summary"] = summary_json(result);
  if (!result.request_names.empty()) out["requests"] = requests_by_name_json(result);
  if (!result.flow_names.empty()) out["flows"] = flows_json(result);
  if (!result.observed.empty()) {
    json observed = json::object();
    for (const ObservedSummary& o : result.observed) {
      json entry = figures_json(o.figures);
      entry["source"] = o.source;
      if (!o.counters.empty()) {
        json counters = json::object();
        for (const CounterTotal& c : o.counters) {
          counters[c.name] = {{"first", c.first}, {"last", c.last}, {"delta", c.delta()}};
        }
        entry["counters"] = std::move(counters);
      }
      entry["samples"] = o.samples;
      entry["gaps"] = o.gaps;
      if (!o.last_error.empty()) entry["error"] = o.last_error;
      observed[o.label] = std::move(entry);
    }
    out["observed"] = std::move(observed);
    if (result.server.any() || result.server.cpu_limit_cores) {
      out["server"] = server_json(result.server);
    }
    out["generator_busy_windows"] = result.generator_busy_windows;
  }
  if (!result.thresholds.empty()) {
    out["thresholds"] = thresholds_json(result);
    out["thresholds_passed"] = result.thresholds_passed();
  }
  out["warmup"] = {{"duration_s", result.warmup_duration_s},
                   {"requests", result.warmup_total.responses()},
                   {"outcomes", outcomes_json(result.warmup_total.outcomes, false)}};
  json windows = json::array();
  for (const WindowSummary& w : result.windows) windows.push_back(window_to_json(w));
  out["windows"] = std::move(windows);
  return out;
}

json running_result_to_json(const RunResult& initial) { return header_json(initial, "running"); }

std::string result_json_text(const json& document) {
  // argv and the spec may hold bytes that are not UTF-8: replace them rather than fail to
  // write the record of a run.
  return document.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace proofload::report
