// Tests of one stream measured event by event: times from the origin the caller gives, content
// events told from the others, gaps between them, tokens counted or reported, and how a stream
// ends (completed, cut short, malformed, not the fixture).
#include "workload/stream_tracker.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/usage_error.h"

namespace proofload::workload {
namespace {

class Gaps : public StreamGapSink {
 public:
  void on_content_gap(int64_t gap_ns) override { seen.push_back(gap_ns); }
  std::vector<int64_t> seen;
};

std::string delta(const std::string& content) {
  return "data: {\"choices\":[{\"delta\":{\"content\":\"" + content + "\"}}]}\n\n";
}

// A spec from (key, value) pairs: kind, content, tokens, terminator.
StreamSpec with(std::initializer_list<std::pair<std::string, std::string>> fields) {
  StreamSpec spec;
  for (const auto& [key, value] : fields) {
    if (key == "kind") spec.kind = value;
    if (key == "content") spec.content = value;
    if (key == "tokens") spec.tokens = value;
    if (key == "terminator") spec.terminator = value;
  }
  return spec;
}

StreamRules chat_rules() {
  StreamRules rules;
  rules.content = JsonPointer::parse("/choices/0/delta/content");
  rules.tokens = JsonPointer::parse("/usage/completion_tokens");
  return rules;
}

TEST(StreamTracker, MeasuresAChatStreamFromItsOrigin) {
  const StreamRules rules = chat_rules();
  StreamTracker t;
  Gaps gaps;
  const int64_t origin = 1000 * kNsPerMs;  // the intended start, before anything was sent
  t.start(rules, origin, &gaps);
  t.feed(": opening\n\n", origin + 5 * kNsPerMs);
  t.feed("data: {\"choices\":[{\"delta\":{}}]}\n\n", origin + 10 * kNsPerMs);  // no content yet
  t.feed(delta("Hel"), origin + 20 * kNsPerMs);
  t.feed(delta("lo") + delta(""), origin + 30 * kNsPerMs);  // an empty delta is not content
  t.feed(delta("!"), origin + 45 * kNsPerMs);
  t.feed("data: {\"choices\":[],\"usage\":{\"completion_tokens\":7}}\n\ndata: [DONE]\n\n",
         origin + 50 * kNsPerMs);
  EXPECT_TRUE(t.terminated());
  EXPECT_EQ(t.finish(), StreamEnd::kCompleted);
  const StreamFigures& f = t.figures();
  EXPECT_EQ(f.first_byte_ns, 5 * kNsPerMs);
  EXPECT_EQ(f.first_event_ns, 10 * kNsPerMs);
  EXPECT_EQ(f.first_content_ns, 20 * kNsPerMs);
  EXPECT_EQ(f.last_content_ns, 45 * kNsPerMs);
  EXPECT_EQ(f.events, 7);  // the terminator included
  EXPECT_EQ(f.content_events, 3);
  EXPECT_EQ(f.tokens, 7) << "the server's count wins";
  EXPECT_TRUE(f.tokens_reported);
  EXPECT_EQ(gaps.seen, (std::vector<int64_t>{10 * kNsPerMs, 15 * kNsPerMs}));
  ASSERT_TRUE(f.tpot_ns());
  EXPECT_DOUBLE_EQ(*f.tpot_ns(), 25.0 * kNsPerMs / 6);
}

TEST(StreamTracker, WithoutPointersEveryEventWithDataIsATokenOfContent) {
  const StreamRules rules;
  StreamTracker t;
  t.start(rules, 0, nullptr);
  t.feed("data: a\n\ndata: b\n\nevent: ping\ndata:\n\ndata: [DONE]\n\n", 3 * kNsPerMs);
  EXPECT_EQ(t.finish(), StreamEnd::kCompleted);
  EXPECT_EQ(t.figures().content_events, 2);
  EXPECT_EQ(t.figures().tokens, 2);
  EXPECT_FALSE(t.figures().tokens_reported);
}

TEST(StreamTracker, AStreamEndsAsConfiguredOrIsCutShort) {
  const StreamRules rules;
  StreamTracker t;
  t.start(rules, 0, nullptr);
  t.feed("data: a\n\n", 1);
  EXPECT_EQ(t.finish(), StreamEnd::kCutShort) << "no terminator";
  StreamRules no_terminator;
  no_terminator.terminator = "";
  StreamTracker plain;
  plain.start(no_terminator, 0, nullptr);
  plain.feed("data: a\n\n", 1);
  EXPECT_EQ(plain.finish(), StreamEnd::kCompleted) << "the body's end is the end";
  plain.start(no_terminator, 0, nullptr);
  plain.feed("data: a\n\ndata: b", 1);
  EXPECT_EQ(plain.finish(), StreamEnd::kCutShort) << "ended inside an event";
}

TEST(StreamTracker, BytesAfterTheTerminatorAreNotTheStreams) {
  const StreamRules rules;
  StreamTracker t;
  t.start(rules, 0, nullptr);
  t.feed("data: a\n\ndata: [DONE]\n\ndata: late\n\n", 1);
  t.feed("data: later\n", 2);
  EXPECT_EQ(t.finish(), StreamEnd::kCompleted);
  EXPECT_EQ(t.figures().events, 2);
}

TEST(StreamTracker, AFixtureMatchesByteForByte) {
  StreamRules rules;
  rules.fixture = std::make_shared<const std::string>("data: a\n\ndata: [DONE]\n\n");
  StreamTracker t;
  t.start(rules, 0, nullptr);
  t.feed("data: a\n\nda", 1);
  t.feed("ta: [DONE]\n\n", 2);
  EXPECT_EQ(t.finish(), StreamEnd::kCompleted);
  t.start(rules, 0, nullptr);
  t.feed("data: b\n\ndata: [DONE]\n\n", 1);  // one byte differs
  EXPECT_EQ(t.finish(), StreamEnd::kFixtureMismatch);
  t.start(rules, 0, nullptr);
  t.feed("data: a\n\ndata: [DONE]\n\n\n", 1);  // one byte more
  EXPECT_EQ(t.finish(), StreamEnd::kFixtureMismatch);
  t.start(rules, 0, nullptr);
  t.feed("data: a\n\n", 1);  // cut: said as cut, not as a mismatch
  EXPECT_EQ(t.finish(), StreamEnd::kCutShort);
}

TEST(StreamTracker, ALineOverTheBoundIsMalformed) {
  const StreamRules rules;
  http::SseLimits limits;
  limits.max_line_bytes = 32;
  StreamTracker t(limits);
  t.start(rules, 0, nullptr);
  t.feed("data: " + std::string(100, 'x') + "\n\ndata: [DONE]\n\n", 1);
  EXPECT_EQ(t.finish(), StreamEnd::kMalformed);
}

// A count no stream can have (2^63, 1e300, below zero) is the server's mistake: the stream is
// malformed and its count is never summed (before, 1e300 became -2^63 tokens in the run's
// total).
TEST(StreamTracker, ATokenCountNoStreamCanHaveMakesItMalformed) {
  const StreamRules rules = chat_rules();
  for (const std::string count : {"9223372036854775808", "1e300", "-5"}) {
    SCOPED_TRACE(count);
    StreamTracker t;
    t.start(rules, 0, nullptr);
    t.feed(delta("Hi") + "data: {\"usage\":{\"completion_tokens\":" + count +
               "}}\n\ndata: [DONE]\n\n",
           1);
    EXPECT_EQ(t.finish(), StreamEnd::kMalformed);
    EXPECT_FALSE(t.figures().tokens_reported);
    EXPECT_EQ(t.figures().tokens, 1) << "the content events, not the server's count";
  }
  StreamTracker t;
  t.start(rules, 0, nullptr);
  t.feed(delta("Hi") + "data: {\"usage\":{\"completion_tokens\":1000000}}\n\ndata: [DONE]\n\n", 1);
  EXPECT_EQ(t.finish(), StreamEnd::kCompleted);
  EXPECT_EQ(t.figures().tokens, 1000000);
}

// An event nested past the bound (a megabyte of `[`) is not read as JSON: it carries no content
// and no count, and reading it builds nothing. Nesting within the bound is read as ever.
TEST(StreamTracker, AnEventNestedPastTheBoundIsNotReadAsJson) {
  const StreamRules rules = chat_rules();
  StreamTracker t;
  t.start(rules, 0, nullptr);
  t.feed("data: " + std::string((1 << 20) - 64, '[') + "\n\n", 1);  // a line within bounds
  t.feed("data: {\"choices\":[{\"delta\":{\"content\":\"[[[{{{\"}}]}\n\n", 2);
  t.feed("data: [DONE]\n\n", 3);
  EXPECT_EQ(t.finish(), StreamEnd::kCompleted);
  EXPECT_EQ(t.figures().events, 3);
  EXPECT_EQ(t.figures().content_events, 1) << "brackets inside a string do not nest";
}

// A chunked stream: each chunk of the body is an event, the last chunk its end.
TEST(StreamTracker, AChunkedStreamCountsChunksAsEvents) {
  const StreamRules rules = compile_stream_rules(with({{"kind", "chunked"}}), "test");
  StreamTracker t;
  Gaps gaps;
  t.start(rules, 0, &gaps);
  t.feed("hel", 10 * kNsPerMs);  // one chunk in two reads
  t.feed("lo", 12 * kNsPerMs);
  t.end_chunk();
  t.feed("world", 30 * kNsPerMs);
  t.end_chunk();
  t.end_chunk();  // the last (empty) chunk: no event
  EXPECT_EQ(t.finish(), StreamEnd::kCompleted);
  EXPECT_EQ(t.figures().events, 2);
  EXPECT_EQ(t.figures().tokens, 2);
  EXPECT_EQ(t.figures().first_content_ns, 12 * kNsPerMs) << "an event is whole at its chunk's end";
  EXPECT_EQ(gaps.seen, (std::vector<int64_t>{18 * kNsPerMs}));
}

TEST(StreamTracker, ContentCanBeARegularExpression) {
  const StreamRules rules = compile_stream_rules(with({{"content", "\\btoken\\b"}}), "test");
  StreamTracker t;
  t.start(rules, 0, nullptr);
  t.feed("data: token 1\n\ndata: keepalive\n\ndata: token 2\n\ndata: [DONE]\n\n", 1);
  EXPECT_EQ(t.finish(), StreamEnd::kCompleted);
  EXPECT_EQ(t.figures().content_events, 2);
}

TEST(StreamTracker, RulesThatCannotBeReadAreOneLine) {
  EXPECT_THROW(compile_stream_rules(with({{"kind", "websocket"}}), "x"), UsageError);
  EXPECT_THROW(compile_stream_rules(with({{"content", "(unclosed"}}), "x"), UsageError);
  EXPECT_THROW(compile_stream_rules(with({{"tokens", "no-slash"}}), "x"), UsageError);
  EXPECT_THROW(compile_stream_rules(with({{"kind", "chunked"}, {"terminator", "[DONE]"}}), "x"),
               UsageError);
}

}  // namespace
}  // namespace proofload::workload
