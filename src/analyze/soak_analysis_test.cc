// The soak's judgement on recorded windows: the bar, drift against its noise, the slowest
// request, and marks judged from the windows around them.
#include "analyze/soak_analysis.h"

#include <gtest/gtest.h>

#include "common/usage_error.h"
#include "words/soak_words.h"

namespace proofload::analyze {
namespace {

SoakWindowRow window(int64_t index, double p95_ms, int64_t errors = 0, int64_t requests = 600) {
  SoakWindowRow w;
  w.index = index;
  w.start_s = static_cast<double>(index) * 60;
  w.duration_s = 60;
  w.requests = requests;
  w.errors = errors;
  w.p50_ms = p95_ms / 2;
  w.p95_ms = p95_ms;
  w.p99_ms = p95_ms * 1.5;
  w.slowest_ms = p95_ms * 2;
  w.slowest_at_s = w.start_s + 7;
  w.throughput_rps = 10;
  return w;
}

TEST(SoakBar, TheDefaultBarReadsAsWritten) {
  const SoakBar bar = parse_soak_bar(kDefaultSoakBar);
  ASSERT_TRUE(bar.max_error_share);
  EXPECT_DOUBLE_EQ(*bar.max_error_share, 0.01);
  EXPECT_TRUE(bar.errors_inclusive);
  ASSERT_EQ(bar.latency.size(), 1u);
  EXPECT_EQ(bar.latency[0].percentile, 95);
  EXPECT_DOUBLE_EQ(bar.latency[0].limit_ms, 2000);
  EXPECT_FALSE(bar.latency[0].inclusive);
  EXPECT_TRUE(bar.canaries);
}

TEST(SoakBar, BadPartsAreRefusedNamingThePart) {
  for (const char* text : {"", "errors<=1", "p90<2s", "latency<2s", "errors<=200%", "p95<0s",
                           "errors<=1%,,p95<2s", "429s<5%"}) {
    try {
      parse_soak_bar(text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--bar"), std::string::npos) << e.what();
    }
  }
}

TEST(SoakBar, AWindowMissesForEachPartItBreaks) {
  const SoakBar bar = parse_soak_bar("errors<=1%,p95<2s,canaries,429s<=5%");
  SoakWindowRow ok = window(0, 1999);
  ok.errors = 6;  // exactly 1%: within errors<=1%
  words::judge_and_describe_window(bar, ok);
  EXPECT_TRUE(ok.bar_met) << ok.reasons.front();

  SoakWindowRow bad = window(1, 2000, 7);
  bad.status_429 = 31;
  bad.canaries_wrong = 1;
  bad.canaries_right = 2;
  words::judge_and_describe_window(bar, bad);
  EXPECT_FALSE(bad.bar_met);
  ASSERT_EQ(bad.reasons.size(), 4u);
  EXPECT_EQ(bad.reasons[0], "errors 1.17% > 1%");
  EXPECT_EQ(bad.reasons[1], "429s 5.17% > 5%");
  EXPECT_EQ(bad.reasons[2], "p95 2 s >= 2 s");
  EXPECT_EQ(bad.reasons[3], "1 of 3 canaries wrong");
}

TEST(SoakBar, AWindowInWhichNothingEndedMisses) {
  SoakWindowRow empty = window(0, 1, 0, 0);
  empty.p95_ms.reset();
  words::judge_and_describe_window(parse_soak_bar(kDefaultSoakBar), empty);
  EXPECT_FALSE(empty.bar_met);
  EXPECT_EQ(empty.reasons.front(), "no request ended");
}

// A soak of streams: first token and inter-token bounds, and a floor on the goodput share.
TEST(SoakBar, StreamPartsJudgeTheWindowsStreams) {
  const SoakBar bar =
      parse_soak_bar("errors<=1%,ttft_p95<500ms,itl_p99<=100ms,stream_goodput>=90%");
  SoakWindowRow ok = window(0, 100);
  ok.ttft_p95_ms = 420;
  ok.itl_p99_ms = 100;
  ok.stream_goodput = 0.9;
  words::judge_and_describe_window(bar, ok);
  EXPECT_TRUE(ok.bar_met) << ok.reasons.front();

  SoakWindowRow bad = window(1, 100);
  bad.ttft_p95_ms = 640;
  bad.itl_p99_ms = 150;
  bad.stream_goodput = 0.5;
  words::judge_and_describe_window(bar, bad);
  ASSERT_EQ(bad.reasons.size(), 3u);
  EXPECT_EQ(bad.reasons[0], "ttft_p95 640 ms >= 500 ms");
  EXPECT_EQ(bad.reasons[1], "itl_p99 150 ms > 100 ms");
  EXPECT_EQ(bad.reasons[2], "stream_goodput 50.00% < 90%");

  SoakWindowRow none = window(2, 100);  // requests ended, no stream did
  words::judge_and_describe_window(bar, none);
  EXPECT_FALSE(none.bar_met);
  EXPECT_EQ(none.reasons.front(), "ttft_p95 not measured (no stream ended)");
  EXPECT_THROW(parse_soak_bar("stream_goodput<=90%"), UsageError);
}

TEST(SoakDrift, AGrowingDelayIsDriftAndASteadyOneIsNot) {
  std::vector<SoakWindowRow> growing, steady;
  for (int i = 0; i < 16; ++i) {
    growing.push_back(window(i, 20 + 2.0 * i + (i % 2) * 0.3));
    steady.push_back(window(i, 20 + (i % 3) * 0.4));
  }
  const Drift up = words::described_drift(growing, {});
  EXPECT_EQ(up.verdict, "drift") << up.reason;
  EXPECT_EQ(up.noise_source, "measured");
  ASSERT_EQ(up.blocks.size(), 4u);
  EXPECT_TRUE(up.blocks[3].outside_noise);
  EXPECT_GT(*up.last_quarter_p95_ms, *up.first_quarter_p95_ms + 20);

  const Drift flat = words::described_drift(steady, {});
  EXPECT_EQ(flat.verdict, "no drift") << flat.reason;
  // A stated noise replaces the measured one: 0.1 ms makes the steady wobble a drift only if
  // its quarters' medians differ by more.
  DriftRule stated_rule;
  stated_rule.stated_noise_ms = 100.0;
  const Drift stated = words::described_drift(growing, stated_rule);
  EXPECT_EQ(stated.verdict, "no drift") << stated.reason;
  EXPECT_EQ(stated.noise_source, "stated");
}

// A steady 5 ms server: p95 about 6 ms, 0.6 ms lower in the last quarter. 5% of 6 ms is 0.3 ms,
// and the window-to-window spread less: only the absolute floor keeps it from being drift.
TEST(SoakDrift, AChangeUnderTheAbsoluteFloorIsNotDrift) {
  std::vector<SoakWindowRow> rows;
  for (int i = 0; i < 16; ++i) rows.push_back(window(i, (i < 8 ? 6.1 : 5.5) + (i % 2) * 0.05));
  const Drift d = words::described_drift(rows, {});
  EXPECT_EQ(d.verdict, "no drift") << d.reason;
  EXPECT_EQ(d.direction, "fell");
  EXPECT_FALSE(d.fails);
  EXPECT_NEAR(*d.spread_ms, 0.05, 1e-9);
  EXPECT_NEAR(*d.relative_floor_ms, 0.05 * 6.125, 1e-9);
  EXPECT_DOUBLE_EQ(*d.absolute_floor_ms, kDefaultDriftFloorMs);
  EXPECT_DOUBLE_EQ(d.noise_ms, 1.0);
  EXPECT_EQ(d.noise_text,
            "measured: the absolute floor, the largest of the window-to-window spread (the median "
            "change of p95 from one window to the next) 0.050 ms, the relative floor (5% of the "
            "first quarter's p95) 0.306 ms and the absolute floor 1.0 ms");
  EXPECT_EQ(d.reason, "p95 fell 0.600 ms (6.1 ms -> 5.5 ms), within the noise of 1.0 ms");
  // Without the absolute floor, as before: the relative floor judged it, and it was drift.
  DriftRule no_absolute_floor;
  no_absolute_floor.floor_ms = 0;
  const Drift bare = words::described_drift(rows, no_absolute_floor);
  EXPECT_EQ(bare.verdict, "drift") << bare.reason;
  EXPECT_FALSE(bare.fails);  // a fall
}

TEST(SoakDrift, AFallIsReportedAndFailsOnlyWhenAsked) {
  std::vector<SoakWindowRow> rows;
  for (int i = 0; i < 16; ++i) rows.push_back(window(i, 60 - 2.0 * i + (i % 2) * 0.3));
  const Drift d = words::described_drift(rows, {});
  EXPECT_EQ(d.verdict, "drift") << d.reason;
  EXPECT_EQ(d.direction, "fell");
  EXPECT_FALSE(d.fails);
  EXPECT_NE(d.reason.find("beyond the noise"), std::string::npos) << d.reason;
  EXPECT_NE(d.reason.find(": a fall is reported, not failed (--drift-fails any fails it)"),
            std::string::npos)
      << d.reason;
  DriftRule fails_any;
  fails_any.fails = DriftFails::kAny;
  const Drift any = words::described_drift(rows, fails_any);
  EXPECT_EQ(any.verdict, "drift");
  EXPECT_TRUE(any.fails);
  EXPECT_EQ(any.reason.find("reported, not failed"), std::string::npos) << any.reason;
  // A rise fails either way.
  std::vector<SoakWindowRow> growing;
  for (int i = 0; i < 16; ++i) growing.push_back(window(i, 20 + 2.0 * i));
  EXPECT_TRUE(words::described_drift(growing, {}).fails);
  EXPECT_EQ(words::described_drift(growing, {}).direction, "rose");
}

TEST(SoakDrift, TooFewWindowsAreNotJudgedAndRampWindowsAreLeftOut) {
  std::vector<SoakWindowRow> rows;
  for (int i = 0; i < 7; ++i) rows.push_back(window(i, 20));
  EXPECT_EQ(words::described_drift(rows, {}).verdict, "not judged");
  SoakWindowRow ramp = window(-1, 500);
  ramp.ramp = true;
  rows.push_back(window(7, 20));
  rows.insert(rows.begin(), ramp);
  const Drift d = words::described_drift(rows, {});
  EXPECT_EQ(d.verdict, "no drift") << d.reason;
  EXPECT_DOUBLE_EQ(*d.first_quarter_p95_ms, 20);
}

TEST(SoakSlowest, TheSlowestWindowsMaximumAndWhen) {
  std::vector<SoakWindowRow> rows = {window(0, 10), window(1, 40), window(2, 30)};
  const Slowest s = slowest_of(rows);
  ASSERT_TRUE(s.ms);
  EXPECT_DOUBLE_EQ(*s.ms, 80);
  EXPECT_DOUBLE_EQ(s.at_s, 67);
}

TEST(SoakMarks, AMarkInAnOutageFailsAndOneInAQuietStretchPasses) {
  const SoakBar bar = parse_soak_bar(kDefaultSoakBar);
  std::vector<SoakWindowRow> rows;
  for (int i = 0; i < 20; ++i) rows.push_back(window(i, 20, i == 12 ? 300 : 0));
  for (SoakWindowRow& r : rows) words::judge_and_describe_window(bar, r);
  EXPECT_EQ(windows_missed(rows), 1);

  Mark outage{"deleted one pod", 12 * 60 + 30, "external", std::nullopt, std::nullopt, ""};
  const MarkVerdict fail = words::described_mark(rows, outage, 120);
  EXPECT_EQ(fail.verdict, "FAIL");
  EXPECT_EQ(fail.windows, 5);  // 10:30 .. 14:30 overlaps windows 10 to 14
  EXPECT_EQ(fail.errors, 300);
  EXPECT_NE(fail.reason.find("errors 50.00% > 1%"), std::string::npos) << fail.reason;
  ASSERT_TRUE(fail.baseline_p95_ms);
  EXPECT_DOUBLE_EQ(*fail.baseline_p95_ms, 20);

  Mark quiet{"rollback", 4 * 60, "scheduled", "true", 0, "exit 0"};
  const MarkVerdict pass = words::described_mark(rows, quiet, 120);
  EXPECT_EQ(pass.verdict, "PASS") << pass.reason;
  EXPECT_EQ(pass.windows, 4);  // 2:00 .. 6:00: windows 2 to 5

  Mark late{"after the end", 30 * 60, "external", std::nullopt, std::nullopt, ""};
  EXPECT_EQ(words::described_mark(rows, late, 120).verdict, "not judged");
}

}  // namespace
}  // namespace proofload::analyze
