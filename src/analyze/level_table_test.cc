// Level tables as other tools and spreadsheets write them: every accepted column lands in its
// field, CSV quoting and line endings are read per RFC 4180, and every mistake is one line that
// says which file, which line and what is wrong.
#include "analyze/level_table.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/usage_error.h"

namespace proofload::analyze {
namespace {

std::string table_error_of(std::string_view csv) {
  try {
    parse_level_table(csv, "levels.csv");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// The message starts with "levels.csv:LINE: ", mentions `mentions` and is one line.
void expect_error(std::string_view csv, int line, std::string_view mentions) {
  const std::string message = table_error_of(csv);
  ASSERT_FALSE(message.empty()) << "parsed:\n" << csv;
  EXPECT_EQ(message.rfind("levels.csv:" + std::to_string(line) + ": ", 0), 0u) << message;
  EXPECT_NE(message.find(mentions), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(LevelTable, EveryColumnLandsInItsField) {
  const LevelTable table = parse_level_table(
      "level,repeat,target_rps,achieved_rps,p50_ms,p95_ms,p99_ms,error_rate,requests,rate_429,"
      "never_started,server_cores,server_throttled_share,generator_cores,generator_busy,"
      "host_load1,duration_s\n"
      "100,2,100,99.8,2.1,3,4.2,0.001,2994,0.5%,0,0.21,0.1,0.05,true,0.4,30\n",
      "levels.csv");
  ASSERT_EQ(table.rows.size(), 1u);
  const LevelRow& r = table.rows[0];
  EXPECT_EQ(r.level, 100);
  EXPECT_EQ(r.repeat, 2);
  EXPECT_EQ(r.target_rps, 100);
  EXPECT_EQ(r.achieved_rps, 99.8);
  EXPECT_EQ(r.p50_ms, 2.1);
  EXPECT_EQ(r.p95_ms, 3);
  EXPECT_EQ(r.p99_ms, 4.2);
  EXPECT_EQ(r.error_rate, 0.001);
  EXPECT_EQ(r.requests, 2994);
  EXPECT_EQ(r.rate_429, 0.005);  // "0.5%" is the same double as 0.005
  EXPECT_EQ(r.never_started, 0);
  EXPECT_EQ(r.server_cores, 0.21);
  EXPECT_EQ(r.server_throttled_share, 0.1);
  EXPECT_EQ(r.generator_cores, 0.05);
  EXPECT_TRUE(r.generator_busy);
  EXPECT_EQ(r.host_load1, 0.4);
  EXPECT_EQ(r.duration_s, 30);
  EXPECT_TRUE(table.has_targets);
  EXPECT_TRUE(table.ignored_columns.empty());
}

TEST(LevelTable, MinimalTableInAnyOrderAndCase) {
  const LevelTable table = parse_level_table(
      " P95_MS , Error_Rate,Level,achieved_RPS,p50_ms\n"
      "9,1.5%,10,95,4\n"
      "12,0.02,20,180,5\n",
      "levels.csv");
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0].level, 10);
  EXPECT_EQ(table.rows[0].p95_ms, 9);
  EXPECT_EQ(table.rows[0].error_rate, 0.015);
  EXPECT_EQ(table.rows[1].achieved_rps, 180);
  EXPECT_EQ(table.rows[1].error_rate, 0.02);
  // Columns not given stay "not given".
  EXPECT_FALSE(table.rows[0].target_rps);
  EXPECT_FALSE(table.rows[0].p99_ms);
  EXPECT_FALSE(table.rows[0].requests);
  EXPECT_FALSE(table.rows[0].generator_busy);
  EXPECT_FALSE(table.has_targets);
}

TEST(LevelTable, ErrorRateFromErrorsAndRequests) {
  const LevelTable table = parse_level_table(
      "level,achieved_rps,p50_ms,p95_ms,errors,requests\n"
      "10,100,1,2,3,1200\n"
      "20,0,1,2,0,0\n",  // a share of nothing is not given, not 0
      "levels.csv");
  EXPECT_EQ(table.rows[0].error_rate, 3.0 / 1200);
  EXPECT_EQ(table.rows[0].requests, 1200);
  EXPECT_FALSE(table.rows[1].error_rate);
  // A given error_rate wins; errors and requests fill in where it is empty.
  const LevelTable both = parse_level_table(
      "level,achieved_rps,p50_ms,p95_ms,error_rate,errors,requests\n"
      "10,100,1,2,0.5,3,1200\n"
      "20,100,1,2,,6,1200\n",
      "levels.csv");
  EXPECT_EQ(both.rows[0].error_rate, 0.5);
  EXPECT_EQ(both.rows[1].error_rate, 6.0 / 1200);
}

TEST(LevelTable, RepeatsNumberedByOrderWhenNotGiven) {
  const LevelTable table = parse_level_table(
      "level,achieved_rps,p50_ms,p95_ms,error_rate\n"
      "10,100,1,2,0\n"
      "20,200,1,2,0\n"
      "10,101,1,2,0\n"
      "20,199,1,2,0\n"
      "10,99,1,2,0\n",
      "levels.csv");
  ASSERT_EQ(table.rows.size(), 5u);
  EXPECT_EQ(table.rows[0].repeat, 1);
  EXPECT_EQ(table.rows[1].repeat, 1);
  EXPECT_EQ(table.rows[2].repeat, 2);
  EXPECT_EQ(table.rows[3].repeat, 2);
  EXPECT_EQ(table.rows[4].repeat, 3);
  // An explicit repeat column is taken as given; an empty cell falls back to the order.
  const LevelTable given = parse_level_table(
      "level,repeat,achieved_rps,p50_ms,p95_ms,error_rate\n"
      "10,3,100,1,2,0\n"
      "10,,100,1,2,0\n",
      "levels.csv");
  EXPECT_EQ(given.rows[0].repeat, 3);
  EXPECT_EQ(given.rows[1].repeat, 2);
}

TEST(LevelTable, EmptyCellsAreNotGiven) {
  const LevelTable table = parse_level_table(
      "level,achieved_rps,p50_ms,p95_ms,p99_ms,error_rate,generator_busy,server_cores\n"
      "10,100,,,,,,\n",
      "levels.csv");
  const LevelRow& r = table.rows[0];
  EXPECT_FALSE(r.p50_ms);
  EXPECT_FALSE(r.p95_ms);
  EXPECT_FALSE(r.p99_ms);
  EXPECT_FALSE(r.error_rate);
  EXPECT_FALSE(r.generator_busy);
  EXPECT_FALSE(r.server_cores);
}

TEST(LevelTable, GeneratorBusyFlags) {
  const LevelTable table = parse_level_table(
      "level,achieved_rps,p50_ms,p95_ms,error_rate,generator_busy\n"
      "1,1,1,1,0,0\n2,1,1,1,0,1\n3,1,1,1,0,TRUE\n4,1,1,1,0,false\n",
      "levels.csv");
  EXPECT_FALSE(table.rows[0].generator_busy);
  EXPECT_TRUE(table.rows[1].generator_busy);
  EXPECT_TRUE(table.rows[2].generator_busy);
  EXPECT_FALSE(table.rows[3].generator_busy);
  expect_error("level,achieved_rps,p50_ms,p95_ms,error_rate,generator_busy\n1,1,1,1,0,yes\n", 2,
               "column \"generator_busy\": \"yes\" is not 0, 1, true or false");
}

TEST(LevelTable, QuotingLineEndingsAndBlankLines) {
  // Quoted cells with commas, doubled quotes and a line break; CRLF; a BOM; blank lines; no
  // newline at the end.
  const LevelTable table = parse_level_table(
      "\xEF\xBB\xBF"
      "level,\"achieved_rps\",p50_ms,p95_ms,error_rate,notes\r\n"
      "\r\n"
      "10,\"100.5\",1,2,0,\"slow, then \"\"fast\"\"\"\r\n"
      "20, \"200\" ,1,2,0,\"two\nlines\"\r\n"
      "30,300,1,2,0,plain",
      "levels.csv");
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_EQ(table.rows[0].achieved_rps, 100.5);
  EXPECT_EQ(table.rows[1].achieved_rps, 200);
  EXPECT_EQ(table.rows[2].level, 30);
  EXPECT_EQ(table.ignored_columns, std::vector<std::string>{"notes"});
  // The line break inside a quoted cell counts: the row after it starts on line 4.
  expect_error(
      "level,achieved_rps,p50_ms,p95_ms,error_rate,notes\n"
      "10,100,1,2,0,\"two\nlines\"\n"
      "20,x,1,2,0,\n",
      4, "\"x\"");
  expect_error("level,achieved_rps,p50_ms,p95_ms,error_rate\n10,100,1,2,\"0\n", 2, "never closed");
  expect_error("level,achieved_rps,p50_ms,p95_ms,error_rate\n10,100,1,2,\"0\"x\n", 2,
               "after the closing quote");
}

TEST(LevelTable, ToolTableWithExtraColumns) {
  // A wrk/k6-style export: extra columns are listed for the caller to warn about, and
  // proofload's own verdict column is dropped silently.
  const LevelTable table = parse_level_table(
      "vus,level,achieved_rps,http_req_duration_avg,p50_ms,p90_ms,p95_ms,p99_ms,errors,"
      "requests,verdict,,data_received_kb\n"
      "10,10,512.3,15.2,14.1,19.8,22.0,40.5,0,15369,clean,a,1024\n"
      "20,20,980.1,18.9,17.5,25.1,28.3,55.0,12,29403,clean,b,2048\n"
      "40,40,1101.7,33.0,30.2,52.7,61.9,120.4,301,33051,knee,c,2210\n",
      "k6.csv");
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_EQ(table.rows[2].level, 40);
  EXPECT_EQ(table.rows[2].p95_ms, 61.9);
  EXPECT_EQ(table.rows[2].requests, 33051);
  EXPECT_DOUBLE_EQ(*table.rows[2].error_rate, 301.0 / 33051);
  EXPECT_EQ(table.ignored_columns,
            (std::vector<std::string>{"vus", "http_req_duration_avg", "p90_ms",
                                      "(unnamed column 12)", "data_received_kb"}));
}

TEST(LevelTable, MissingColumns) {
  // The message lists the accepted columns.
  expect_error("achieved_rps,p50_ms,p95_ms,error_rate\n1,1,1,0\n", 1, "accepted: level, repeat,");
  expect_error("level,p50_ms,p95_ms,error_rate\n1,1,1,0\n", 1, "\"achieved_rps\"");
  // Neither error_rate nor both errors and requests.
  expect_error("level,achieved_rps,p50_ms,p95_ms\n1,1,1,1\n", 1, "error_rate");
  expect_error("level,achieved_rps,p50_ms,p95_ms,errors\n1,1,1,1,0\n", 1,
               "errors is there, requests is not");
  // The header comes after any blank lines, and names each column once.
  expect_error("\n\nlevel,achieved_rps,p50_ms,p95_ms\n1,1,1,1\n", 3, "error_rate");
  expect_error("level,achieved_rps,p50_ms,p95_ms,error_rate,LEVEL\n1,1,1,1,0,1\n", 1,
               "\"level\" appears twice");
}

TEST(LevelTable, OnlyTheSloDecidesWhichPercentilesAreRequired) {
  // Most published tables give only p95 or p99.
  const LevelTable p99_only =
      parse_level_table("level,achieved_rps,p99_ms,error_rate\n10,100,40,0\n", "levels.csv");
  EXPECT_FALSE(p99_only.rows[0].p50_ms);
  EXPECT_EQ(p99_only.rows[0].p99_ms, 40);
  EXPECT_NO_THROW(require_slo_columns(p99_only, parse_slo("p99<=250ms,errors<=1%"), "t.csv"));
  auto error = [&](std::string_view slo) {
    try {
      require_slo_columns(p99_only, parse_slo(slo), "t.csv");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error(kDefaultSlo),
            "t.csv: the SLO bound \"p95<=1s\" needs a p95_ms column, and the table has none "
            "(its columns: level, achieved_rps, p99_ms, error_rate)");
  EXPECT_NE(error("p99.9<1s").find("which a level table cannot hold"), std::string::npos);
  EXPECT_NE(error("rate(status_429)<1%").find("needs a rate_429 column"), std::string::npos);
  EXPECT_EQ(error("goodput>=50,rps>=10,errors<1%"), "");  // rates and errors are always there
}

TEST(LevelTable, ANamedRequestsOwnColumnsLandInItsRoute) {
  // As levels.csv writes a scenario's requests: the figure's name, the request's in brackets.
  const LevelTable table = parse_level_table(
      "level,achieved_rps,error_rate,goodput_rps(read),p99_ms(Write),ERROR_RATE(Write),"
      "requests(Write),achieved_rps(read)\n"
      "10,100,0,60,25.5,2%,400,61\n"
      "20,180,0,120,,0.5,,119\n",
      "levels.csv");
  ASSERT_EQ(table.rows[0].routes.size(), 2u);
  const LevelRoute& read = table.rows[0].routes[0];
  EXPECT_EQ(read.name, "read");
  EXPECT_EQ(read.goodput_rps, 60);
  EXPECT_EQ(read.achieved_rps, 61);
  const LevelRoute& write = table.rows[0].routes[1];
  EXPECT_EQ(write.name, "Write");  // a request's name keeps its case
  EXPECT_EQ(write.p99_ms, 25.5);
  EXPECT_DOUBLE_EQ(*write.error_rate, 0.02);
  EXPECT_EQ(write.requests, 400);
  EXPECT_FALSE(write.goodput_rps);
  EXPECT_FALSE(table.rows[1].routes[1].p99_ms);  // an empty cell is not given
  EXPECT_TRUE(table.ignored_columns.empty());
  // The SLO may name a request's figure when its column is there.
  EXPECT_NO_THROW(require_slo_columns(table, parse_slo("p99(Write)<1s,errors(Write)<5%"), "t"));
  try {
    require_slo_columns(table, parse_slo("p95(Write)<1s"), "t");
    ADD_FAILURE() << "p95(Write) has no column";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("needs a p95_ms(Write) column"), std::string::npos)
        << e.what();
  }
  // Its cells are read by its figure's rules, and a repeated column is refused.
  expect_error("level,achieved_rps,error_rate,error_rate(w)\n1,1,0,2\n", 2,
               "column \"error_rate(w)\": \"2\" is above 1");
  expect_error("level,achieved_rps,error_rate,p99_ms(w),P99_MS(w)\n1,1,0,1,1\n", 1,
               "\"p99_ms(w)\" appears twice");
}

TEST(LevelTable, ProofloadsOwnRatesAndServerFiguresReadBack) {
  const LevelTable table = parse_level_table(
      "level,achieved_rps,goodput_rps,arrivals_rps,flows_per_s,"
      "flow_success_rate,responses,error_rate,server_quota_cores,server_cpu_limit_cores,status,"
      "verdict\n"
      "250,264,262,249.5,12.5,97%,2640,0.01,0.8,0.8,complete,clean\n",
      "levels.csv");
  const LevelRow& r = table.rows[0];
  EXPECT_EQ(r.goodput_rps, 262);
  EXPECT_EQ(r.arrivals_rps, 249.5);
  EXPECT_EQ(r.flows_per_s, 12.5);
  EXPECT_EQ(r.flow_success_rate, 0.97);
  EXPECT_EQ(r.responses, 2640);
  EXPECT_EQ(r.server_quota_cores, 0.8);
  EXPECT_EQ(r.server_cpu_limit_cores, 0.8);
  EXPECT_TRUE(table.ignored_columns.empty());  // status and verdict are proofload's own
}

TEST(LevelTable, BadCells) {
  const std::string header = "level,achieved_rps,p50_ms,p95_ms,error_rate,requests,errors\n";
  expect_error(header + "10,100,1,2,0,,\n20,fast,1,2,0,,\n", 3,
               "column \"achieved_rps\": \"fast\" is not a number");
  expect_error(header + "10,100,1,2 ms,0,,\n", 2, "column \"p95_ms\": \"2 ms\" is not a number");
  expect_error(header + "10,100,1,nan,0,,\n", 2, "\"nan\" is not a number");
  expect_error(header + "10,100,-1,2,0,,\n", 2, "column \"p50_ms\": \"-1\" is negative");
  expect_error(header + "10,100,1,2,1.5,,\n", 2,
               "column \"error_rate\": \"1.5\" is above 1 (a share is 0..1; for a percentage "
               "write 1.5%)");
  expect_error(header + "10,100,1,2,150%,,\n", 2, "\"150%\" is above 100%");
  expect_error(header + "10,100,1,2,-1%,,\n", 2, "\"-1%\" is negative");
  expect_error(header + "10,100,1,2,0,12.5,\n", 2, "column \"requests\": \"12.5\" is not a whole");
  expect_error(header + "10,100,1,2,,10,11\n", 2, "11 errors out of 10 requests");
  expect_error(header + ",100,1,2,0,,\n", 2, "column \"level\" is empty");
  expect_error(header + "10,,1,2,0,,\n", 2, "column \"achieved_rps\" is empty");
  expect_error("level,repeat,achieved_rps,p50_ms,p95_ms,error_rate\n10,0,1,1,1,0\n", 2,
               "column \"repeat\": \"0\" is below 1");
}

TEST(LevelTable, RowsWithTheWrongNumberOfCells) {
  const std::string header = "level,achieved_rps,p50_ms,p95_ms,error_rate\n";
  expect_error(header + "10,100,1,2\n", 2, "4 cells, but the header has 5 columns");
  expect_error(header + "10,100,1,2,0\r\n20,200,1,2,0,\r\n", 3,
               "6 cells, but the header has 5 columns");
}

TEST(LevelTable, EmptyTables) {
  expect_error("", 1, "header row");
  expect_error("\n\n", 1, "header row");
  expect_error("level,achieved_rps,p50_ms,p95_ms,error_rate\n", 2, "no data rows");
  expect_error("level,achieved_rps,p50_ms,p95_ms,error_rate\n\n\n", 2, "no data rows");
}

TEST(LevelTable, ReadsAFileAndNamesItInErrors) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("level_table_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
       "_" + std::to_string(reinterpret_cast<uintptr_t>(&dir)));
  std::filesystem::create_directories(dir);
  const std::filesystem::path good = dir / "good.csv";
  std::ofstream(good) << "level,achieved_rps,p50_ms,p95_ms,error_rate\n10,100,1,2,0\n";
  EXPECT_EQ(read_level_table(good).rows.size(), 1u);

  const std::filesystem::path bad = dir / "bad.csv";
  std::ofstream(bad) << "level,achieved_rps,p50_ms,p95_ms,error_rate\n10,x,1,2,0\n";
  try {
    read_level_table(bad);
    ADD_FAILURE() << "bad.csv parsed";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(bad.string() + ":2: ", 0), 0u) << e.what();
  }

  const std::filesystem::path missing = dir / "missing.csv";
  try {
    read_level_table(missing);
    ADD_FAILURE() << "missing.csv read";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read table '" + missing.string() + "': No such file or directory");
  }
  try {
    read_level_table(dir);
    ADD_FAILURE() << "a directory read";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read table '" + dir.string() + "': it is a directory");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace proofload::analyze
