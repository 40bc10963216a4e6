// result.json: exact document (golden), every schema field present, null (not 0) for
// percentiles of nothing, milliseconds with microsecond precision.
#include "report/result_json.h"

#include <gtest/gtest.h>

#include "report/test_fixtures.h"

namespace proofload::report {
namespace {

using nlohmann::json;
using testing_support::make_synthetic_result;

void expect_keys(const json& object, std::initializer_list<const char*> keys,
                 const std::string& where) {
  ASSERT_TRUE(object.is_object()) << where;
  for (const char* key : keys) EXPECT_TRUE(object.contains(key)) << where << "." << key;
}

TEST(ResultJson, MatchesGolden) {
  testing_support::expect_matches_golden("result.json",
                                         result_json_text(result_to_json(make_synthetic_result())));
}

// A v1 file said `start_time` where v2 says `started_at`: it is read as the same run, and written
// back as v2.
TEST(ResultJson, AVersionOneFileIsReadWithItsStartTime) {
  const json v2 = result_to_json(make_synthetic_result());
  json v1 = v2;
  v1["schema"] = "proofload.result/v1";
  v1["start_time"] = v1["started_at"];
  v1.erase("started_at");
  const result::RunRecord read = result::run_from_json(v1);
  EXPECT_EQ(read.started_at, "2024-05-01T12:00:00.123Z");
  EXPECT_EQ(result::run_to_json(read), result::run_to_json(result::run_from_json(v2)));
  // A v2 file that says start_time has no start: each version has its one key.
  json mixed = v2;
  mixed["start_time"] = mixed["started_at"];
  mixed.erase("started_at");
  EXPECT_EQ(result::run_from_json(mixed).started_at, "");
}

TEST(ResultJson, HasEverySchemaField) {
  const json doc = result_to_json(make_synthetic_result());
  expect_keys(doc,
              {"schema", "status", "proofload_version", "command_line", "started_at", "spec",
               "summary", "warmup", "windows"},
              "result");
  EXPECT_EQ(doc["schema"], "proofload.result/v2");
  EXPECT_EQ(doc["status"], "complete");
  EXPECT_EQ(doc["started_at"], "2024-05-01T12:00:00.123Z");
  EXPECT_FALSE(doc.contains("start_time"));
  const json& summary = doc["summary"];
  expect_keys(
      summary,
      {"requests", "intended", "arrivals", "errors", "error_rate", "never_started",
       "never_started_share",
       "throughput_rps", "duration_s", "latency_ms", "service_time_ms", "ttfb_ms", "outcomes",
       "status", "bytes_in", "bytes_out", "connects"},
      "summary");
  for (const char* histogram : {"latency_ms", "service_time_ms", "ttfb_ms"}) {
    expect_keys(summary[histogram], {"p50", "p90", "p95", "p99", "p99_9", "max", "mean"},
                histogram);
  }
  for (std::string_view name : measure::kOutcomeNames) {
    EXPECT_TRUE(summary["outcomes"].contains(std::string(name))) << name;
  }
  expect_keys(doc["warmup"], {"duration_s", "requests", "outcomes"}, "warmup");
  ASSERT_EQ(doc["windows"].size(), 4u);
  for (const json& w : doc["windows"]) {
    expect_keys(
        w,
        {"index", "start_s", "duration_s", "warmup", "requests", "intended", "arrivals", "errors",
         "never_started", "throughput_rps", "latency_ms", "outcomes", "in_flight", "queued"},
        "window");
    expect_keys(w["latency_ms"], {"p50", "p90", "p99", "max", "mean"}, "window.latency_ms");
  }
}

TEST(ResultJson, SummaryCountsAndRates) {
  const json s = result_to_json(make_synthetic_result())["summary"];
  EXPECT_EQ(s["requests"], 1995);  // responses of any status, warm-up excluded
  EXPECT_EQ(s["intended"], 2000);
  EXPECT_EQ(s["arrivals"], 2000);  // no flows: every intended request is an arrival
  EXPECT_EQ(s["errors"], 7);                                      // 5 x 503 + 2 timeouts
  EXPECT_DOUBLE_EQ(s["error_rate"].get<double>(), 7.0 / 1997.0);  // of started requests
  EXPECT_EQ(s["never_started"], 3);
  EXPECT_DOUBLE_EQ(s["never_started_share"].get<double>(), 3.0 / 2000.0);  // of the arrivals
  // Responses that ended inside the measured span (windows 1 and 2) over its 2 s: the mean of
  // those windows' rates (995/s and 1,000/s), not responses by intent over a stretched time.
  EXPECT_DOUBLE_EQ(s["throughput_rps"].get<double>(), (995.0 + 1000.0) / 2);
  EXPECT_DOUBLE_EQ(s["goodput_rps"].get<double>(), (990.0 + 1000.0) / 2);
  EXPECT_DOUBLE_EQ(s["duration_s"].get<double>(), 2.0);
  EXPECT_EQ(s["span"]["responses"], 1995);
  EXPECT_EQ(s["span"]["successes"], 1990);
  EXPECT_EQ(s["status"], json({{"200", 1990}, {"503", 5}}));
  EXPECT_EQ(s["outcomes"]["never_started"], 3);
  EXPECT_EQ(s["outcomes"]["reset"], 0);  // every outcome listed, even at zero
}

TEST(ResultJson, MillisecondsKeepMicrosecondPrecision) {
  const json w1 = result_to_json(make_synthetic_result())["windows"][1];
  // 3000 us and 20000 us land in buckets whose highest equivalent values are 3001 and 20015.
  EXPECT_DOUBLE_EQ(w1["latency_ms"]["p99"].get<double>(), 3.001);
  EXPECT_DOUBLE_EQ(w1["latency_ms"]["max"].get<double>(), 20.015);
  // Exact mean: (900 * 1000 + 90 * 3000 + 5 * 20000) / 995 = 1276.38 us.
  EXPECT_DOUBLE_EQ(w1["latency_ms"]["mean"].get<double>(), 1.276);
}

TEST(ResultJson, EmptyWindowHasNullPercentilesNotZero) {
  const json w3 = result_to_json(make_synthetic_result())["windows"][3];
  for (const char* key : {"p50", "p90", "p99", "max", "mean"}) {
    EXPECT_TRUE(w3["latency_ms"][key].is_null()) << key;
  }
  EXPECT_EQ(w3["requests"], 0);
  EXPECT_EQ(w3["outcomes"], json::object());  // windows list only non-zero outcomes
}

TEST(ResultJson, RunWithoutResponsesHasNullSummaryPercentilesAndRates) {
  RunResult empty;
  empty.measured_duration_s = 0;
  const json s = result_to_json(empty)["summary"];
  EXPECT_TRUE(s["latency_ms"]["p99_9"].is_null());
  EXPECT_TRUE(s["service_time_ms"]["mean"].is_null());
  EXPECT_TRUE(s["error_rate"].is_null());
  EXPECT_TRUE(s["never_started_share"].is_null());
  EXPECT_TRUE(s["throughput_rps"].is_null());
}

TEST(ResultJson, LatencySpectrumStepsHalveTheRestAndEndAtTheMaximum) {
  const json spectrum = result_to_json(make_synthetic_result())["summary"]["latency_spectrum"];
  const auto percentiles = spectrum["percentiles"].get<std::vector<double>>();
  const auto ms = spectrum["ms"].get<std::vector<double>>();
  ASSERT_EQ(percentiles.size(), ms.size());
  // 1,995 measured responses resolve 5 steps per halving down to 1/1,995: 0% .. 99.94%, then max.
  ASSERT_EQ(percentiles.size(), 56u);
  EXPECT_EQ(percentiles[0], 0.0);
  EXPECT_EQ(percentiles[5], 50.0);
  EXPECT_EQ(percentiles[10], 75.0);
  EXPECT_EQ(percentiles[1], 12.944944);  // 1 - 2^(-1/5), to a millionth of a percent
  EXPECT_EQ(percentiles.back(), 100.0);
  EXPECT_DOUBLE_EQ(
      ms.back(),
      result_to_json(make_synthetic_result())["summary"]["latency_ms"]["max"].get<double>());
  for (size_t i = 1; i < ms.size(); ++i) EXPECT_GE(ms[i], ms[i - 1]) << i;
  // An empty run records none.
  RunResult empty;
  EXPECT_FALSE(result_to_json(empty)["summary"].contains("latency_spectrum"));
}

TEST(ResultJson, InterruptedRunSaysSo) {
  RunResult result = make_synthetic_result();
  result.interrupted = true;
  EXPECT_EQ(result_to_json(result)["status"], "interrupted");
}

TEST(ResultJson, RunningDocumentHasSpecButNoSummary) {
  const json doc = running_result_to_json(make_synthetic_result());
  EXPECT_EQ(doc["status"], "running");
  EXPECT_EQ(doc["spec"]["rate_per_s"], 1000);
  EXPECT_FALSE(doc.contains("summary"));
  EXPECT_FALSE(doc.contains("windows"));
}

TEST(ResultJson, TextSurvivesBytesThatAreNotUtf8) {
  RunResult result = make_synthetic_result();
  result.command_line = "proofload run \xff\xfe";
  EXPECT_NO_THROW(result_json_text(result_to_json(result)));
}

// The run's record is its result.json's one description: every part the writer puts in (named
// requests, flows, observed sources with counters, the server, thresholds) reads back into a
// record that writes the same document again.
TEST(ResultJson, TheRecordReadBackWritesTheSameDocument) {
  RunResult run = make_synthetic_result();
  run.request_names = {"lookup"};
  run.flow_names = {"visit"};
  run.named_total.resize(1, 1);
  run.named_total.requests[0].outcomes[static_cast<int>(measure::Outcome::kSuccess)] = 40;
  run.named_total.requests[0].outcomes[static_cast<int>(measure::Outcome::kTimeout)] = 2;
  run.named_total.requests[0].latency_us.record(1'500);
  run.named_total.requests[0].span_responses = 40;
  measure::FlowStats& visit = run.named_total.flows[0];
  visit.started = 9;
  visit.succeeded = 7;
  visit.failed = 1;
  visit.abandoned = 1;
  run.named_total.flows[0].duration_us.record(12'000);
  ObservedSummary self;
  self.label = "self";
  self.source = "self";
  self.samples = 4;
  self.figures = {{"cpu_cores_mean", 0.5}, {"cpu_cores_max", 0.75}};
  ObservedSummary prom;
  prom.label = "prom";
  prom.source = "prom:http://127.0.0.1:9100/metrics";
  prom.samples = 3;
  prom.gaps = 1;
  prom.last_error = "connection refused";
  prom.counters = {{"http_requests_total", 10, 52}};
  run.observed = {prom, self};
  run.server.cpu_cores_mean = 0.7;
  run.server.cpu_source = "pid:4242";
  run.server.cpu_limit_cores = 1;
  run.server.cpu_limit_basis = "its one thread";
  run.generator_busy_windows = {2};
  run.thresholds = {{"p99<1s", 3.0, "p99 = 3.0 ms", true},
                    {"errors<1%", std::nullopt, "no data", false}};

  json written = result_to_json(run);
  written.erase("windows");
  for (const char* key : {"requests", "flows", "observed", "server", "thresholds"}) {
    ASSERT_TRUE(written.contains(key)) << key;
  }
  EXPECT_EQ(written["observed"]["prom"]["counters"]["http_requests_total"]["delta"], 42);
  const result::RunRecord record = result::run_from_json(written);
  EXPECT_EQ(record.sources.front().label, "self");  // the generator first, as reports list it
  EXPECT_EQ(result::run_to_json(record), written);
  // A running document too: the header and the spec, nothing measured.
  const json running = running_result_to_json(run);
  result::RunRecord header;
  header.status = "running";
  header.proofload_version = running["proofload_version"];
  header.command_line = running["command_line"];
  header.started_at = running["started_at"];
  header.window_s = running["window_s"].get<double>();
  header.spec = result::spec_from_json(running["spec"], "running result.json");
  EXPECT_EQ(result::run_to_json(header), running);
}

}  // namespace
}  // namespace proofload::report
