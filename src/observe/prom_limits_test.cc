// The prom: sampler's limits (prom_limits.h) against a test endpoint on 127.0.0.1: what a hostile
// endpoint can make one sampler hold is bounded, and what was left out is counted.
#include <gtest/gtest.h>

#include <string>

#include "observe/prom_limits.h"
#include "observe/prom_sampler_test_support.h"

namespace proofload::observe {
namespace {

TEST(PromSampler, ABodyOverTheBodySizeLimitIsASkippedScrapeCountedInTheNextGoodOne) {
  std::string big;
  const std::string padding(200, 'p');
  for (int i = 0; big.size() <= kPromBodySizeLimitBytes; ++i) {
    big += "s{i=\"" + std::to_string(i) + "\",pad=\"" + padding + "\"} 1\n";
  }
  const std::string over = ok_response(big);
  const std::string small = ok_response("up 1\n");
  TestEndpoint endpoint(TestEndpoint::Mode::kReply,
                        [&](int n) { return n % 2 == 0 ? over : small; });
  std::unique_ptr<Sampler> sampler = make_prom_sampler(endpoint.spec(), 5 * kNsPerS);
  Sample skipped = sampler->sample(0);
  EXPECT_FALSE(skipped.ok);
  EXPECT_EQ(skipped.error, "the body passed the body_size_limit of 16 MiB: the scrape was skipped");
  EXPECT_TRUE(skipped.readings.empty());
  Sample good = sampler->sample(1);
  ASSERT_TRUE(good.ok) << good.error;
  auto readings = by_name(good);
  EXPECT_EQ(readings.at("up").value, 1);
  EXPECT_EQ(readings.at(kPromScrapesOverBodyLimit).value, 1);
  EXPECT_EQ(readings.size(), 2u);
  EXPECT_FALSE(sampler->sample(2).ok);
  EXPECT_EQ(by_name(sampler->sample(3)).at(kPromScrapesOverBodyLimit).value, 2);  // so far
}

// A 12 MiB label value once made a 6 s run hold 1.14 GiB and write 337 MB: the series is now
// skipped, unread past the limit, and the others are kept.
TEST(PromSampler, ASeriesKeyOverTheLimitIsSkippedAndCounted) {
  const std::string body =
      "up 1\nhuge{v=\"" + std::string(size_t{12} << 20, 'x') + "\"} 1\nafter 2\n";
  TestEndpoint endpoint(TestEndpoint::Mode::kReply, ok_response(body));
  Sample sample = make_prom_sampler(endpoint.spec(), 5 * kNsPerS)->sample(0);
  ASSERT_TRUE(sample.ok) << sample.error;
  auto readings = by_name(sample);
  EXPECT_EQ(readings.at("up").value, 1);
  EXPECT_EQ(readings.at("after").value, 2);
  EXPECT_EQ(readings.at(kPromSeriesTooLong).value, 1);
  EXPECT_EQ(readings.size(), 3u);
  for (const Reading& r : sample.readings) EXPECT_LE(r.name.size(), kPromSeriesKeyLimitBytes);
}

// 10k series with new labels every scrape grew a run by ~3 MiB/s: the first kPromSeriesLimit
// distinct series stay kept, later ones are counted, not kept, however many scrapes bring them.
TEST(PromSampler, ChurningSeriesKeepTheFirstOnesUpToTheCapAndCountTheRest) {
  const size_t per_scrape = kPromSeriesLimit + kPromSeriesLimit / 2;
  TestEndpoint endpoint(TestEndpoint::Mode::kReply, [&](int n) {
    std::string body = "kept_always 1\n";
    for (size_t i = 0; i < per_scrape; ++i) {
      body += "churn{scrape=\"" + std::to_string(n) + "\",i=\"" + std::to_string(i) + "\"} 1\n";
    }
    return ok_response(body);
  });
  std::unique_ptr<Sampler> sampler = make_prom_sampler(endpoint.spec(), 5 * kNsPerS);
  Sample first = sampler->sample(0);
  ASSERT_TRUE(first.ok) << first.error;
  auto readings = by_name(first);
  EXPECT_EQ(readings.size(), kPromSeriesLimit + 1);  // the cap, and the count of the rest
  EXPECT_EQ(readings.at(kPromSeriesNotKept).value,
            static_cast<double>(per_scrape + 1 - kPromSeriesLimit));
  EXPECT_EQ(readings.count("kept_always"), 1u);
  for (int n = 1; n < 4; ++n) {
    Sample next = sampler->sample(n);
    ASSERT_TRUE(next.ok) << next.error;
    readings = by_name(next);
    // Only the series kept from the first scrape: every new one is over the cap.
    EXPECT_EQ(readings.size(), 2u) << n;
    EXPECT_EQ(readings.count("kept_always"), 1u);
    EXPECT_EQ(readings.at(kPromSeriesNotKept).value, static_cast<double>(per_scrape));
  }
}

}  // namespace
}  // namespace proofload::observe
