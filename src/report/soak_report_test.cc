// A soak's summary.md says what its drift verdict cannot show: blocks too short to tell a host's
// slow changes from the server's drift.
#include "report/soak_report.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "words/soak_words.h"

namespace proofload::report {
namespace {

// A steady soak of `windows` one-second windows, its drift judged in quarters.
result::SoakResult steady_soak(int windows) {
  result::SoakResult r;
  r.status = "finished";
  r.command_line = "proofload soak http://127.0.0.1:1/ --rate 10";
  r.source.target = "http://127.0.0.1:1/";
  r.settings.loop = "open";
  r.settings.rate_rps = 10;
  r.settings.hold_s = windows;
  r.settings.window_s = 1;
  for (int i = 0; i < windows; ++i) {
    analyze::SoakWindowRow w;
    w.index = i;
    w.start_s = i;
    w.duration_s = 1;
    w.requests = 10;
    w.p50_ms = 4;
    w.p95_ms = 5 + 0.1 * (i % 2);
    w.p99_ms = 6;
    w.throughput_rps = 10;
    r.windows.push_back(w);
  }
  r.drift = words::described_drift(r.windows, analyze::DriftRule{});
  return r;
}

std::string not_shown_of(const std::string& summary) {
  const size_t from = summary.find("## What this does not show");
  return summary.substr(from, summary.find("## Reproduce") - from);
}

TEST(SoakSummary, DriftOnBlocksUnderAMinuteSaysTheyCannotTellTheHostFromTheServer) {
  const std::string twelve_seconds = not_shown_of(render_soak_summary(steady_soak(12), {}));
  EXPECT_NE(twelve_seconds.find("Drift was judged on blocks of 3 s: a host's own slow changes"),
            std::string::npos)
      << twelve_seconds;
  EXPECT_NE(twelve_seconds.find("`--drift-blocks 1m`"), std::string::npos) << twelve_seconds;

  // Four minutes in quarters: blocks of a minute, nothing to say.
  const std::string four_minutes = not_shown_of(render_soak_summary(steady_soak(240), {}));
  EXPECT_EQ(four_minutes.find("Drift was judged on blocks"), std::string::npos) << four_minutes;

  // Too few windows: drift was not judged, and that is what is said.
  const std::string four_seconds = not_shown_of(render_soak_summary(steady_soak(4), {}));
  EXPECT_EQ(four_seconds.find("Drift was judged on blocks"), std::string::npos) << four_seconds;
  EXPECT_NE(four_seconds.find("Drift was not judged"), std::string::npos) << four_seconds;
}

}  // namespace
}  // namespace proofload::report
