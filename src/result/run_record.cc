// See run_record.h.
#include "result/run_record.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string_view>

#include "measure/outcome.h"
#include "result/json_reader.h"
#include "result/json_values.h"

namespace proofload::result {
namespace {

using nlohmann::json;

constexpr std::string_view kRunDocument = "run result.json";

// ---- writing ----

json latency_json(const Latency& l) {
  return {{"p50", optional_json(l.p50)},     {"p90", optional_json(l.p90)},
          {"p95", optional_json(l.p95)},     {"p99", optional_json(l.p99)},
          {"p99_9", optional_json(l.p99_9)}, {"max", optional_json(l.max)},
          {"mean", optional_json(l.mean)}};
}

json counts_json(const Counts& counts) {
  json out = json::object();
  for (const auto& [name, count] : counts) out[name] = count;
  return out;
}

// A server's count as JSON: a whole number as one (counters are), any other value as it is.
json count_json(const std::optional<double>& value) {
  if (!value) return nullptr;
  if (*value == std::trunc(*value) && std::abs(*value) < 9e15) {
    return static_cast<int64_t>(*value);
  }
  return *value;
}

json reconcile_json(const analyze::Reconciliation& r) {
  return {{"source", r.source},
          {"server_before", count_json(r.server_before)},
          {"server_after", count_json(r.server_after)},
          {"server_delta", count_json(r.server_delta())},
          {"client_successes", r.client_successes},
          {"difference", count_json(r.difference())},
          {"drop_share", optional_json(r.drop_share())},
          {"verdict", r.verdict},
          {"reason", text_or_null(r.reason)}};
}

json summary_fields_json(const RunRecord& r) {
  return {{"requests", optional_json(r.requests)},
          {"intended", optional_json(r.intended)},
          {"arrivals", optional_json(r.arrivals)},
          {"errors", optional_json(r.errors)},
          {"error_rate", optional_json(r.error_rate)},
          {"never_started", optional_json(r.never_started)},
          {"never_started_share", optional_json(r.never_started_share)},
          {"throughput_rps", optional_json(r.throughput_rps)},
          {"goodput_rps", optional_json(r.goodput_rps)},
          {"duration_s", optional_json(r.duration_s)},
          {"span",
           {{"responses", optional_json(r.span_responses)},
            {"successes", optional_json(r.span_successes)},
            {"iterations", optional_json(r.span_iterations)},
            {"iterations_succeeded", optional_json(r.span_iterations_succeeded)},
            {"flows", optional_json(r.span_flows)},
            {"flows_succeeded", optional_json(r.span_flows_succeeded)},
            {"extended_to_last_response", r.span_extended}}},
          {"latency_ms", latency_json(r.latency)},
          {"service_time_ms", latency_json(r.service_time)},
          {"ttfb_ms", latency_json(r.ttfb)},
          {"send_lag_ms", latency_json(r.send_lag)},
          {"outcomes", counts_json(r.outcomes)},
          {"status", counts_json(r.status_codes)},
          {"bytes_in", optional_json(r.bytes_in)},
          {"bytes_out", optional_json(r.bytes_out)},
          {"connects", optional_json(r.connects)},
          {"connect_ms", latency_json(r.connect_time)},
          {"tls", !r.spec.tls ? json(nullptr)
                              : json{{"handshakes", optional_json(r.tls_handshakes)},
                                     {"resumed", optional_json(r.tls_resumed)},
                                     {"handshake_ms", latency_json(r.tls_handshake)},
                                     {"first_error", text_or_null(r.tls_first_error)}}},
          {"h2", r.spec.protocol.get() != "h2" ? json(nullptr)
                                               : json{{"goaways", optional_json(r.h2_goaways)},
                                                      {"server_max_concurrent_streams",
                                                       optional_json(r.h2_server_max_streams)}}}};
}

json summary_json(const RunRecord& r) {
  json out = summary_fields_json(r);
  if (r.streams) out["streams"] = streams_json(*r.streams);
  if (!r.spectrum_ms.empty()) {
    out["latency_spectrum"] = {{"percentiles", r.spectrum_percentiles}, {"ms", r.spectrum_ms}};
  }
  if (r.reconcile) out["reconcile"] = reconcile_json(*r.reconcile);
  return out;
}

json source_json(const SourceRecord& s) {
  json out = json::object();
  for (const auto& [name, value] : s.figures) out[name] = value;
  out["source"] = s.source;
  if (!s.counters.empty()) {
    json counters = json::object();
    for (const CounterRecord& c : s.counters) {
      counters[c.series] = {{"first", c.first}, {"last", c.last}, {"delta", c.last - c.first}};
    }
    out["counters"] = std::move(counters);
  }
  out["samples"] = optional_json(s.samples);
  out["gaps"] = optional_json(s.gaps);
  if (!s.error.empty()) out["error"] = s.error;
  return out;
}

json server_json(const ServerRecord& s) {
  json out = {{"cpu_cores_mean", optional_json(s.cpu_cores_mean)},
              {"cpu_cores_max", optional_json(s.cpu_cores_max)},
              {"cpu_source", text_or_null(s.cpu_source)},
              {"cpu_also_measured_by", s.cpu_also_measured_by},
              {"throttled_share_mean", optional_json(s.throttled_share_mean)},
              {"quota_cores", optional_json(s.quota_cores)},
              {"cgroup_source", text_or_null(s.cgroup_source)},
              {"cpu_limit_cores", optional_json(s.cpu_limit_cores)},
              {"cpu_limit_basis", text_or_null(s.cpu_limit_basis)},
              {"cpu_bound", s.cpu_bound}};
  if (!s.cpu_sources.empty()) out["cpu_sources"] = s.cpu_sources;  // several instances only
  return out;
}

// ---- reading ----

[[noreturn]] void fail_run(const std::string& message) {
  throw std::runtime_error(std::string(kRunDocument) + ": " + message);
}

Latency latency_from(const JsonReader& r) {
  return {r.number("p50"),   r.number("p90"), r.number("p95"), r.number("p99"),
          r.number("p99_9"), r.number("max"), r.number("mean")};
}

// In the order every report lists them (success first), names this build does not know last.
void in_report_order(Counts& outcomes) {
  auto rank = [](const std::string& name) {
    const auto known =
        std::find(measure::kOutcomeNames.begin(), measure::kOutcomeNames.end(), name);
    return known - measure::kOutcomeNames.begin();
  };
  std::stable_sort(outcomes.begin(), outcomes.end(),
                   [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
}

void read_summary(const JsonReader& s, RunRecord& v) {
  v.requests = s.count("requests");
  v.intended = s.count("intended");
  v.arrivals = s.count("arrivals");
  v.errors = s.count("errors");
  v.error_rate = s.number("error_rate");
  v.never_started = s.count("never_started");
  v.never_started_share = s.number("never_started_share");
  v.throughput_rps = s.number("throughput_rps");
  v.goodput_rps = s.number("goodput_rps");
  const JsonReader span = s.object("span");
  v.span_responses = span.count("responses");
  v.span_successes = span.count("successes");
  v.span_iterations = span.count("iterations");
  v.span_iterations_succeeded = span.count("iterations_succeeded");
  v.span_flows = span.count("flows");
  v.span_flows_succeeded = span.count("flows_succeeded");
  v.span_extended = span.boolean("extended_to_last_response").value_or(false);
  v.duration_s = s.number("duration_s");
  v.bytes_in = s.count("bytes_in");
  v.bytes_out = s.count("bytes_out");
  v.connects = s.count("connects");
  v.latency = latency_from(s.object("latency_ms"));
  const JsonReader spectrum = s.object("latency_spectrum");
  v.spectrum_percentiles = spectrum.numbers("percentiles").value_or(std::vector<double>{});
  v.spectrum_ms = spectrum.numbers("ms").value_or(std::vector<double>{});
  if (v.spectrum_ms.size() != v.spectrum_percentiles.size()) {
    throw std::runtime_error("run result.json: 'summary.latency_spectrum' has " +
                             std::to_string(v.spectrum_percentiles.size()) + " percentiles and " +
                             std::to_string(v.spectrum_ms.size()) + " values");
  }
  v.service_time = latency_from(s.object("service_time_ms"));
  v.ttfb = latency_from(s.object("ttfb_ms"));
  v.send_lag = latency_from(s.object("send_lag_ms"));
  v.connect_time = latency_from(s.object("connect_ms"));
  const JsonReader tls = s.object("tls");
  v.tls_handshakes = tls.count("handshakes");
  v.tls_resumed = tls.count("resumed");
  v.tls_handshake = latency_from(tls.object("handshake_ms"));
  v.tls_first_error = tls.text("first_error");
  const JsonReader h2 = s.object("h2");
  v.h2_goaways = h2.count("goaways");
  v.h2_server_max_streams = h2.count("server_max_concurrent_streams");
  v.outcomes = s.counts_by_name("outcomes");
  in_report_order(v.outcomes);
  v.status_codes = s.counts_by_name("status");
  if (const JsonReader streams = s.object("streams"); streams.present()) {
    v.streams = streams_from_json(streams);
  }
  if (const JsonReader reconcile = s.object("reconcile"); reconcile.present()) {
    // server_delta, difference and drop_share are derived from these when read back.
    analyze::Reconciliation t;
    t.source = reconcile.text("source");
    t.server_before = reconcile.number("server_before");
    t.server_after = reconcile.number("server_after");
    t.client_successes = reconcile.count("client_successes").value_or(0);
    t.verdict = reconcile.text("verdict");
    t.reason = reconcile.text("reason");
    v.reconcile = t;
  }
}

void read_observed(const JsonReader& top, RunRecord& v) {
  v.observed_recorded = top.object("observed").present();
  for (const auto& [label, r] : top.members("observed")) {
    SourceRecord source;
    source.label = label;
    source.source = r.text("source");
    source.samples = r.count("samples");
    source.gaps = r.count("gaps");
    source.error = r.text("error");
    for (const auto& [series, counter] : r.members("counters")) {
      const std::optional<double> first = counter.number("first");
      const std::optional<double> last = counter.number("last");
      if (first && last) source.counters.push_back({series, *first, *last});
    }
    for (auto& figure : r.own_numbers()) {
      if (figure.first != "samples" && figure.first != "gaps") {
        source.figures.push_back(std::move(figure));
      }
    }
    v.sources.push_back(std::move(source));
  }
  if (const JsonReader server = top.object("server"); server.present()) {
    ServerRecord s;
    s.cpu_cores_mean = server.number("cpu_cores_mean");
    s.cpu_cores_max = server.number("cpu_cores_max");
    s.cpu_source = server.text("cpu_source");
    s.cpu_also_measured_by = server.texts("cpu_also_measured_by");
    s.throttled_share_mean = server.number("throttled_share_mean");
    s.quota_cores = server.number("quota_cores");
    s.cgroup_source = server.text("cgroup_source");
    s.cpu_limit_cores = server.number("cpu_limit_cores");
    s.cpu_limit_basis = server.text("cpu_limit_basis");
    s.cpu_bound = server.boolean("cpu_bound").value_or(false);
    s.cpu_sources = server.texts("cpu_sources");
    v.server = std::move(s);
  }
  // The generator first, as the run observed it; the others in key order.
  std::stable_partition(v.sources.begin(), v.sources.end(),
                        [](const SourceRecord& source) { return source.is_generator(); });
  v.busy_windows = top.counts("generator_busy_windows");
}

}  // namespace

std::optional<double> SourceRecord::value(const std::string& name) const {
  for (const auto& [figure, value] : figures) {
    if (figure == name) return value;
  }
  return std::nullopt;
}

bool SourceRecord::is_host() const {
  return source.empty() ? label.starts_with("host") : source == "host";
}

std::optional<int64_t> RunRecord::outcome(const std::string& name) const {
  if (outcomes.empty()) return std::nullopt;
  for (const auto& [outcome, count] : outcomes) {
    if (outcome == name) return count;
  }
  return 0;
}

std::optional<double> RunRecord::started() const {
  if (outcomes.empty()) return std::nullopt;
  double started = 0;
  for (const auto& [outcome, count] : outcomes) {
    if (outcome != "never_started") started += static_cast<double>(count);
  }
  return started;
}

std::optional<int64_t> RunRecord::warmup_ended() const {
  if (warmup_outcomes.empty()) return std::nullopt;
  int64_t ended = 0;
  for (const auto& [outcome, count] : warmup_outcomes) {
    if (outcome != "never_started") ended += count;
  }
  return ended;
}

std::optional<int64_t> RunRecord::warmup_errors() const {
  if (warmup_outcomes.empty()) return std::nullopt;
  int64_t failed = 0;
  for (const auto& [outcome, count] : warmup_outcomes) {
    if (outcome != "never_started" && outcome != "success") failed += count;
  }
  return failed;
}

const SourceRecord* RunRecord::generator() const {
  for (const SourceRecord& s : sources) {
    if (s.is_generator()) return &s;
  }
  return nullptr;
}

const SourceRecord* RunRecord::host() const {
  for (const SourceRecord& s : sources) {
    if (s.is_host()) return &s;
  }
  return nullptr;
}

json run_to_json(const RunRecord& r) {
  json out = {{"schema", kRunSchema},
              {"status", r.status},
              {"proofload_version", r.proofload_version},
              {"command_line", r.command_line},
              {"started_at", r.started_at},
              {"window_s", optional_json(r.window_s)},
              {"spec", spec_to_json(r.spec)}};
  if (r.segment) out["segment"] = segment_json(*r.segment);
  if (r.merged) out["merged"] = merge_json(*r.merged);
  if (!r.summary_recorded) return out;  // running: nothing measured yet
  out["end_reason"] = r.end_reason;
  out["summary"] = summary_json(r);
  if (!r.named.empty()) {
    json requests = json::object();
    for (const NamedRequest& n : r.named) {
      requests[n.name] = {{"requests", optional_json(n.requests)},
                          {"responses", optional_json(n.responses)},
                          {"errors", optional_json(n.errors)},
                          {"error_rate", optional_json(n.error_rate)},
                          {"throughput_rps", optional_json(n.throughput_rps)},
                          {"goodput_rps", optional_json(n.goodput_rps)},
                          {"latency_ms", latency_json(n.latency)},
                          {"outcomes", counts_json(n.outcomes)}};
      if (n.streams) requests[n.name]["streams"] = streams_json(*n.streams);
    }
    out["requests"] = std::move(requests);
  }
  if (!r.flows.empty()) {
    json flows = json::object();
    for (const FlowRecord& f : r.flows) {
      flows[f.name] = {{"started", optional_json(f.started)},
                       {"succeeded", optional_json(f.succeeded)},
                       {"failed", optional_json(f.failed)},
                       {"abandoned", optional_json(f.abandoned)},
                       {"success_rate", optional_json(f.success_rate)},
                       {"duration_ms", latency_json(f.duration)}};
    }
    out["flows"] = std::move(flows);
  }
  if (r.observed_recorded) {
    json observed = json::object();
    for (const SourceRecord& s : r.sources) observed[s.label] = source_json(s);
    out["observed"] = std::move(observed);
    if (r.server) out["server"] = server_json(*r.server);
    out["generator_busy_windows"] = r.busy_windows.value_or(std::vector<int64_t>{});
  }
  if (!r.thresholds.empty()) {
    json thresholds = json::array();
    for (const ThresholdRecord& t : r.thresholds) {
      thresholds.push_back({{"expression", t.expression},
                            {"observed", optional_json(t.observed)},
                            {"observed_text", t.observed_text},
                            {"passed", optional_json(t.passed)}});
    }
    out["thresholds"] = std::move(thresholds);
    out["thresholds_passed"] = optional_json(r.thresholds_passed);
  }
  out["warmup"] = {{"duration_s", optional_json(r.warmup_s)},
                   {"requests", optional_json(r.warmup_requests)},
                   {"outcomes", counts_json(r.warmup_outcomes)}};
  return out;
}

RunRecord run_from_json(const json& result) {
  if (!result.is_object()) fail_run("not a JSON object");
  const JsonReader top(&result, "", kRunDocument);
  top.required("schema");
  const std::string schema = top.text("schema");
  if (!is_run_schema(schema)) {
    fail_run("schema is '" + schema + "', not " + std::string(kRunSchema));
  }
  RunRecord v;
  top.required("status");
  v.status = top.text("status");
  const json& summary = top.required("summary");
  if (!summary.is_object()) fail_run("'summary' is not an object");
  v.summary_recorded = true;
  v.end_reason = top.text("end_reason");
  v.proofload_version = top.text("proofload_version");
  v.command_line = top.text("command_line");
  v.started_at = top.text(schema == kRunSchemaV1 ? "start_time" : "started_at");
  v.window_s = top.number("window_s");
  if (const json* spec = top.find("spec")) {
    v.spec = spec_from_json(*spec, kRunDocument);
  }
  read_summary(top.object("summary"), v);
  if (const JsonReader segment = top.object("segment"); segment.present()) {
    v.segment = segment_from_json(segment);
  }
  if (const JsonReader merged = top.object("merged"); merged.present()) {
    v.merged = merge_from_json(merged);
  }
  const JsonReader warmup = top.object("warmup");
  v.warmup_s = warmup.number("duration_s");
  v.warmup_requests = warmup.count("requests");
  v.warmup_outcomes = warmup.counts_by_name("outcomes");
  for (const auto& [name, r] : top.members("requests")) {
    v.named.push_back({name, r.count("requests"), r.count("responses"), r.count("errors"),
                       r.number("error_rate"), r.number("throughput_rps"),
                       latency_from(r.object("latency_ms")), r.counts_by_name("outcomes"),
                       std::nullopt, r.number("goodput_rps")});
    if (const JsonReader streams = r.object("streams"); streams.present()) {
      v.named.back().streams = streams_from_json(streams);
    }
  }
  for (const auto& [name, r] : top.members("flows")) {
    v.flows.push_back({name, r.count("started"), r.count("succeeded"), r.count("failed"),
                       r.count("abandoned"), r.number("success_rate"),
                       latency_from(r.object("duration_ms"))});
  }
  for (const JsonReader& t : top.objects("thresholds")) {
    v.thresholds.push_back(
        {t.text("expression"), t.number("observed"), t.text("observed_text"), t.boolean("passed")});
  }
  v.thresholds_passed = top.boolean("thresholds_passed");
  read_observed(top, v);
  return v;
}

json streams_json(const StreamsRecord& s) {
  json out = {{"completed", optional_json(s.completed)},
              {"cut_short", optional_json(s.cut_short)},
              {"idle_timeout", optional_json(s.idle_timeout)},
              {"malformed", optional_json(s.malformed)},
              {"fixture_mismatch", optional_json(s.fixture_mismatch)},
              {"events", optional_json(s.events)},
              {"bytes", optional_json(s.bytes)},
              {"tokens", optional_json(s.tokens)},
              {"streams_per_s", optional_json(s.streams_per_s)},
              {"events_per_s", optional_json(s.events_per_s)},
              {"bytes_per_s", optional_json(s.bytes_per_s)},
              {"tokens_per_s", optional_json(s.tokens_per_s)},
              {"ttfb_ms", latency_json(s.ttfb)},
              {"ttfe_ms", latency_json(s.ttfe)},
              {"ttfce_ms", latency_json(s.ttfce)},
              {"inter_event_ms", latency_json(s.inter_event)},
              {"tpot_ms", latency_json(s.tpot)},
              {"duration_ms", latency_json(s.duration)}};
  if (!s.goodput_slo.empty()) {
    out["goodput"] = {{"slo", s.goodput_slo},
                      {"met", optional_json(s.goodput)},
                      {"share", optional_json(s.goodput_share)},
                      {"per_s", optional_json(s.goodput_per_s)}};
  }
  return out;
}

StreamsRecord streams_from_json(const JsonReader& streams) {
  StreamsRecord t;
  t.completed = streams.count("completed");
  t.cut_short = streams.count("cut_short");
  t.idle_timeout = streams.count("idle_timeout");
  t.malformed = streams.count("malformed");
  t.fixture_mismatch = streams.count("fixture_mismatch");
  t.events = streams.count("events");
  t.bytes = streams.count("bytes");
  t.tokens = streams.count("tokens");
  t.streams_per_s = streams.number("streams_per_s");
  t.events_per_s = streams.number("events_per_s");
  t.bytes_per_s = streams.number("bytes_per_s");
  t.tokens_per_s = streams.number("tokens_per_s");
  t.ttfb = latency_from(streams.object("ttfb_ms"));
  t.ttfe = latency_from(streams.object("ttfe_ms"));
  t.ttfce = latency_from(streams.object("ttfce_ms"));
  t.inter_event = latency_from(streams.object("inter_event_ms"));
  t.tpot = latency_from(streams.object("tpot_ms"));
  t.duration = latency_from(streams.object("duration_ms"));
  if (const JsonReader goodput = streams.object("goodput"); goodput.present()) {
    t.goodput_slo = goodput.text("slo");
    t.goodput = goodput.count("met");
    t.goodput_share = goodput.number("share");
    t.goodput_per_s = goodput.number("per_s");
  }
  return t;
}

}  // namespace proofload::result
