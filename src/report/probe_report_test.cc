// The probe's summary.md on constructed results (result/probe_test_support.h): the lines a reader
// relies on carry the numbers of the result, each statement appears when its fact holds, and
// rendering is a pure function of result.json. Then the per-second CSVs, written and read back.
#include "report/probe_report.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "report/markdown_test_support.h"
#include "report/markdown_text.h"
#include "result/probe_test_support.h"
#include "words/numbers.h"
#include "words/probe_words.h"

namespace proofload::report {
namespace {

using analyze::ProbeSourceFigures;
using result::testing_support::separate_probe;
using result::testing_support::shared_probe;
using testing_support::first_table;
using testing_support::section;

std::vector<std::string> short_row(const std::string& summary, const std::string& question) {
  for (const auto& row : first_table(section(summary, "The short version"))) {
    if (row[0] == question) return row;
  }
  ADD_FAILURE() << "no row " << question;
  return {"", "", ""};
}

std::vector<std::string> source_row(const std::string& summary, const std::string& address) {
  for (const auto& row : first_table(section(summary, "Sources"))) {
    if (row[0] == address) return row;
  }
  ADD_FAILURE() << "no row " << address;
  return std::vector<std::string>(9);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Two pods of 100/s behind one address: two sources split 200/s. The report says two allowances
// wherever it names the sharing, never one.
TEST(ProbeReport, TwoSourcesSharingTwoAllowances) {
  Rng rng = make_rng(41, 0);
  const result::ProbeResult r = result::testing_support::probe_result(
      analyze::testing_support::sharing(2, rng, 0, 200), "100/s");
  const std::string md = render_probe_summary(r);
  const auto verdict = short_row(md, "Does each address get its own allowance?");
  EXPECT_TRUE(verdict[1].starts_with(
      "Shared allowance: 127.0.0.2 and 127.0.0.3 share two allowances: their per-second counts"))
      << verdict[1];
  const std::string between = section(md, "Between sources");
  const auto correlations = first_table(between);
  ASSERT_EQ(correlations.size(), 2u);
  EXPECT_EQ(correlations[1][3], "share two allowances: what one gains, the other loses");
  EXPECT_TRUE(has(between, "127.0.0.2 and 127.0.0.3 share 2 allowances between them: their "
                           "sustained rates add up to 2.00 × 100/s."))
      << between;
  EXPECT_FALSE(has(md, "one allowance")) << md;
}

TEST(ProbeReport, TwoSourcesSharingOneAllowance) {
  const result::ProbeResult r = shared_probe();
  const std::string md = render_probe_summary(r);

  EXPECT_TRUE(md.starts_with("# Probe: does each address get its own allowance?\n\n")) << md;
  const auto verdict = short_row(md, "Does each address get its own allowance?");
  EXPECT_TRUE(
      verdict[1].starts_with("Shared allowance: 127.0.0.2 and 127.0.0.3 share one "
                             "allowance: their per-second counts correlate at r = −"))
      << verdict[1];
  EXPECT_EQ(short_row(md, "Does a header lift the limit?")[1],
            "`X-Internal: yes`: lifted and `Origin: https://example.test`: held");
  EXPECT_EQ(short_row(md, "Did each source meet --expect?")[1],
            "0 of 2 met `100/s,burst=600`; not 127.0.0.2 and 127.0.0.3; 127.0.0.4 failed, not "
            "judged");

  for (const ProbeSourceFigures& f : r.analysis.sources) {
    const auto row = source_row(md, f.failed ? f.address + " (failed)" : f.address);
    EXPECT_EQ(row[1], words::count_text(static_cast<double>(f.let_through)));
    EXPECT_EQ(row[2], words::count_text(static_cast<double>(f.limited)));
    EXPECT_EQ(row[3], words::count_text(static_cast<double>(f.other)));
    EXPECT_EQ(row[4], words::count_text(static_cast<double>(f.total)));
    if (f.failed) {
      EXPECT_EQ(row[5], "–");
      EXPECT_EQ(row[8], "failed");
      continue;
    }
    EXPECT_EQ(row[5], "300");
    EXPECT_EQ(row[6], words::count_text(std::round(*f.burst_from_totals)));
    EXPECT_EQ(row[7], words::rate_number(f.sustained->mean) + " (" +
                          words::count_text(f.sustained->min) + "–" +
                          words::count_text(f.sustained->max) + ")");
    EXPECT_EQ(row[8], "missed");
  }
  EXPECT_TRUE(has(section(md, "Sources"),
                  "127.0.0.4 failed: connect to 127.0.0.1:8080 from 127.0.0.4: connection "
                  "refused. It is named here and left out of the correlations and the verdict."));

  const auto correlations = first_table(section(md, "Between sources"));
  ASSERT_EQ(correlations.size(), 2u);  // the header and the one pair that answered
  EXPECT_EQ(correlations[1][0], "127.0.0.2");
  EXPECT_EQ(correlations[1][1], "127.0.0.3");
  EXPECT_EQ(correlations[1][2], words::correlation_text(*r.analysis.correlations[0].r));
  EXPECT_EQ(correlations[1][3], "share one allowance: what one gains, the other loses");
  EXPECT_TRUE(
      has(section(md, "Between sources"), "add up to 100/s, against 2 × 100/s = 200/s expected."));

  EXPECT_TRUE(has(section(md, "Rate-limit headers"), "| 127.0.0.2 | `Retry-After` | 1 | 1 |"));
  EXPECT_TRUE(has(section(md, "Header variants"),
                  "- With `X-Internal: yes` from 127.0.0.2 for 5 s: lifted: 3,120 of 3,120 let "
                  "through and no 429, more than the allowance allows in 5 s (100/s + burst "
                  "600): the header lifts the limit.\n"));
  EXPECT_TRUE(has(section(md, "Header variants"),
                  "- With `Origin: https://example.test` from 127.0.0.2 for 5 s: held: 412 of "
                  "3,120 let through, 2,708 limited: the limit holds with the header.\n"));
  EXPECT_TRUE(has(section(md, "Findings"), "With `X-Internal: yes`, 3,120 of 3,120 let through"));

  const std::string not_shown = section(md, "What this does not show");
  EXPECT_TRUE(has(not_shown, "Loopback sources are addresses, not machines")) << not_shown;
  EXPECT_TRUE(has(not_shown, "Flat out measures the allowance"));
  EXPECT_TRUE(has(not_shown,
                  "- 127.0.0.4 failed (connect to 127.0.0.1:8080 from 127.0.0.4: "
                  "connection refused): it is named, not averaged in"))
      << not_shown;
  EXPECT_FALSE(has(not_shown, "lower bound"));
  EXPECT_TRUE(has(section(md, "Reproduce"), r.command_line));
}

TEST(ProbeReport, ThreeSeparateAllowancesOneBurstALowerBound) {
  const result::ProbeResult r = separate_probe();
  const std::string md = render_probe_summary(r);

  EXPECT_TRUE(short_row(md, "Does each address get its own allowance?")[1].starts_with(
      "Separate allowances: the 3 sources each sustained"));
  EXPECT_EQ(short_row(md, "Does a header lift the limit?")[1], "not tested (no --variant)");
  const std::string burst = short_row(md, "What burst does each get?")[1];
  EXPECT_EQ(burst,
            "30 to 600 before the first 429 (127.0.0.2: 600, 127.0.0.3: 30* and 127.0.0.4: "
            "600); * a lower bound: the totals give " +
                source_row(md, "127.0.0.3")[6] + " (127.0.0.3)");
  EXPECT_FALSE(has(md, "Did each source meet --expect?"));
  EXPECT_EQ(source_row(md, "127.0.0.3")[5], "30*");
  EXPECT_EQ(source_row(md, "127.0.0.3")[8], "–");
  EXPECT_EQ(first_table(section(md, "Between sources")).size(), 4u);
  EXPECT_FALSE(has(md, "## Header variants"));
  EXPECT_TRUE(has(section(md, "Rate-limit headers"), "None seen"));
  EXPECT_TRUE(has(section(md, "What this does not show"),
                  "With instances suspected (127.0.0.3), the burst before the first 429 is a "
                  "lower bound"));
}

TEST(ProbeReport, RenderedAgainFromResultJsonIsTheSameBytes) {
  for (const result::ProbeResult& r : {shared_probe(), separate_probe()}) {
    const result::ProbeResult back =
        result::probe_from_json(nlohmann::json::parse(result::probe_to_json(r).dump()));
    EXPECT_EQ(render_probe_summary(back), render_probe_summary(r));
  }
}

TEST(ProbeReport, ARebuiltReportSaysWhatItLacks) {
  result::ProbeResult r = shared_probe();
  r.rebuilt = true;
  r.status = "interrupted";
  r.end_reason = "interrupted (SIGINT)";
  const std::string md = render_probe_summary(r);
  EXPECT_TRUE(has(md, "Ended interrupted: interrupted (SIGINT)."));
  EXPECT_TRUE(has(section(md, "Rate-limit headers"), "Not known"));
  EXPECT_TRUE(has(section(md, "What this does not show"), "rebuilt from the per-second CSVs"));
}

TEST(ProbeReport, AProbeEndedBeforeItsAnalysisSaysSo) {
  result::ProbeResult r = shared_probe();
  r.status = "interrupted";
  r.analysis = {};
  r.variants.clear();
  const std::string md = render_probe_summary(r);
  EXPECT_EQ(short_row(md, "Does each address get its own allowance?")[1],
            "not judged: the probe ended before its analysis");
  EXPECT_EQ(short_row(md, "What burst does each get?")[1],
            "not measured: the probe ended before its analysis");
  EXPECT_EQ(short_row(md, "Does a header lift the limit?")[1],
            "not tested: the probe ended before its variants ran");
  EXPECT_TRUE(has(section(md, "Header variants"), "but not run"));
}

TEST(ProbeCsv, WrittenAndReadBackIsTheSameSeries) {
  const result::ProbeResult r = shared_probe();
  for (const analyze::ProbeSourceSeries& series : r.series) {
    const std::string csv = render_probe_csv(series);
    EXPECT_TRUE(csv.starts_with(kProbeCsvHeader));
    analyze::ProbeSourceSeries back;
    back.address = series.address;
    back.headers = series.headers;
    back.failure = series.failure;
    parse_probe_csv(csv, back);
    EXPECT_EQ(back, series) << series.address;
  }
  // The probe streams rows one by one: the same bytes.
  std::string streamed = std::string(kProbeCsvHeader) + "\n";
  for (const analyze::ProbeSecond& s : r.series[0].per_second) {
    streamed +=
        probe_csv_row(s, s.second == 0 ? r.series[0].let_through_before_first_429 : std::nullopt) +
        "\n";
  }
  EXPECT_EQ(streamed, render_probe_csv(r.series[0]));
}

TEST(ProbeCsv, ALastLineCutByAKillIsDropped) {
  const std::string csv =
      std::string(kProbeCsvHeader) + "\n0,700,1800,0,600\n1,100,2400,0,\n2,10";
  analyze::ProbeSourceSeries s;
  parse_probe_csv(csv, s);
  ASSERT_EQ(s.per_second.size(), 2u);
  EXPECT_EQ(s.per_second[1], (analyze::ProbeSecond{1, 100, 2400, 0}));
  EXPECT_EQ(s.let_through_before_first_429, 600);
  parse_probe_csv("second,let_thr", s);  // killed while writing the header
  EXPECT_TRUE(s.per_second.empty());
  EXPECT_FALSE(s.let_through_before_first_429);
}

TEST(ProbeCsv, AMalformedLineIsRefusedNamingItsNumber) {
  const std::string header = std::string(kProbeCsvHeader) + "\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {header + "0,700,1800,0,600\n1,100,x,0,\n", "line 3: "},
      {header + "0,700,1800,0\n", "line 2: "},
      {header + "0,700,1800,0,,\n", "line 2: "},
      {header + "0,-1,1800,0,\n", "line 2: "},
      {header + "0,700,1800,0,600\n1,100,2400,0,5\n", "line 3: a second first_429"},
      {"second,ok\n0,1,2,3,\n", "line 1: expected the header"},
  };
  for (const auto& [csv, start] : cases) {
    analyze::ProbeSourceSeries s;
    try {
      parse_probe_csv(csv, s);
      ADD_FAILURE() << "accepted " << csv;
    } catch (const std::runtime_error& e) {
      EXPECT_TRUE(std::string(e.what()).starts_with(start)) << e.what();
    }
  }
  // A damaged file's megabyte line is quoted by its start only: the error stays one short line.
  analyze::ProbeSourceSeries s;
  try {
    parse_probe_csv(header + std::string(1 << 20, '7') + "\n", s);
    ADD_FAILURE() << "accepted a megabyte of digits";
  } catch (const std::runtime_error& e) {
    EXPECT_LT(std::string(e.what()).size(), 200u) << e.what();
  }
}

}  // namespace
}  // namespace proofload::report
