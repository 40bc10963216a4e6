// Tests of the event-stream parser against the WHATWG standard's rules, fed in one piece, byte
// by byte and split at every place, and against servers that send too much.
#include "http/sse_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace proofload::http {
namespace {

struct Seen {
  std::string type, data, last_id;
  bool truncated = false;
  bool operator==(const Seen&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Seen& s) {
  return out << "{" << s.type << ", '" << s.data << "', id '" << s.last_id << "'"
             << (s.truncated ? ", truncated" : "") << "}";
}

class Collector : public SseSink {
 public:
  void on_sse_event(const SseEvent& e) override {
    seen.push_back({std::string(e.type), std::string(e.data), std::string(e.last_id),
                    e.data_truncated});
  }
  std::vector<Seen> seen;
};

std::vector<Seen> parse(std::string_view stream, SseLimits limits = {}) {
  SseParser parser(limits);
  Collector c;
  parser.feed(stream, c);
  parser.finish();
  return c.seen;
}

// What a chat-completions stream looks like: content in deltas, an empty first delta, a usage
// object at the end, then the terminator.
constexpr std::string_view kChat =
    "\xEF\xBB\xBF: keep-alive\r\n"
    "id: 1\r\n"
    "data: {\"choices\":[{\"delta\":{}}]}\r\n\r\n"
    "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n"
    "event: token\rdata: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\r\r"
    "retry: 2500\n"
    "data: line one\ndata:line two\ndata\n\n"
    "id: 7\ndata: {\"usage\":{\"completion_tokens\":2}}\n\n"
    "data: [DONE]\n\n";

const std::vector<Seen> kChatEvents = {
    {"message", "{\"choices\":[{\"delta\":{}}]}", "1", false},
    {"message", "{\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}", "1", false},
    {"token", "{\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}", "1", false},
    {"message", "line one\nline two\n", "1", false},
    {"message", "{\"usage\":{\"completion_tokens\":2}}", "7", false},
    {"message", "[DONE]", "7", false},
};

TEST(SseParser, ReadsAStreamAsTheStandardSays) {
  SseParser parser;
  Collector c;
  parser.feed(kChat, c);
  EXPECT_FALSE(parser.finish()) << "the stream ended between events";
  EXPECT_EQ(c.seen, kChatEvents);
  EXPECT_EQ(parser.events(), 6);
  EXPECT_EQ(parser.comments(), 1);
  EXPECT_EQ(parser.retry_ms(), 2500);
  EXPECT_FALSE(parser.malformed());
}

TEST(SseParser, PiecesOfAnySizeGiveTheSameEvents) {
  {
    SseParser parser;
    Collector c;
    for (char byte : kChat) parser.feed(std::string_view(&byte, 1), c);
    EXPECT_EQ(c.seen, kChatEvents) << "byte by byte";
  }
  for (size_t cut = 0; cut <= kChat.size(); ++cut) {
    SseParser parser;
    Collector c;
    parser.feed(kChat.substr(0, cut), c);
    parser.feed(kChat.substr(cut), c);
    EXPECT_EQ(c.seen, kChatEvents) << "split at " << cut;
  }
}

TEST(SseParser, ACrlfSplitBetweenPiecesIsOneLineEnd) {
  SseParser parser;
  Collector c;
  parser.feed("data: a\r", c);
  parser.feed("\ndata: b\r", c);
  parser.feed("\n\r", c);
  parser.feed("\n", c);
  ASSERT_EQ(c.seen.size(), 1u);
  EXPECT_EQ(c.seen[0].data, "a\nb");
  // A CR alone ends a line too: CR CR is a line and a blank line.
  EXPECT_EQ(parse("data: x\r\rdata: y\r\r").size(), 2u);
}

TEST(SseParser, FieldsFollowTheRules) {
  EXPECT_EQ(parse("data:  two spaces\n\n")[0].data, " two spaces") << "one space is dropped";
  EXPECT_EQ(parse("data\n\n")[0].data, "") << "a field without a colon has an empty value";
  EXPECT_TRUE(parse("event: x\nfoo: bar\n\n").empty()) << "no data: no event";
  EXPECT_EQ(parse("event: x\n\ndata: y\n\n")[0].type, "message")
      << "a blank line without data still resets the type";
  EXPECT_EQ(parse(std::string_view("id: a\0b\ndata: y\n\n", 17))[0].last_id, "")
      << "an id with a NUL is ignored";
  EXPECT_EQ(parse("id: 3\ndata: a\n\nid\ndata: b\n\n")[1].last_id, "") << "an empty id resets it";
  SseParser parser;
  Collector c;
  parser.feed("retry: 10x\nretry: -5\ndata: a\n\n", c);
  EXPECT_FALSE(parser.retry_ms()) << "retry takes digits only";
  EXPECT_EQ(parse("\xEF\xBB\xBF\xEF\xBB\xBF" "data: a\n\n").size(), 0u)
      << "only the first BOM is skipped: the second starts a field named by it";
  EXPECT_EQ(parse("\xEF\xBB" "data: a\n\n").size(), 0u)
      << "a BOM begun and not finished is the stream's own bytes";
}

TEST(SseParser, AStreamEndingInsideAnEventDiscardsIt) {
  for (std::string_view cut : {"data: a\n", "data: a", "data: a\n\ndata: b\n", "data: a\r"}) {
    SseParser parser;
    Collector c;
    parser.feed(cut, c);
    const size_t before = c.seen.size();
    EXPECT_TRUE(parser.finish()) << cut;
    EXPECT_EQ(c.seen.size(), before) << cut;
  }
  SseParser parser;
  Collector c;
  parser.feed("data: a\n\n", c);
  EXPECT_FALSE(parser.finish());
}

TEST(SseParser, MemoryStaysBoundedWhateverTheServerSends) {
  SseLimits limits;
  limits.max_line_bytes = 64;
  limits.max_data_bytes = 100;
  SseParser parser(limits);
  Collector c;
  // A line far past the bound, fed in pieces: dropped, the stream marked, the next event read.
  parser.feed("data: ", c);
  const std::string piece(1000, 'x');
  for (int i = 0; i < 1000; ++i) parser.feed(piece, c);
  parser.feed("\n\ndata: after\n\n", c);
  EXPECT_TRUE(parser.malformed());
  ASSERT_EQ(c.seen.size(), 1u);
  EXPECT_EQ(c.seen[0].data, "after");
  // Many short data lines past the data bound: the event is cut at the bound and flagged.
  c.seen.clear();
  for (int i = 0; i < 50; ++i) parser.feed("data: 0123456789\n", c);
  parser.feed("\n", c);
  ASSERT_EQ(c.seen.size(), 1u);
  EXPECT_EQ(c.seen[0].data.size(), 100u);
  EXPECT_TRUE(c.seen[0].truncated);
}

TEST(SseParser, ResetStartsANewStream) {
  SseParser parser;
  Collector c;
  parser.feed("id: 9\ndata: half", c);
  parser.reset();
  parser.feed("\xEF\xBB\xBF" "data: whole\n\n", c);
  ASSERT_EQ(c.seen.size(), 1u);
  EXPECT_EQ(c.seen[0].data, "whole");
  EXPECT_EQ(c.seen[0].last_id, "");
  EXPECT_EQ(parser.events(), 1);
}

}  // namespace
}  // namespace proofload::http
