// SseStream: the events an sse route sends, their sizes, the Content-Length announced before
// them, and when each falls due.
#include "serve/sse_stream.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "common/clock.h"

namespace proofload::serve {
namespace {

SseSpec spec(int events, int64_t over_ns, int64_t event_bytes, int tokens) {
  SseSpec s;
  s.events = events;
  s.over_ns = over_ns;
  s.event_bytes = event_bytes;
  s.tokens_per_event = tokens;
  return s;
}

std::string whole_body(const SseStream& stream) {
  std::string body;
  for (int64_t i = 0; i < stream.part_count(); ++i) stream.append_part(i, body);
  return body;
}

TEST(SseStream, TheAnnouncedLengthIsTheLengthOfEveryPartTogether) {
  // Sizes where the index's digits push an event past event_bytes (1, 30), where they never do
  // (64, 1 KiB), and counts that cross 10, 100, 1000 and 10000.
  for (int events : {1, 9, 10, 11, 100, 1001, 12345}) {
    for (int64_t event_bytes : {int64_t{1}, int64_t{30}, int64_t{64}, int64_t{1024}}) {
      for (int tokens : {0, 4, 123456}) {
        SseStream stream(spec(events, kNsPerS, event_bytes, tokens));
        EXPECT_EQ(stream.body_bytes(), static_cast<int64_t>(whole_body(stream).size()))
            << events << " events of " << event_bytes << " bytes, " << tokens << " tokens";
      }
    }
  }
}

TEST(SseStream, EachEventCarriesItsIndexAndTokensAndHasTheConfiguredSize) {
  SseStream stream(spec(1000, kNsPerS, 64, 7));
  ASSERT_EQ(stream.part_count(), 1001);
  for (int64_t i = 0; i < 1000; ++i) {
    std::string part;
    stream.append_part(i, part);
    const std::string head = "event: tokens\ndata: ";
    ASSERT_EQ(part.rfind(head, 0), 0u) << part;
    ASSERT_EQ(part.substr(part.size() - 2), "\n\n") << part;
    std::string data = part.substr(head.size(), part.size() - head.size() - 2);
    EXPECT_EQ(data.size(), 64u) << data;
    nlohmann::json event = nlohmann::json::parse(data);
    EXPECT_EQ(event["i"], i);
    EXPECT_EQ(event["tokens"], 7);
  }
  std::string terminator;
  stream.append_part(1000, terminator);
  EXPECT_EQ(terminator, "event: done\ndata: [DONE]\n\n");
}

TEST(SseStream, EventsAreSpreadEvenlyAndTheTerminatorComesAtTheEnd) {
  SseStream stream(spec(4, kNsPerS, 64, 1));
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(stream.part_offset_ns(i), (i + 1) * kNsPerS / 5);
  EXPECT_EQ(stream.part_offset_ns(4), kNsPerS);
  SseStream at_once(spec(3, 0, 64, 1));
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(at_once.part_offset_ns(i), 0);
}

__extension__ using Int128 = __int128;  // the exact product, for the test's own reckoning

TEST(SseStream, OffsetsDoNotOverflowForAMillionEventsOverADay) {
  const int64_t day_ns = 86'400 * kNsPerS;
  SseStream stream(spec(1'000'000, day_ns, 1, 1));
  int64_t previous = 0;
  for (int64_t i : {int64_t{0}, int64_t{1}, int64_t{499'999}, int64_t{999'998}, int64_t{999'999},
                    int64_t{1'000'000}}) {
    int64_t offset = stream.part_offset_ns(i);
    auto exact = static_cast<int64_t>(static_cast<Int128>(day_ns) * (i + 1) / 1'000'001);
    EXPECT_EQ(offset, exact) << i;
    EXPECT_GE(offset, previous);
    previous = offset;
  }
  EXPECT_EQ(stream.part_offset_ns(1'000'000), day_ns);
}

}  // namespace
}  // namespace proofload::serve
