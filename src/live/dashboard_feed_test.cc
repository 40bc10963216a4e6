// The feed replays what it kept, no more than its bound, then pushes each new event once.
#include "live/dashboard_feed.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace proofload::live {
namespace {

TEST(DashboardFeed, ReplaysTheKeptEventsThenPushesEachNewOneOnce) {
  DashboardFeed feed(3);
  for (int i = 0; i < 5; ++i) feed.publish(sse_event("window", std::to_string(i)));
  EXPECT_EQ(feed.kept(), 3u);
  std::vector<std::string> got;
  feed.subscribe(1, [&](std::string_view e) {
    got.emplace_back(e);
    return true;
  });
  feed.publish(sse_event("window", "5"));
  feed.end(sse_event("end", "{}"));
  feed.publish(sse_event("window", "late"));  // after the end: kept, sent to no one
  EXPECT_EQ(got,
            (std::vector<std::string>{"event: window\ndata: 2\n\n", "event: window\ndata: 3\n\n",
                                      "event: window\ndata: 4\n\n", "event: window\ndata: 5\n\n",
                                      "event: end\ndata: {}\n\n"}));
}

TEST(DashboardFeed, ASubscriberThatIsGoneIsForgotten) {
  DashboardFeed feed;
  int calls = 0;
  feed.subscribe(1, [&](std::string_view) {
    ++calls;
    return false;
  });
  feed.publish("a");
  feed.publish("b");
  EXPECT_EQ(calls, 1);
  std::vector<std::string> after;
  feed.unsubscribe(2);  // unknown: nothing happens
  feed.end("end");
  feed.subscribe(3, [&](std::string_view e) {
    after.emplace_back(e);
    return true;
  });
  EXPECT_EQ(after, (std::vector<std::string>{"a", "b", "end"}));  // a late page sees the end
}

// The replay a late page is sent at once is bounded in bytes, so that it fits the listener's
// per-reader bound; the newest event is kept whatever its size.
TEST(DashboardFeed, KeepsAtMostItsBytesNewestFirst) {
  DashboardFeed feed(100, 25);
  for (int i = 0; i < 10; ++i) feed.publish(std::string(10, static_cast<char>('0' + i)));
  EXPECT_EQ(feed.kept(), 2u);
  std::vector<std::string> got;
  feed.subscribe(1, [&](std::string_view e) {
    got.emplace_back(e);
    return true;
  });
  EXPECT_EQ(got, (std::vector<std::string>{std::string(10, '8'), std::string(10, '9')}));
  feed.publish(std::string(40, 'x'));
  EXPECT_EQ(feed.kept(), 1u);
  EXPECT_LE(kKeptBytes, size_t{4} << 20);
}

}  // namespace
}  // namespace proofload::live
