// proofload against hostile servers (tests/integration/hostile_server.h, raw_server.h): a flood of
// 103 Early Hints, a chunk extension or a body without end, and answers that break HTTP in small
// ways. A run must end at its duration plus its grace, with the damage counted (protocol errors,
// timeouts), its windows written, its memory flat, and a signal heard mid-flood.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "hostile_server.h"
#include "process.h"
#include "raw_server.h"

namespace proofload::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

struct Hostile {
  Completed run;
  json result;
  std::chrono::milliseconds took{0};
  size_t window_rows = 0;
};

// `proofload run URL -c 2 -d 2s --timeout 1s --grace 1s`: 3 s and a little, when nothing hangs.
Hostile run_against(const std::string& url, const std::string& name) {
  const std::string out = make_temp_dir(name);
  const auto start = std::chrono::steady_clock::now();
  Hostile h;
  h.run = run_to_completion({proofload_binary(), "run", url, "-c", "2", "-d", "2s", "--timeout",
                             "1s", "--grace", "1s", "--workers", "1", "-o", out},
                            30s);
  h.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 start);
  const std::string text = read_file(out + "/result.json");
  if (!text.empty()) h.result = json::parse(text);
  const std::string csv = read_file(out + "/windows.csv");
  h.window_rows = static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n')) - 1;
  return h;
}

int64_t outcome(const Hostile& h, const char* name) {
  return h.result["summary"]["outcomes"][name].get<int64_t>();
}

TEST(Hostile, AFloodOfEarlyHintsIsAProtocolErrorNotAHang) {
  HostileServer server = HostileServer::early_hints_flood();
  const Hostile h = run_against(server.url(), "flood-103");
  ASSERT_EQ(h.run.exit_code, 0) << h.run.err;
  EXPECT_LT(h.took, 8s);  // it once held the worker until kill -9
  EXPECT_EQ(h.result["status"], "complete");
  EXPECT_GT(outcome(h, "protocol_error"), 0) << h.result["summary"].dump();
  EXPECT_GE(h.window_rows, 2u);  // windows were handed off while the flood went on
}

TEST(Hostile, AnEndlessChunkExtensionIsAProtocolError) {
  HostileServer server = HostileServer::endless_chunk_extension();
  const Hostile h = run_against(server.url(), "flood-ext");
  ASSERT_EQ(h.run.exit_code, 0) << h.run.err;
  EXPECT_LT(h.took, 8s);
  EXPECT_GT(outcome(h, "protocol_error"), 0) << h.result["summary"].dump();
  EXPECT_GE(h.window_rows, 2u);
}

TEST(Hostile, AnEndlessBodyTimesOutWithFlatMemory) {
  HostileServer server = HostileServer::endless_body();
  const Hostile h = run_against(server.url(), "flood-body");
  ASSERT_EQ(h.run.exit_code, 0) << h.run.err;
  EXPECT_LT(h.took, 8s);
  EXPECT_GT(outcome(h, "timeout"), 0) << h.result["summary"].dump();
  // Read at speed and not kept: far more bytes than the margin below.
  EXPECT_GT(server.bytes_sent(), int64_t{256} << 20);
  // Flat: no more memory than the same run against a server whose 64 KiB answers end. (Compared
  // with a baseline, not a fixed figure: a sanitizer's shadow memory alone is over 100 MiB.)
  RawServer finite("HTTP/1.1 200 OK\r\nContent-Length: 65536\r\n\r\n" + std::string(65536, 'x'),
                   false);
  const Hostile baseline = run_against(finite.url(), "finite-body");
  ASSERT_EQ(baseline.run.exit_code, 0) << baseline.run.err;
  const auto rss_peak = [](const Hostile& run) {
    return run.result["observed"]["self"]["rss_bytes_peak"].get<double>();
  };
  EXPECT_LT(rss_peak(h), rss_peak(baseline) + 32.0 * (1 << 20))
      << server.bytes_sent() << " B sent; endless body " << rss_peak(h) << " B, finite bodies "
      << rss_peak(baseline) << " B";
}

TEST(Hostile, SigtermMidFloodEndsTheRunWithinTheGrace) {
  HostileServer server = HostileServer::early_hints_flood();
  const std::string out = make_temp_dir("flood-sigterm");
  Process p({proofload_binary(), "run", server.url(), "-c", "2", "-d", "60s", "--grace", "2s",
             "--workers", "1", "-q", "-o", out});
  // Under way once its first window is on disk.
  for (int i = 0; i < 200 && read_file(out + "/windows.csv").find('\n') ==
                                 read_file(out + "/windows.csv").rfind('\n');
       ++i) {
    if (p.wait(50ms).has_value()) break;
  }
  const auto sent = std::chrono::steady_clock::now();
  p.signal(SIGTERM);
  const std::optional<int> code = p.wait(10s);
  ASSERT_TRUE(code.has_value()) << "still running 10 s after SIGTERM";
  EXPECT_EQ(*code, 130);
  EXPECT_LT(std::chrono::steady_clock::now() - sent, 5s);  // the 2 s grace, and the files
  EXPECT_EQ(json::parse(read_file(out + "/result.json"))["status"], "interrupted");
}

// ---- small breaches of HTTP, each counted for what it is ----

json summary_against(const std::string& reply, const std::string& name, bool head = false) {
  RawServer server(reply, false);  // keep-alive: the next request follows on the connection
  const std::string out = make_temp_dir(name);
  std::vector<std::string> args = {proofload_binary(), "run", server.url(), "-c", "2",  "-n", "40",
                                   "--timeout",        "2s",  "--workers",  "1",  "-o", out};
  if (head) args.insert(args.end(), {"-m", "HEAD"});
  const auto start = std::chrono::steady_clock::now();
  const Completed c = run_to_completion(args, 30s);
  EXPECT_EQ(c.exit_code, 0) << c.err;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s) << name << ": nothing should time out";
  return json::parse(read_file(out + "/result.json"))["summary"];
}

TEST(Hostile, A304WithContentLengthHasNoBody) {
  // RFC 9110 allows Content-Length on a 304 (the representation's); no body follows.
  const json s =
      summary_against("HTTP/1.1 304 Not Modified\r\nContent-Length: 1200\r\n\r\n", "304");
  EXPECT_EQ(s["outcomes"]["success"], 40) << s.dump();
  EXPECT_EQ(s["connects"], 2);  // and the connection is reused
}

TEST(Hostile, WithoutConnectionReuseAConnectionIsLeftAfterItsAnswerWhateverTheServerSays) {
  RawServer server("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false);  // keeps it open
  const std::string out = make_temp_dir("no-reuse");
  const Completed c = run_to_completion(
      {proofload_binary(), "run", server.url(), "-c", "2", "-n", "40", "--timeout", "2s",
       "--workers", "1", "--no-connection-reuse", "-q", "-o", out},
      30s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json result = json::parse(read_file(out + "/result.json"));
  EXPECT_EQ(result["summary"]["outcomes"]["success"], 40) << result["summary"].dump();
  // One connection per request, none reused; a connection whose answer came while the last
  // request was still out may be opened again before the run sees it is done (at most one each).
  EXPECT_GE(result["summary"]["connects"].get<int64_t>(), 40);
  EXPECT_LE(result["summary"]["connects"].get<int64_t>(), 42);
  EXPECT_EQ(result["spec"]["connection_reuse"], false);
  // The request asks for the close, so a server that honours it holds the TIME_WAIT.
  EXPECT_NE(result["spec"]["headers"].dump().find(R"({"name":"Connection","value":"close"})"),
            std::string::npos)
      << result["spec"]["headers"].dump();
}

TEST(Hostile, AnAnswerToHeadHasNoBodyWhateverItsLength) {
  const json s = summary_against("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n", "head", true);
  EXPECT_EQ(s["outcomes"]["success"], 40) << s.dump();
}

TEST(Hostile, A204WithABodyIsAProtocolError) {
  const json s =
      summary_against("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello", "204");
  EXPECT_EQ(s["outcomes"]["protocol_error"], 40) << s.dump();
}

TEST(Hostile, AStatusBelow100IsAProtocolError) {
  for (const char* status : {"000", "042", "099"}) {
    const json s =
        summary_against(std::string("HTTP/1.1 ") + status + " Odd\r\nContent-Length: 0\r\n\r\n",
                        std::string("status-") + status);
    EXPECT_EQ(s["outcomes"]["protocol_error"], 40) << status << ": " << s.dump();
  }
}

TEST(Hostile, AChunkWithoutItsCrlfIsAProtocolError) {
  const json s = summary_against(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n", "chunk-crlf");
  EXPECT_EQ(s["outcomes"]["protocol_error"], 40) << s.dump();
}

// ---- hostile streams ----

// A token count no stream can have (1e300, 2^63) makes its stream malformed, and the run ends
// with its report. Before, each became -2^63 tokens, and an odd number of them made the run exit
// 1 ("'summary.streams.tokens' is not a whole number") without summary.md.
TEST(Hostile, ATokenCountNoStreamCanHaveIsAMalformedStreamAndTheRunKeepsItsReport) {
  for (const std::string count : {"1e300", "9223372036854775808"}) {
    SCOPED_TRACE(count);
    const std::string body = "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"
                             "data: {\"usage\":{\"completion_tokens\":" + count +
                             "}}\n\ndata: [DONE]\n\n";
    RawServer server("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: " +
                         std::to_string(body.size()) + "\r\n\r\n" + body,
                     false);
    const std::string out = make_temp_dir("tokens-" + count.substr(0, 4));
    const Completed c = run_to_completion(
        {proofload_binary(), "run", server.url(), "-c", "1", "-n", "3", "--stream", "sse",
         "--stream-content", "/choices/0/delta/content", "--stream-tokens",
         "/usage/completion_tokens", "--workers", "1", "-q", "-o", out},
        30s);
    EXPECT_EQ(c.exit_code, 0) << c.err;
    const json streams = json::parse(read_file(out + "/result.json"))["summary"]["streams"];
    EXPECT_EQ(streams["malformed"], 3) << streams.dump(1);
    EXPECT_EQ(streams["tokens"], 0) << streams.dump(1);
    EXPECT_FALSE(read_file(out + "/summary.md").empty());
  }
}

}  // namespace
}  // namespace proofload::testing
