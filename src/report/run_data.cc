// Reads a run's result.json into the structs of run_data.h (see there for what is required).
#include "report/run_data.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "measure/outcome.h"
#include "report/run_result.h"
#include "result/json_reader.h"

namespace proofload::report::run {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& message) {
  throw std::runtime_error("run result.json: " + message);
}

using Reader = result::JsonReader;
constexpr std::string_view kDocument = "run result.json";

LatencyView read_latency(const Reader& r) {
  return {r.number("p50"),   r.number("p90"), r.number("p99"),
          r.number("p99_9"), r.number("max"), r.number("mean")};
}

void read_spec(const Reader& spec, RunView& v) {
  v.observe_only = spec.text("command") == "observe";
  v.target = spec.text("target");
  v.executor = spec.text("executor");
  v.connections = spec.number("connections");
  v.max_connections = spec.number("max_connections");
  v.rate_per_s = spec.number("rate_per_s");
  v.planned_duration_s = spec.number("duration_s");
  v.spec_warmup_s = spec.number("warmup_s");
  v.requests_limit = spec.number("requests_limit");
  for (const Reader& stage : spec.objects("stages")) {
    const std::optional<double> duration_s = stage.number("duration_s");
    const std::optional<double> target = stage.number("target");
    if (duration_s && target) v.stages.emplace_back(*duration_s, *target);
  }
  const Reader scenario = spec.object("scenario");
  if (scenario.present()) {
    v.scenario_file = scenario.text("file");
    v.seed = scenario.unsigned_integer("seed");
    v.scenario_requests = scenario.size_of("requests");
    v.scenario_flows = scenario.size_of("flows");
  }
  v.observe = spec.texts("observe");
}

void read_summary(const Reader& s, RunView& v) {
  v.requests = s.number("requests");
  v.intended = s.number("intended");
  v.errors = s.number("errors");
  v.error_rate = s.number("error_rate");
  v.never_started = s.number("never_started");
  v.never_started_share = s.number("never_started_share");
  v.throughput_rps = s.number("throughput_rps");
  v.goodput_rps = s.number("goodput_rps");
  const Reader span = s.object("span");
  v.span_responses = span.number("responses");
  v.span_successes = span.number("successes");
  v.span_extended = span.boolean("extended_to_last_response").value_or(false);
  v.duration_s = s.number("duration_s");
  v.bytes_in = s.number("bytes_in");
  v.bytes_out = s.number("bytes_out");
  v.connects = s.number("connects");
  v.latency = read_latency(s.object("latency_ms"));
  v.service_time = read_latency(s.object("service_time_ms"));
  v.ttfb = read_latency(s.object("ttfb_ms"));
  v.outcomes = s.numbers_by_name("outcomes");
  // In the order every report lists them (success first), names this build does not know last.
  auto rank = [](const std::string& name) {
    const auto known =
        std::find(measure::kOutcomeNames.begin(), measure::kOutcomeNames.end(), name);
    return known - measure::kOutcomeNames.begin();
  };
  std::stable_sort(v.outcomes.begin(), v.outcomes.end(),
                   [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
  v.status_codes = s.numbers_by_name("status");
}

void read_observed(const Reader& top, RunView& v) {
  v.observed_recorded = top.object("observed").present();
  for (const auto& [label, r] : top.members("observed")) {
    SourceView source;
    source.label = label;
    source.source = r.text("source");
    source.samples = r.number("samples");
    source.gaps = r.number("gaps");
    source.error = r.text("error");
    for (const auto& [series, counter] : r.members("counters")) {
      const std::optional<double> first = counter.number("first");
      const std::optional<double> last = counter.number("last");
      if (first && last) source.counters.push_back({series, {*first, *last}});
    }
    for (auto& figure : r.own_numbers()) {
      if (figure.first != "samples" && figure.first != "gaps") {
        source.figures.push_back(std::move(figure));
      }
    }
    v.sources.push_back(std::move(source));
  }
  if (const Reader server = top.object("server"); server.present()) {
    ServerView s;
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
    v.server = std::move(s);
  }
  // The generator first, as the run observed it; the others in key order.
  std::stable_partition(v.sources.begin(), v.sources.end(),
                        [](const SourceView& source) { return source.is_generator(); });
}

}  // namespace

std::optional<double> SourceView::value(const std::string& name) const {
  for (const auto& [figure, value] : figures) {
    if (figure == name) return value;
  }
  return std::nullopt;
}

bool SourceView::is_host() const {
  return source.empty() ? label.starts_with("host") : source == "host";
}

std::optional<double> RunView::outcome(const std::string& name) const {
  if (outcomes.empty()) return std::nullopt;
  for (const auto& [outcome, count] : outcomes) {
    if (outcome == name) return count;
  }
  return 0.0;
}

std::optional<double> RunView::started() const {
  if (outcomes.empty()) return std::nullopt;
  double started = 0;
  for (const auto& [outcome, count] : outcomes) {
    if (outcome != "never_started") started += count;
  }
  return started;
}

const SourceView* RunView::generator() const {
  for (const SourceView& s : sources) {
    if (s.is_generator()) return &s;
  }
  return nullptr;
}

const SourceView* RunView::host() const {
  for (const SourceView& s : sources) {
    if (s.is_host()) return &s;
  }
  return nullptr;
}

RunView read_run(const nlohmann::json& result) {
  if (!result.is_object()) fail("not a JSON object");
  const Reader top(&result, "", kDocument);
  const std::string schema = top.text("schema");
  top.required("schema");
  if (schema != kResultSchema) {
    fail("schema is '" + schema + "', not " + std::string(kResultSchema));
  }
  RunView v;
  top.required("status");
  v.status = top.text("status");
  const json& summary = top.required("summary");
  if (!summary.is_object()) fail("'summary' is not an object");
  v.end_reason = top.text("end_reason");
  v.proofload_version = top.text("proofload_version");
  v.command_line = top.text("command_line");
  v.start_time = top.text("start_time");
  read_spec(top.object("spec"), v);
  read_summary(top.object("summary"), v);
  const Reader warmup = top.object("warmup");
  v.warmup_s = warmup.number("duration_s");
  v.warmup_requests = warmup.number("requests");
  for (const auto& [name, r] : top.members("requests")) {
    v.named.push_back({name, r.number("requests"), r.number("errors"), r.number("error_rate"),
                       r.number("throughput_rps"), read_latency(r.object("latency_ms"))});
  }
  for (const auto& [name, r] : top.members("flows")) {
    v.flows.push_back({name, r.number("started"), r.number("succeeded"), r.number("failed"),
                       r.number("abandoned"), r.number("success_rate"),
                       read_latency(r.object("duration_ms"))});
  }
  for (const Reader& t : top.objects("thresholds")) {
    v.thresholds.push_back(
        {t.text("expression"), t.number("observed"), t.text("observed_text"), t.boolean("passed")});
  }
  v.thresholds_passed = top.boolean("thresholds_passed");
  read_observed(top, v);
  v.busy_windows = top.numbers("generator_busy_windows");
  return v;
}

}  // namespace proofload::report::run
