// Tests for ResponseParser: the engine feeds whatever each read returned, so every response
// must parse the same however it is split, and must stop exactly at its own end.
#include "http/response_parser.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace proofload::http {
namespace {

using State = ResponseParser::State;

struct Parsed {
  State state = State::kNeedMore;
  size_t consumed = 0;  // bytes of the input that belonged to the response
  int status = 0;
  int64_t body_bytes = 0;
  bool keep_alive = false;
};

// Feeds `bytes` in the given piece sizes (the rest in one piece), stopping at the first
// non-kNeedMore result; then, if `eof` and still incomplete, reports the close.
Parsed parse_in_pieces(ResponseParser& parser, const std::string& bytes,
                       const std::vector<size_t>& pieces, bool eof, bool head = false) {
  parser.start(head);
  Parsed out;
  size_t offset = 0;
  size_t piece_index = 0;
  while (offset < bytes.size()) {
    size_t n = piece_index < pieces.size() ? pieces[piece_index++] : bytes.size() - offset;
    n = std::min(n, bytes.size() - offset);
    const ResponseParser::Result r = parser.feed(bytes.data() + offset, n);
    out.consumed += r.consumed;
    out.state = r.state;
    if (r.state != State::kNeedMore) break;
    EXPECT_EQ(r.consumed, n);
    offset += n;
  }
  if (eof && out.state == State::kNeedMore) out.state = parser.finish_eof().state;
  out.status = parser.status();
  out.body_bytes = parser.body_bytes();
  out.keep_alive = parser.keep_alive();
  return out;
}

Parsed parse_whole(const std::string& bytes, bool eof = false, bool head = false) {
  ResponseParser parser;
  return parse_in_pieces(parser, bytes, {}, eof, head);
}

struct SampleResponse {
  const char* name;
  std::string bytes;
  bool eof;  // close-delimited: completes only when the peer closes
  bool head;
  int status;
  int64_t body_bytes;
  bool keep_alive;
};

std::vector<SampleResponse> sample_responses() {
  return {
      {"content_length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello", false,
       false, 200, 5, true},
      {"empty_reason", "HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n", false, false, 404, 0, true},
      {"chunked_extensions_trailers",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
       "5;name=value\r\nhello\r\n"
       "a;ext\r\n0123456789\r\n"
       "0\r\nX-Checksum: 42\r\nX-Other: y\r\n\r\n",
       false, false, 200, 15, true},
      {"close_delimited", "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil close", true,
       false, 200, 11, false},
      {"continue_then_ok",
       "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", false,
       false, 201, 2, true},
      {"head_with_length", "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n", false, true, 200, 0,
       true},
      {"http10_close", "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nabc", false, false, 200, 3,
       false},
      {"connection_close", "HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx",
       false, false, 503, 1, false},
      {"early_hints_then_ok",
       "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
       "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n!",
       false, false, 200, 1, true},
      {"upgrade_header_without_101",
       "HTTP/1.1 426 Upgrade Required\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n"
       "Content-Length: 3\r\n\r\nabc",
       false, false, 426, 3, true},
      {"no_content", "HTTP/1.1 204 No Content\r\n\r\n", false, false, 204, 0, true},
  };
}

void expect_matches(const Parsed& got, const SampleResponse& want, const std::string& how) {
  EXPECT_EQ(got.state, State::kComplete) << want.name << " " << how;
  EXPECT_EQ(got.status, want.status) << want.name << " " << how;
  EXPECT_EQ(got.body_bytes, want.body_bytes) << want.name << " " << how;
  EXPECT_EQ(got.keep_alive, want.keep_alive) << want.name << " " << how;
  if (!want.eof) {
    EXPECT_EQ(got.consumed, want.bytes.size()) << want.name << " " << how;
  }
}

TEST(ResponseParser, SamplesParseInOnePiece) {
  for (const SampleResponse& sample : sample_responses()) {
    expect_matches(parse_whole(sample.bytes, sample.eof, sample.head), sample, "whole");
  }
}

TEST(ResponseParser, SamplesParseOneByteAtATime) {
  ResponseParser parser;  // also shows one parser is reusable across responses
  for (const SampleResponse& sample : sample_responses()) {
    const std::vector<size_t> ones(sample.bytes.size(), 1);
    expect_matches(parse_in_pieces(parser, sample.bytes, ones, sample.eof, sample.head), sample,
                   "byte at a time");
  }
}

TEST(ResponseParser, SamplesParseSplitAtEveryOffset) {
  ResponseParser parser;
  for (const SampleResponse& sample : sample_responses()) {
    for (size_t split = 1; split < sample.bytes.size(); ++split) {
      expect_matches(parse_in_pieces(parser, sample.bytes, {split}, sample.eof, sample.head),
                     sample, "split at " + std::to_string(split));
    }
  }
}

TEST(ResponseParser, SamplesParseInRandomPieces) {
  std::mt19937 rng(12345);
  ResponseParser parser;
  for (const SampleResponse& sample : sample_responses()) {
    for (int trial = 0; trial < 200; ++trial) {
      std::uniform_int_distribution<size_t> piece(1, 9);
      std::vector<size_t> pieces;
      for (size_t total = 0; total < sample.bytes.size();) {
        pieces.push_back(piece(rng));
        total += pieces.back();
      }
      expect_matches(parse_in_pieces(parser, sample.bytes, pieces, sample.eof, sample.head), sample,
                     "trial " + std::to_string(trial));
    }
  }
}

TEST(ResponseParser, BackToBackResponsesConsumeOnlyTheFirst) {
  const std::string first = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc";
  const std::string second =
      "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n"
      "4\r\nnope\r\n0\r\n\r\n";
  const std::string both = first + second;
  ResponseParser parser;
  parser.start();
  ResponseParser::Result r = parser.feed(both.data(), both.size());
  ASSERT_EQ(r.state, State::kComplete);
  EXPECT_EQ(r.consumed, first.size());
  EXPECT_EQ(parser.status(), 200);
  EXPECT_EQ(parser.body_bytes(), 3);

  // Complete until the next start(): extra bytes are not silently taken as the next response.
  EXPECT_EQ(parser.feed(second.data(), second.size()).state, State::kComplete);
  EXPECT_EQ(parser.feed(second.data(), second.size()).consumed, 0u);

  parser.start();
  EXPECT_FALSE(parser.received_any());
  r = parser.feed(both.data() + r.consumed, both.size() - r.consumed);
  ASSERT_EQ(r.state, State::kComplete);
  EXPECT_EQ(r.consumed, second.size());
  EXPECT_EQ(parser.status(), 404);
  EXPECT_EQ(parser.body_bytes(), 4);
  EXPECT_TRUE(parser.keep_alive());
}

TEST(ResponseParser, InterimResponseAloneIsNotComplete) {
  const std::string interim = "HTTP/1.1 100 Continue\r\n\r\n";
  ResponseParser parser;
  parser.start();
  const ResponseParser::Result r = parser.feed(interim.data(), interim.size());
  EXPECT_EQ(r.state, State::kNeedMore);
  EXPECT_EQ(r.consumed, interim.size());
  EXPECT_TRUE(parser.received_any());
  // The server closed before the final response: that is a failed request.
  EXPECT_EQ(parser.finish_eof().state, State::kError);
}

TEST(ResponseParser, SwitchingProtocolsIsFinalAndNotReusable) {
  const std::string upgrade =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
      "\x81\x02hi";
  ResponseParser parser;
  parser.start();
  const ResponseParser::Result r = parser.feed(upgrade.data(), upgrade.size());
  ASSERT_EQ(r.state, State::kComplete);
  EXPECT_EQ(r.consumed, upgrade.size() - 4);
  EXPECT_EQ(parser.status(), 101);
  EXPECT_FALSE(parser.keep_alive());
}

TEST(ResponseParser, Http10KeepAliveOnlyWhenAsked) {
  EXPECT_FALSE(parse_whole("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").keep_alive);
  EXPECT_TRUE(parse_whole("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n")
                  .keep_alive);
}

TEST(ResponseParser, GarbageIsAnErrorWithReason) {
  ResponseParser parser;
  parser.start();
  const std::string garbage = "xyz\r\n";
  EXPECT_EQ(parser.feed(garbage.data(), garbage.size()).state, State::kError);
  EXPECT_NE(std::string(parser.error_reason()).find("invalid status line"), std::string::npos)
      << parser.error_reason();
  // Stays in error until the next start().
  EXPECT_EQ(parser.feed(garbage.data(), garbage.size()).state, State::kError);
  EXPECT_EQ(parser.finish_eof().state, State::kError);

  const std::string ok = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  parser.start();
  EXPECT_EQ(parser.feed(ok.data(), ok.size()).state, State::kComplete);
  EXPECT_STREQ(parser.error_reason(), "");
}

TEST(ResponseParser, BadHeaderAndBadChunkSizeAreErrors) {
  ResponseParser parser;
  const Parsed bad_header =
      parse_in_pieces(parser, "HTTP/1.1 200 OK\r\nBad Header\r\n\r\n", {}, false);
  EXPECT_EQ(bad_header.state, State::kError);
  EXPECT_NE(std::string(parser.error_reason()).find("invalid header"), std::string::npos);

  const Parsed bad_chunk = parse_in_pieces(
      parser, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", {}, false);
  EXPECT_EQ(bad_chunk.state, State::kError);
  EXPECT_NE(std::string(parser.error_reason()).find("invalid chunked body"), std::string::npos);
}

// Feeds an endless head in 16 KiB reads; returns how many bytes were fed before kError.
size_t bytes_fed_until_error(ResponseParser& parser, const std::string& head) {
  parser.start();
  constexpr size_t kReadBytes = 16 * 1024;
  size_t fed = 0;
  for (size_t offset = 0; offset < head.size(); offset += kReadBytes) {
    const size_t n = std::min(kReadBytes, head.size() - offset);
    fed += n;
    if (parser.feed(head.data() + offset, n).state == State::kError) return fed;
  }
  return SIZE_MAX;
}

TEST(ResponseParser, OversizedHeaderIsAnErrorAfterBoundedWork) {
  constexpr size_t kMaxHeaderBytes = 64 * 1024;
  constexpr size_t kOneMiB = 1024 * 1024;
  const std::string long_value =
      "HTTP/1.1 200 OK\r\nX-Big: " + std::string(kOneMiB, 'a') + "\r\n\r\n";
  // Whitespace before a value is not part of any header span: it must count all the same.
  const std::string padded = "HTTP/1.1 200 OK\r\nX-Pad:" + std::string(kOneMiB, ' ') + "v\r\n\r\n";
  std::string many_headers = "HTTP/1.1 200 OK\r\n";
  while (many_headers.size() < kOneMiB) many_headers += "X-H: 0123456789\r\n";
  many_headers += "\r\n";

  for (const std::string* head :
       std::vector<const std::string*>{&long_value, &padded, &many_headers}) {
    ResponseParser parser(kMaxHeaderBytes);
    // One huge read: parsing stops at the limit, not at the end of the buffer.
    parser.start();
    const ResponseParser::Result r = parser.feed(head->data(), head->size());
    EXPECT_EQ(r.state, State::kError);
    EXPECT_LE(r.consumed, kMaxHeaderBytes);
    EXPECT_NE(std::string(parser.error_reason()).find("too large"), std::string::npos)
        << parser.error_reason();
    // Many reads: the error comes within one read of the limit.
    EXPECT_LE(bytes_fed_until_error(parser, *head), kMaxHeaderBytes + 16 * 1024);
  }
}

TEST(ResponseParser, HeaderLimitAppliesAfterAnInterimResponse) {
  // Each response gets its own head budget: a 100 Continue neither uses up the final response's
  // budget nor switches the limit off for it.
  constexpr size_t kMaxHeaderBytes = 4096;
  const std::string interim =
      "HTTP/1.1 100 Continue\r\nX-I: " + std::string(3000, 'i') + "\r\n\r\n";
  const std::string small_final =
      "HTTP/1.1 200 OK\r\nX-F: " + std::string(3000, 'f') + "\r\nContent-Length: 0\r\n\r\n";
  ResponseParser parser(kMaxHeaderBytes);
  EXPECT_EQ(parse_in_pieces(parser, interim + small_final, {}, false).state, State::kComplete);

  const std::string huge_final =
      "HTTP/1.1 200 OK\r\nX-F: " + std::string(1024 * 1024, 'f') + "\r\n\r\n";
  parser.start();
  const std::string both = interim + huge_final;
  const ResponseParser::Result r = parser.feed(both.data(), both.size());
  EXPECT_EQ(r.state, State::kError);
  EXPECT_LE(r.consumed, interim.size() + kMaxHeaderBytes);
}

TEST(ResponseParser, HeaderJustUnderTheLimitIsAccepted) {
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Fill: ";
  const size_t limit = 1024;
  std::string response = head + std::string(limit - head.size() - 4, 'f') + "\r\n\r\n";
  ASSERT_EQ(response.size(), limit);
  ResponseParser parser(limit);
  const std::vector<size_t> ones(response.size(), 1);
  EXPECT_EQ(parse_in_pieces(parser, response, {}, false).state, State::kComplete);
  EXPECT_EQ(parse_in_pieces(parser, response, ones, false).state, State::kComplete);
  response.insert(head.size(), "f");
  EXPECT_EQ(parse_in_pieces(parser, response, {}, false).state, State::kError);
}

TEST(ResponseParser, OversizedTrailersAreAnError) {
  const std::string response =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
      "X-T: " +
      std::string(4096, 't') + "\r\n\r\n";
  ResponseParser parser(1024);
  EXPECT_EQ(parse_in_pieces(parser, response, {}, false).state, State::kError);
  EXPECT_NE(std::string(parser.error_reason()).find("trailers too large"), std::string::npos);
}

TEST(ResponseParser, EofMidBodyIsAnError) {
  ResponseParser parser;
  const Parsed cut_length =
      parse_in_pieces(parser, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", {}, true);
  EXPECT_EQ(cut_length.state, State::kError);
  EXPECT_EQ(cut_length.body_bytes, 3);
  const Parsed cut_chunked = parse_in_pieces(
      parser, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", {}, true);
  EXPECT_EQ(cut_chunked.state, State::kError);
  const Parsed cut_head = parse_in_pieces(parser, "HTTP/1.1 200 OK\r\nConte", {}, true);
  EXPECT_EQ(cut_head.state, State::kError);
  EXPECT_NE(std::string(parser.error_reason()).find("connection closed"), std::string::npos);
}

TEST(ResponseParser, EofBeforeAnyByteNeedsMore) {
  // An idle keep-alive connection closed by the server: nothing of the response arrived, so the
  // engine may retry on a new connection.
  ResponseParser parser;
  parser.start();
  EXPECT_FALSE(parser.received_any());
  EXPECT_EQ(parser.finish_eof().state, State::kNeedMore);
  EXPECT_EQ(parser.feed("", 0).state, State::kNeedMore);
  EXPECT_FALSE(parser.received_any());
}

TEST(ResponseParser, MoveMidResponseKeepsParsing) {
  const std::string response = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nbody";
  ResponseParser original;
  original.start();
  ASSERT_EQ(original.feed(response.data(), 20).state, State::kNeedMore);
  std::vector<ResponseParser> parsers;
  parsers.push_back(std::move(original));
  parsers.emplace_back();  // may reallocate: the first parser moves again
  const ResponseParser::Result r = parsers[0].feed(response.data() + 20, response.size() - 20);
  EXPECT_EQ(r.state, State::kComplete);
  EXPECT_EQ(parsers[0].body_bytes(), 4);
}

// ---- capture (scenario checks and extraction) ----

ResponseParser::Capture capture_all(size_t max_body_bytes) { return {true, max_body_bytes}; }

TEST(ResponseParserCapture, HeadersAndBodyAreKeptHoweverTheResponseIsSplit) {
  const std::string response =
      "HTTP/1.1 201 Created\r\nLocation: /items/7\r\nX-Empty:\r\nContent-Length: 9\r\n\r\n"
      "{\"id\": 7}";
  for (size_t split = 1; split < response.size(); ++split) {
    ResponseParser parser;
    parser.start(false, capture_all(1024));
    ASSERT_EQ(parser.feed(response.data(), split).state, State::kNeedMore) << split;
    ASSERT_EQ(parser.feed(response.data() + split, response.size() - split).state,
              State::kComplete) << split;
    EXPECT_EQ(parser.captured_headers(),
              "Location: /items/7\r\nX-Empty: \r\nContent-Length: 9\r\n") << split;
    EXPECT_EQ(parser.captured_body(), "{\"id\": 7}") << split;
    EXPECT_FALSE(parser.body_truncated());
  }
}

TEST(ResponseParserCapture, ChunkedBodyIsKeptDechunkedAndTrailersAreNotHeaders) {
  const std::string response =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3\r\nabc\r\n2\r\nde\r\n0\r\nX-Trailer: t\r\n\r\n";
  ResponseParser parser;
  parser.start(false, capture_all(1024));
  ASSERT_EQ(parser.feed(response.data(), response.size()).state, State::kComplete);
  EXPECT_EQ(parser.captured_body(), "abcde");
  EXPECT_EQ(parser.captured_headers(), "Transfer-Encoding: chunked\r\n");
}

// A stream's tracker is given the body as it is parsed, de-chunked, whatever the read sizes, and
// past any capture cap: the whole body, piece by piece, never kept by the parser.
TEST(ResponseParserCapture, ABodySinkGetsEveryPieceAsItIsParsed) {
  class Pieces : public BodySink {
   public:
    void on_body_piece(std::string_view piece) override {
      ASSERT_FALSE(piece.empty());
      body.append(piece);
      ++count;
    }
    std::string body;
    int count = 0;
  };
  const std::string response =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "9\r\ndata: a\n\n\r\n9\r\ndata: b\n\n\r\n0\r\n\r\n";
  for (size_t split = 1; split < response.size(); ++split) {
    Pieces pieces;
    ResponseParser parser;
    ResponseCapture capture;
    capture.body_sink = &pieces;
    parser.start(false, capture);
    parser.feed(response.data(), split);
    ASSERT_EQ(parser.feed(response.data() + split, response.size() - split).state,
              State::kComplete)
        << split;
    EXPECT_EQ(pieces.body, "data: a\n\ndata: b\n\n") << split;
    EXPECT_TRUE(parser.captured_body().empty()) << "the sink's pieces are not kept";
  }
  Pieces arriving;
  ResponseParser parser;
  ResponseCapture capture;
  capture.body_sink = &arriving;
  parser.start(false, capture);
  parser.feed(response.data(), response.find("data: b"));
  EXPECT_EQ(arriving.body, "data: a\n\n") << "the first event, before the rest has come";
}

TEST(ResponseParserCapture, BodyBeyondTheCapIsCountedNotKept) {
  const std::string response = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789";
  ResponseParser parser;
  parser.start(false, capture_all(4));
  ASSERT_EQ(parser.feed(response.data(), response.size()).state, State::kComplete);
  EXPECT_EQ(parser.captured_body(), "0123");
  EXPECT_TRUE(parser.body_truncated());
  EXPECT_EQ(parser.body_bytes(), 10);
}

TEST(ResponseParserCapture, InterimResponseHeadersAreDropped) {
  const std::string response =
      "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"
      "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  ResponseParser parser;
  parser.start(false, capture_all(16));
  ASSERT_EQ(parser.feed(response.data(), response.size()).state, State::kComplete);
  EXPECT_EQ(parser.captured_headers(), "Content-Length: 0\r\n");
}

TEST(ResponseParserCapture, OffByDefaultAndBuffersAreReusedWithoutGrowing) {
  const std::string response = "HTTP/1.1 200 OK\r\nA: b\r\nContent-Length: 2\r\n\r\nok";
  ResponseParser parser;
  parser.start();
  ASSERT_EQ(parser.feed(response.data(), response.size()).state, State::kComplete);
  EXPECT_TRUE(parser.captured_headers().empty());
  EXPECT_TRUE(parser.captured_body().empty());

  parser.start(false, capture_all(64));
  ASSERT_EQ(parser.feed(response.data(), response.size()).state, State::kComplete);
  const char* headers_storage = parser.captured_headers().data();
  const char* body_storage = parser.captured_body().data();
  for (int i = 0; i < 100; ++i) {
    parser.start(false, capture_all(64));
    ASSERT_EQ(parser.feed(response.data(), response.size()).state, State::kComplete);
    EXPECT_EQ(parser.captured_headers().data(), headers_storage);
    EXPECT_EQ(parser.captured_body().data(), body_storage);
  }
}

}  // namespace
}  // namespace proofload::http
