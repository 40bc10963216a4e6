// See probe_result.h.
#include "result/probe_result.h"

#include <algorithm>
#include <stdexcept>

#include "common/usage_error.h"
#include "result/json_values.h"
#include "result/probe_expectation.h"
#include "words/probe_words.h"

namespace proofload::result {
namespace {

using nlohmann::json;

constexpr const char* kProbeDocument = "probe result.json";

// A probe binds at most 64 sources (plan::kMaxSources), and a merge of its segments puts the same
// sources side by side again. A file with more is no probe's: its facts are not judged again (the
// sharing group's search grows with the cube of the sources).
constexpr size_t kMaxJudgedSources = 64;

// The length the analysis counts: how long the load ran, or the planned duration before any ran.
double analysed_duration_s(const ProbeResult& r) {
  return r.measured_s > 0 ? r.measured_s : r.settings.duration_s;
}

json settings_json(const ProbeSettings& s) {
  return {{"sources", s.sources},
          {"connections_per_source", s.connections_per_source},
          {"rate_per_source", optional_json(s.rate_per_source)},
          {"duration_s", s.duration_s},
          {"settle_s", s.settle_s},
          {"expect", optional_json(s.expect)},
          {"tolerance", s.tolerance},
          {"variants", s.variants},
          {"variant_duration_s", s.variant_duration_s},
          {"method", s.method},
          {"scenario_request", optional_json(s.scenario_request)}};
}

ProbeSettings probe_settings_from_json(const JsonReader& r) {
  ProbeSettings s;
  s.sources = r.texts("sources");
  s.connections_per_source = r.count("connections_per_source").value_or(1);
  s.rate_per_source = r.number("rate_per_source");
  s.duration_s = r.number("duration_s").value_or(0);
  s.settle_s = r.number("settle_s").value_or(10);
  s.expect = r.optional_text("expect");
  s.tolerance = r.number("tolerance").value_or(0.10);
  s.variants = r.texts("variants");
  s.variant_duration_s = r.number("variant_duration_s").value_or(0);
  if (const std::string method = r.text("method"); !method.empty()) s.method = method;
  s.scenario_request = r.optional_text("scenario_request");
  return s;
}

// ---- a source: what it recorded (the series) and, once analysed, its figures ----

json source_json(const analyze::ProbeSourceSeries& series,
                 const analyze::ProbeSourceFigures* figures) {
  json per_second = json::array();
  for (const analyze::ProbeSecond& s : series.per_second) {
    per_second.push_back({{"second", s.second},
                          {"let_through", s.let_through},
                          {"limited", s.limited},
                          {"other", s.other}});
  }
  json headers = json::array();
  for (const analyze::SeenHeader& h : series.headers) {
    headers.push_back({{"name", h.name}, {"first", h.first}, {"last", h.last}});
  }
  json out = {{"address", series.address},
              {"burst_before_first_429", optional_json(series.let_through_before_first_429)},
              {"headers", headers},
              {"per_second", per_second}};
  if (figures == nullptr) {
    out["failure"] = text_or_null(series.failure);
    return out;
  }
  const analyze::ProbeSourceFigures& f = *figures;
  json sustained = nullptr;
  if (f.sustained) {
    sustained = {{"mean", f.sustained->mean}, {"min", f.sustained->min}, {"max", f.sustained->max}};
  }
  out.update({{"failed", f.failed},
              {"failure", text_or_null(f.failure)},
              {"let_through", f.let_through},
              {"limited", f.limited},
              {"other", f.other},
              {"total", f.total},
              {"burst_is_lower_bound", f.burst_is_lower_bound},
              {"burst_from_totals", optional_json(f.burst_from_totals)},
              {"sustained_per_s", sustained},
              {"sustained_seconds", f.sustained ? json(f.sustained->seconds) : json(nullptr)},
              {"expect_met", optional_json(f.expect_met)},
              {"expect_reason", text_or_null(f.expect_reason)}});
  return out;
}

analyze::ProbeSourceSeries series_from_json(const JsonReader& r) {
  analyze::ProbeSourceSeries s;
  s.address = r.required_text("address");
  for (const JsonReader& second : r.objects("per_second")) {
    const std::optional<int64_t> at = second.count("second");
    if (!at) second.fail("missing required key '" + second.name("second") + "'");
    s.per_second.push_back({*at, second.count("let_through").value_or(0),
                            second.count("limited").value_or(0),
                            second.count("other").value_or(0)});
    const analyze::ProbeSecond& added = s.per_second.back();
    if (std::max({added.let_through, added.limited, added.other}) >
        analyze::kMaxProbeSecondCount) {
      second.fail("a count of one second is past a billion: not a probe's");
    }
  }
  s.let_through_before_first_429 = r.count("burst_before_first_429");
  for (const JsonReader& h : r.objects("headers")) {
    s.headers.push_back({h.text("name"), h.text("first"), h.text("last")});
  }
  s.failure = r.text("failure");
  return s;
}

analyze::ProbeSourceFigures figures_from_json(const JsonReader& r,
                                              const analyze::ProbeSourceSeries& series) {
  analyze::ProbeSourceFigures f;
  f.address = series.address;
  f.headers = series.headers;
  f.burst_before_first_429 = series.let_through_before_first_429;
  f.failed = r.boolean("failed").value_or(false);
  f.failure = r.text("failure");
  f.let_through = r.count("let_through").value_or(0);
  f.limited = r.count("limited").value_or(0);
  f.other = r.count("other").value_or(0);
  f.total = r.count("total").value_or(0);
  f.burst_is_lower_bound = r.boolean("burst_is_lower_bound").value_or(false);
  f.burst_from_totals = r.number("burst_from_totals");
  if (const JsonReader sustained = r.object("sustained_per_s"); sustained.present()) {
    f.sustained = analyze::SustainedRate{
        sustained.required_number("mean"), sustained.required_number("min"),
        sustained.required_number("max"), r.count("sustained_seconds").value_or(0)};
  }
  f.expect_met = r.boolean("expect_met");
  f.expect_reason = r.text("expect_reason");
  return f;
}

// `failure` holds the figures' failure once analysed: the series' own, or the analysis's words
// for a source that had no answer and no failure of its own (the series' failure was "").
void series_failure_from_figures(analyze::ProbeSourceSeries& series,
                                 const analyze::ProbeSourceFigures& figures) {
  const bool no_answer = figures.let_through + figures.limited == 0;
  if (!figures.failed || (no_answer && figures.failure == analyze::kNoAnswerFailure)) {
    series.failure.clear();
  }
}

json variant_json(const analyze::ProbeVariantVerdict& v) {
  return {{"header", v.run.header},
          {"address", v.run.address},
          {"duration_s", v.run.duration_s},
          {"let_through", v.run.let_through},
          {"status_429", v.run.limited},
          {"other", v.run.other},
          {"limited", optional_json(v.limited)},
          {"verdict", v.verdict},
          {"reason", text_or_null(v.reason)}};
}

analyze::ProbeVariantVerdict variant_from_json(const JsonReader& r) {
  analyze::ProbeVariantVerdict v;
  v.run.header = r.required_text("header");
  v.run.address = r.text("address");
  v.run.duration_s = r.number("duration_s").value_or(0);
  v.run.let_through = r.count("let_through").value_or(0);
  v.run.limited = r.count("status_429").value_or(0);
  v.run.other = r.count("other").value_or(0);
  v.limited = r.boolean("limited");
  v.verdict = r.text("verdict");
  v.reason = r.text("reason");
  return v;
}

json probe_json(const ProbeResult& r) {
  // The analysis is judge_probe over the series: one figure per source, in the same order.
  // Before it has run (verdict ""), each source holds only what it recorded.
  const bool analysed = !r.analysis.verdict.empty();
  json sources = json::array();
  for (size_t i = 0; i < r.series.size(); ++i) {
    const bool has_figures = analysed && i < r.analysis.sources.size();
    sources.push_back(source_json(r.series[i], has_figures ? &r.analysis.sources[i] : nullptr));
  }
  json correlations = json::array();
  for (const analyze::ProbeCorrelation& c : r.analysis.correlations) {
    correlations.push_back(
        {{"a", c.a}, {"b", c.b}, {"r", optional_json(c.r)}, {"meaning", c.meaning}});
  }
  json variants = json::array();
  for (const analyze::ProbeVariantVerdict& v : r.variants) variants.push_back(variant_json(v));
  return {{"allowances_implied", optional_json(r.analysis.allowances_implied)},
          {"sources", sources},
          {"correlations", correlations},
          {"verdict", text_or_null(r.analysis.verdict)},
          {"reason", text_or_null(r.analysis.reason)},
          {"sustained_sum_per_s", analysed ? json(r.analysis.sustained_sum) : json(nullptr)},
          {"expected_sum_per_s", optional_json(r.analysis.expected_sum)},
          {"shared_by", r.analysis.shared_by},
          {"variants", variants}};
}

void probe_from_file(const JsonReader& probe, ProbeResult& r) {
  r.analysis.verdict = probe.text("verdict");
  const bool analysed = !r.analysis.verdict.empty();
  for (const JsonReader& source : probe.objects("sources")) {
    r.series.push_back(series_from_json(source));
    if (!analysed) continue;
    r.analysis.sources.push_back(figures_from_json(source, r.series.back()));
    series_failure_from_figures(r.series.back(), r.analysis.sources.back());
  }
  for (const JsonReader& c : probe.objects("correlations")) {
    analyze::ProbeCorrelation& pair = r.analysis.correlations.emplace_back();
    pair.a = c.required_text("a");
    pair.b = c.required_text("b");
    pair.r = c.number("r");
    pair.meaning = c.text("meaning");
  }
  r.analysis.reason = probe.text("reason");
  r.analysis.sustained_sum = probe.number("sustained_sum_per_s").value_or(0);
  r.analysis.expected_sum = probe.number("expected_sum_per_s");
  r.analysis.shared_by = probe.texts("shared_by");  // missing in files written before it
  r.analysis.allowances_implied = probe.number("allowances_implied");
  for (const JsonReader& v : probe.objects("variants")) r.variants.push_back(variant_from_json(v));
}

// The analysis's facts are no keys of result.json (its figures and sentences are): they are
// judged again from the recorded series as judge_probe judged them, and adopted when that
// judgement is the file's (the same verdict, over the same sources and pairs); a file judged
// otherwise keeps its words and no facts. The judgement allocates the counted window per source
// that answered: it runs only when that is no more than the rows the file records (a probe writes
// a row per source per second), so that a damaged file's duration cannot make a reader allocate
// seconds it never recorded.
void judge_facts_again(ProbeResult& r) {
  analyze::ProbeAnalysis& a = r.analysis;
  if (a.verdict.empty() || r.series.size() > kMaxJudgedSources) return;
  const double duration_s = analysed_duration_s(r);
  size_t rows = 0;
  for (const analyze::ProbeSourceSeries& series : r.series) rows += series.per_second.size();
  if (analyze::probe_window_cells(r.series, duration_s, r.settings.settle_s) >
      static_cast<int64_t>(rows)) {
    return;
  }
  std::optional<analyze::ProbeExpectation> expect;
  try {
    expect = probe_expectation(r.settings);
  } catch (const UsageError&) {
    return;  // an expectation this version cannot read: nothing to judge against
  }
  const analyze::ProbeAnalysis judged =
      analyze::analyze_probe(r.series, duration_s, r.settings.settle_s, expect,
                             r.settings.tolerance);
  if (judged.verdict == a.verdict && judged.sources.size() == a.sources.size() &&
      judged.correlations.size() == a.correlations.size()) {
    a.cause = judged.cause;
    a.duration_s = judged.duration_s;
    a.settle_s = judged.settle_s;
    a.expect = judged.expect;
    a.tolerance = judged.tolerance;
    a.variance_of_sum = judged.variance_of_sum;
    a.sum_of_variances = judged.sum_of_variances;
    a.shared_r = judged.shared_r;
    a.other_opposed_pairs = judged.other_opposed_pairs;
    a.shared_sum = judged.shared_sum;
    a.lowest_sustained = judged.lowest_sustained;
    a.highest_sustained = judged.highest_sustained;
    a.median_sustained = judged.median_sustained;
    a.misses = judged.misses;
    for (size_t i = 0; i < a.sources.size(); ++i) {
      a.sources[i].expect_check = judged.sources[i].expect_check;
    }
    for (size_t i = 0; i < a.correlations.size(); ++i) {
      a.correlations[i].reading = judged.correlations[i].reading;
      a.correlations[i].allowances = judged.correlations[i].allowances;
      a.correlations[i].shared_with = judged.correlations[i].shared_with;
    }
  }
  // A variant's allowance is read from the figures as recorded, as judge_probe read them.
  for (analyze::ProbeVariantVerdict& v : r.variants) {
    const analyze::VariantAllowance allowance =
        analyze::variant_allowance(a, v.run.address, expect);
    const analyze::ProbeVariantVerdict again =
        analyze::judge_variant(v.run, allowance.per_s, allowance.burst);
    if (again.verdict != v.verdict) continue;
    v.cause = again.cause;
    v.allowance_per_s = again.allowance_per_s;
    v.burst = again.burst;
  }
}

}  // namespace

void judge_probe(ProbeResult& r) {
  const std::optional<analyze::ProbeExpectation> expect = probe_expectation(r.settings);
  // Without --expect the sources' means are set against their median within --tolerance.
  r.analysis = words::described_probe(r.series, analysed_duration_s(r), r.settings.settle_s, expect,
                                      r.settings.tolerance);
  for (analyze::ProbeVariantVerdict& v : r.variants) {
    const analyze::VariantAllowance allowance =
        analyze::variant_allowance(r.analysis, v.run.address, expect);
    v = words::described_variant(v.run, allowance.per_s, allowance.burst);
  }
}

json probe_to_json(const ProbeResult& r) {
  json out = experiment_record_to_json(r, kProbeSchema, "probe");
  out["settings"] = settings_json(r.settings);
  out["measured_s"] = r.measured_s;
  out["probe"] = probe_json(r);
  return out;
}

ProbeResult probe_from_json(const json& result) {
  ProbeResult r;
  static_cast<ExperimentRecord&>(r) =
      experiment_record_from_json(result, kProbeSchema, "probe", kProbeDocument);
  const JsonReader top(&result, "", kProbeDocument);
  r.settings = probe_settings_from_json(top.object("settings"));
  r.measured_s = top.number("measured_s").value_or(0);
  probe_from_file(top.object("probe"), r);
  judge_facts_again(r);
  return r;
}

}  // namespace proofload::result
