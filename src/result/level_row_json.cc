// See level_row_json.h.
#include "result/level_row_json.h"

#include "result/json_values.h"

namespace proofload::result {

nlohmann::json row_to_json(const analyze::LevelRow& row) {
  nlohmann::json extra = nlohmann::json::object();
  for (const auto& [name, value] : row.extra_metrics) extra[name] = value;
  nlohmann::json out = {
      {"level", row.level},
      {"repeat", row.repeat},
      {"target_rps", optional_json(row.target_rps)},
      {"achieved_rps", row.achieved_rps},
      {"goodput_rps", optional_json(row.goodput_rps)},
      {"arrivals_rps", optional_json(row.arrivals_rps)},
      {"flows_per_s", optional_json(row.flows_per_s)},
      {"flow_success_rate", optional_json(row.flow_success_rate)},
      {"p50_ms", optional_json(row.p50_ms)},
      {"p95_ms", optional_json(row.p95_ms)},
      {"p99_ms", optional_json(row.p99_ms)},
      {"requests", optional_json(row.requests)},
      {"responses", optional_json(row.responses)},
      {"error_rate", optional_json(row.error_rate)},
      {"rate_429", optional_json(row.rate_429)},
      {"never_started", optional_json(row.never_started)},
      {"server_cores", optional_json(row.server_cores)},
      {"server_throttled_share", optional_json(row.server_throttled_share)},
      {"server_quota_cores", optional_json(row.server_quota_cores)},
      {"server_cpu_limit_cores", optional_json(row.server_cpu_limit_cores)},
      {"server_cpu_limit_basis", text_or_null(row.server_cpu_limit_basis)},
      {"server_cpu_source", text_or_null(row.server_cpu_source)},
      {"server_throttle_source", text_or_null(row.server_throttle_source)},
      {"generator_cores", optional_json(row.generator_cores)},
      {"generator_busy", row.generator_busy},
      {"host_load1", optional_json(row.host_load1)},
      {"duration_s", optional_json(row.duration_s)},
      {"extra_metrics", extra},
  };
  // Only when recorded, so the files of ladders without them stay as they were.
  if (row.streams) {
    const analyze::LevelStreams& s = *row.streams;
    out["streams"] = {{"events_per_s", optional_json(s.events_per_s)},
                      {"bytes_per_s", optional_json(s.bytes_per_s)},
                      {"tokens_per_s", optional_json(s.tokens_per_s)},
                      {"ttfb_p95_ms", optional_json(s.ttfb_p95_ms)},
                      {"ttft_p95_ms", optional_json(s.ttft_p95_ms)},
                      {"itl_p99_ms", optional_json(s.itl_p99_ms)},
                      {"goodput_share", optional_json(s.goodput_share)},
                      {"headers_p95_ms", optional_json(s.headers_p95_ms)}};
  }
  if (row.server_rss_bytes) out["server_rss_bytes"] = *row.server_rss_bytes;
  if (row.host_cpu_busy) out["host_cpu_busy"] = *row.host_cpu_busy;
  if (row.warmup_requests) {
    out["warmup_requests"] = *row.warmup_requests;
    out["warmup_errors"] = optional_json(row.warmup_errors);
  }
  if (!row.routes.empty()) {
    nlohmann::json routes = nlohmann::json::array();
    for (const analyze::LevelRoute& route : row.routes) {
      routes.push_back({{"name", route.name},
                        {"goodput_rps", optional_json(route.goodput_rps)},
                        {"achieved_rps", optional_json(route.achieved_rps)},
                        {"p50_ms", optional_json(route.p50_ms)},
                        {"p95_ms", optional_json(route.p95_ms)},
                        {"p99_ms", optional_json(route.p99_ms)},
                        {"requests", optional_json(route.requests)},
                        {"error_rate", optional_json(route.error_rate)}});
    }
    out["routes"] = std::move(routes);
  }
  if (!row.reconcile.empty()) {
    out["reconcile"] = row.reconcile;
    out["drop_share"] = optional_json(row.drop_share);
  }
  return out;
}

analyze::LevelRow row_from_json(const JsonReader& r) {
  analyze::LevelRow row;
  row.level = r.required_number("level");
  if (const std::optional<int64_t> repeat = r.count("repeat")) {
    row.repeat = static_cast<int>(*repeat);
  }
  row.target_rps = r.number("target_rps");
  row.achieved_rps = r.required_number("achieved_rps");
  row.goodput_rps = r.number("goodput_rps");
  row.arrivals_rps = r.number("arrivals_rps");
  row.flows_per_s = r.number("flows_per_s");
  row.flow_success_rate = r.number("flow_success_rate");
  row.p50_ms = r.number("p50_ms");
  row.p95_ms = r.number("p95_ms");
  row.p99_ms = r.number("p99_ms");
  row.requests = r.count("requests");
  row.responses = r.count("responses");
  row.error_rate = r.number("error_rate");
  row.rate_429 = r.number("rate_429");
  row.never_started = r.number("never_started");
  row.server_cores = r.number("server_cores");
  row.server_throttled_share = r.number("server_throttled_share");
  row.server_quota_cores = r.number("server_quota_cores");
  row.server_cpu_limit_cores = r.number("server_cpu_limit_cores");
  row.server_cpu_limit_basis = r.text("server_cpu_limit_basis");
  row.server_cpu_source = r.text("server_cpu_source");
  row.server_throttle_source = r.text("server_throttle_source");
  row.generator_cores = r.number("generator_cores");
  row.generator_busy = r.boolean("generator_busy").value_or(false);
  row.host_load1 = r.number("host_load1");
  row.host_cpu_busy = r.number("host_cpu_busy");
  row.duration_s = r.number("duration_s");
  row.extra_metrics = r.numbers_by_name("extra_metrics");
  if (const JsonReader s = r.object("streams"); s.present()) {
    row.streams = analyze::LevelStreams{s.number("events_per_s"),  s.number("bytes_per_s"),
                                        s.number("tokens_per_s"),  s.number("ttfb_p95_ms"),
                                        s.number("ttft_p95_ms"),   s.number("itl_p99_ms"),
                                        s.number("goodput_share"), s.number("headers_p95_ms")};
  }
  row.server_rss_bytes = r.number("server_rss_bytes");
  row.warmup_requests = r.count("warmup_requests");
  row.warmup_errors = r.count("warmup_errors");
  for (const JsonReader& route : r.objects("routes")) {
    row.routes.push_back({route.required_text("name"), route.number("goodput_rps"),
                          route.number("achieved_rps"), route.number("p50_ms"),
                          route.number("p95_ms"), route.number("p99_ms"), route.count("requests"),
                          route.number("error_rate")});
  }
  row.reconcile = r.text("reconcile");
  row.drop_share = r.number("drop_share");
  return row;
}

}  // namespace proofload::result
