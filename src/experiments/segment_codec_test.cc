// The segment file's window form is lossless: what is written is read back with every count and
// every histogram's counts, sum and clamped count, and a hostile line is one error, not a crash.
#include "experiments/segment_codec.h"

#include <gtest/gtest.h>

namespace proofload::experiments {
namespace {

measure::WindowStats sample_window() {
  measure::WindowStats w;
  w.index = 7;
  w.start_ns = 7'000'000'000;
  w.duration_ns = 1'000'000'000;
  w.drain = true;
  for (int v : {120, 340, 99'000, 5'000'000}) w.latency_us.record(v);
  w.latency_us.record(int64_t{9'000'000'000});  // past the highest trackable: clamped
  w.service_us.record(80);
  w.outcomes[static_cast<int>(measure::Outcome::kSuccess)] = 4;
  w.outcomes[static_cast<int>(measure::Outcome::kTimeout)] = 1;
  w.add_status(200);
  w.add_status(429);
  w.add_status(999);
  w.intended = 6;
  w.bytes_in = 1234;
  w.connection.connect_us.record(55);
  w.connection.handshakes = 2;
  w.in_flight_end = 3;
  w.sources.resize(2);
  w.sources[1].limited = 9;
  w.sources[1].let_through_before_first_429 = 4;
  w.sources[1].headers.push_back({"Retry-After", "1", "2"});
  w.streams.completed = 2;
  w.streams.inter_event_us.record(900);
  w.request_outcomes.resize(2);
  w.request_outcomes[1][0] = 5;
  return w;
}

TEST(SegmentCodec, AWindowRoundTripsWithoutLoss) {
  const measure::WindowStats w = sample_window();
  // Through text, as the file holds it.
  const measure::WindowStats back =
      window_stats_from_json(nlohmann::json::parse(window_stats_json(w).dump()));
  EXPECT_EQ(back.index, 7);
  EXPECT_TRUE(back.drain);
  EXPECT_FALSE(back.warmup);
  EXPECT_TRUE(back.latency_us.same_counts(w.latency_us));
  EXPECT_EQ(back.latency_us.mean(), w.latency_us.mean());  // the exact sum, not bucket midpoints
  EXPECT_EQ(back.latency_us.clamped_count(), 1);
  EXPECT_TRUE(back.service_us.same_counts(w.service_us));
  EXPECT_EQ(back.ttfb_us.total_count(), 0);
  EXPECT_EQ(back.outcomes, w.outcomes);
  EXPECT_EQ(back.status, w.status);
  EXPECT_EQ(back.intended, 6);
  EXPECT_EQ(back.bytes_in, 1234);
  EXPECT_TRUE(back.connection.connect_us.same_counts(w.connection.connect_us));
  EXPECT_EQ(back.connection.handshakes, 2);
  EXPECT_EQ(back.in_flight_end, 3);
  ASSERT_EQ(back.sources.size(), 2u);
  EXPECT_EQ(back.sources[1].limited, 9);
  EXPECT_EQ(back.sources[1].let_through_before_first_429, 4);
  EXPECT_EQ(back.sources[1].headers, w.sources[1].headers);
  EXPECT_EQ(back.streams.completed, 2);
  EXPECT_TRUE(back.streams.inter_event_us.same_counts(w.streams.inter_event_us));
  EXPECT_EQ(back.request_outcomes, w.request_outcomes);
}

TEST(SegmentCodec, MergingReadBackWindowsEqualsMergingTheOriginals) {
  measure::WindowStats a = sample_window();
  measure::WindowStats b = sample_window();
  b.latency_us.record(77);
  measure::WindowStats direct = a;
  direct.merge(b);
  measure::WindowStats read = window_stats_from_json(window_stats_json(a));
  read.merge(window_stats_from_json(window_stats_json(b)));
  EXPECT_TRUE(read.latency_us.same_counts(direct.latency_us));
  EXPECT_EQ(read.latency_us.value_at_percentile(99), direct.latency_us.value_at_percentile(99));
  EXPECT_EQ(read.latency_us.mean(), direct.latency_us.mean());
}

TEST(SegmentCodec, NamedTotalsAndTheSpanRoundTrip) {
  measure::NamedTotals named;
  named.resize(2, 1);
  named.requests[0].latency_us.record(42);
  named.requests[0].span_responses = 3;
  named.requests[1].streams.emplace().completed = 5;
  named.flows[0].succeeded = 2;
  named.flows[0].duration_us.record(1000);
  const measure::NamedTotals back = named_totals_from_json(named_totals_json(named));
  ASSERT_EQ(back.requests.size(), 2u);
  EXPECT_TRUE(back.requests[0].latency_us.same_counts(named.requests[0].latency_us));
  EXPECT_EQ(back.requests[0].span_responses, 3);
  EXPECT_FALSE(back.requests[0].streams.has_value());
  ASSERT_TRUE(back.requests[1].streams.has_value());
  EXPECT_EQ(back.requests[1].streams->completed, 5);
  EXPECT_EQ(back.flows[0].succeeded, 2);
  measure::MeasuredSpan span;
  span.counts.responses = 10;
  span.duration_ns = 123;
  span.extended_to_last_response = true;
  const measure::MeasuredSpan span_back = span_from_json(span_json(span));
  EXPECT_EQ(span_back.counts.responses, 10);
  EXPECT_EQ(span_back.duration_ns, 123);
  EXPECT_TRUE(span_back.extended_to_last_response);
}

TEST(SegmentCodec, HostileValuesAreOneErrorNamingTheKey) {
  nlohmann::json j = window_stats_json(sample_window());
  auto error_of = [](const nlohmann::json& bad) -> std::string {
    try {
      window_stats_from_json(bad);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  };
  nlohmann::json negative = j;
  negative["intended"] = -1;
  EXPECT_NE(error_of(negative).find("'intended'"), std::string::npos);
  nlohmann::json status = j;
  status["status"]["700"] = 1;
  EXPECT_NE(error_of(status).find("status.700"), std::string::npos);
  nlohmann::json sum = j;
  sum["latency_us"]["sum"] = {int64_t{1} << 40, 0};  // far past count x highest
  EXPECT_NE(error_of(sum).find("sum"), std::string::npos);
  nlohmann::json garbage = j;
  garbage["latency_us"]["hdr"] = "not base64!";
  EXPECT_FALSE(error_of(garbage).empty());
  nlohmann::json outcome = j;
  outcome["outcomes"]["exploded"] = 1;
  EXPECT_NE(error_of(outcome).find("outcomes.exploded"), std::string::npos);
}

}  // namespace
}  // namespace proofload::experiments
