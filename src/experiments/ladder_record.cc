// See ladder_record.h.
#include "experiments/ladder_record.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <optional>

#include "experiments/thresholds.h"
#include "report/atomic_file.h"
#include "report/html/pages.h"
#include "report/ladder_report.h"
#include "report/numbers.h"
#include "report/result_json.h"
#include "report/run_result.h"
#include "words/ladder_words.h"

namespace proofload::experiments {
namespace {

using measure::MetricRef;

std::optional<double> metric(const report::RunResult& run, MetricRef::Kind kind,
                             double percentile = 0, std::string outcome = "",
                             std::string scope = "") {
  MetricRef ref;
  ref.kind = kind;
  ref.percentile = percentile;
  ref.outcome = std::move(outcome);
  ref.scope = std::move(scope);
  return observed_metric(run, ref);
}

// Each named request on its own, by the same rules as an SLO's scoped metric (p95(write)).
std::vector<analyze::LevelRoute> routes_of(const report::RunResult& run) {
  std::vector<analyze::LevelRoute> routes;
  for (const std::string& name : run.request_names) {
    analyze::LevelRoute& route = routes.emplace_back();
    route.name = name;
    route.goodput_rps = metric(run, MetricRef::Kind::kGoodput, 0, "", name);
    route.achieved_rps = metric(run, MetricRef::Kind::kThroughput, 0, "", name);
    route.p50_ms = metric(run, MetricRef::Kind::kPercentile, 50, "", name);
    route.p95_ms = metric(run, MetricRef::Kind::kPercentile, 95, "", name);
    route.p99_ms = metric(run, MetricRef::Kind::kPercentile, 99, "", name);
    if (const auto requests = metric(run, MetricRef::Kind::kCount, 0, "requests", name)) {
      route.requests = static_cast<int64_t>(*requests);
    }
    route.error_rate = metric(run, MetricRef::Kind::kErrorRate, 0, "", name);
  }
  return routes;
}

// The metrics a LevelRow holds in its own fields (analyze::row_metric reads them there).
bool row_holds(const MetricRef& m) {
  if (!m.scope.empty()) return false;
  switch (m.kind) {
    case MetricRef::Kind::kPercentile:
      return m.percentile == 50 || m.percentile == 95 || m.percentile == 99;
    case MetricRef::Kind::kErrorRate:
    case MetricRef::Kind::kNeverStarted:
    case MetricRef::Kind::kThroughput:
    case MetricRef::Kind::kGoodput:
      return true;
    case MetricRef::Kind::kOutcomeRate:
      return m.outcome == "status_429";
    case MetricRef::Kind::kCount:
      return m.outcome == "requests";
    default:
      return false;
  }
}

bool starts_with(const std::string& text, std::string_view prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// The streaming ramp's columns: the level's streams, the server's memory, the reconcile.
void record_streams_and_accounting(const report::RunResult& run, analyze::LevelRow& row) {
  if (run.spec.streams()) {
    const measure::StreamWindow& s = run.total.streams;
    const result::StreamsRecord r = report::streams_record(
        s, run.span.counts.streams, static_cast<double>(run.span.duration_ns) / 1e9,
        run.spec.goodput_slo());
    row.streams =
        analyze::LevelStreams{r.events_per_s,  r.bytes_per_s,
                              r.tokens_per_s,  r.ttfb.p95,
                              r.ttfce.p95,     r.inter_event.p99,
                              r.goodput_share, report::percentile_ms(run.total.ttfb_us, 95)};
  }
  for (const report::ObservedSummary& source : run.observed) {
    if (source.label == "self" || starts_with(source.label, "host")) continue;
    if (const std::optional<double> rss = source.value("rss_bytes_peak")) {
      row.server_rss_bytes = std::max(row.server_rss_bytes.value_or(0), *rss);
    }
  }
  if (run.reconcile) {
    row.reconcile = run.reconcile->verdict;
    row.drop_share = run.reconcile->drop_share();
  }
}

}  // namespace

analyze::LevelRow row_from_run(const report::RunResult& run, double level, int repeat,
                               bool open_loop, const analyze::Slo& slo) {
  analyze::LevelRow row;
  row.level = level;
  row.repeat = repeat;
  if (open_loop) row.target_rps = level;
  row.achieved_rps = metric(run, MetricRef::Kind::kThroughput).value_or(0);
  row.goodput_rps = metric(run, MetricRef::Kind::kGoodput);
  if (!run.flow_names.empty() && run.span.duration_ns > 0) {
    // An arrival is a pick of the mix, a flow of several requests included: the target's unit.
    const measure::SpanCounts& c = run.span.counts;
    row.arrivals_rps = run.span.per_s(c.iterations);
    row.flows_per_s = run.span.per_s(c.flows);
    measure::FlowStats all;
    for (const measure::FlowStats& f : run.named_total.flows) all.merge(f);
    row.flow_success_rate = report::share(all.succeeded, all.succeeded + all.failed);
  }
  row.p50_ms = metric(run, MetricRef::Kind::kPercentile, 50);
  row.p95_ms = metric(run, MetricRef::Kind::kPercentile, 95);
  row.p99_ms = metric(run, MetricRef::Kind::kPercentile, 99);
  row.requests = report::started_requests(run.total);
  row.responses = run.total.responses();
  row.error_rate = metric(run, MetricRef::Kind::kErrorRate);
  row.rate_429 = metric(run, MetricRef::Kind::kOutcomeRate, 0, "status_429");
  row.never_started = metric(run, MetricRef::Kind::kNeverStarted);
  for (const report::ObservedSummary& source : run.observed) {
    if (source.label == "self") {
      row.generator_cores = source.value("cpu_cores_mean");
    } else if (starts_with(source.label, "host")) {
      if (!row.host_load1) row.host_load1 = source.value("load1_max");
      if (!row.host_cpu_busy) row.host_cpu_busy = source.value("cpu_busy_share_mean");
    }
  }
  // The server, each figure from the source that measures it (observation.h).
  const report::ServerFigures& server = run.server;
  row.server_cores = server.cpu_cores_mean;
  row.server_throttled_share = server.throttled_share_mean;
  row.server_quota_cores = server.quota_cores;
  row.server_cpu_limit_cores = server.cpu_limit_cores;
  row.server_cpu_limit_basis = server.cpu_limit_basis;
  row.server_cpu_source = server.cpu_source;
  if (!server.cpu_sources.empty()) {
    row.server_cpu_source.clear();
    for (const std::string& source : server.cpu_sources) {
      if (!row.server_cpu_source.empty()) row.server_cpu_source += analyze::kSourcesJoiner;
      row.server_cpu_source += source;
    }
  }
  row.server_throttle_source = server.cgroup_source;
  row.generator_busy = !run.generator_busy_windows.empty();
  row.duration_s = run.measured_duration_s;
  if (run.warmup_duration_s > 0) {
    row.warmup_requests = report::started_requests(run.warmup_total);
    row.warmup_errors = run.warmup_total.errors();
  }
  record_streams_and_accounting(run, row);
  row.routes = routes_of(run);
  for (const measure::Threshold& bound : slo.bounds) {
    if (row_holds(bound.metric)) continue;
    if (auto value = observed_metric(run, bound.metric)) {
      row.extra_metrics.emplace_back(bound.metric.text(), *value);
    }
  }
  return row;
}

std::optional<analyze::LadderAnalysis> analysis_of(const result::LadderResult& result) {
  // The confirming runs are reported apart: the analysis is of the search's own steps.
  const std::vector<bool> confirming = result.confirming_rows();
  std::vector<analyze::LevelRow> rows;
  for (size_t i = 0; i < result.rows.size(); ++i) {
    if (!confirming[i]) rows.push_back(result.rows[i].figures);
  }
  if (rows.empty()) return std::nullopt;
  const result::LadderSettings& settings = result.settings;
  analyze::AnalysisOptions options;
  options.loop = settings.loop == "open" ? analyze::Loop::kOpen : analyze::Loop::kClosed;
  options.noise_floor = settings.noise_floor;
  options.repeat_order = settings.repeat_order == "interleaved" ? analyze::RepeatOrder::kInterleaved
                                                                : analyze::RepeatOrder::kSequence;
  options.operating_fraction =
      settings.operating_fraction.value_or(analyze::kDefaultOperatingFraction);
  return words::described_ladder(rows, slo_of(settings), options);
}

analyze::Slo slo_of(const result::LadderSettings& settings) {
  analyze::Slo slo =
      analyze::parse_slo(settings.slo.empty() ? std::string(analyze::kDefaultSlo) : settings.slo,
                         settings.count_429_as_error.value_or(true));
  slo.is_default = settings.slo_is_default;
  return slo;
}

void write_ladder_directory(const std::filesystem::path& directory, result::LadderResult& result) {
  result.analysis = analysis_of(result);
  result.recorded = {};  // computed now: every part of it is there
  std::filesystem::create_directories(directory);
  report::write_file_atomically(directory / "result.json",
                                result::ladder_to_json(result).dump(2) + "\n");
  report::write_file_atomically(directory / "levels.csv", report::render_levels_csv(result));
  const std::string summary = report::render_ladder_summary(result);
  report::write_file_atomically(directory / "summary.md", summary);
  report::write_file_atomically(directory / report::html::kReportHtml,
                                report::html::render_ladder_html(result, summary));
}

std::string file_sha256(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return "";
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    return "";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xf];
  }
  return hex;
}

}  // namespace proofload::experiments
