// Tests of a comparison's summary.md and cells.csv: the headline, a row per check with the noise
// it was judged against, what was not judged said, and a CSV row per run.
#include "report/compare_report.h"

#include <gtest/gtest.h>

namespace proofload::report {
namespace {

result::CompareRun run(const std::string& side, const std::string& check, int64_t repeat,
                       std::optional<double> value, int64_t errors = 0) {
  result::CompareRun r;
  r.side = side;
  r.check = check;
  r.condition = "warm";
  r.repeat = repeat;
  r.directory = side + "/warm/" + check + "-r" + std::to_string(repeat);
  r.status = "complete";
  r.value = value;
  r.requests = 500;
  r.errors = errors;
  return r;
}

result::CompareResult sample() {
  result::CompareResult r;
  r.status = "complete";
  r.proofload_version = "1.0";
  r.command_line = "proofload compare m.yaml --a http://127.0.0.1:1/ --b http://127.0.0.1:2/";
  r.started_at = "2026-12-02T12:00:00Z";
  r.settings.matrix_file = "m.yaml";
  r.settings.a = "http://127.0.0.1:1/";
  r.settings.b = "http://127.0.0.1:2/";
  r.settings.conditions = {"warm"};
  r.settings.connections = 4;
  r.settings.duration_s = 2;
  r.settings.warmup_s = 1;
  r.settings.order = "for each repeat, each cell runs on A and then at once on B";
  for (int64_t i = 1; i <= 3; ++i) {
    r.runs.push_back(run("a", "lookup", i, 4.0));
    r.runs.push_back(run("b", "lookup", i, 8.0, i == 1 ? 2 : 0));
  }
  r.runs.push_back(run("a", "search", 1, 3.0));
  r.runs.push_back(run("b", "search", 1, std::nullopt));
  result::judge_compare(r);
  return r;
}

TEST(CompareReport, SaysTheHeadlineAndEachCheckWithItsNoise) {
  const std::string md = render_compare_summary(sample());
  EXPECT_NE(md.find("# Compare: is B faster than A?"), std::string::npos);
  EXPECT_NE(md.find("| Is B faster than A? | B faster on none of 2 checks, level on none, slower "
                    "on 1, not judged on 1 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| By condition | warm: faster on none of 2 checks"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| lookup | warm | 4.0 | 8.0 | 2.000 | 5.0% | slower | 0 of 1,500 | 2 of "
                    "1,500 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| search | warm | 3.0 | – | – |"), std::string::npos) << md;
  EXPECT_NE(md.find("search (warm): not judged: 1 repeats of A and 0 of B"), std::string::npos)
      << md;
  EXPECT_NE(md.find("1 of 8 runs measured nothing"), std::string::npos) << md;
  EXPECT_NE(md.find("## What this does not show"), std::string::npos);
  EXPECT_NE(md.find("Warm checks measure with caches filled"), std::string::npos);
  EXPECT_NE(md.find("proofload compare m.yaml"), std::string::npos);
}

TEST(CompareReport, TheSameDataGivesTheSameBytes) {
  EXPECT_EQ(render_compare_summary(sample()), render_compare_summary(sample()));
}

TEST(CompareReport, CsvHasARowPerRun) {
  const std::string csv = render_compare_csv(sample());
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "side,check,condition,repeat,value,requests,errors,status,directory");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 9);
  EXPECT_NE(csv.find("\nb,lookup,warm,1,8,500,2,complete,b/warm/lookup-r1\n"), std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\nb,search,warm,1,,500,0,complete,b/warm/search-r1\n"), std::string::npos)
      << csv;
}

}  // namespace
}  // namespace proofload::report
