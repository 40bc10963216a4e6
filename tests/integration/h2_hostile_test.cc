// HTTP/2 servers that break the protocol, written frame by frame (h2_raw_server.h): every
// request they answer wrongly ends at once as `protocol_error` of its stream (or of the
// connection), as docs/run.md says, never as a `timeout` after the full --timeout. Before, the
// RST_STREAM or GOAWAY nghttp2 queued for a malformed response waited for another request's
// frames to be written, and with none to write every stream waited out its 8 s. Every load goes
// to 127.0.0.1 and ends by itself.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "h2_raw_server.h"
#include "process.h"

namespace proofload::testing {
namespace {

using nlohmann::json;

// HPACK (RFC 7541), just what the answers need: `:status: 200` from the static table, and
// literal fields named by static-table index.
const std::string kStatus200 = "\x88";
std::string literal(uint8_t name_index, const std::string& value) {
  // Without indexing: the index in a 4-bit prefix (15 and on: 15, then the rest in one byte for
  // the indexes used here), then the value as a plain string of under 128 bytes.
  std::string field = name_index < 15 ? std::string{static_cast<char>(name_index)}
                                      : std::string{'\x0f', static_cast<char>(name_index - 15)};
  return field + static_cast<char>(value.size()) + value;
}
constexpr uint8_t kStatusName = 8;          // ":status" in the static table
constexpr uint8_t kContentLengthName = 28;  // "content-length"
constexpr uint8_t kContentTypeName = 31;    // "content-type"

json run_against(const H2RawServer& server, const std::string& name,
                 std::vector<std::string> flags = {}) {
  const std::string out = make_temp_dir("h2-hostile-" + name);
  std::vector<std::string> args = {proofload_binary(), "run", server.url(), "--http2", "-c", "2",
                                   "--h2-streams", "4", "--timeout", "8s", "-n", "16",
                                   "--workers", "1", "-q", "-o", out};
  args.insert(args.end(), flags.begin(), flags.end());
  const Completed run = run_to_completion(args, std::chrono::seconds(60));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return json::parse(read_file(out + "/result.json"))["summary"];
}

int64_t outcome(const json& summary, const std::string& name) {
  return summary["outcomes"].value(name, int64_t{0});
}

// A malformed response of one stream: nghttp2 resets that stream, the connection stays.
struct StreamCase {
  const char* name;
  std::function<std::string(uint32_t)> answer;
};

TEST(Http2Hostile, AMalformedResponseIsAProtocolErrorOfItsStreamAtOnce) {
  const std::vector<StreamCase> cases = {
      {"bad-status",
       [](uint32_t id) {
         return h2_frame(kH2Headers, kH2EndHeaders | kH2EndStream, id,
                         literal(kStatusName, "abc"));
       }},
      {"data-beyond-content-length",
       [](uint32_t id) {
         return h2_frame(kH2Headers, kH2EndHeaders, id,
                         kStatus200 + literal(kContentLengthName, "2")) +
                h2_frame(kH2Data, kH2EndStream, id, "hello");
       }},
  };
  for (const StreamCase& c : cases) {
    SCOPED_TRACE(c.name);
    H2RawServer server(c.answer);
    const json summary = run_against(server, c.name);
    EXPECT_EQ(outcome(summary, "timeout"), 0) << summary.dump(1);
    EXPECT_EQ(outcome(summary, "protocol_error"), 16) << summary.dump(1);
    EXPECT_EQ(summary["intended"], 16);
    EXPECT_EQ(server.requests(), 16);
  }
}

// A frame that breaks a connection's rules: nghttp2 ends the connection with a GOAWAY, and its
// streams are protocol errors, not resets by the server nor timeouts.
TEST(Http2Hostile, AFrameThatBreaksTheConnectionEndsItsStreamsAsProtocolErrors) {
  const std::vector<StreamCase> cases = {
      {"push-promise",
       [](uint32_t id) {
         // Promised stream 2: :method GET, :scheme http, :path / (push was disabled by SETTINGS).
         return h2_frame(kH2PushPromise, kH2EndHeaders, id,
                         std::string{'\0', '\0', '\0', '\x02'} + "\x82\x86\x84");
       }},
      {"even-stream-id",
       [](uint32_t id) {
         return h2_frame(kH2Headers, kH2EndHeaders | kH2EndStream, id + 1, kStatus200);
       }},
      {"oversized-frame",
       [](uint32_t id) {
         return h2_frame(kH2Headers, kH2EndHeaders, id, kStatus200) +
                h2_frame(kH2Data, kH2EndStream, id, std::string(16385, 'x'));
       }},
  };
  for (const StreamCase& c : cases) {
    SCOPED_TRACE(c.name);
    H2RawServer server(c.answer);
    const json summary = run_against(server, c.name);
    EXPECT_EQ(outcome(summary, "timeout"), 0) << summary.dump(1);
    EXPECT_GT(outcome(summary, "protocol_error"), 0) << summary.dump(1);
    EXPECT_EQ(outcome(summary, "success"), 0) << summary.dump(1);
  }
}

// A WINDOW_UPDATE that overflows the connection's window: nghttp2 ends the connection
// (FLOW_CONTROL_ERROR), and each request ends with it as a protocol_error. The issue saw 8
// requests counted `refused` that were never sent (the server saw 16, proofload counted 24);
// since fc8c5a2 (our GOAWAY flushed at once, its streams protocol errors) the counts agree.
TEST(Http2Hostile, AWindowUpdateOverflowCountsOnlyWhatTheServerSaw) {
  H2RawServer server([](uint32_t) {
    return h2_frame(kH2WindowUpdate, 0, 0, std::string{'\x7f', '\xff', '\xff', '\xff'});
  });
  const std::string out = make_temp_dir("h2-hostile-window-overflow");
  const Completed run = run_to_completion(
      {proofload_binary(), "run", server.url(), "--http2", "-c", "2", "--h2-streams", "4",
       "--timeout", "8s", "-d", "2s", "--workers", "1", "-q", "-o", out},
      std::chrono::seconds(60));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json summary = json::parse(read_file(out + "/result.json"))["summary"];
  EXPECT_EQ(outcome(summary, "timeout"), 0) << summary.dump(1);
  EXPECT_EQ(outcome(summary, "refused"), 0) << summary.dump(1);
  EXPECT_EQ(outcome(summary, "protocol_error"), summary["intended"].get<int64_t>());
  // What was counted is what the server was sent: at most the 8 streams of the run's end apart.
  EXPECT_LE(std::abs(summary["intended"].get<int64_t>() - server.requests()), 8)
      << summary["intended"] << " counted, " << server.requests() << " seen by the server";
}

// Streams over HTTP/2 that the server resets after their first event: each is a `stream_reset`
// outcome and a stream cut short, as over HTTP/1.1. Before, they were in none of the stream
// figures' categories: every streamed request ends in exactly one.
TEST(Http2Hostile, EveryStreamEndsInOneStreamCategory) {
  H2RawServer server([](uint32_t id) {
    return h2_frame(kH2Headers, kH2EndHeaders, id,
                    kStatus200 + literal(kContentTypeName, "text/event-stream")) +
           h2_frame(kH2Data, 0, id, "data: {\"n\": 1}\n\n") +
           h2_frame(kH2RstStream, 0, id, std::string{'\0', '\0', '\0', '\x02'});  // INTERNAL
  });
  const json summary = run_against(server, "sse-reset", {"--stream", "sse"});
  EXPECT_EQ(outcome(summary, "stream_reset"), 16) << summary.dump(1);
  const json& streams = summary["streams"];
  ASSERT_TRUE(streams.is_object()) << summary.dump(1);
  EXPECT_EQ(streams["cut_short"], 16) << streams.dump(1);
  int64_t ended = 0;
  for (const char* category : {"completed", "cut_short", "fixture_mismatch", "idle_timeout",
                               "malformed"}) {
    ended += streams.value(category, int64_t{0});
  }
  EXPECT_EQ(ended, summary["intended"].get<int64_t>()) << streams.dump(1);
}

}  // namespace
}  // namespace proofload::testing
