// The mailbox merges each window across workers and hands windows out in order, whatever order
// the workers post in and however early some of them end.
#include "engine/window_mailbox.h"

#include <gtest/gtest.h>

#include <thread>

namespace proofload::engine {
namespace {

measure::WindowStats window(int64_t index, int64_t successes) {
  measure::WindowStats w;
  w.index = index;
  w.duration_ns = 1'000'000'000;
  w.outcomes[static_cast<int>(measure::Outcome::kSuccess)] = successes;
  w.intended = successes;
  w.latency_us.record(1000 * (index + 1));
  return w;
}

void post(WindowMailbox& mailbox, int worker, measure::WindowStats window) {
  mailbox.post(worker, window);
}

// A post takes the worker's window and gives back a cleared one of the same shape (after the
// first, the storage of a window it posted earlier, once merged): the boundary costs a swap.
TEST(WindowMailbox, APostGivesTheWorkerAClearedWindowToGoOnWith) {
  WindowMailbox mailbox(1);
  measure::WindowStats mine = window(0, 5);
  mine.request_outcomes.resize(3);
  mine.request_outcomes[1][0] = 4;
  mailbox.post(0, mine);
  EXPECT_EQ(mine.ended(), 0);
  EXPECT_EQ(mine.latency_us.total_count(), 0);
  EXPECT_EQ(mine.request_outcomes.size(), 3u);
  EXPECT_EQ(mine.request_outcomes[1][0], 0);
  auto merged = mailbox.next_merged();
  ASSERT_TRUE(merged.has_value());
  EXPECT_EQ(merged->count(measure::Outcome::kSuccess), 5);
  EXPECT_EQ(merged->request_outcomes[1][0], 4);

  // The next post hands back the merged window's storage, cleared.
  mine.index = 1;
  mine.latency_us.record(7);
  mailbox.post(0, mine);
  EXPECT_EQ(mine.latency_us.total_count(), 0);
  EXPECT_EQ(mine.request_outcomes.size(), 3u);
  merged = mailbox.next_merged();
  ASSERT_TRUE(merged.has_value());
  EXPECT_EQ(merged->index, 1);
  EXPECT_EQ(merged->latency_us.total_count(), 1);
}

TEST(WindowMailbox, MergesEachWindowAcrossWorkersInIndexOrder) {
  WindowMailbox mailbox(2);
  post(mailbox, 1, window(0, 5));
  post(mailbox, 1, window(1, 7));  // worker 1 runs ahead
  post(mailbox, 0, window(0, 3));
  auto first = mailbox.next_merged();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->index, 0);
  EXPECT_EQ(first->count(measure::Outcome::kSuccess), 8);
  EXPECT_EQ(first->latency_us.total_count(), 2);

  post(mailbox, 0, window(1, 1));
  mailbox.post_done(0, 1, 1'500'000'000, measure::MeasuredSpan(), window(0, 4),
                    measure::WindowStats());
  mailbox.post_done(1, 1, 1'200'000'000, measure::MeasuredSpan(), window(0, 12),
                    measure::WindowStats());
  auto second = mailbox.next_merged();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->index, 1);
  EXPECT_EQ(second->count(measure::Outcome::kSuccess), 8);
  EXPECT_FALSE(mailbox.next_merged().has_value());
  EXPECT_EQ(mailbox.end_ns(), 1'500'000'000);
  EXPECT_EQ(mailbox.measured_total().count(measure::Outcome::kSuccess), 16);
}

TEST(WindowMailbox, MeasuredSpansAddTheirCountsOverTheLongestSpan) {
  WindowMailbox mailbox(2);
  measure::MeasuredSpan a;
  a.counts.responses = 400;
  a.counts.successes = 390;
  a.duration_ns = 4'000'000'000;
  measure::MeasuredSpan b = a;
  b.counts.responses = 396;
  b.duration_ns = 3'990'000'000;
  mailbox.post_done(0, -1, 1, a, measure::WindowStats(), measure::WindowStats());
  mailbox.post_done(1, -1, 1, b, measure::WindowStats(), measure::WindowStats());
  EXPECT_FALSE(mailbox.next_merged().has_value());
  const measure::MeasuredSpan span = mailbox.measured_span();
  EXPECT_EQ(span.counts.responses, 796);
  EXPECT_EQ(span.counts.successes, 780);
  EXPECT_EQ(span.duration_ns, 4'000'000'000);
  EXPECT_DOUBLE_EQ(span.per_s(span.counts.responses), 199);
}

TEST(WindowMailbox, AWorkerThatEndedEarlyDoesNotHoldBackLaterWindows) {
  WindowMailbox mailbox(2);
  post(mailbox, 0, window(0, 1));
  mailbox.post_done(0, 0, 800'000'000, measure::MeasuredSpan(), measure::WindowStats(),
                    measure::WindowStats());
  post(mailbox, 1, window(0, 2));
  post(mailbox, 1, window(1, 3));
  post(mailbox, 1, window(2, 4));
  mailbox.post_done(1, 2, 2'900'000'000, measure::MeasuredSpan(), measure::WindowStats(),
                    measure::WindowStats());
  std::vector<int64_t> successes;
  while (auto w = mailbox.next_merged()) successes.push_back(w->count(measure::Outcome::kSuccess));
  EXPECT_EQ(successes, (std::vector<int64_t>{3, 3, 4}));
}

TEST(WindowMailbox, TheCoordinatorWaitsForTheSlowestWorker) {
  WindowMailbox mailbox(2);
  post(mailbox, 0, window(0, 1));
  std::thread late([&] {
    post(mailbox, 1, window(0, 2));
    mailbox.post_done(0, 0, 1, measure::MeasuredSpan(), measure::WindowStats(),
                      measure::WindowStats());
    mailbox.post_done(1, 0, 1, measure::MeasuredSpan(), measure::WindowStats(),
                      measure::WindowStats());
  });
  auto merged = mailbox.next_merged();  // blocks until worker 1 posted
  late.join();
  ASSERT_TRUE(merged.has_value());
  EXPECT_EQ(merged->count(measure::Outcome::kSuccess), 3);
  EXPECT_FALSE(mailbox.next_merged().has_value());
}

}  // namespace
}  // namespace proofload::engine
