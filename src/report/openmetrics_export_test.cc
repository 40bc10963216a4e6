// A run's windows as OpenMetrics: counters accumulate from the run's start with no holes, each
// sample is stamped with its window's end, label values are escaped, and bad files are refused.
#include "report/openmetrics_export.h"

#include <gtest/gtest.h>

namespace proofload::report {
namespace {

using nlohmann::json;

TEST(OpenMetricsExport, CountersAccumulateAndEachSampleIsAtItsWindowsEnd) {
  const json result = json::parse(R"({
    "started_at": "2026-12-02T20:00:00.500Z",
    "windows": [
      {"start_s": 0, "duration_s": 1, "warmup": true, "intended": 10, "throughput_rps": 10,
       "in_flight": 1, "outcomes": {"success": 10},
       "latency_ms": {"p50": 2, "p90": 3, "p99": 4, "max": 5, "mean": 2.5},
       "observed": {"self": {"cpu_cores": 0.25, "samples": 4, "gaps": 0}}},
      {"start_s": 1, "duration_s": 0.5, "warmup": false, "intended": 6, "throughput_rps": null,
       "in_flight": 0, "outcomes": {"success": 4, "status_503": 2},
       "latency_ms": {"p50": null, "p90": null, "p99": null, "max": null, "mean": null}}
    ]})");
  const double t0 = 1796241600.5;  // 2026-12-02T20:00:00.500Z
  ASSERT_EQ(parse_utc_timestamp("2026-12-02T20:00:00.500Z"), t0);
  EXPECT_EQ(run_openmetrics(result),
            "# TYPE proofload_requests counter\n"
            "# HELP proofload_requests Requests that ended, by outcome (never_started included), "
            "from the run's start, warm-up included.\n"
            "proofload_requests_total{outcome=\"success\"} 10 1796241601.500\n"
            "proofload_requests_total{outcome=\"success\"} 14 1796241602.000\n"
            "proofload_requests_total{outcome=\"status_503\"} 2 1796241602.000\n"
            "# TYPE proofload_intended counter\n"
            "# HELP proofload_intended Requests the schedule intended, from the run's start.\n"
            "proofload_intended_total 10 1796241601.500\n"
            "proofload_intended_total 16 1796241602.000\n"
            "# TYPE proofload_window_responses_per_second gauge\n"
            "# HELP proofload_window_responses_per_second Responses of any status per second of "
            "the window that ends here.\n"
            "proofload_window_responses_per_second 10 1796241601.500\n"
            "# TYPE proofload_window_latency_seconds gauge\n"
            "# HELP proofload_window_latency_seconds The window's latency percentile (from the "
            "intended start), by percentile; 100 is the window's slowest.\n"
            "proofload_window_latency_seconds{percentile=\"50\"} 0.002 1796241601.500\n"
            "proofload_window_latency_seconds{percentile=\"90\"} 0.003 1796241601.500\n"
            "proofload_window_latency_seconds{percentile=\"99\"} 0.004 1796241601.500\n"
            "proofload_window_latency_seconds{percentile=\"100\"} 0.005 1796241601.500\n"
            "# TYPE proofload_in_flight gauge\n"
            "# HELP proofload_in_flight Requests in flight at the window's end.\n"
            "proofload_in_flight 1 1796241601.500\n"
            "proofload_in_flight 0 1796241602.000\n"
            "# TYPE proofload_warmup gauge\n"
            "# HELP proofload_warmup 1 for a window of the warm-up.\n"
            "proofload_warmup 1 1796241601.500\n"
            "proofload_warmup 0 1796241602.000\n"
            "# TYPE proofload_observed gauge\n"
            "# HELP proofload_observed What each observer saw in the window (source: the "
            "observer's label, as in result.json; figure: cpu_cores, memory_bytes, ...).\n"
            "proofload_observed{source=\"self\",figure=\"cpu_cores\"} 0.25 1796241601.500\n"
            "# EOF\n");
}

TEST(OpenMetricsExport, LabelValuesAreEscapedAndBadFilesRefused) {
  const json result = json::parse(R"({"start_time": "2026-12-02T20:00:00Z", "windows": [
    {"start_s": 0, "duration_s": 1, "observed": {"pid:\"x\"\\n": {"rss_bytes": 1}}}]})");
  EXPECT_NE(run_openmetrics(result).find("{source=\"pid:\\\"x\\\"\\\\n\",figure=\"rss_bytes\"}"),
            std::string::npos)
      << run_openmetrics(result);
  EXPECT_THROW(run_openmetrics(json::parse(R"({"windows": []})")), std::runtime_error);
  EXPECT_THROW(run_openmetrics(json::parse(R"({"start_time": "2026-12-02T20:00:00Z"})")),
               std::runtime_error);
  EXPECT_FALSE(parse_utc_timestamp("2026-12-02 20:00:00"));
  EXPECT_FALSE(parse_utc_timestamp("2026-12-02T20:00:00+01:00"));
}

}  // namespace
}  // namespace proofload::report
