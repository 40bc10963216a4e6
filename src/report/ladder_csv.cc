// levels.csv of a ladder (see ladder_report.h): one line per recorded row, the columns
// `proofload analyze` reads back.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/csv_fields.h"
#include "report/ladder_facts.h"
#include "report/ladder_report.h"

namespace proofload::report {
namespace {

using ladder::LevelAnalysis;
using ladder::verdict_of;

// A scenario's named requests, in the order first recorded: each has its own columns.
std::vector<std::string> route_names(const result::LadderResult& v) {
  std::vector<std::string> names;
  for (const auto& row : v.rows) {
    for (const analyze::LevelRoute& route : row.figures.routes) {
      if (std::find(names.begin(), names.end(), route.name) == names.end()) {
        names.push_back(route.name);
      }
    }
  }
  return names;
}

// The columns of one named request, "goodput_rps(write)" and so on (analyze reads them back).
constexpr std::string_view kRouteColumns[] = {"goodput_rps", "achieved_rps", "p50_ms",  "p95_ms",
                                              "p99_ms",      "error_rate",   "requests"};

void append_route_cells(const analyze::LevelRow& r, const std::string& name,
                        std::vector<std::string>& cells) {
  for (const analyze::LevelRoute& route : r.routes) {
    if (route.name != name) continue;
    for (const std::string& cell :
         {csv_number(route.goodput_rps), csv_number(route.achieved_rps), csv_number(route.p50_ms),
          csv_number(route.p95_ms), csv_number(route.p99_ms), csv_number(route.error_rate),
          csv_count(route.requests)}) {
      cells.push_back(cell);
    }
    return;
  }
  cells.insert(cells.end(), std::size(kRouteColumns), "");
}

}  // namespace

std::string render_levels_csv(const result::LadderResult& v) {
  std::string out =
      "level,repeat,target_rps,achieved_rps,goodput_rps,arrivals_rps,"
      "flows_per_s,flow_success_rate,p50_ms,p95_ms,p99_ms,requests,responses,error_rate,rate_429,"
      "never_started,server_cores,server_throttled_share,server_quota_cores,"
      "server_cpu_limit_cores,generator_cores,generator_busy,host_load1,duration_s,status,"
      "verdict,events_per_s,stream_bytes_per_s,tokens_per_s,stream_ttfb_p95_ms,ttft_p95_ms,"
      "itl_p99_ms,stream_goodput,server_rss_bytes,reconcile,drop_share,host_cpu_busy,"
      "warmup_requests,warmup_errors,stream_headers_p95_ms";
  const std::vector<std::string> routes = route_names(v);
  for (const std::string& name : routes) {
    for (std::string_view column : kRouteColumns) out += fmt::format(",{}({})", column, name);
  }
  out += "\n";
  // A search's confirming run is reported apart from the analysis (which ran on the grow and
  // bisect steps): its level's verdict is not its own.
  const std::vector<bool> confirming = v.confirming_rows();
  for (size_t i = 0; i < v.rows.size(); ++i) {
    const analyze::LevelRow& r = v.rows[i].figures;
    const LevelAnalysis* level = confirming[i] ? nullptr : v.level(r.level);
    const analyze::LevelStreams s = r.streams.value_or(analyze::LevelStreams{});
    std::vector<std::string> cells = {
        csv_number(r.level), std::to_string(r.repeat), csv_number(r.target_rps),
        csv_number(r.achieved_rps), csv_number(r.goodput_rps), csv_number(r.arrivals_rps),
        csv_number(r.flows_per_s), csv_number(r.flow_success_rate), csv_number(r.p50_ms),
        csv_number(r.p95_ms), csv_number(r.p99_ms), csv_count(r.requests), csv_count(r.responses),
        csv_number(r.error_rate), csv_number(r.rate_429), csv_number(r.never_started),
        csv_number(r.server_cores), csv_number(r.server_throttled_share),
        csv_number(r.server_quota_cores), csv_number(r.server_cpu_limit_cores),
        csv_number(r.generator_cores), r.generator_busy ? "1" : "0", csv_number(r.host_load1),
        csv_number(r.duration_s), csv_text(v.rows[i].status),
        level == nullptr ? "" : csv_text(verdict_of(v, *level)),
        // The streaming ramp's columns (empty for a level that did not stream or reconcile).
        csv_number(s.events_per_s), csv_number(s.bytes_per_s), csv_number(s.tokens_per_s),
        csv_number(s.ttfb_p95_ms), csv_number(s.ttft_p95_ms), csv_number(s.itl_p99_ms),
        csv_number(s.goodput_share), csv_number(r.server_rss_bytes), csv_text(r.reconcile),
        csv_number(r.drop_share), csv_number(r.host_cpu_busy),
        r.warmup_requests ? std::to_string(*r.warmup_requests) : "",
        r.warmup_errors ? std::to_string(*r.warmup_errors) : "", csv_number(s.headers_p95_ms)};
    for (const std::string& name : routes) append_route_cells(r, name, cells);
    out += fmt::format("{}\n", fmt::join(cells, ","));
  }
  return out;
}

std::string render_levels_csv(const nlohmann::json& result) {
  return render_levels_csv(result::ladder_rows_from_json(result));
}

}  // namespace proofload::report
