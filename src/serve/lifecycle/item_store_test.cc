// ItemStore with real committer threads: write accounting, the resolve race, search cost against
// dataset size, the bounded queue, reset and prompt shutdown. Commit costs are chosen so that
// what a test expects to be still queued has a margin of at least 200 ms (or an hour).
#include "serve/lifecycle/item_store.h"

#include <gtest/gtest.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/usage_error.h"
#include "serve/behaviour/cpu_burner.h"

namespace proofload::serve {
namespace {

constexpr int64_t kDrainTimeoutNs = 30 * kNsPerS;
constexpr int64_t kLongCommitNs = 3600 * kNsPerS;  // never finishes within a test

ItemStoreOptions options_with(int committers, int64_t commit_cost_ns, int64_t initial_items) {
  ItemStoreOptions options;
  options.committers = committers;
  options.commit_cost_ns = commit_cost_ns;
  options.initial_items = initial_items;
  return options;
}

ItemView must_get(const ItemStore& store, uint64_t id) {
  ItemView view;
  EXPECT_EQ(store.get(id, &view), LifecycleStatus::kOk) << "id " << id;
  return view;
}

void expect_balanced(const LifecycleCounters& c) {
  EXPECT_EQ(c.accepted, c.committed + c.discarded + c.backlog + c.in_progress)
      << "accepted " << c.accepted << " committed " << c.committed << " discarded " << c.discarded
      << " backlog " << c.backlog << " in progress " << c.in_progress;
}

int64_t search_cpu_ns(const ItemStore& store, std::string_view query, int64_t* scanned) {
  const int64_t before_ns = thread_cpu_ns();
  SearchResult result = store.search(query);
  const int64_t cpu_ns = thread_cpu_ns() - before_ns;
  *scanned = result.scanned_items;
  return cpu_ns;
}

// No condition variable tells a test that a committer picked a write up; poll, bounded.
bool await_in_progress(const ItemStore& store, int64_t count) {
  const int64_t deadline_ns = monotonic_ns() + 10 * kNsPerS;
  while (store.counters().in_progress < count) {
    if (monotonic_ns() > deadline_ns) return false;
    std::this_thread::yield();
  }
  return true;
}

TEST(ItemStoreTest, BadOptionsAreUsageErrors) {
  auto rejects = [](auto change) {
    ItemStoreOptions options;
    change(options);
    EXPECT_THROW(ItemStore store(options), UsageError);
  };
  rejects([](ItemStoreOptions& o) { o.committers = 0; });
  rejects([](ItemStoreOptions& o) { o.commit_cost_ns = -1; });
  rejects([](ItemStoreOptions& o) { o.commit_cost_ns = 2 * 86'400 * kNsPerS; });
  rejects([](ItemStoreOptions& o) { o.queue_capacity = 0; });
  rejects([](ItemStoreOptions& o) { o.initial_items = -1; });
  rejects([](ItemStoreOptions& o) { o.max_items = o.initial_items - 1; });
  rejects([](ItemStoreOptions& o) { o.search_cost_per_item_ns = -5; });
}

TEST(ItemStoreTest, InitialDatasetIsCommittedAndDeterministicPerSeed) {
  ItemStoreOptions options = options_with(1, 0, 50);
  ItemStore a(options);
  ItemStore b(options);
  options.seed = 2;
  ItemStore other_seed(options);
  EXPECT_EQ(a.item_count(), 50);
  int differing = 0;
  for (uint64_t id = 1; id <= 50; ++id) {
    ItemView view = must_get(a, id);
    EXPECT_EQ(view.state, ItemState::kOpen);
    EXPECT_FALSE(view.title.empty());
    EXPECT_EQ(view.title, must_get(b, id).title);
    if (view.title != must_get(other_seed, id).title) ++differing;
  }
  EXPECT_GT(differing, 25);
  ItemView view;
  EXPECT_EQ(a.get(0, &view), LifecycleStatus::kNotFound);
  EXPECT_EQ(a.get(51, &view), LifecycleStatus::kNotFound);
}

TEST(ItemStoreTest, CreateAssignResolveCommitInTurn) {
  ItemStore store(options_with(2, 0, 10));
  CreateResult created = store.create("Quarterly report");
  ASSERT_EQ(created.status, LifecycleStatus::kOk);
  EXPECT_EQ(created.id, 11u);
  ASSERT_TRUE(store.wait_until_drained(kDrainTimeoutNs));
  EXPECT_EQ(must_get(store, 11).state, ItemState::kOpen);
  EXPECT_EQ(must_get(store, 11).title, "Quarterly report");

  EXPECT_EQ(store.resolve(11), LifecycleStatus::kInvalidAction) << "never assigned";
  EXPECT_EQ(store.assign(11, "ana"), LifecycleStatus::kOk);
  ASSERT_TRUE(store.wait_until_drained(kDrainTimeoutNs));
  ItemView assigned = must_get(store, 11);
  EXPECT_EQ(assigned.state, ItemState::kAssigned);
  EXPECT_EQ(assigned.assignee, "ana");
  EXPECT_EQ(assigned.pending_writes, 0);

  EXPECT_EQ(store.resolve(11), LifecycleStatus::kOk);
  EXPECT_EQ(store.resolve(11), LifecycleStatus::kInvalidAction) << "already resolved";
  EXPECT_EQ(store.assign(11, "bo"), LifecycleStatus::kInvalidAction) << "resolve accepted";
  ASSERT_TRUE(store.wait_until_drained(kDrainTimeoutNs));
  EXPECT_EQ(must_get(store, 11).state, ItemState::kResolved);

  EXPECT_EQ(store.assign(99, "ana"), LifecycleStatus::kNotFound);
  EXPECT_EQ(store.resolve(99), LifecycleStatus::kNotFound);
  EXPECT_EQ(store.accepted(), 3);
  EXPECT_EQ(store.committed(), 3);
}

TEST(ItemStoreTest, BurstBuildsBacklogAndCountersAlwaysBalance) {
  ItemStore store(options_with(2, kNsPerMs, 0));
  constexpr int kClients = 4;
  constexpr int kCreatesPerClient = 150;
  std::atomic<int64_t> client_ok{0};
  std::atomic<bool> stop_sampling{false};
  std::atomic<int64_t> unbalanced_samples{0};
  std::atomic<int64_t> samples{0};
  // Samples through the burst and the drain that follows (do-while: at least once).
  std::thread sampler([&] {
    do {
      LifecycleCounters c = store.counters();
      if (c.accepted != c.committed + c.discarded + c.backlog + c.in_progress) ++unbalanced_samples;
      ++samples;
    } while (!stop_sampling.load());
  });
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&] {
      for (int n = 0; n < kCreatesPerClient; ++n) {
        CreateResult created = store.create("burst item");
        if (created.status != LifecycleStatus::kOk) continue;
        ++client_ok;
        if (store.assign(created.id, "worker") == LifecycleStatus::kOk) ++client_ok;
      }
    });
  }
  for (std::thread& client : clients) client.join();
  // 1200 writes at 1 ms each on 2 committers take 600 ms; the burst itself takes a few.
  LifecycleCounters after_burst = store.counters();
  EXPECT_GT(after_burst.backlog, 100);
  expect_balanced(after_burst);
  EXPECT_EQ(after_burst.accepted, client_ok.load());
  EXPECT_EQ(after_burst.dropped, 0);
  EXPECT_EQ(client_ok.load(), 2 * kClients * kCreatesPerClient);

  const bool drained_in_time = store.wait_until_drained(kDrainTimeoutNs);
  stop_sampling = true;
  sampler.join();
  ASSERT_TRUE(drained_in_time);
  EXPECT_GT(samples.load(), 0);
  EXPECT_EQ(unbalanced_samples.load(), 0);
  LifecycleCounters drained = store.counters();
  EXPECT_EQ(drained.backlog, 0);
  EXPECT_EQ(drained.in_progress, 0);
  EXPECT_EQ(drained.committed, client_ok.load());
  EXPECT_EQ(store.backlog(), 0);
  EXPECT_EQ(store.search("burst").total_matches, kClients * kCreatesPerClient);
}

TEST(ItemStoreTest, ResolveRightAfterAssignRacesUntilTheBacklogDrains) {
  // Items 1..4 exist and are committed: only their assigns can be pending.
  ItemStore store(options_with(2, 200 * kNsPerMs, 4));
  for (uint64_t id = 1; id <= 4; ++id) {
    ASSERT_EQ(store.assign(id, "ana"), LifecycleStatus::kOk);
    EXPECT_EQ(store.resolve(id), LifecycleStatus::kInvalidAction) << "id " << id;
    EXPECT_EQ(must_get(store, id).state, ItemState::kOpen);
    EXPECT_EQ(must_get(store, id).pending_writes, 1);
  }
  ASSERT_TRUE(store.wait_until_drained(kDrainTimeoutNs));
  for (uint64_t id = 1; id <= 4; ++id) {
    EXPECT_EQ(store.resolve(id), LifecycleStatus::kOk) << "id " << id;
  }
}

TEST(ItemStoreTest, ResolveNeverRacesAfterWaitingForTheDrain) {
  ItemStore store(options_with(2, 2 * kNsPerMs, 0));
  for (int n = 0; n < 25; ++n) {
    CreateResult created = store.create("ticket");
    ASSERT_EQ(created.status, LifecycleStatus::kOk);
    ASSERT_EQ(store.assign(created.id, "bo"), LifecycleStatus::kOk);
    ASSERT_TRUE(store.wait_until_drained(kDrainTimeoutNs));
    EXPECT_EQ(store.resolve(created.id), LifecycleStatus::kOk) << "item " << created.id;
  }
  ASSERT_TRUE(store.wait_until_drained(kDrainTimeoutNs));
  EXPECT_EQ(store.committed(), 75);
}

TEST(ItemStoreTest, WritesStillQueuedAreInvisibleToSearch) {
  ItemStore store(options_with(1, kLongCommitNs, 100));
  ASSERT_EQ(store.create("zebra crossing").status, LifecycleStatus::kOk);
  EXPECT_EQ(store.search("zebra").total_matches, 0);
  ItemView view = must_get(store, 101);
  EXPECT_EQ(view.state, ItemState::kPending);
  EXPECT_EQ(view.title, "zebra crossing");
}

TEST(ItemStoreTest, SearchMatchesIgnoringCaseCountsAllAndReturnsABoundedList) {
  ItemStoreOptions options = options_with(1, 0, 2000);
  options.max_search_results = 20;
  ItemStore store(options);
  int64_t expected = 0;
  for (uint64_t id = 1; id <= 2000; ++id) {
    if (must_get(store, id).title.find("harbor") != std::string::npos) ++expected;
  }
  ASSERT_GT(expected, 20) << "the word list should make this query common";
  SearchResult result = store.search("HarBor");
  EXPECT_EQ(result.total_matches, expected);
  EXPECT_EQ(result.scanned_items, 2000);
  ASSERT_EQ(result.matches.size(), 20u);
  uint64_t previous_id = 0;
  for (const ItemView& match : result.matches) {
    EXPECT_NE(match.title.find("harbor"), std::string::npos) << match.title;
    EXPECT_GT(match.id, previous_id);
    EXPECT_EQ(must_get(store, match.id).title, match.title);
    previous_id = match.id;
  }
  EXPECT_EQ(store.search("").total_matches, 2000);
  EXPECT_EQ(store.search("no such words").total_matches, 0);
}

TEST(ItemStoreTest, SearchCostGrowsWithTheDatasetAndReturnsAfterReset) {
  ItemStoreOptions options = options_with(2, 0, 1000);
  options.search_cost_per_item_ns = 2 * kNsPerUs;
  ItemStore store(options);
  int64_t scanned = 0;
  const int64_t small_cpu_ns = search_cpu_ns(store, "cedar", &scanned);
  EXPECT_EQ(scanned, 1000);

  for (int n = 0; n < 9000; ++n) {
    ASSERT_EQ(store.create("grown item").status, LifecycleStatus::kOk);
  }
  ASSERT_TRUE(store.wait_until_drained(kDrainTimeoutNs));
  const int64_t large_cpu_ns = search_cpu_ns(store, "cedar", &scanned);
  EXPECT_EQ(scanned, 10'000);
  EXPECT_GT(large_cpu_ns, 4 * small_cpu_ns)
      << "1k items: " << small_cpu_ns << " ns, 10k items: " << large_cpu_ns << " ns";

  store.reset();
  const int64_t after_reset_cpu_ns = search_cpu_ns(store, "cedar", &scanned);
  EXPECT_EQ(scanned, 1000);
  EXPECT_LT(after_reset_cpu_ns, large_cpu_ns / 2)
      << "after reset: " << after_reset_cpu_ns << " ns, 10k items: " << large_cpu_ns << " ns";
}

TEST(ItemStoreTest, FullQueueDropsWritesAndSaysSo) {
  ItemStoreOptions options = options_with(1, kLongCommitNs, 3);
  options.queue_capacity = 4;
  ItemStore store(options);
  // The one committer takes the first write and holds it for an hour; four more fit the queue.
  ASSERT_EQ(store.create("first").status, LifecycleStatus::kOk);
  ASSERT_TRUE(await_in_progress(store, 1));
  int ok = 1;
  int full = 0;
  for (int n = 0; n < 9; ++n) {
    CreateResult created = store.create("overflow");
    if (created.status == LifecycleStatus::kOk) {
      ++ok;
    } else {
      EXPECT_EQ(created.status, LifecycleStatus::kFull);
      EXPECT_EQ(created.id, 0u);
      ++full;
    }
  }
  EXPECT_EQ(ok, 5);
  EXPECT_EQ(full, 5);
  EXPECT_EQ(store.accepted(), ok);
  EXPECT_EQ(store.dropped(), full);
  EXPECT_EQ(store.backlog(), 4);
  EXPECT_EQ(store.item_count(), 3 + ok) << "a dropped create leaves no item behind";
  EXPECT_EQ(store.assign(1, "ana"), LifecycleStatus::kFull);
  EXPECT_EQ(store.dropped(), full + 1);
  expect_balanced(store.counters());
}

TEST(ItemStoreTest, StoreRefusesCreatesBeyondMaxItems) {
  ItemStoreOptions options = options_with(1, 0, 2);
  options.max_items = 3;
  ItemStore store(options);
  EXPECT_EQ(store.create("third").status, LifecycleStatus::kOk);
  EXPECT_EQ(store.create("fourth").status, LifecycleStatus::kFull);
  EXPECT_EQ(store.dropped(), 1);
}

TEST(ItemStoreTest, ResetRestoresTheInitialDataset) {
  ItemStore store(options_with(2, 0, 20));
  const std::string first_title = must_get(store, 1).title;
  ASSERT_EQ(store.assign(1, "ana"), LifecycleStatus::kOk);
  ASSERT_TRUE(store.wait_until_drained(kDrainTimeoutNs));
  ASSERT_EQ(store.resolve(1), LifecycleStatus::kOk);
  ASSERT_EQ(store.create("temporary").status, LifecycleStatus::kOk);
  ASSERT_TRUE(store.wait_until_drained(kDrainTimeoutNs));
  ASSERT_EQ(must_get(store, 1).state, ItemState::kResolved);

  store.reset();
  ItemView first = must_get(store, 1);
  EXPECT_EQ(first.state, ItemState::kOpen);
  EXPECT_EQ(first.title, first_title);
  EXPECT_TRUE(first.assignee.empty());
  EXPECT_EQ(store.item_count(), 20);
  ItemView view;
  EXPECT_EQ(store.get(21, &view), LifecycleStatus::kNotFound);
  EXPECT_EQ(store.search("temporary").total_matches, 0);
  EXPECT_EQ(store.create("next").id, 21u) << "ids start again after the initial items";
  EXPECT_EQ(store.counters().discarded, 0);
}

TEST(ItemStoreTest, ResetDiscardsQueuedAndInProgressWritesAndCountsThem) {
  ItemStore store(options_with(1, kLongCommitNs, 5));
  for (int n = 0; n < 3; ++n) ASSERT_EQ(store.create("doomed").status, LifecycleStatus::kOk);
  ASSERT_EQ(store.assign(2, "ana"), LifecycleStatus::kOk);
  ASSERT_TRUE(await_in_progress(store, 1));

  store.reset();  // must not wait an hour for the commit in progress
  LifecycleCounters c = store.counters();
  EXPECT_EQ(c.accepted, 4);
  EXPECT_EQ(c.discarded, 4);
  EXPECT_EQ(c.committed, 0);
  EXPECT_EQ(c.backlog, 0);
  EXPECT_EQ(c.in_progress, 0);
  expect_balanced(c);
  EXPECT_TRUE(store.wait_until_drained(0));
  EXPECT_EQ(must_get(store, 2).pending_writes, 0);
  EXPECT_EQ(store.item_count(), 5);
}

TEST(ItemStoreTest, DestructorStopsPromptlyDuringALongCommit) {
  auto store = std::make_unique<ItemStore>(options_with(2, kLongCommitNs, 0));
  for (int n = 0; n < 5; ++n) ASSERT_EQ(store->create("slow").status, LifecycleStatus::kOk);
  ASSERT_TRUE(await_in_progress(*store, 2));
  const int64_t start_ns = monotonic_ns();
  store = nullptr;  // the destructor
  EXPECT_LT(monotonic_ns() - start_ns, 2 * kNsPerS);
}

TEST(ItemStoreTest, WaitUntilDrainedTimesOutWhileWritesArePending) {
  ItemStore store(options_with(1, kLongCommitNs, 1));
  ASSERT_EQ(store.assign(1, "ana"), LifecycleStatus::kOk);
  EXPECT_FALSE(store.wait_until_drained(20 * kNsPerMs));
  EXPECT_EQ(store.counters().backlog + store.counters().in_progress, 1);
}

}  // namespace
}  // namespace proofload::serve
