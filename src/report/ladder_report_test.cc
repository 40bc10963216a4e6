// The ladder report on recorded results (testdata/ladder/*.json, each an analysis of its rows):
// the numbers in summary.md are those in result.json, each statement appears exactly when its
// fact holds, and rendering is a pure function of the JSON (levels.csv: ladder_csv_test.cc).
#include "report/ladder_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "analyze/level_table.h"
#include "report/ladder_test_support.h"
#include "report/markdown_test_support.h"
#include "report/test_fixtures.h"

namespace proofload::report {
namespace {

using nlohmann::json;

const std::string kDash = "–";

using testing_support::load_ladder;

using testing_support::first_table;
using testing_support::section;

// The row of a Question | Answer | Evidence table whose question starts with `question`.
std::vector<std::string> short_row(const std::string& summary, const std::string& question) {
  for (const auto& row : first_table(section(summary, "The short version"))) {
    if (row[0].starts_with(question)) return row;
  }
  ADD_FAILURE() << "no row " << question;
  return {"", "", ""};
}

struct Printed {
  double value = 0;
  int decimals = 0;
};

// "1,201.2*", "+63.3% flat", "0.25 (busy)", "2.50%" -> the number and its decimals.
Printed parse_printed(std::string cell) {
  for (const char* suffix : {" flat", " (busy)", "*", "%"}) {
    if (cell.ends_with(suffix)) cell.resize(cell.size() - std::string(suffix).size());
  }
  std::string digits;
  for (char c : cell) {
    if (c != ',') digits += c;
  }
  char* end = nullptr;
  const double value = std::strtod(digits.c_str(), &end);
  EXPECT_EQ(*end, '\0') << "not a number: " << cell;
  const size_t dot = digits.find('.');
  return {value, dot == std::string::npos ? 0 : static_cast<int>(digits.size() - dot - 1)};
}

// The printed cell is the JSON's value (times `scale`: 100 for percentages) within its printed
// rounding; a null value prints as the dash.
void expect_cell_is(const std::string& cell, const json& value, double scale,
                    const std::string& where) {
  if (value.is_null()) {
    EXPECT_EQ(cell, kDash) << where;
    return;
  }
  ASSERT_NE(cell, kDash) << where << " is measured: " << value;
  const Printed printed = parse_printed(cell);
  const double tolerance = 0.5 * std::pow(10, -printed.decimals) + 1e-9;
  EXPECT_NEAR(printed.value, value.get<double>() * scale, tolerance) << where << ": " << cell;
}

void expect_levels_table_matches_json(const json& result) {
  const std::string summary = render_ladder_summary(result);
  const auto table = first_table(section(summary, "Levels"));
  const json& levels = result["analysis"]["levels"];
  ASSERT_EQ(table.size(), levels.size() + 1) << summary;
  // column -> (key in analysis.levels[], scale)
  const std::map<std::string, std::pair<std::string, double>> columns = {
      {"level", {"level", 1}},
      {"runs", {"repeats", 1}},
      {"target/s", {"target_rps", 1}},
      {"achieved/s", {"achieved_rps", 1}},
      {"goodput/s", {"goodput_rps", 1}},
      {"arrivals/s", {"arrivals_rps", 1}},
      {"flows/s", {"flows_per_s", 1}},
      {"flow success", {"flow_success_rate", 100}},
      {"p50 ms", {"p50_ms", 1}},
      {"p95 ms", {"p95_ms", 1}},
      {"p99 ms", {"p99_ms", 1}},
      {"errors", {"error_rate", 100}},
      {"429", {"rate_429", 100}},
      {"never started", {"never_started", 100}},
      {"server cores", {"server_cores", 1}},
      {"throttled", {"server_throttled_share", 100}},
      {"gen. cores", {"generator_cores", 1}},
      {"host load", {"host_load1", 1}},
      {"host busy", {"host_cpu_busy", 100}},
      {"gain", {"gain", 100}},
      {"achieved CV", {"achieved_cv", 100}},
      {"p95 CV", {"p95_cv", 100}},
  };
  const std::vector<std::string>& header = table[0];
  for (size_t i = 0; i < levels.size(); ++i) {
    const json& level = levels[i];
    const std::vector<std::string>& row = table[i + 1];
    ASSERT_EQ(row.size(), header.size());
    for (size_t c = 0; c < header.size(); ++c) {
      const std::string where = "level " + level["level"].dump() + ", " + header[c];
      if (header[c] == "verdict") {
        EXPECT_EQ(row[c], level["verdict"].get<std::string>()) << where;
        continue;
      }
      const auto column = columns.find(header[c]);
      ASSERT_NE(column, columns.end()) << "unexpected column " << header[c];
      const std::string& key = column->second.first;
      expect_cell_is(row[c], level.contains(key) ? level[key] : json(), column->second.second,
                     where);
      for (const char* p : {"p50", "p95", "p99"}) {
        if (header[c] != std::string(p) + " ms" || level[std::string(p) + "_ms"].is_null())
          continue;
        const bool marked = row[c].ends_with("*");
        const bool untrusted = std::find(level["untrusted"].begin(), level["untrusted"].end(),
                                         json(p)) != level["untrusted"].end();
        EXPECT_EQ(marked, untrusted) << where;
      }
      if (header[c] == "gen. cores") {
        EXPECT_EQ(row[c].ends_with(" (busy)"), level["generator_busy"].get<bool>()) << where;
      }
      if (header[c] == "host busy") {
        EXPECT_EQ(row[c].ends_with(" (saturated)"),
                  level.contains("host_cpu_busy") && level["host_cpu_busy"].is_number() &&
                      level["host_cpu_busy"].get<double>() >= 0.9)
            << where;
      }
    }
  }
}

TEST(LadderSummary, LevelsTableNumbersAreThoseInResultJson) {
  for (const char* name : {"closed_knee", "open_repeats", "table_none", "search"}) {
    SCOPED_TRACE(name);
    expect_levels_table_matches_json(load_ladder(name));
  }
}

TEST(LadderSummary, RepeatsAddRunsAndVariationColumns) {
  const auto repeated =
      first_table(section(render_ladder_summary(load_ladder("open_repeats")), "Levels"));
  EXPECT_EQ(repeated[0][1], "runs");
  EXPECT_NE(std::find(repeated[0].begin(), repeated[0].end(), "achieved CV"), repeated[0].end());
  const auto single =
      first_table(section(render_ladder_summary(load_ladder("closed_knee")), "Levels"));
  EXPECT_EQ(std::find(single[0].begin(), single[0].end(), "runs"), single[0].end());
}

TEST(LadderSummary, ShortVersionNamesKneeBestSustainedAndOperatingTarget) {
  const std::string summary = render_ladder_summary(load_ladder("closed_knee"));
  const auto buckle = short_row(summary, "Where does it buckle?");
  EXPECT_TRUE(buckle[1].starts_with("About 2,041/s at level 32 — saturation point:")) << buckle[1];
  EXPECT_NE(buckle[1].find("the server used 1.04 cores there"), std::string::npos) << buckle[1];
  EXPECT_EQ(buckle[2], "ladder, levels 32–128");
  const auto best = short_row(summary, "Best sustained within the SLO (p95 ≤ 1 s, errors ≤ 1%)?");
  EXPECT_EQ(best[1], "2,066/s at level 64");
  EXPECT_EQ(best[2], "level 64: p95 = 36.8 ms, errors = 0%");
  const auto operating = short_row(summary, "Recommended operating target");
  EXPECT_TRUE(operating[1].starts_with("≤ 1,020/s (50% of the knee")) << operating[1];
  // Three significant digits, and the hold they rest on: an extrapolation from 10 s.
  EXPECT_EQ(short_row(summary, "Daily capacity")[1],
            "88,200,000 requests/day at the operating target (measured over 10 s) and 179,000,000 "
            "at best sustained (measured over 10 s)");
  EXPECT_EQ(short_row(summary, "Daily capacity")[2],
            "rate × 86,400 s, rounded to 3 significant digits");
  EXPECT_TRUE(
      short_row(summary, "Is throughput flat anywhere?")[1].starts_with("Yes: from level 32"));
  EXPECT_EQ(short_row(summary, "Was the generator the limit?")[1],
            "No: it used at most 0.25 cores (level 128) and was never busy (80% of its cores)");
}

TEST(LadderSummary, NoKneeSaysNotReachedWithTheHighestLevel) {
  json result = load_ladder("closed_knee");
  result["analysis"]["knee"] = nullptr;
  result["analysis"]["levels"][4]["gain"] = 0.2;
  const std::string summary = render_ladder_summary(result);
  EXPECT_EQ(short_row(summary, "Where does it buckle?")[1],
            "Not reached: goodput still grew at the highest level tested (1,843/s at level 128)");
  EXPECT_NE(section(summary, "Findings").find("**No knee within the levels tested**"),
            std::string::npos);
}

TEST(LadderSummary, NoLevelWithinTheSloGivesTheNoneTexts) {
  const std::string summary = render_ladder_summary(load_ladder("table_none"));
  EXPECT_EQ(short_row(summary, "Best sustained")[1], "None: the lowest level was already past it");
  EXPECT_EQ(short_row(summary, "Best sustained")[2], "level 100: p95 = 420.0 ms");
  EXPECT_EQ(short_row(summary, "Recommended operating target")[1],
            "None: the lowest level already broke the SLO");
  EXPECT_EQ(short_row(summary, "Daily capacity")[1],
            "Not computed: no operating target and no level within the SLO");
  EXPECT_EQ(short_row(summary, "Was the generator the limit?")[1],
            "Not measured: no generator CPU in the data");
  EXPECT_NE(summary.find("**No level met the SLO**: the lowest level was already past it."),
            std::string::npos);
}

TEST(LadderSummary, OperatingTargetAboveBestSustainedIsFlagged) {
  // An analysis recorded before the target was capped at best sustained.
  json recorded = load_ladder("open_repeats");
  recorded["analysis"]["operating_target_rps"] = 313.4;
  const std::string flagged = render_ladder_summary(recorded);
  EXPECT_NE(short_row(flagged, "Recommended operating target")[1].find(
                "It is above the best sustained within the SLO (196/s at level 200)"),
            std::string::npos);
  EXPECT_EQ(render_ladder_summary(load_ladder("open_repeats")).find("above the best sustained"),
            std::string::npos);
  EXPECT_EQ(render_ladder_summary(load_ladder("closed_knee")).find("above the best sustained"),
            std::string::npos);
}

TEST(LadderSummary, SearchHasItsRowAndSteps) {
  const std::string summary = render_ladder_summary(load_ladder("search"));
  EXPECT_EQ(short_row(summary, "Highest rate within the SLO (search)")[1],
            "325/s, confirmed: the 30 s confirming run at that rate held the SLO");
  const auto steps = first_table(section(summary, "Search steps"));
  ASSERT_EQ(steps.size(), 9u);
  EXPECT_EQ(steps[0], (std::vector<std::string>{"step", "phase", "rate/s", "passed", "achieved/s",
                                                "goodput/s", "p95 ms"}));
  EXPECT_EQ(steps[3],
            (std::vector<std::string>{"3", "grow", "400", "no", "352", "352", "1,630.0"}));
  EXPECT_EQ(steps[7],
            (std::vector<std::string>{"7", "bisect", "337.5", "no", "335", "335", "1,004.3"}));
  EXPECT_EQ(steps[8],
            (std::vector<std::string>{"8", "confirm", "325", "yes", "325", "325", "44.9"}));
  EXPECT_NE(section(summary, "Search steps")
                .find("The search ended: converged within 5%: between 325/s and 337.5/s."),
            std::string::npos);

  json unconfirmed = load_ladder("search");
  unconfirmed["search"]["confirmed"] = false;
  EXPECT_TRUE(short_row(render_ladder_summary(unconfirmed), "Highest rate")[1].starts_with(
      "325/s, NOT confirmed"));
  EXPECT_EQ(section(render_ladder_summary(load_ladder("closed_knee")), "Search steps"), "");
}

TEST(LadderSummary, CpuQuotaIsTheCeilingOnlyWhenThrottlingShowsIt) {
  const std::string throttled = section(render_ladder_summary(load_ladder("search")), "Findings");
  EXPECT_NE(throttled.find("The ceiling is the server's CPU quota (measured): here the server used "
                           "0.72 cores and was throttled in 3.10% of its CPU periods."),
            std::string::npos)
      << throttled;
  const std::string unthrottled =
      section(render_ladder_summary(load_ladder("closed_knee")), "Findings");
  EXPECT_EQ(unthrottled.find("The ceiling is"), std::string::npos);
  EXPECT_NE(unthrottled.find("why it stopped scaling was not measured"), std::string::npos);
}

TEST(LadderSummary, AServerAtTheCoresItCanUseIsCalledCpuBoundWithTheFigure) {
  // The demo's server: one thread pinned to one CPU, using all of it at the knee.
  json result = load_ladder("closed_knee");
  json& knee = result["analysis"]["levels"][2];
  knee["server_cores"] = 0.98;
  knee["server_cpu_limit_cores"] = 1;
  knee["server_cpu_limit_basis"] = "the one CPU its affinity allows";
  knee["server_cpu_bound"] = true;
  const std::string summary = render_ladder_summary(result);
  EXPECT_NE(section(summary, "Findings")
                .find("The ceiling is the server's CPU (measured): here it used 0.98 of the 1 core "
                      "it could use (the one CPU its affinity allows)."),
            std::string::npos)
      << section(summary, "Findings");
  EXPECT_NE(short_row(summary, "Where does it buckle?")[1].find("CPU-bound there"),
            std::string::npos);
  EXPECT_EQ(summary.find("whether CPU was the limit is not shown"), std::string::npos);
  // Short of its limit: CPU was not what stopped it, and the report says so.
  knee["server_cores"] = 0.5;
  knee["server_cpu_bound"] = false;
  EXPECT_NE(render_ladder_summary(result).find("short of it: CPU was not what stopped it"),
            std::string::npos);
}

// ---- What this does not show: each statement exactly when its fact holds ----

std::string limits(const json& result) {
  return section(render_ladder_summary(result), "What this does not show");
}

bool says(const std::string& text, const std::string& phrase) {
  return text.find(phrase) != std::string::npos;
}

TEST(LadderLimits, ClosedLoopOnlyForClosedLoop) {
  const std::string phrase =
      "measures what the system accepts, not what happens when demand does not wait";
  json result = load_ladder("closed_knee");
  EXPECT_TRUE(says(limits(result), phrase));
  result["settings"]["loop"] = "open";
  EXPECT_FALSE(says(limits(result), phrase));
  EXPECT_FALSE(says(limits(load_ladder("open_repeats")), phrase));
}

TEST(LadderLimits, OneRunPerLevelOnlyWithoutRepeats) {
  const std::string phrase =
      "One run per level gives no variance: differences under the 5.0% noise floor are not "
      "findings";
  json result = load_ladder("closed_knee");
  EXPECT_TRUE(says(limits(result), phrase));
  result["settings"]["repeat"] = 3;
  EXPECT_FALSE(says(limits(result), "One run per level"));
  EXPECT_FALSE(says(limits(load_ladder("open_repeats")), "One run per level"));
}

TEST(LadderLimits, GeneratorBusyNamesItsLevels) {
  json result = load_ladder("closed_knee");
  EXPECT_FALSE(says(limits(result), "generator was flagged busy"));
  result["analysis"]["levels"][3]["generator_busy"] = true;
  result["analysis"]["levels"][4]["generator_busy"] = true;
  EXPECT_TRUE(says(limits(result),
                   "The generator was flagged busy (80% or more of its cores) at "
                   "levels 64 and 128"));
}

TEST(LadderLimits, NoServerObserver) {
  const std::string phrase =
      "No server observer was attached, so nothing here says why it stopped scaling";
  json result = load_ladder("closed_knee");
  EXPECT_FALSE(says(limits(result), phrase));
  result["settings"]["server_observed"] = false;
  for (json& level : result["analysis"]["levels"]) level["server_cores"] = nullptr;
  EXPECT_TRUE(says(limits(result), phrase));
  EXPECT_TRUE(says(limits(load_ladder("open_repeats")), phrase));
}

TEST(LadderLimits, UntrustedPercentilesNameTheirLevels) {
  EXPECT_FALSE(says(limits(load_ladder("closed_knee")), "trustworthy"));
  const std::string text = limits(load_ladder("open_repeats"));
  EXPECT_TRUE(
      says(text, "At 10 s each, levels 10 and 50 hold too few requests for a trustworthy p99"))
      << text;
  EXPECT_TRUE(says(text, "At 10 s each, level 10 holds too few requests for a trustworthy p95"));
  const std::string notes = section(render_ladder_summary(load_ladder("open_repeats")), "Levels");
  EXPECT_TRUE(
      says(notes, "\\* fewer than 10 requests at or beyond this percentile: shown, not trusted"));
  EXPECT_FALSE(
      says(section(render_ladder_summary(load_ladder("closed_knee")), "Levels"), "not trusted"));
}

TEST(LadderLimits, HostLoadOnlyWhenItChangedALot) {
  json result = load_ladder("closed_knee");
  EXPECT_TRUE(
      says(limits(result), "The host's load average rose from 0.4 (level 8) to 3.1 (level 128)"));
  result["analysis"]["levels"][4]["host_load1"] = 1.3;  // 3.25 times, but 0.9 apart
  EXPECT_FALSE(says(limits(result), "load average"));
  for (json& level : result["analysis"]["levels"]) level["host_load1"] = 2.0;
  result["analysis"]["levels"][4]["host_load1"] = 3.5;  // 1.5 apart, but 1.75 times
  EXPECT_FALSE(says(limits(result), "load average"));
  result["analysis"]["levels"][0]["host_load1"] = 5.0;
  result["analysis"]["levels"][4]["host_load1"] = 0.5;
  EXPECT_TRUE(says(limits(result), "fell from 5.0 (level 8) to 0.5 (level 128)"));
}

TEST(LadderLimits, StoppedRunSaysWhatWasNotRun) {
  const std::string summary = render_ladder_summary(load_ladder("open_repeats"));
  const std::string text = section(summary, "What this does not show");
  EXPECT_TRUE(says(text,
                   "The run did not complete (stopped): stopped at level 800, the first that "
                   "broke the SLO (--stop-on-fail). Level 1,600 planned but not run"))
      << text;
  EXPECT_TRUE(says(text, "Level 800 ran 1 of 3 runs."));
  EXPECT_TRUE(says(summary, "**Not complete (stopped)**"));
  EXPECT_FALSE(says(limits(load_ladder("closed_knee")), "did not complete"));
  EXPECT_FALSE(says(render_ladder_summary(load_ladder("closed_knee")), "Not complete"));

  json cut = load_ladder("closed_knee");
  cut["status"] = "interrupted";
  cut["end_reason"] = "interrupted by a signal during level 128";
  cut["rows"][4]["status"] = "interrupted";
  EXPECT_TRUE(says(limits(cut),
                   "Level 128 (interrupted) was cut short: its figures cover only the "
                   "part that ran."));
}

TEST(LadderLimits, TableAndSearchSayWhatTheyDidNotMeasure) {
  EXPECT_TRUE(
      says(limits(load_ladder("table_none")), "taken from a table as given and not re-measured"));
  EXPECT_TRUE(says(limits(load_ladder("table_none")), "The table holds no server CPU"));
  EXPECT_FALSE(says(limits(load_ladder("closed_knee")), "table"));
  const std::string search = limits(load_ladder("search"));
  EXPECT_TRUE(says(search, "The rates between the search's steps were not measured"));
  EXPECT_TRUE(says(search, "The steps held 10 s, shorter than the confirming run (30 s)"));
  EXPECT_FALSE(says(limits(load_ladder("closed_knee")), "search"));
}

// ---- Between levels ----

TEST(LadderSummary, EventsTableReadsDrainWaitsPlainly) {
  const std::string summary = render_ladder_summary(load_ladder("closed_knee"));
  const auto events = first_table(section(summary, "Between levels"));
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events[0], (std::vector<std::string>{"level", "what", "command", "took", "result",
                                                 "output file"}));
  EXPECT_EQ(events[1], (std::vector<std::string>{"before the first level", "pre-check",
                                                 "`http://127.0.0.1:8080/health`", "0.01 s",
                                                 "ok: HTTP 200", kDash}));
  EXPECT_EQ(events[3], (std::vector<std::string>{
                           "16", "drain gate", "`http://127.0.0.1:8080/health`",
                           "waited 1.5 s for the drain gate", "ready: HTTP 200 after 4 attempts",
                           "`hooks/02-16-drain.log`"}));
  EXPECT_TRUE(says(summary,
                   "The drain gate was waited on 2 times, 1.75 s in all; the longest wait "
                   "was 1.5 s before level 16."));

  json failed = load_ladder("closed_knee");
  failed["events"][1]["ok"] = false;
  failed["events"][1]["exit_code"] = 3;
  failed["events"][1]["detail"] = "exit 3";
  failed["events"][1]["command"] = "./reset.sh | tee log";
  const auto failed_events = first_table(section(render_ladder_summary(failed), "Between levels"));
  EXPECT_EQ(failed_events[2][2], "`./reset.sh | tee log`");  // the pipe is escaped, not a column
  EXPECT_EQ(failed_events[2][4], "FAILED: exit 3");

  EXPECT_EQ(section(render_ladder_summary(load_ladder("open_repeats")), "Between levels"), "");
}

// ---- SLO values and nulls ----

// The index of a table's column by its header.
size_t column_of(const std::vector<std::vector<std::string>>& table, const std::string& name) {
  const auto& header = table.at(0);
  const auto it = std::find(header.begin(), header.end(), name);
  EXPECT_NE(it, header.end()) << "no column " << name;
  return static_cast<size_t>(it - header.begin());
}

TEST(LadderSummary, TableNeverRoundsAFailureIntoAPass) {
  json result = load_ladder("closed_knee");
  json& level = result["analysis"]["levels"][3];
  level["p95_ms"] = 1000.04;
  level["slo"][0] = {{"expression", "p95<=1s"},
                     {"observed", 1000.04},
                     {"observed_text", "p95 = 1000.04 ms"},
                     {"passed", false}};
  level["error_rate"] = 0.010004;
  level["slo"][1] = {{"expression", "errors<=1%"},
                     {"observed", 0.010004},
                     {"observed_text", "errors = 1.0004%"},
                     {"passed", false}};
  const auto table = first_table(section(render_ladder_summary(result), "Levels"));
  const size_t p95 = column_of(table, "p95 ms");
  EXPECT_EQ(table[4][p95], "1,000.04");
  EXPECT_EQ(table[4][column_of(table, "errors")], "1.0004%");
  EXPECT_EQ(table[3][p95], "18.9");  // others keep the usual precision
}

TEST(LadderSummary, NullsAreDashesNeverZeroOrNull) {
  const std::string summary = render_ladder_summary(load_ladder("table_none"));
  EXPECT_FALSE(says(summary, "null"));
  const auto table = first_table(section(summary, "Levels"));
  for (size_t r = 1; r < table.size(); ++r) {
    for (const char* column : {"server cores", "throttled", "gen. cores"}) {
      EXPECT_EQ(table[r][column_of(table, column)], kDash) << column;
    }
  }
  EXPECT_EQ(table[1][column_of(table, "gain")], kDash);  // the first level has no gain
}

TEST(LadderSummary, MissingOptionalKeysReadAsNotRecorded) {
  const json minimal = {{"schema", "proofload.ladder/v1"},
                        {"kind", "ladder"},
                        {"status", "complete"},
                        {"analysis", {{"levels", {{{"level", 4}, {"achieved_rps", 120.5}}}}}}};
  std::string summary;
  ASSERT_NO_THROW(summary = render_ladder_summary(minimal));
  EXPECT_TRUE(says(summary, "Start time not recorded")) << summary;
  EXPECT_TRUE(says(summary, "The command was not recorded."));
  EXPECT_FALSE(says(summary, "null"));
  const auto levels = first_table(section(summary, "Levels"));
  EXPECT_EQ(levels[1][column_of(levels, "p50 ms")], kDash);
  // Not recorded is never a default presented as found: no verdict, loop or noise floor.
  EXPECT_EQ(levels[1][column_of(levels, "verdict")], kDash);
  EXPECT_TRUE(says(summary, "Loop not recorded")) << summary;
  EXPECT_TRUE(says(summary, "Noise floor: not recorded.")) << summary;

  // Every optional key of a full result, removed one at a time.
  const json full = load_ladder("search");
  for (const auto& [key, value] : full.items()) {
    if (key == "schema" || key == "kind" || key == "status" || key == "analysis") continue;
    json without = full;
    without.erase(key);
    EXPECT_NO_THROW(render_ladder_summary(without)) << key;
  }
  json bare_levels = full;
  for (json& level : bare_levels["analysis"]["levels"]) {
    level = {{"level", level["level"]}, {"achieved_rps", level["achieved_rps"]}};
  }
  for (const char* key : {"slo", "noise_floor", "knee", "best_sustained", "peak", "plateau",
                          "operating", "daily_capacity", "operating_target_rps"}) {
    bare_levels["analysis"].erase(key);
  }
  EXPECT_NO_THROW(render_ladder_summary(bare_levels));
}

void expect_throws_naming(const json& result, const std::string& key, bool csv = false) {
  try {
    csv ? render_levels_csv(result) : render_ladder_summary(result);
    ADD_FAILURE() << "no error for " << key;
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(says(e.what(), key)) << e.what();
  }
}

TEST(LadderSummary, NoLevelYetSaysSoAndWhy) {
  // A ladder whose pre-check or first drain gate failed has rows: [] and analysis: null.
  json result = load_ladder("closed_knee");
  result["rows"] = json::array();
  result["analysis"] = nullptr;
  result["status"] = "failed";
  result["end_reason"] = "the pre-check http://127.0.0.1:9/health answered connection refused";
  const std::string summary = render_ladder_summary(result);
  EXPECT_TRUE(says(summary,
                   "No level was measured: the pre-check http://127.0.0.1:9/health "
                   "answered connection refused."))
      << summary;
  EXPECT_FALSE(says(summary, "## Levels"));
  EXPECT_TRUE(says(summary, "## Reproduce"));
}

TEST(LadderSummary, MissingRequiredKeyThrowsNamingIt) {
  for (const char* key : {"schema", "kind", "status"}) {
    json result = load_ladder("closed_knee");
    result.erase(key);
    expect_throws_naming(result, std::string("'") + key + "'");
  }
  json result = load_ladder("closed_knee");
  result["analysis"]["levels"][1].erase("achieved_rps");
  expect_throws_naming(result, "'analysis.levels[1].achieved_rps'");
  result = load_ladder("closed_knee");
  result["rows"][2].erase("level");
  expect_throws_naming(result, "'rows[2].level'");
  result = load_ladder("closed_knee");
  result["analysis"]["levels"][0]["p95_ms"] = "fast";
  expect_throws_naming(result, "'analysis.levels[0].p95_ms' is not a number");
  result = load_ladder("closed_knee");
  result["schema"] = "proofload.result/v1";
  expect_throws_naming(result, "proofload.result/v1");
  result = load_ladder("closed_knee");
  result.erase("rows");
  expect_throws_naming(result, "'rows'", /*csv=*/true);
}

// ---- Determinism and golden files ----

TEST(LadderSummary, RendersTheSameBytesAgainFromTheWrittenJson) {
  for (const char* name : {"closed_knee", "open_repeats", "table_none", "search"}) {
    const json result = load_ladder(name);
    const json reread = json::parse(result.dump(2));  // as `proofload report DIR` reads it back
    EXPECT_EQ(render_ladder_summary(result), render_ladder_summary(reread)) << name;
    EXPECT_EQ(render_levels_csv(result), render_levels_csv(reread)) << name;
  }
}

TEST(LadderSummary, MatchesGolden) {
  testing_support::expect_matches_golden("ladder/closed_knee.summary.md",
                                         render_ladder_summary(load_ladder("closed_knee")));
  testing_support::expect_matches_golden("ladder/search.summary.md",
                                         render_ladder_summary(load_ladder("search")));
}

}  // namespace
}  // namespace proofload::report
