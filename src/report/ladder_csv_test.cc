// A ladder's levels.csv on recorded results: its header is the columns `proofload analyze` reads,
// every row round-trips its values, and a level's verdict is the analysis's, never a confirming
// run's.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "analyze/level_table.h"
#include "report/ladder_report.h"
#include "report/ladder_test_support.h"
#include "report/test_fixtures.h"

namespace proofload::report {
namespace {

using nlohmann::json;
using testing_support::load_ladder;

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::string field;
    std::istringstream cells(line);
    while (std::getline(cells, field, ',')) fields.push_back(field);
    if (line.ends_with(",")) fields.emplace_back();
    lines.push_back(fields);
  }
  return lines;
}

TEST(LevelsCsv, HeaderIsTheColumnsAnalyzeReads) {
  const std::string csv = render_levels_csv(load_ladder("closed_knee"));
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "level,repeat,target_rps,achieved_rps,goodput_rps,arrivals_rps,flows_per_s,"
            "flow_success_rate,p50_ms,p95_ms,p99_ms,requests,responses,error_rate,rate_429,"
            "never_started,server_cores,server_throttled_share,server_quota_cores,"
            "server_cpu_limit_cores,generator_cores,generator_busy,host_load1,duration_s,status,"
            "verdict,events_per_s,stream_bytes_per_s,tokens_per_s,stream_ttfb_p95_ms,ttft_p95_ms,"
            "itl_p99_ms,stream_goodput,server_rss_bytes,reconcile,drop_share,host_cpu_busy,"
            "warmup_requests,warmup_errors,stream_headers_p95_ms");
  // Every column but status, verdict and the streaming ramp's is one `proofload analyze` reads
  // back; those it passes over without a note.
  const analyze::LevelTable table = analyze::parse_level_table(csv, "levels.csv");
  EXPECT_TRUE(table.ignored_columns.empty());
}

TEST(LevelsCsv, EveryRowRoundTripsItsValues) {
  for (const char* name : {"closed_knee", "open_repeats", "table_none", "search"}) {
    SCOPED_TRACE(name);
    const json result = load_ladder(name);
    const auto lines = parse_csv(render_levels_csv(result));
    ASSERT_EQ(lines.size(), result["rows"].size() + 1);
    const std::vector<std::string>& header = lines[0];
    for (size_t r = 0; r < result["rows"].size(); ++r) {
      const json& row = result["rows"][r];
      ASSERT_EQ(lines[r + 1].size(), header.size()) << "row " << r;
      for (size_t c = 0; c < header.size(); ++c) {
        if (header[c] == "verdict") continue;  // the analysis's, not the row's
        const std::string& cell = lines[r + 1][c];
        // A row recorded before a column existed has no key for it: an empty cell.
        const json value = row.contains(header[c]) ? row[header[c]] : json(nullptr);
        if (value.is_null()) {
          EXPECT_EQ(cell, "") << header[c];
        } else if (value.is_boolean()) {
          EXPECT_EQ(cell, value.get<bool>() ? "1" : "0") << header[c];
        } else if (value.is_string() || header[c] == "status") {
          EXPECT_EQ(cell, value.is_string() ? value.get<std::string>() : "") << header[c];
        } else {
          EXPECT_EQ(cell.find(','), std::string::npos);
          EXPECT_EQ(std::strtod(cell.c_str(), nullptr), value.get<double>())
              << header[c] << " " << cell;
        }
      }
    }
  }
}

TEST(LevelsCsv, VerdictIsTheLevelsAndNotTheConfirmingRuns) {
  const auto closed = parse_csv(render_levels_csv(load_ladder("closed_knee")));
  const auto verdict = static_cast<size_t>(
      std::find(closed[0].begin(), closed[0].end(), "verdict") - closed[0].begin());
  ASSERT_LT(verdict, closed[0].size());
  EXPECT_EQ(closed[3][verdict], "knee");
  EXPECT_EQ(closed[5][verdict], "saturated");
  const auto search = parse_csv(render_levels_csv(load_ladder("search")));
  EXPECT_EQ(search[6][verdict], "highest within SLO");  // the bisect step at 325/s
  EXPECT_EQ(search[8][verdict], "");                    // the confirming run at 325/s
}

TEST(LevelsCsv, EachNamedRequestsColumnsReadBackAsItsRoute) {
  // Rows with a scenario's two requests; the second row did not record `write`.
  json result = load_ladder("closed_knee");
  for (json& row : result["rows"]) {
    row["routes"] = json::array({{{"name", "read"},
                                  {"goodput_rps", 12.5},
                                  {"achieved_rps", 13},
                                  {"p50_ms", 1.25},
                                  {"p95_ms", 4},
                                  {"p99_ms", 9.5},
                                  {"requests", 250},
                                  {"error_rate", 0.04}}});
  }
  result["rows"][0]["routes"].push_back({{"name", "write"}, {"goodput_rps", 3}, {"p99_ms", 20}});
  const std::string csv = render_levels_csv(result);
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_TRUE(header.ends_with(
      ",stream_headers_p95_ms,goodput_rps(read),achieved_rps(read),p50_ms(read),p95_ms(read),"
      "p99_ms(read),error_rate(read),requests(read),goodput_rps(write),achieved_rps(write),"
      "p50_ms(write),p95_ms(write),p99_ms(write),error_rate(write),requests(write)"))
      << header;
  const analyze::LevelTable table = analyze::parse_level_table(csv, "levels.csv");
  EXPECT_TRUE(table.ignored_columns.empty());
  ASSERT_EQ(table.rows[0].routes.size(), 2u);
  const analyze::LevelRoute& read = table.rows[0].routes[0];
  EXPECT_EQ(read.name, "read");
  EXPECT_EQ(read.goodput_rps, 12.5);
  EXPECT_EQ(read.achieved_rps, 13);
  EXPECT_EQ(read.p50_ms, 1.25);
  EXPECT_EQ(read.p99_ms, 9.5);
  EXPECT_EQ(read.requests, 250);
  EXPECT_EQ(read.error_rate, 0.04);
  EXPECT_EQ(table.rows[0].routes[1].p99_ms, 20);
  EXPECT_FALSE(table.rows[0].routes[1].achieved_rps);
  // A row without `write` has its cells empty: read back as nothing given.
  ASSERT_EQ(table.rows[1].routes.size(), 2u);
  EXPECT_FALSE(table.rows[1].routes[1].goodput_rps);
}

TEST(LevelsCsv, MatchesGolden) {
  testing_support::expect_matches_golden("ladder/open_repeats.levels.csv",
                                         render_levels_csv(load_ladder("open_repeats")));
}

}  // namespace
}  // namespace proofload::report
