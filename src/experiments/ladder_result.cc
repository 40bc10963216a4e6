// See ladder_result.h.
#include "experiments/ladder_result.h"

#include <openssl/evp.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <optional>

#include "experiments/thresholds.h"
#include "report/atomic_file.h"
#include "report/ladder_report.h"
#include "report/numbers.h"
#include "result/ladder_analysis_json.h"

namespace proofload::experiments {
namespace {

using measure::MetricRef;

std::optional<double> metric(const report::RunResult& run, MetricRef::Kind kind,
                             double percentile = 0, std::string outcome = "") {
  MetricRef ref;
  ref.kind = kind;
  ref.percentile = percentile;
  ref.outcome = std::move(outcome);
  return observed_metric(run, ref);
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

template <typename T>
T setting(const nlohmann::json& settings, const char* name, T fallback) {
  auto it = settings.find(name);
  if (it == settings.end() || it->is_null()) return fallback;
  return it->get<T>();
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
  row.server_throttle_source = server.cgroup_source;
  row.generator_busy = !run.generator_busy_windows.empty();
  row.duration_s = run.measured_duration_s;
  for (const measure::Threshold& bound : slo.bounds) {
    if (row_holds(bound.metric)) continue;
    if (auto value = observed_metric(run, bound.metric)) {
      row.extra_metrics.emplace_back(bound.metric.text(), *value);
    }
  }
  return row;
}

nlohmann::json analysis_of(const nlohmann::json& result) {
  const nlohmann::json& rows_json = result.at("rows");
  const nlohmann::json& settings = result.at("settings");
  std::vector<analyze::LevelRow> rows;
  const nlohmann::json* search =
      result.contains("search") && result["search"].is_object() ? &result["search"] : nullptr;
  for (size_t i = 0; i < rows_json.size(); ++i) {
    if (search) {
      // The confirming run is reported apart: the analysis is of the search's own steps.
      bool confirm = false;
      for (const nlohmann::json& step : search->at("steps")) {
        if (step.value("row", -1) == static_cast<int>(i) && step.value("phase", "") == "confirm") {
          confirm = true;
        }
      }
      if (confirm) continue;
    }
    rows.push_back(analyze::row_from_json(rows_json[i]));
  }
  if (rows.empty()) return nullptr;
  analyze::Slo slo =
      analyze::parse_slo(setting<std::string>(settings, "slo", std::string(analyze::kDefaultSlo)),
                         setting<bool>(settings, "count_429_as_error", true));
  slo.is_default = setting<bool>(settings, "slo_is_default", false);
  analyze::AnalysisOptions options;
  options.loop = setting<std::string>(settings, "loop", "closed") == "open"
                     ? analyze::Loop::kOpen
                     : analyze::Loop::kClosed;
  if (auto it = settings.find("noise_floor"); it != settings.end() && it->is_number()) {
    options.noise_floor = it->get<double>();
  }
  options.operating_fraction =
      setting<double>(settings, "operating_fraction", analyze::kDefaultOperatingFraction);
  return result::analysis_to_json(analyze::analyze_ladder(rows, slo, options));
}

void write_ladder_directory(const std::filesystem::path& directory, nlohmann::json& result) {
  result["analysis"] = analysis_of(result);
  std::filesystem::create_directories(directory);
  report::write_file_atomically(directory / "result.json", result.dump(2) + "\n");
  report::write_file_atomically(directory / "levels.csv", report::render_levels_csv(result));
  report::write_file_atomically(directory / "summary.md", report::render_ladder_summary(result));
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
