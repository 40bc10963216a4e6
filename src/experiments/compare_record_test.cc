// Tests of what a comparison reads back from its runs: the metric of a check from a run's
// result.json, and two recorded directories judged again with conditions from their paths.
#include "experiments/compare_record.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "common/usage_error.h"

namespace proofload::experiments {
namespace {

namespace fs = std::filesystem;

result::RunRecord recorded_run(const std::string& check, double p50, double p95, double rps,
                               int64_t requests = 1000, int64_t errors = 0) {
  result::RunRecord run;
  run.status = "complete";
  run.summary_recorded = true;
  run.spec.target = "http://127.0.0.1:8080/";
  result::NamedRequest named;
  named.name = check;
  named.requests = requests;
  named.errors = errors;
  named.throughput_rps = rps;
  named.latency.p50 = p50;
  named.latency.p95 = p95;
  named.latency.p99 = p95 * 2;
  run.named.push_back(named);
  return run;
}

TEST(CompareRecord, EachMetricComesFromItsCheck) {
  result::RunRecord run = recorded_run("lookup", 4, 9, 250, 1000, 3);
  CellFigures f = cell_figures(run, "lookup", analyze::CompareMetric::kP95);
  EXPECT_EQ(f.value, 9);
  EXPECT_EQ(f.requests, 1000);
  EXPECT_EQ(f.errors, 3);
  EXPECT_EQ(cell_figures(run, "lookup", analyze::CompareMetric::kP50).value, 4);
  EXPECT_EQ(cell_figures(run, "lookup", analyze::CompareMetric::kP99).value, 18);
  EXPECT_EQ(cell_figures(run, "lookup", analyze::CompareMetric::kThroughput).value, 250);
  EXPECT_FALSE(cell_figures(run, "search", analyze::CompareMetric::kP50).value)
      << "a check the run did not send";
  EXPECT_FALSE(cell_figures(run, "lookup", analyze::CompareMetric::kCpuPerRequest).value)
      << "no server observer: no CPU per request";
  // The server's CPU per request, from the source its CPU figure came from.
  result::SourceRecord generator, server;
  generator.label = "self";
  generator.source = "self";
  generator.figures = {{"cpu_ms_per_request", 0.01}};
  server.label = "pid";
  server.source = "pid:42";
  server.figures = {{"cpu_ms_per_request", 0.2}};
  run.sources = {generator, server};
  run.server = result::ServerRecord{};
  run.server->cpu_source = "pid:42";
  EXPECT_EQ(cell_figures(run, "lookup", analyze::CompareMetric::kCpuPerRequest).value, 0.2);
  // A run whose every request failed measured no latency.
  const result::RunRecord failing = recorded_run("lookup", 1, 1, 0, 50, 50);
  EXPECT_FALSE(cell_figures(failing, "lookup", analyze::CompareMetric::kP50).value);
  EXPECT_EQ(cell_figures(failing, "lookup", analyze::CompareMetric::kThroughput).value, 0);
}

void write_run(const fs::path& dir, const result::RunRecord& run) {
  fs::create_directories(dir);
  std::ofstream(dir / "result.json") << result::run_to_json(run).dump(2);
}

TEST(CompareRecord, RecordedDirectoriesAreJudgedAgainWithConditionsFromTheirPaths) {
  const fs::path root = fs::temp_directory_path() / ("compare-record-" + std::to_string(getpid()));
  fs::remove_all(root);
  for (int i = 1; i <= 3; ++i) {
    const std::string r = "-r" + std::to_string(i);
    write_run(root / "a" / "cold" / ("lookup" + r), recorded_run("lookup", 10 + i * 0.1, 20, 100));
    write_run(root / "b" / "cold" / ("lookup" + r), recorded_run("lookup", 5, 20, 100));
    write_run(root / "a" / ("lookup" + r), recorded_run("lookup", 8, 20, 100));
    write_run(root / "b" / ("lookup" + r), recorded_run("lookup", 8.1, 20, 100));
  }
  fs::create_directories(root / "a" / "cold" / "not-a-run");
  std::ofstream(root / "a" / "cold" / "not-a-run" / "result.json") << "{\"schema\": \"other\"}";
  result::CompareResult initial;
  initial.settings.metric = "p50";
  const result::CompareResult r = rejudge_recorded(root / "a", root / "b", initial);
  ASSERT_EQ(r.runs.size(), 12u);
  ASSERT_EQ(r.analysis.checks.size(), 2u);
  // In the order their directories sort: "cold/..." before "lookup-r1".
  EXPECT_EQ(r.analysis.checks[0].name, "lookup");
  EXPECT_EQ(r.analysis.checks[0].condition, "cold");
  EXPECT_EQ(r.analysis.checks[0].verdict, analyze::kFaster);
  EXPECT_EQ(r.analysis.checks[0].a, 10.2);
  EXPECT_EQ(r.analysis.checks[1].condition, "");
  EXPECT_EQ(r.analysis.checks[1].verdict, analyze::kLevel);
  fs::remove_all(root);
}

TEST(CompareRecord, ADamagedRunIsNamedNotJudged) {
  const fs::path root = fs::temp_directory_path() / ("compare-damaged-" + std::to_string(getpid()));
  fs::remove_all(root);
  write_run(root / "a" / "lookup-r1", recorded_run("lookup", 4, 8, 100));
  fs::create_directories(root / "b" / "lookup-r1");
  std::ofstream(root / "b" / "lookup-r1" / "result.json")
      << R"({"schema": "proofload.result/v1", "status": "complete", "summary": {"requests": -3}})";
  try {
    rejudge_recorded(root / "a", root / "b", result::CompareResult{});
    FAIL() << "a damaged run must not be judged";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("b/lookup-r1/result.json does not read as a run's result"),
              std::string::npos)
        << e.what();
  }
  fs::remove_all(root);
}

TEST(CompareRecord, ADirectoryWithoutRunsIsOneLine) {
  const fs::path root = fs::temp_directory_path() / ("compare-empty-" + std::to_string(getpid()));
  fs::create_directories(root);
  try {
    rejudge_recorded(root, root, result::CompareResult{});
    FAIL() << "no run, no judgement";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("holds no recorded run"), std::string::npos) << e.what();
  }
  fs::remove_all(root);
}

}  // namespace
}  // namespace proofload::experiments
