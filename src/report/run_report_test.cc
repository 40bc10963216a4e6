// A run's summary.md on recorded results (the synthetic run of test_fixtures.h through
// result_to_json, and testdata/run/scenario.json): the numbers in the short version and the tables
// are those in result.json, each limitation appears exactly when its fact holds, a failed threshold
// never reads as a pass, and rendering is a pure function of the JSON.
#include "report/run_report.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "report/markdown_test_support.h"
#include "report/result_json.h"
#include "report/summary_text.h"
#include "report/test_fixtures.h"

namespace proofload::report {
namespace {

using nlohmann::json;

const std::string kDash = "–";

json synthetic() { return result_to_json(testing_support::make_synthetic_result()); }

json scenario() {
  std::ifstream in(std::string(PL_REPORT_TESTDATA_DIR) + "/run/scenario.json");
  EXPECT_TRUE(in.good());
  return json::parse(in);
}

using testing_support::first_table;
using testing_support::section;

// The row of a table in `section_text` whose first cell starts with `first`.
std::vector<std::string> row_of(const std::string& section_text, const std::string& first) {
  for (const auto& row : first_table(section_text)) {
    if (!row.empty() && row[0].starts_with(first)) return row;
  }
  ADD_FAILURE() << "no row " << first << " in\n" << section_text;
  return std::vector<std::string>(10, "");
}

std::vector<std::string> short_row(const std::string& summary, const std::string& question) {
  return row_of(section(summary, "The short version"), question);
}

// A number as printed ("1,234.5" -> 1234.5, with its decimals), found in text where it does not
// follow a letter (so the 99 of "p99" is not one).
struct Shown {
  double value;
  int decimals;
};

std::vector<Shown> numbers_in(const std::string& text) {
  std::vector<Shown> out;
  size_t i = 0;
  while (i < text.size()) {
    const bool starts = std::isdigit(static_cast<unsigned char>(text[i])) &&
                        (i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) ||
                                     text[i - 1] == '.' || text[i - 1] == '_'));
    if (!starts) {
      ++i;
      continue;
    }
    std::string digits;
    int decimals = -1;
    while (i < text.size()) {
      const char c = text[i];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        digits += c;
        if (decimals >= 0) ++decimals;
      } else if (c == ',' && i + 1 < text.size() &&
                 std::isdigit(static_cast<unsigned char>(text[i + 1])) && decimals < 0) {
        // thousands separator
      } else if (c == '.' && decimals < 0 && i + 1 < text.size() &&
                 std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
        digits += c;
        decimals = 0;
      } else {
        break;
      }
      ++i;
    }
    out.push_back({std::stod(digits), std::max(decimals, 0)});
  }
  return out;
}

// `shown` is `value` printed with its decimals (a percentage when `percent`).
void expect_shows(const Shown& shown, double value, bool percent = false) {
  const double expected = percent ? value * 100 : value;
  EXPECT_LE(std::abs(shown.value - expected), 0.5 * std::pow(10.0, -shown.decimals) + 1e-9)
      << shown.value << " printed for " << expected;
}

Shown first_number(const std::string& text) {
  const std::vector<Shown> numbers = numbers_in(text);
  if (numbers.empty()) {
    ADD_FAILURE() << "no number in '" << text << "'";
    return {std::nan(""), 0};
  }
  return numbers[0];
}

// The bullets of "What this does not show".
std::vector<std::string> limits(const json& result) {
  std::vector<std::string> out;
  std::istringstream lines(section(render_run_summary(result), "What this does not show"));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with("- ")) out.push_back(line.substr(2));
  }
  return out;
}

bool has_limit(const json& result, const std::string& words) {
  for (const std::string& bullet : limits(result)) {
    if (bullet.find(words) != std::string::npos) return true;
  }
  return false;
}

TEST(RunSummary, ShortVersionNumbersAreThoseInResultJson) {
  const json result = synthetic();
  const json& s = result["summary"];
  const std::string summary = render_run_summary(result);

  const std::vector<Shown> carry = numbers_in(short_row(summary, "How much did it carry?")[1]);
  // 998/s (1,995 responses in the 2 s measured span), goodput 995/s, against 1,000/s scheduled
  ASSERT_EQ(carry.size(), 5u);
  expect_shows(carry[0], s["throughput_rps"].get<double>());
  expect_shows(carry[1], s["span"]["responses"].get<double>());
  expect_shows(carry[2], s["duration_s"].get<double>());
  expect_shows(carry[3], s["goodput_rps"].get<double>());
  expect_shows(carry[4], result["spec"]["rate_per_s"].get<double>());

  const std::vector<std::string> fast = short_row(summary, "How fast?");
  const std::vector<Shown> latency = numbers_in(fast[1]);
  ASSERT_EQ(latency.size(), 2u);
  expect_shows(latency[0], s["latency_ms"]["p50"].get<double>());
  expect_shows(latency[1], s["latency_ms"]["p99"].get<double>());
  EXPECT_NE(fast[1].find("intended start"), std::string::npos);
  const std::vector<Shown> service = numbers_in(fast[2]);
  ASSERT_EQ(service.size(), 3u);
  expect_shows(service[0], s["requests"].get<double>());
  expect_shows(service[1], s["service_time_ms"]["p50"].get<double>());
  expect_shows(service[2], s["service_time_ms"]["p99"].get<double>());

  // 0.35% of started requests failed (7 of 1,997); 0.15% of requests offered never started (3 of
  // 2,000)
  const std::vector<std::string> failed = short_row(summary, "How many failed?");
  const std::vector<Shown> f = numbers_in(failed[1]);
  ASSERT_EQ(f.size(), 6u);
  expect_shows(f[0], s["error_rate"].get<double>(), true);
  expect_shows(f[1], s["errors"].get<double>());
  expect_shows(f[2], 1997);  // every outcome but never started
  expect_shows(f[3], s["never_started_share"].get<double>(), true);
  expect_shows(f[4], s["never_started"].get<double>());
  expect_shows(f[5], s["arrivals"].get<double>());
  EXPECT_EQ(failed[2], "outcomes: 503: 5 and timeout: 2");

  EXPECT_EQ(short_row(summary, "Did it meet its thresholds?")[1], "None were set");
  EXPECT_EQ(short_row(summary, "Was the generator the limit?")[1],
            "Not measured: the generator was not observed");
  EXPECT_EQ(summary.find("Did it run to the end?"), std::string::npos);  // it did
}

TEST(RunSummary, LatencyTableIsTheJsonsPercentiles) {
  const json result = synthetic();
  const json& s = result["summary"];
  const std::string table = section(render_run_summary(result), "Latency");
  const std::pair<const char*, const char*> rows[] = {{"p50", "p50"}, {"p90", "p90"},
                                                      {"p99", "p99"}, {"p99.9", "p99_9"},
                                                      {"max", "max"}, {"mean", "mean"}};
  for (const auto& [label, key] : rows) {
    const std::vector<std::string> row = row_of(table, label);
    ASSERT_EQ(row[0], label);
    expect_shows(first_number(row[1]), s["latency_ms"][key].get<double>());
    expect_shows(first_number(row[2]), s["service_time_ms"][key].get<double>());
    expect_shows(first_number(row[3]), s["ttfb_ms"][key].get<double>());
    // 1,995 responses: enough for p99 (1,000), too few for p99.9 (10,000).
    EXPECT_EQ(row[1].ends_with("*"), std::string(label) == "p99.9") << label;
  }
  EXPECT_NE(table.find("fewer than 10 responses at or beyond this percentile"), std::string::npos);
}

TEST(RunSummary, TheTerminalAndSummaryMdMarkTheSamePercentiles) {
  // A 131-response run: the terminal once printed p99 plain while summary.md marked it.
  for (int64_t responses : {131, 999, 1000, 25, 19}) {
    SCOPED_TRACE(responses);
    RunResult run = testing_support::make_synthetic_result();
    run.total = measure::WindowStats();
    run.total.latency_us.record_n(2000, responses);
    run.total.service_us.record_n(1500, responses);
    run.total.outcomes[static_cast<int>(measure::Outcome::kSuccess)] = responses;
    run.total.intended = responses;
    run.total.arrivals = responses;
    const std::string terminal = format_summary(run);
    const std::string table = section(render_run_summary(result_to_json(run)), "Latency");
    for (const char* label : {"p50", "p90", "p99", "p99.9"}) {
      const bool marked_md = row_of(table, label)[1].ends_with("*");
      const size_t line = terminal.find(std::string("  ") + label + " ");
      ASSERT_NE(line, std::string::npos) << terminal;
      const std::string row = terminal.substr(line, terminal.find('\n', line) - line);
      EXPECT_EQ(row.find('*') != std::string::npos, marked_md) << label << ": " << row;
    }
  }
}

TEST(RunSummary, OutcomesNameTheirDenominators) {
  const json result = synthetic();
  const json& o = result["summary"]["outcomes"];
  const std::string table = section(render_run_summary(result), "Outcomes");
  for (const auto& [label, key] : {std::pair{"success", "success"}, std::pair{"503", "status_503"},
                                   std::pair{"timeout", "timeout"}}) {
    const std::vector<std::string> row = row_of(table, label);
    expect_shows(first_number(row[1]), o[key].get<double>());
    expect_shows(first_number(row[2]), o[key].get<double>() / 1997, true);
    EXPECT_EQ(row[3], "1,997 started") << label;
  }
  const std::vector<std::string> never = row_of(table, "never started");
  expect_shows(first_number(never[1]), o["never_started"].get<double>());
  expect_shows(first_number(never[2]), result["summary"]["never_started_share"].get<double>(),
               true);
  EXPECT_EQ(never[3], "2,000 requests offered");
  // Outcomes that did not happen are not rows.
  EXPECT_EQ(table.find("| reset |"), std::string::npos);
  EXPECT_NE(table.find("Status codes: 200 × 1,990 and 503 × 5."), std::string::npos);
}

TEST(RunSummary, NamedRequestsAndFlowsAreTheJsons) {
  const json result = scenario();
  const std::string summary = render_run_summary(result);
  const std::string by_request = section(summary, "By request");
  for (const char* name : {"create", "lookup"}) {
    const json& r = result["requests"][name];
    const std::vector<std::string> row = row_of(by_request, name);
    expect_shows(first_number(row[1]), r["requests"].get<double>());
    expect_shows(first_number(row[2]), r["requests"].get<double>() / 1500, true);
    expect_shows(first_number(row[3]), r["errors"].get<double>());
    expect_shows(first_number(row[4]), r["error_rate"].get<double>(), true);
    expect_shows(first_number(row[5]), r["throughput_rps"].get<double>());
    expect_shows(first_number(row[6]), r["latency_ms"]["p50"].get<double>());
    expect_shows(first_number(row[7]), r["latency_ms"]["p90"].get<double>());
    expect_shows(first_number(row[8]), r["latency_ms"]["p99"].get<double>());
  }
  const json& flow = result["flows"]["lifecycle"];
  const std::string flows = section(summary, "Flows");
  const std::vector<std::string> row = row_of(flows, "lifecycle");
  int column = 1;
  for (const char* key : {"started", "succeeded", "failed", "abandoned"}) {
    expect_shows(first_number(row[column++]), flow[key].get<double>());
  }
  expect_shows(first_number(row[5]), flow["success_rate"].get<double>(), true);
  expect_shows(first_number(row[6]), flow["duration_ms"]["p50"].get<double>());
  // Flows say their own denominator.
  EXPECT_NE(flows.find("Flows have their own denominator"), std::string::npos);
  EXPECT_NE(flows.find("(succeeded + failed)"), std::string::npos);
}

TEST(RunSummary, AFailedThresholdNeverReadsAsAPass) {
  const json result = scenario();
  const std::string summary = render_run_summary(result);
  const std::vector<std::string> answer = short_row(summary, "Did it meet its thresholds?");
  EXPECT_EQ(answer[1], "No: 1 of 3 failed: `p99 <= 3ms` (p99 = 3.001 ms)");
  const std::string table = section(summary, "Thresholds");
  EXPECT_EQ(row_of(table, "`p99 <= 3ms`")[1], "p99 = 3.001 ms");
  EXPECT_EQ(row_of(table, "`p99 <= 3ms`")[2], "FAILED");
  EXPECT_EQ(row_of(table, "`errors < 1%`")[2], "passed");
  // 3.001 ms rounded to 3.0 would read as within "p99 <= 3ms": the tables keep the threshold's
  // decimals.
  EXPECT_EQ(row_of(section(summary, "Latency"), "p99")[1], "3.001");
  EXPECT_NE(short_row(summary, "How fast?")[1].find("p99 3.001 ms"), std::string::npos);

  // A verdict that was not recorded is not a pass either.
  json unrecorded = result;
  for (json& t : unrecorded["thresholds"]) t.erase("passed");
  unrecorded.erase("thresholds_passed");
  const std::string text = render_run_summary(unrecorded);
  EXPECT_TRUE(short_row(text, "Did it meet its thresholds?")[1].starts_with("No: 3 of 3 failed"));
  EXPECT_EQ(row_of(section(text, "Thresholds"), "`errors < 1%`")[2], "not recorded");

  json passed = result;
  passed["thresholds"][0]["passed"] = true;
  passed["thresholds_passed"] = true;
  EXPECT_EQ(short_row(render_run_summary(passed), "Did it meet its thresholds?")[1],
            "Yes: all 3 passed");
}

TEST(RunSummary, GeneratorRowReadsTheSelfObserver) {
  json result = scenario();
  EXPECT_EQ(short_row(render_run_summary(result), "Was the generator the limit?")[1],
            "Possibly: it used 80% or more of its workers' cores in 2 measured windows (windows 3 "
            "and 4); there it, not the server, may have been the limit");
  result["generator_busy_windows"] = json::array();
  EXPECT_EQ(short_row(render_run_summary(result), "Was the generator the limit?")[1],
            "No: it used at most 1.62 cores (0.31 mean) and was never busy (80% of its workers' "
            "cores) in a measured window");
}

TEST(RunLimits, ClosedLoopOnlyForClosedLoop) {
  json result = synthetic();
  EXPECT_FALSE(has_limit(result, "Closed loop"));
  result["spec"]["executor"] = "closed_loop";
  EXPECT_TRUE(has_limit(result, "Closed loop: this measures what the system accepts"));
}

TEST(RunLimits, OneRunAndOneLevelUnlessStaged) {
  json result = synthetic();
  EXPECT_TRUE(has_limit(result, "One run gives no variance"));
  EXPECT_TRUE(has_limit(result, "One load level was tested (1,000/s)"));
  result["spec"]["stages"] = json::array({{{"duration_s", 10}, {"target", 100}}});
  EXPECT_FALSE(has_limit(result, "One load level was tested"));
  EXPECT_TRUE(has_limit(result, "The load was ramped by stages"));
}

TEST(RunLimits, GeneratorFlaggedWindowsOnlyWhenFlagged) {
  json result = scenario();
  EXPECT_TRUE(has_limit(result,
                        "The generator was flagged busy (80% or more of its workers' "
                        "cores) in windows 3 and 4"));
  result["generator_busy_windows"] = json::array();
  EXPECT_FALSE(has_limit(result, "flagged busy"));
  EXPECT_FALSE(has_limit(result, "The generator's own CPU was not observed"));
  result["observed"].erase("self");
  EXPECT_TRUE(has_limit(result, "The generator's own CPU was not observed"));
  // With nothing observed at all, one bullet says so for the generator and the server alike.
  EXPECT_FALSE(has_limit(synthetic(), "The generator's own CPU"));
  EXPECT_TRUE(has_limit(synthetic(), "Nothing was observed"));
}

TEST(RunLimits, TooFewRequestsForP99AndP999) {
  json result = scenario();  // 1,494 responses
  EXPECT_TRUE(has_limit(result,
                        "1,494 measured responses are too few for a trustworthy p99.9 "
                        "(it needs 10,000 responses"));
  result["summary"]["requests"] = 999;
  EXPECT_TRUE(has_limit(result,
                        "999 measured responses are too few for a trustworthy p99 and "
                        "p99.9 (they need 1,000 and 10,000 responses"));
  result["summary"]["requests"] = 1000;
  EXPECT_FALSE(has_limit(result, "trustworthy p99 "));
  EXPECT_TRUE(has_limit(result, "trustworthy p99.9"));
  result["summary"]["requests"] = 10000;
  EXPECT_FALSE(has_limit(result, "too few"));
  EXPECT_EQ(section(render_run_summary(result), "Latency").find('*'), std::string::npos);
}

TEST(RunLimits, NoServerObserverOnlyWithoutOne) {
  json result = scenario();  // self, pid and host
  EXPECT_FALSE(has_limit(result, "No server observer"));
  result["observed"].erase("pid");
  EXPECT_TRUE(has_limit(result,
                        "No server observer was attached (only the generator itself and "
                        "the host were observed)"));
  result["observed"].erase("host");
  EXPECT_TRUE(has_limit(result, "(only the generator itself were observed)"));
  result.erase("observed");
  EXPECT_TRUE(has_limit(result, "Nothing was observed"));
  EXPECT_FALSE(has_limit(result, "No server observer"));
}

TEST(RunLimits, ObserverGapsAndHostLoadFromTheFigures) {
  json result = scenario();
  EXPECT_TRUE(has_limit(result,
                        "The observer `pid:4242` lost 2 of 20 samples (last: no such "
                        "process)"));
  EXPECT_TRUE(has_limit(result, "The host's load average rose from 0.4 at the start to 3.1"));
  result["observed"]["pid"]["gaps"] = 0;
  result["observed"]["host"]["load1_max"] = 0.6;
  EXPECT_FALSE(has_limit(result, "lost"));
  EXPECT_FALSE(has_limit(result, "load average"));
}

TEST(RunLimits, NoWarmupOnlyWhenItWasZero) {
  json result = synthetic();  // 1 s of warm-up
  EXPECT_FALSE(has_limit(result, "No warm-up"));
  EXPECT_TRUE(has_limit(scenario(), "No warm-up: the first requests"));
}

TEST(RunLimits, InterruptedOrAbortedCoversOnlyThePartThatRan) {
  json result = synthetic();
  EXPECT_FALSE(has_limit(result, "did not complete"));
  for (const char* status : {"interrupted", "aborted"}) {
    result["status"] = status;
    result["end_reason"] = std::string(status) == "aborted" ? "aborted: errors > 5% for 3 s"
                                                            : "interrupted by a signal";
    const std::string summary = render_run_summary(result);
    EXPECT_TRUE(has_limit(result, "The run did not complete (" + std::string(status) +
                                      "): " + result["end_reason"].get<std::string>() +
                                      ". The figures cover only the part that ran: 2 s measured "
                                      "of the 3 s planned."));
    EXPECT_TRUE(short_row(summary, "Did it run to the end?")[1].starts_with(
        "No (" + std::string(status) + ")"));
    EXPECT_NE(summary.find("**Not complete (" + std::string(status) + ")**"), std::string::npos);
  }
}

TEST(RunSummary, TitleScopeAndReproduce) {
  const json result = scenario();
  const std::string summary = render_run_summary(result);
  EXPECT_TRUE(summary.starts_with(
      "# Run: http://127.0.0.1:8080/\n\nClosed loop: 8 connections, each sending its next request "
      "when the answer to the last one arrives; for 20 s, with no warm-up.\n\n"
      "Scenario `examples/demo-mix.yaml`: 2 named requests and 1 flow; its random draws used seed "
      "42.\n\nStarted 2026-11-30T06:00:00.000Z; measured 20 s; ended: duration reached; "
      "proofload 0.1.0.\n\n"))
      << summary;
  const std::string reproduce = section(summary, "Reproduce");
  EXPECT_NE(reproduce.find("```\n" + result["command_line"].get<std::string>() + "\n```"),
            std::string::npos);
  EXPECT_NE(reproduce.find("`proofload report DIR`"), std::string::npos);
  EXPECT_NE(reproduce.find("`--seed 42`"), std::string::npos);
}

TEST(RunSummary, ObservedSourcesAreTheirFigures) {
  const std::string table = section(render_run_summary(scenario()), "Observed");
  const std::vector<std::string> pid = row_of(table, "pid");
  EXPECT_EQ(pid[1], "`pid:4242`");
  EXPECT_EQ(pid[2], "18");
  EXPECT_EQ(pid[3], "2 (last: no such process)");
  EXPECT_EQ(pid[4],
            "CPU 0.92 cores mean, 1.05 max (18.40 CPU-s), 12.316 ms per request; RSS 100.0 MiB at "
            "the end, 110.0 MiB peak; 8 threads at the end; 42 open files at the end");
  EXPECT_EQ(row_of(table, "self (the generator)")[4],
            "CPU 0.31 cores mean, 1.62 max (6.20 CPU-s), 4.150 ms per request; RSS 24.0 MiB at the "
            "end; 3 threads at the end");
  json prom = scenario();
  prom["observed"]["prom"] = {
      {"source", "prom:http://127.0.0.1:8080/metrics"},
      {"samples", 20},
      {"gaps", 0},
      {"http_requests_total_per_s_mean", 74.2},
      {"queue_depth_end", 3},
      {"counters", {{"http_requests_total", {{"first", 100}, {"last", 1584}, {"delta", 1484}}}}}};
  // Its series by name (not "2 figures (in result.json)"), a counter with its increase, so a
  // count the server kept can be set against the client's.
  EXPECT_EQ(row_of(section(render_run_summary(prom), "Observed"), "prom")[4],
            "`http_requests_total` +1,484 (100 to 1,584); `queue_depth_end` 3");
}

TEST(RunSummary, ObserveOnlyDirectorySaysNoLoadWasSent) {
  json result = scenario();
  result["spec"] = {{"command", "observe"}, {"observe", {"pid:4242", "host"}}, {"duration_s", 20}};
  result["summary"]["requests"] = 0;
  const std::string summary = render_run_summary(result);
  EXPECT_TRUE(summary.starts_with("# Observation: `pid:4242` and `host`\n\nNo load was sent"))
      << summary;
  EXPECT_EQ(summary.find("How fast?"), std::string::npos);
  EXPECT_EQ(short_row(summary, "Were samples lost?")[1], "Yes: 2 samples failed (pid)");
  EXPECT_NE(section(summary, "Observed").find("`pid:4242`"), std::string::npos);
  EXPECT_TRUE(has_limit(result, "No load was sent by proofload"));
}

TEST(RunSummary, RendersTheSameBytesWithOrWithoutWindows) {
  const json result = scenario();
  const std::string once = render_run_summary(result);
  EXPECT_EQ(render_run_summary(result), once);
  std::istringstream text(result.dump(2));
  const json without = parse_result_for_summary(text);
  EXPECT_FALSE(without.contains("windows"));
  EXPECT_EQ(without["summary"], result["summary"]);
  EXPECT_EQ(without["spec"], result["spec"]);
  EXPECT_EQ(render_run_summary(without), once);
}

TEST(RunSummary, MissingOptionalKeysReadAsNotRecorded) {
  const json minimal = {
      {"schema", "proofload.result/v1"}, {"status", "complete"}, {"summary", json::object()}};
  std::string summary;
  ASSERT_NO_THROW(summary = render_run_summary(minimal));
  EXPECT_TRUE(
      summary.starts_with("# Run: target not recorded\n\nExecutor not recorded; duration "
                          "not recorded (warm-up not recorded).\n\nStart time not recorded"))
      << summary;
  EXPECT_EQ(short_row(summary, "How fast?")[1], "Not measured: no response was received");
  EXPECT_EQ(row_of(section(summary, "Latency"), "p50")[1], kDash);
  EXPECT_NE(section(summary, "Reproduce").find("The command was not recorded."), std::string::npos);

  // Each optional key of a full result, removed or null, one at a time.
  const json full = scenario();
  for (const auto& [key, value] : full.items()) {
    if (key == "schema" || key == "status" || key == "summary") continue;
    json without = full;
    without.erase(key);
    EXPECT_NO_THROW(render_run_summary(without)) << key;
    without[key] = nullptr;
    EXPECT_NO_THROW(render_run_summary(without)) << key;
  }
  for (const auto& [key, value] : full["summary"].items()) {
    json without = full;
    without["summary"].erase(key);
    EXPECT_NO_THROW(render_run_summary(without)) << "summary." << key;
  }
}

TEST(RunSummary, MissingRequiredKeyThrowsNamingIt) {
  for (const char* key : {"schema", "status", "summary"}) {
    json result = synthetic();
    result.erase(key);
    try {
      render_run_summary(result);
      ADD_FAILURE() << "no error without " << key;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + key + "'"), std::string::npos)
          << e.what();
    }
  }
  json ladder = synthetic();
  ladder["schema"] = "proofload.ladder/v1";
  EXPECT_THROW(render_run_summary(ladder), std::runtime_error);
  json wrong_type = synthetic();
  wrong_type["summary"]["requests"] = "many";
  try {
    render_run_summary(wrong_type);
    ADD_FAILURE() << "no error for a string count";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'summary.requests'"), std::string::npos) << e.what();
  }
}

TEST(RunSummary, MatchesGolden) {
  testing_support::expect_matches_golden("run/scenario.summary.md", render_run_summary(scenario()));
  testing_support::expect_matches_golden("run/synthetic.summary.md",
                                         render_run_summary(synthetic()));
}

}  // namespace
}  // namespace proofload::report
