// Tests of the per-stream SLO behind --goodput: its terms as written, and a stream judged on its
// figures and its own gaps (a percentile of one stream's gaps without keeping them).
#include "workload/stream_slo.h"

#include <gtest/gtest.h>

#include "common/clock.h"
#include "common/usage_error.h"

namespace proofload::workload {
namespace {

StreamFigures figures(int64_t ttft_ms, int64_t last_ms, int64_t tokens) {
  StreamFigures f;
  f.first_byte_ns = f.first_event_ns = f.first_content_ns = ttft_ms * kNsPerMs;
  f.last_content_ns = last_ms * kNsPerMs;
  f.tokens = f.content_events = tokens;
  return f;
}

bool judge(const StreamSlo& slo, const StreamFigures& f, const std::vector<int64_t>& gaps_ms) {
  GapTally tally;
  slo.reset(tally);
  for (int64_t g : gaps_ms) slo.add_gap(tally, g * kNsPerMs);
  return slo.met(f, (f.last_content_ns.value_or(0)) + kNsPerMs, tally);
}

TEST(StreamSlo, TimeToFirstTokenAndRate) {
  const StreamSlo slo = StreamSlo::parse("ttft<500ms, tokens_per_s>=20");
  EXPECT_EQ(slo.terms().size(), 2U);
  // 11 tokens, 10 after the first over 400 ms: 25 tokens/s.
  EXPECT_TRUE(judge(slo, figures(300, 700, 11), {}));
  EXPECT_FALSE(judge(slo, figures(500, 900, 11), {})) << "ttft must be under 500 ms";
  // 11 tokens over 1 s after the first: 10 tokens/s.
  EXPECT_FALSE(judge(slo, figures(300, 1300, 11), {}));
  EXPECT_FALSE(judge(slo, figures(300, 300, 1), {})) << "one token: no rate, not met";
}

TEST(StreamSlo, APercentileOfOneStreamsGaps) {
  const StreamSlo slo = StreamSlo::parse("itl_p90<100ms");
  std::vector<int64_t> gaps(10, 50);
  EXPECT_TRUE(judge(slo, figures(10, 500, 11), gaps));
  gaps[0] = 150;  // 9 of 10 under: the 9th of 10 (nearest rank of p90) is 50 ms
  EXPECT_TRUE(judge(slo, figures(10, 500, 11), gaps));
  gaps[1] = 150;  // 8 of 10 under: p90 is 150 ms
  EXPECT_FALSE(judge(slo, figures(10, 500, 11), gaps));
  EXPECT_TRUE(judge(slo, figures(10, 10, 1), {})) << "no gap: none was late";
  const StreamSlo max = StreamSlo::parse("itl_max<=150ms");
  EXPECT_TRUE(judge(max, figures(10, 500, 11), gaps));
  gaps[2] = 151;
  EXPECT_FALSE(judge(max, figures(10, 500, 11), gaps));
}

TEST(StreamSlo, AStreamWithoutContentHasNoTimeToFirstToken) {
  const StreamSlo slo = StreamSlo::parse("ttft<1s");
  StreamFigures f;
  f.first_byte_ns = kNsPerMs;
  GapTally tally;
  slo.reset(tally);
  EXPECT_FALSE(slo.met(f, 2 * kNsPerMs, tally));
}

TEST(StreamSlo, MistakesAreOneLine) {
  for (const char* bad : {"", "ttft", "ttft<", "ttft<500", "latency<1s", "itl_p100<1s",
                          "itl_p99>1ms", "tokens>=many", "ttft<1s,", "ttft==1s"}) {
    EXPECT_THROW(StreamSlo::parse(bad), UsageError) << bad;
  }
  try {
    StreamSlo::parse("latency<1s");
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("ttft, ttfb"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace proofload::workload
