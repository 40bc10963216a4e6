// See soak_result.h.
#include "result/soak_result.h"

#include <stdexcept>

#include "analyze/ladder_analysis.h"
#include "result/json_values.h"

namespace proofload::result {
namespace {

using nlohmann::json;

constexpr const char* kSoakDocument = "soak result.json";

json drift_json(const analyze::Drift& d) {
  json blocks = json::array();
  for (const analyze::DriftBlock& b : d.blocks) {
    blocks.push_back({{"start_s", b.start_s},
                      {"end_s", b.end_s},
                      {"median_p95_ms", optional_json(b.median_p95_ms)},
                      {"change_ms", optional_json(b.change_ms)},
                      {"outside_noise", b.outside_noise}});
  }
  return {{"first_quarter_p95_ms", optional_json(d.first_quarter_p95_ms)},
          {"last_quarter_p95_ms", optional_json(d.last_quarter_p95_ms)},
          {"blocks", blocks},
          {"noise",
           {{"ms", d.noise_ms},
            {"source", text_or_null(d.noise_source)},
            {"text", text_or_null(d.noise_text)},
            {"spread_ms", optional_json(d.spread_ms)},
            {"relative_floor_ms", optional_json(d.relative_floor_ms)},
            {"absolute_floor_ms", optional_json(d.absolute_floor_ms)}}},
          {"verdict", d.verdict},
          {"direction", text_or_null(d.direction)},
          {"fails", d.fails},
          {"reason", text_or_null(d.reason)}};
}

analyze::Drift drift_from_json(const JsonReader& r) {
  analyze::Drift d;
  d.first_quarter_p95_ms = r.number("first_quarter_p95_ms");
  d.last_quarter_p95_ms = r.number("last_quarter_p95_ms");
  for (const JsonReader& b : r.objects("blocks")) {
    d.blocks.push_back({b.required_number("start_s"), b.required_number("end_s"),
                        b.number("median_p95_ms"), b.number("change_ms"),
                        b.boolean("outside_noise").value_or(false)});
  }
  const JsonReader noise = r.object("noise");
  d.noise_ms = noise.number("ms").value_or(0);
  d.noise_source = noise.text("source");
  d.noise_text = noise.text("text");
  d.spread_ms = noise.number("spread_ms");
  d.relative_floor_ms = noise.number("relative_floor_ms");
  d.absolute_floor_ms = noise.number("absolute_floor_ms");
  d.verdict = r.text("verdict");
  d.direction = r.text("direction");
  // Written before a fall was told apart: every drift failed.
  d.fails = r.boolean("fails").value_or(d.verdict == "drift");
  d.reason = r.text("reason");
  return d;
}

json mark_json(const analyze::MarkVerdict& m) {
  return {{"label", m.mark.label},
          {"at_s", m.mark.at_s},
          {"source", m.mark.source},
          {"command", optional_json(m.mark.command)},
          {"exit_code", optional_json(m.mark.exit_code)},
          {"hook_outcome", text_or_null(m.mark.hook_outcome)},
          {"baseline_p95_ms", optional_json(m.baseline_p95_ms)},
          {"worst_p95_ms", optional_json(m.worst_p95_ms)},
          {"windows", m.windows},
          {"requests", m.requests},
          {"errors", m.errors},
          {"status_429", m.status_429},
          {"canaries_wrong", m.canaries_wrong},
          {"throughput_rps", m.throughput_rps},
          {"verdict", m.verdict},
          {"reason", m.reason}};
}

analyze::MarkVerdict mark_from_json(const JsonReader& r) {
  analyze::MarkVerdict m;
  m.mark.label = r.required_text("label");
  m.mark.at_s = r.required_number("at_s");
  m.mark.source = r.text("source");
  if (const std::string command = r.text("command"); !command.empty()) m.mark.command = command;
  if (const auto code = r.number("exit_code")) m.mark.exit_code = static_cast<int>(*code);
  m.mark.hook_outcome = r.text("hook_outcome");
  m.baseline_p95_ms = r.number("baseline_p95_ms");
  m.worst_p95_ms = r.number("worst_p95_ms");
  m.windows = r.count("windows").value_or(0);
  m.requests = r.count("requests").value_or(0);
  m.errors = r.count("errors").value_or(0);
  m.status_429 = r.count("status_429").value_or(0);
  m.canaries_wrong = r.count("canaries_wrong").value_or(0);
  m.throughput_rps = r.number("throughput_rps").value_or(0);
  m.verdict = r.text("verdict");
  m.reason = r.text("reason");
  return m;
}

json settings_json(const SoakSettings& s) {
  json marks = json::array();
  for (const ScheduledMark& m : s.marks) {
    marks.push_back({{"at_s", m.at_s}, {"label", m.label}, {"command", m.command}});
  }
  return {{"loop", s.loop},
          {"rate_rps", optional_json(s.rate_rps)},
          {"connections", optional_json(s.connections)},
          {"hold_s", s.hold_s},
          {"ramp_s", s.ramp_s},
          {"ramp_steps", s.ramp_steps},
          {"window_s", s.window_s},
          {"bar", s.bar},
          {"canary_every_s", optional_json(s.canary_every_s)},
          {"canaries", s.canaries},
          {"drift_block_s", optional_json(s.drift_block_s)},
          {"drift_noise_ms", optional_json(s.drift_noise_ms)},
          {"drift_floor_share", s.drift_floor_share},
          {"drift_floor_ms", s.drift_floor_ms},
          {"drift_fails", s.drift_fails},
          {"mark_window_s", s.mark_window_s},
          {"mark_at", marks},
          {"abort_when", optional_json(s.abort_when)},
          {"observe", s.observe},
          {"server_observed", s.server_observed}};
}

SoakSettings soak_settings_from_json(const JsonReader& r) {
  SoakSettings s;
  s.loop = r.text("loop");
  s.rate_rps = r.number("rate_rps");
  s.connections = r.count("connections");
  s.hold_s = r.number("hold_s").value_or(0);
  s.ramp_s = r.number("ramp_s").value_or(0);
  s.ramp_steps = r.count("ramp_steps").value_or(0);
  s.window_s = r.number("window_s").value_or(60);
  s.bar = r.text("bar");
  s.canary_every_s = r.number("canary_every_s");
  s.canaries = r.texts("canaries");
  s.drift_block_s = r.number("drift_block_s");
  s.drift_noise_ms = r.number("drift_noise_ms");
  s.drift_floor_share =
      r.number("drift_floor_share")
          .value_or(r.number("noise_floor").value_or(analyze::kDefaultNoiseFloor));
  // A soak recorded before the absolute floor had none.
  s.drift_floor_ms = r.number("drift_floor_ms").value_or(0);
  if (const std::string fails = r.text("drift_fails"); !fails.empty()) s.drift_fails = fails;
  s.mark_window_s = r.number("mark_window_s").value_or(120);
  for (const JsonReader& m : r.objects("mark_at")) {
    s.marks.push_back({m.required_number("at_s"), m.text("label"), m.text("command")});
  }
  if (const std::string abort = r.text("abort_when"); !abort.empty()) s.abort_when = abort;
  s.observe = r.texts("observe");
  s.server_observed = r.boolean("server_observed").value_or(false);
  return s;
}

json canaries_json(const CanaryTotals& c) {
  json named = json::array();
  for (const CanaryTotals::Named& n : c.by_name) {
    named.push_back({{"name", n.name},
                     {"right", n.right},
                     {"total", n.total},
                     {"retried", n.retried},
                     {"first_wrong", text_or_null(n.first_wrong)}});
  }
  return {{"right", c.right},
          {"total", c.total},
          {"retried", c.retried},
          {"retried_right", optional_json(c.retried_right)},
          {"by_name", named}};
}

CanaryTotals canaries_from_json(const JsonReader& r) {
  CanaryTotals c;
  c.right = r.count("right").value_or(0);
  c.total = r.count("total").value_or(0);
  c.retried = r.count("retried").value_or(0);
  c.retried_right = r.count("retried_right");
  for (const JsonReader& n : r.objects("by_name")) {
    c.by_name.push_back({n.text("name"), n.count("right").value_or(0), n.count("total").value_or(0),
                         n.count("retried").value_or(0), n.text("first_wrong")});
  }
  return c;
}

json summary_json(const SoakSummary& s) {
  return {{"requests", s.requests},
          {"errors", s.errors},
          {"status_429", s.status_429},
          {"p50_median_ms", optional_json(s.p50_median_ms)},
          {"p95_median_ms", optional_json(s.p95_median_ms)},
          {"p95_min_ms", optional_json(s.p95_min_ms)},
          {"p95_max_ms", optional_json(s.p95_max_ms)},
          {"throughput_median_rps", optional_json(s.throughput_median_rps)},
          {"throughput_min_rps", optional_json(s.throughput_min_rps)},
          {"held_s", s.held_s}};
}

SoakSummary summary_from_json(const JsonReader& r) {
  SoakSummary s;
  s.requests = r.count("requests").value_or(0);
  s.errors = r.count("errors").value_or(0);
  s.status_429 = r.count("status_429").value_or(0);
  s.p50_median_ms = r.number("p50_median_ms");
  s.p95_median_ms = r.number("p95_median_ms");
  s.p95_min_ms = r.number("p95_min_ms");
  s.p95_max_ms = r.number("p95_max_ms");
  s.throughput_median_rps = r.number("throughput_median_rps");
  s.throughput_min_rps = r.number("throughput_min_rps");
  s.held_s = r.number("held_s").value_or(0);
  return s;
}

json windows_json(const std::vector<analyze::SoakWindowRow>& rows) {
  json out = json::array();
  for (const analyze::SoakWindowRow& row : rows) out.push_back(soak_window_to_json(row));
  return out;
}

}  // namespace

json soak_window_to_json(const analyze::SoakWindowRow& w) {
  json out = {{"index", w.index},
          {"start_s", w.start_s},
          {"duration_s", w.duration_s},
          {"requests", w.requests},
          {"errors", w.errors},
          {"status_429", w.status_429},
          {"p50_ms", optional_json(w.p50_ms)},
          {"p95_ms", optional_json(w.p95_ms)},
          {"p99_ms", optional_json(w.p99_ms)},
          {"slowest_ms", optional_json(w.slowest_ms)},
          {"slowest_at_s", w.slowest_at_s},
          {"throughput_rps", w.throughput_rps},
          {"canaries_right", w.canaries_right},
          {"canaries_wrong", w.canaries_wrong},
          {"observer_gaps", w.observer_gaps},
          {"observer_gap", text_or_null(w.observer_gap)},
          {"bar_met", w.bar_met},
          {"reasons", w.reasons}};
  // A soak of streams only (a window in which a stream ended), so other soaks' files stay as
  // they were.
  if (w.ttft_p95_ms || w.itl_p99_ms || w.tokens_per_s || w.stream_goodput) {
    out["ttft_p95_ms"] = optional_json(w.ttft_p95_ms);
    out["itl_p99_ms"] = optional_json(w.itl_p99_ms);
    out["tokens_per_s"] = optional_json(w.tokens_per_s);
    out["stream_goodput"] = optional_json(w.stream_goodput);
  }
  return out;
}

analyze::SoakWindowRow soak_window_from_json(const JsonReader& r) {
  analyze::SoakWindowRow w;
  const double index = r.required_number("index");
  w.index = static_cast<int64_t>(index);
  w.start_s = r.number("start_s").value_or(0);
  w.ramp = w.index < 0;
  w.duration_s = r.number("duration_s").value_or(0);
  const std::optional<int64_t> requests = r.count("requests");
  if (!requests) r.fail("'" + r.name("requests") + "' is missing");
  w.requests = *requests;
  w.errors = r.count("errors").value_or(0);
  w.status_429 = r.count("status_429").value_or(0);
  w.p50_ms = r.number("p50_ms");
  w.p95_ms = r.number("p95_ms");
  w.p99_ms = r.number("p99_ms");
  w.slowest_ms = r.number("slowest_ms");
  w.slowest_at_s = r.number("slowest_at_s").value_or(0);
  w.throughput_rps = r.number("throughput_rps").value_or(0);
  w.canaries_right = r.count("canaries_right").value_or(0);
  w.canaries_wrong = r.count("canaries_wrong").value_or(0);
  w.observer_gaps = r.count("observer_gaps").value_or(0);
  w.observer_gap = r.text("observer_gap");
  w.ttft_p95_ms = r.number("ttft_p95_ms");
  w.itl_p99_ms = r.number("itl_p99_ms");
  w.tokens_per_s = r.number("tokens_per_s");
  w.stream_goodput = r.number("stream_goodput");
  w.bar_met = r.boolean("bar_met").value_or(true);
  w.reasons = r.texts("reasons");
  return w;
}

json soak_to_json(const SoakResult& r) {
  json marks = json::array();
  for (const analyze::MarkVerdict& m : r.marks) marks.push_back(mark_json(m));
  json server = json::array();
  for (const ServerMemory& m : r.server) {
    server.push_back({{"source", m.source},
                      {"figure", m.figure},
                      {"first_bytes", m.first_bytes},
                      {"last_bytes", m.last_bytes},
                      {"peak_bytes", m.peak_bytes}});
  }
  json out = experiment_record_to_json(r, kSoakSchema, "soak");
  out["hold_start_unix_ns"] = r.hold_start_unix_ns;
  out["settings"] = settings_json(r.settings);
  out["soak"] = {{"summary", summary_json(r.summary)},
                 {"ramp", windows_json(r.ramp)},
                 {"windows", windows_json(r.windows)},
                 {"windows_missed", r.windows_missed},
                 {"canaries", canaries_json(r.canaries)},
                 {"drift", drift_json(r.drift)},
                 {"slowest", {{"ms", optional_json(r.slowest.ms)}, {"at_s", r.slowest.at_s}}},
                 {"marks", marks},
                 {"server", server}};
  return out;
}

SoakResult soak_from_json(const json& result) {
  SoakResult r;
  static_cast<ExperimentRecord&>(r) =
      experiment_record_from_json(result, kSoakSchema, "soak", kSoakDocument, kSoakSchemaV1);
  const JsonReader top(&result, "", kSoakDocument);
  r.hold_start_unix_ns =
      static_cast<int64_t>(top.unsigned_integer("hold_start_unix_ns").value_or(0));
  r.settings = soak_settings_from_json(top.object("settings"));
  const JsonReader soak = top.object("soak");
  r.summary = summary_from_json(soak.object("summary"));
  for (const JsonReader& w : soak.objects("ramp")) r.ramp.push_back(soak_window_from_json(w));
  for (const JsonReader& w : soak.objects("windows")) r.windows.push_back(soak_window_from_json(w));
  r.windows_missed = soak.count("windows_missed").value_or(0);
  r.canaries = canaries_from_json(soak.object("canaries"));
  r.drift = drift_from_json(soak.object("drift"));
  const JsonReader slowest = soak.object("slowest");
  r.slowest.ms = slowest.number("ms");
  r.slowest.at_s = slowest.number("at_s").value_or(0);
  for (const JsonReader& m : soak.objects("marks")) r.marks.push_back(mark_from_json(m));
  for (const JsonReader& m : soak.objects("server")) {
    r.server.push_back({m.text("source"), m.text("figure"), m.number("first_bytes").value_or(0),
                        m.number("last_bytes").value_or(0), m.number("peak_bytes").value_or(0)});
  }
  return r;
}

}  // namespace proofload::result
