// A probe's result.json read back is the result that was written: the series (what each source
// recorded, so sources can be merged and analysed again) and the analysis both, exactly; keys
// scripts read keep their names; a damaged file is refused with the key named.
#include "result/probe_result.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "result/probe_expectation.h"
#include "result/probe_test_support.h"
#include "words/probe_words.h"

namespace proofload::result {
namespace {

using nlohmann::json;
using testing_support::separate_probe;
using testing_support::shared_probe;

ProbeResult round_trip(const ProbeResult& r) {
  return probe_from_json(json::parse(probe_to_json(r).dump()));
}

std::string probe_error_of(const json& file) {
  try {
    probe_from_json(file);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(ProbeResultJson, SeriesAndAnalysisSurviveTheRoundTripExactly) {
  ProbeResult rebuilt = separate_probe();
  rebuilt.rebuilt = true;
  rebuilt.status = "interrupted";
  rebuilt.end_reason = "interrupted (SIGINT)";
  for (const ProbeResult& original : {shared_probe(), separate_probe(), rebuilt}) {
    const ProbeResult back = round_trip(original);
    EXPECT_EQ(back.series, original.series);
    EXPECT_EQ(back.analysis, original.analysis);
    EXPECT_EQ(back.variants, original.variants);
    EXPECT_EQ(probe_to_json(back), probe_to_json(original));
    // Analysing the series read back gives the analysis read back: a merge starts from them.
    EXPECT_EQ(words::described_probe(back.series, back.settings.duration_s, back.settings.settle_s,
                                     back.settings.expect
                                         ? std::optional(parse_probe_expectation(
                                               *back.settings.expect, back.settings.tolerance))
                                         : std::nullopt,
                                     back.settings.tolerance),
              original.analysis);
  }
}

TEST(ProbeResultJson, ASourceWithNoAnswerKeepsItsEmptyFailure) {
  ProbeResult r = separate_probe();
  r.series.push_back(analyze::testing_support::probe_source(3));
  r.series.back().per_second.push_back({0, 0, 0, 12});  // timeouts only
  r.analysis = words::described_probe(r.series, 60, 10, std::nullopt);
  ASSERT_EQ(r.analysis.sources.back().failure, analyze::kNoAnswerFailure);
  const ProbeResult back = round_trip(r);
  EXPECT_EQ(back.series.back().failure, "");
  EXPECT_EQ(back.analysis, r.analysis);
}

TEST(ProbeResultJson, ADamagedLengthIsNotCountedSecondBySecondWhenRead) {
  const ProbeResult r = separate_probe();
  json file = probe_to_json(r);
  file["measured_s"] = 1e7;  // 3 sources x 1e7 s would be 240 MB of counted seconds
  const ProbeResult back = probe_from_json(file);
  EXPECT_EQ(back.analysis.verdict, r.analysis.verdict);  // the file's words stand
  EXPECT_EQ(back.analysis.reason, r.analysis.reason);
  EXPECT_EQ(back.analysis.cause, analyze::ProbeCause::kNone);  // its facts are not judged again
  EXPECT_EQ(probe_to_json(back), file);
  // Read as recorded, the same analysis has its facts again.
  EXPECT_EQ(round_trip(r).analysis.cause, r.analysis.cause);
  EXPECT_NE(r.analysis.cause, analyze::ProbeCause::kNone);
}

TEST(ProbeResultJson, BeforeTheAnalysisOnlyTheSeriesAreWritten) {
  ProbeResult r = shared_probe();
  r.status = "running";
  r.analysis = {};
  r.variants.clear();
  const json file = probe_to_json(r);
  EXPECT_TRUE(file["probe"]["verdict"].is_null());
  EXPECT_FALSE(file["probe"]["sources"][0].contains("let_through"));
  EXPECT_EQ(file["probe"]["sources"][2]["failure"], r.series[2].failure);
  const ProbeResult back = round_trip(r);
  EXPECT_EQ(back.series, r.series);
  EXPECT_EQ(back.analysis, analyze::ProbeAnalysis{});
}

TEST(ProbeResultJson, KeysScriptsReadKeepTheirNames) {
  const ProbeResult r = shared_probe();
  const json file = probe_to_json(r);
  EXPECT_EQ(file["schema"], "proofload.probe/v1");
  EXPECT_EQ(file["kind"], "probe");
  const json& probe = file["probe"];
  EXPECT_EQ(probe["verdict"], "shared allowance");
  EXPECT_EQ(probe["reason"], r.analysis.reason);
  const json& source = probe["sources"][0];
  EXPECT_EQ(source["address"], "127.0.0.2");
  EXPECT_EQ(source["let_through"], r.analysis.sources[0].let_through);
  EXPECT_EQ(source["limited"], r.analysis.sources[0].limited);
  EXPECT_EQ(source["other"], 0);
  EXPECT_EQ(source["burst_before_first_429"], 300);
  EXPECT_EQ(source["burst_from_totals"], *r.analysis.sources[0].burst_from_totals);
  EXPECT_EQ(source["sustained_per_s"]["mean"], r.analysis.sources[0].sustained->mean);
  EXPECT_TRUE(source["sustained_per_s"].contains("min"));
  EXPECT_TRUE(source["sustained_per_s"].contains("max"));
  EXPECT_EQ(source["per_second"][3]["second"], 3);
  EXPECT_EQ(source["per_second"][3]["let_through"], r.series[0].per_second[3].let_through);
  EXPECT_EQ(source["headers"][1]["name"], "Retry-After");
  EXPECT_EQ(probe["sources"][2]["failed"], true);
  EXPECT_EQ(probe["correlations"][0]["a"], "127.0.0.2");
  EXPECT_EQ(probe["correlations"][0]["b"], "127.0.0.3");
  EXPECT_LT(probe["correlations"][0]["r"].get<double>(), -0.8);
  EXPECT_EQ(probe["expected_sum_per_s"], 200);
  // One allowance of 100/s split between the two: the total over --expect's rate, as a number.
  EXPECT_EQ(probe["shared_by"], json::array({"127.0.0.2", "127.0.0.3"}));
  EXPECT_NEAR(probe["allowances_implied"].get<double>(), 1, 1e-9);
  EXPECT_EQ(probe["variants"][0]["header"], "X-Internal: yes");
  EXPECT_EQ(probe["variants"][0]["limited"], false);
  EXPECT_EQ(probe["variants"][1]["limited"], true);
  EXPECT_EQ(probe["variants"][1]["status_429"], 2708);
}

TEST(ProbeResultJson, ADamagedFileIsRefusedNamingTheKey) {
  const json good = probe_to_json(shared_probe());
  json file = good;
  file["probe"]["sources"][1].erase("address");
  EXPECT_EQ(probe_error_of(file),
            "probe result.json: missing required key 'probe.sources[1].address'");
  file = good;
  file["probe"]["sources"][0]["per_second"][2]["second"] = "two";
  EXPECT_NE(probe_error_of(file).find("probe.sources[0].per_second[2].second"), std::string::npos)
      << probe_error_of(file);
  file = good;
  file["probe"]["sources"][0]["per_second"][2].erase("second");
  EXPECT_NE(probe_error_of(file).find("probe.sources[0].per_second[2].second"), std::string::npos)
      << probe_error_of(file);
  file = good;
  file["probe"]["sources"][0]["sustained_per_s"].erase("mean");
  EXPECT_NE(probe_error_of(file).find("probe.sources[0].sustained_per_s.mean"), std::string::npos);
  file = good;
  file["probe"]["correlations"][0]["r"] = "strong";
  EXPECT_NE(probe_error_of(file).find("probe.correlations[0].r"), std::string::npos);
  file = good;
  file["probe"]["variants"] = 3;
  EXPECT_NE(probe_error_of(file).find("probe.variants"), std::string::npos);
  file = good;
  file["schema"] = "proofload.soak/v1";
  EXPECT_NE(probe_error_of(file).find("schema"), std::string::npos);
  EXPECT_NE(probe_error_of(json::array()).find("not a JSON object"), std::string::npos);
}

}  // namespace
}  // namespace proofload::result

namespace proofload::result {
namespace {

// Without --expect, --tolerance is how far a source's sustained mean may lie from the sources'
// median and still be judged alike (docs/probe.md); the judgement once took the 10% default
// whatever was given.
TEST(JudgeProbe, WithoutAnExpectationTheToleranceIsTheOneGiven) {
  using namespace analyze::testing_support;
  ProbeResult r;
  r.settings.duration_s = kProbeDurationS;
  r.settings.settle_s = kProbeSettleS;
  r.measured_s = kProbeDurationS;
  for (int i = 0; i < 3; ++i) {
    r.series.push_back(probe_source(i));
    r.settings.sources.push_back(r.series.back().address);
    const int64_t rate = i == 2 ? 115 : 100;  // the third lets 15% more through than the median
    for (int64_t second = 0; second < 60; ++second) {
      add_second(r.series.back(), second, second == 0 ? 600 : rate);
    }
  }
  auto far_from_median = [&](double tolerance) {
    r.settings.tolerance = tolerance;
    judge_probe(r);
    EXPECT_DOUBLE_EQ(r.analysis.tolerance, tolerance);
    return std::count_if(r.analysis.misses.begin(), r.analysis.misses.end(), [](const auto& m) {
      return m.kind == analyze::ProbeMissKind::kFarFromMedian;
    });
  };
  EXPECT_EQ(far_from_median(0.10), 1);
  EXPECT_EQ(far_from_median(0.20), 0);
}

}  // namespace
}  // namespace proofload::result
