// ResultCache: cold then warm per (route, query), the size bound under churn, recently used
// keys survive, clear, and exactly one cold answer per key across threads.
#include "serve/behaviour/result_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace proofload::serve {
namespace {

TEST(ResultCacheTest, ColdThenWarmPerRouteAndQuery) {
  ResultCache cache;
  EXPECT_FALSE(cache.seen_or_insert(0, "q=acme"));
  EXPECT_TRUE(cache.seen_or_insert(0, "q=acme"));
  EXPECT_TRUE(cache.seen_or_insert(0, "q=acme"));
  EXPECT_FALSE(cache.seen_or_insert(1, "q=acme"));   // another route
  EXPECT_FALSE(cache.seen_or_insert(0, "q=acme2"));  // another query
  EXPECT_FALSE(cache.seen_or_insert(0, ""));
  EXPECT_TRUE(cache.seen_or_insert(0, ""));
  EXPECT_EQ(cache.size(), 4u);
}

TEST(ResultCacheTest, NeverHoldsMoreThanItsCapacity) {
  ResultCache cache(1000, 4);
  size_t capacity = cache.capacity();
  EXPECT_GE(capacity, 1000u);
  EXPECT_LE(capacity, 1000u + 4 * 8);
  constexpr int kKeys = 20'000;
  for (int i = 0; i < kKeys; ++i) EXPECT_FALSE(cache.seen_or_insert(3, std::to_string(i)));
  EXPECT_EQ(cache.size(), capacity);  // 20 keys per slot offered: every slot is in use
  // The most recent keys are held (eviction is per set of 8, so a few may have gone with a
  // crowded set); newest first, so a miss only evicts something older than what is left.
  size_t recent = capacity / 2;
  size_t warm = 0;
  for (size_t i = 0; i < recent; ++i) {
    warm += cache.seen_or_insert(3, std::to_string(kKeys - 1 - i)) ? 1 : 0;
  }
  EXPECT_GE(warm, recent * 9 / 10);
  // A pass over everything finds at most what was held when it began.
  warm = 0;
  for (int i = 0; i < kKeys; ++i) warm += cache.seen_or_insert(3, std::to_string(i)) ? 1 : 0;
  EXPECT_LE(warm, capacity);
  EXPECT_EQ(cache.size(), capacity);
}

TEST(ResultCacheTest, RecentlyUsedKeySurvivesChurn) {
  ResultCache cache(64, 1);
  EXPECT_FALSE(cache.seen_or_insert(0, "hot"));
  for (int i = 0; i < 10'000; ++i) {
    ASSERT_FALSE(cache.seen_or_insert(0, "cold" + std::to_string(i)));
    ASSERT_TRUE(cache.seen_or_insert(0, "hot")) << "after " << i << " other keys";
  }
}

TEST(ResultCacheTest, ClearMakesEveryKeyCold) {
  ResultCache cache;
  cache.seen_or_insert(0, "a");
  cache.clear();
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_FALSE(cache.seen_or_insert(0, "a"));
}

TEST(ResultCacheTest, ExactlyOneColdAnswerPerKeyAcrossThreads) {
  ResultCache cache(100'000, 8);
  constexpr int kKeys = 5'000;
  std::vector<std::string> queries;
  for (int i = 0; i < kKeys; ++i) queries.push_back("id=" + std::to_string(i));
  std::atomic<int> cold{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      // Each thread walks the keys from a different start, so they collide mid-way.
      for (int i = 0; i < kKeys; ++i) {
        if (!cache.seen_or_insert(7, queries[(i + t * kKeys / 4) % kKeys])) cold.fetch_add(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(cold.load(), kKeys);
  EXPECT_EQ(cache.size(), static_cast<size_t>(kKeys));
}

}  // namespace
}  // namespace proofload::serve
