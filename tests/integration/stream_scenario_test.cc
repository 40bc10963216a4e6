// Streams end to end, past the plain `--stream sse` run: a scenario's own streamed requests
// (their rules, their fixture, their figures by name), streams in every window, chunked streams,
// the idle timeout, the --goodput SLO, a ramp past the built-in server's generation cap, and a
// ladder judged by its streams (a 1 GiB stream read in bounded memory is stream_memory_test.cc).
// Servers: canned bytes (RawServer: the fixture is exactly what it sends) and the built-in
// server's llm route. Every run is bounded by -n or -d and a deadline on the child process.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "process.h"
#include "raw_server.h"

namespace proofload::testing {
namespace {

using nlohmann::json;
using std::chrono::seconds;

constexpr const char* kEvents =
    "data: {\"text\":\"one\"}\n\n"
    ": a comment between events\n\n"
    "data: {\"text\":\"two\"}\n\n"
    "data: {\"text\":\"\"}\n\n"
    "data: [DONE]\n\n";

// The events in two chunks of a chunked body, the connection kept.
std::string chunked_reply(const std::string& body) {
  const size_t half = body.size() / 2;
  std::ostringstream out;
  out << "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
      << std::hex << half << "\r\n"
      << body.substr(0, half) << "\r\n"
      << std::hex << body.size() - half << "\r\n"
      << body.substr(half) << "\r\n0\r\n\r\n";
  return out.str();
}

json result_of(const std::string& out) { return json::parse(read_file(out + "/result.json")); }

Completed run(const std::vector<std::string>& args) {
  std::vector<std::string> all = {proofload_binary(), "run"};
  all.insert(all.end(), args.begin(), args.end());
  return run_to_completion(all, seconds(90));
}

// A scenario's `stream: sse` request is read by its own rules and checked against its fixture,
// byte for byte: its figures are under its name, each window has its streams, and windows.csv
// has the stream columns. The plain request beside it is not a stream.
TEST(StreamScenario, AStreamedRequestIsReadByItsRulesAndCheckedAgainstItsFixture) {
  const std::string dir = make_temp_dir("stream-scenario");
  RawServer server(chunked_reply(kEvents), false);
  write_file(dir + "/good.sse", kEvents);
  std::string corrupted = kEvents;
  corrupted[8] = 'X';  // one byte differs
  write_file(dir + "/bad.sse", corrupted);
  const auto scenario = [&](const std::string& fixture) {
    const std::string path = dir + "/" + fixture + ".yaml";
    write_file(path,
               "requests:\n"
               "  events:\n"
               "    path: /events\n"
               "    stream: sse\n"
               "    content: /text\n"
               "    checks: [{status: 200}, {fixture: " + fixture + ".sse}]\n");
    return path;
  };
  const Completed good = run({scenario("good"), server.url(), "-n", "40", "-c", "2", "-q", "-o",
                              dir + "/good"});
  ASSERT_EQ(good.exit_code, 0) << good.err;
  const json r = result_of(dir + "/good");
  EXPECT_EQ(r["spec"]["stream"]["kind"], "per request");
  const json& named = r["requests"]["events"]["streams"];
  EXPECT_EQ(named["completed"], 40) << named.dump(2);
  EXPECT_EQ(named["fixture_mismatch"], 0);
  EXPECT_EQ(named["events"], 40 * 4) << "three data events and the terminator";
  EXPECT_EQ(named["tokens"], 40 * 2) << "an empty content is not a token";
  EXPECT_EQ(r["summary"]["streams"]["completed"], 40);
  int64_t in_windows = 0;
  for (const json& w : r["windows"]) {
    if (w.contains("streams")) in_windows += w["streams"]["completed"].get<int64_t>();
  }
  EXPECT_EQ(in_windows, 40) << "every stream ended in some window";
  const std::string csv = read_file(dir + "/good/windows.csv");
  EXPECT_NE(csv.find(",streams_completed,"), std::string::npos) << csv.substr(0, 400);

  const Completed bad = run({scenario("bad"), server.url(), "-n", "20", "-c", "2", "-q", "-o",
                             dir + "/bad"});
  ASSERT_EQ(bad.exit_code, 0) << bad.err;
  const json bad_result = result_of(dir + "/bad");
  const json& mismatched = bad_result["requests"]["events"]["streams"];
  EXPECT_EQ(mismatched["fixture_mismatch"], 20) << mismatched.dump(2);
  EXPECT_EQ(mismatched["completed"], 0);
  EXPECT_EQ(mismatched["events_per_s"], 0) << "only streams like the fixture count";
}

// `--stream chunked`: each chunk is an event, the last chunk the end.
TEST(StreamScenario, AChunkedStreamCountsItsChunks) {
  const std::string dir = make_temp_dir("stream-chunked");
  RawServer server(chunked_reply(kEvents), false);
  const Completed done = run({server.url(), "--stream", "chunked", "-n", "10", "-c", "1", "-q",
                              "-o", dir + "/out"});
  ASSERT_EQ(done.exit_code, 0) << done.err;
  const json r = result_of(dir + "/out");
  const json& s = r["summary"]["streams"];
  EXPECT_EQ(s["completed"], 10) << s.dump(2);
  EXPECT_EQ(s["events"], 20) << "two chunks a stream";
}

std::string llm_routes(const std::string& dir, const std::string& llm) {
  const std::string path = dir + "/routes.yaml";
  write_file(path, "routes:\n  - {method: POST, path: /chat, llm: " + llm + "}\n");
  return path;
}

std::vector<std::string> chat_args(const ServeProcess& server, const std::string& out) {
  return {server.url("/chat"), "-m",           "POST", "--body", R"({"stream": true})",
          "--stream",          "sse",          "--stream-content", "/choices/0/delta/content",
          "-q",                "-o",           out};
}

// A stream that has begun and then stalls past --stream-idle-timeout ends as idle (the request
// as a timeout), apart from the whole-request timeout; --goodput counts only streams that met
// every term.
TEST(StreamScenario, IdleStreamsAndGoodputAreCountedApart) {
  const std::string dir = make_temp_dir("stream-idle");
  // The first token at once, then one every 500 ms.
  ServeProcess slow({"--routes", llm_routes(dir, "{ttft: 10ms, tokens_per_s: 2, tokens: 5}"),
                     "--exit-after", "60s"});
  std::vector<std::string> idle = chat_args(slow, dir + "/idle");
  idle.insert(idle.end(), {"--stream-idle-timeout", "200ms", "-c", "2", "-d", "1s"});
  const Completed stalled = run(idle);
  ASSERT_EQ(stalled.exit_code, 0) << stalled.err;
  const json r = result_of(dir + "/idle");
  EXPECT_GT(r["summary"]["streams"]["idle_timeout"].get<int64_t>(), 0) << r["summary"].dump(2);
  EXPECT_EQ(r["summary"]["streams"]["completed"], 0);
  EXPECT_GT(r["summary"]["outcomes"]["timeout"].get<int64_t>(), 0);

  // 100 ms to the first token, then 50 a second.
  const std::string fast_dir = make_temp_dir("stream-goodput");
  ServeProcess fast({"--routes",
                     llm_routes(fast_dir, "{ttft: 100ms, tokens_per_s: 50, tokens: 10}"),
                     "--exit-after", "60s"});
  for (const auto& [slo, all_met] :
       {std::pair{"ttft<1s,tokens_per_s>=20", true}, std::pair{"ttft<50ms", false}}) {
    const std::string out = fast_dir + "/" + (all_met ? "met" : "missed");
    std::vector<std::string> args = chat_args(fast, out);
    args.insert(args.end(), {"--goodput", slo, "-c", "2", "-d", "1s"});
    const Completed done = run(args);
    ASSERT_EQ(done.exit_code, 0) << done.err;
    const json r = result_of(out);
    const json& s = r["summary"]["streams"];
    ASSERT_GT(s["completed"].get<int64_t>(), 0) << s.dump(2);
    EXPECT_EQ(s["goodput"]["slo"], slo);
    EXPECT_EQ(s["goodput"]["met"], all_met ? s["completed"] : json(0)) << s.dump(2);
    const std::string summary = read_file(out + "/summary.md");
    EXPECT_NE(summary.find("**Goodput:**"), std::string::npos) << summary;
  }
}

// Past the server's cap on generations at once, streams queue: the time to first token grows
// while the gap between tokens holds (the reference report's "queueing, not slower streams").
TEST(StreamScenario, PastTheGenerationCapFirstTokensWaitWhileTokensFlowAsBefore) {
  const std::string dir = make_temp_dir("stream-cap");
  ServeProcess server(
      {"--routes", llm_routes(dir, "{ttft: 50ms, tokens_per_s: 50, tokens: 10, concurrency: 2}"),
       "--exit-after", "60s"});
  const auto level = [&](int clients) {
    const std::string out = dir + "/c" + std::to_string(clients);
    std::vector<std::string> args = chat_args(server, out);
    args.insert(args.end(), {"-c", std::to_string(clients), "-d", "2s"});
    const Completed done = run(args);
    EXPECT_EQ(done.exit_code, 0) << done.err;
    return result_of(out)["summary"]["streams"];
  };
  const json under = level(2);
  const json over = level(6);
  const double ttft_under = under["ttfce_ms"]["p50"].get<double>();
  const double ttft_over = over["ttfce_ms"]["p50"].get<double>();
  // A stream takes about 50 + 9 * 20 = 230 ms: three clients per slot wait for about two.
  EXPECT_GT(ttft_over, ttft_under + 150) << under.dump(2) << over.dump(2);
  const double itl_under = under["inter_event_ms"]["p50"].get<double>();
  const double itl_over = over["inter_event_ms"]["p50"].get<double>();
  EXPECT_NEAR(itl_over, itl_under, 5) << under.dump(2) << over.dump(2);
}

}  // namespace
}  // namespace proofload::testing

namespace proofload::testing {
namespace {

// A ladder judges its levels by their streams: with --goodput 'ttft<200ms' and an SLO of 90% of
// streams meeting it, the levels the server's two generation slots can carry hold (first token
// after 50 ms), and past them the queued streams wait a whole stream (230 ms) or more. Each
// level's streams and its accounting against the server's own count of completed streams are in
// levels.csv and summary.md's Streams by level: the reference report's streaming ramp.
TEST(StreamScenario, ALadderFindsTheHighestLevelWhereStreamsMeetTheirSlo) {
  const std::string dir = make_temp_dir("stream-ladder");
  const std::string routes = dir + "/routes.yaml";
  write_file(routes,
             "routes:\n  - {method: POST, path: /chat, llm: {ttft: 50ms, tokens_per_s: 50, "
             "tokens: 10, concurrency: 2}}\n  - {path: /metrics, builtin: metrics}\n");
  ServeProcess server({"--routes", routes, "--exit-after", "90s"});
  const Completed done = run_to_completion(
      {proofload_binary(), "ladder", server.url("/chat"), "-m", "POST", "--body",
       R"({"stream": true})", "--stream", "sse", "--goodput", "ttft<200ms", "--slo",
       "stream_goodput>=90%,errors<=1%", "--concurrency", "1,2,6", "--hold", "1500ms",
       "--warmup", "0s", "--workers", "1", "--reconcile",
       "prom:" + server.url("/metrics") + "#proofload_streams_completed_total", "-q", "-o",
       dir + "/out"},
      seconds(90));
  ASSERT_EQ(done.exit_code, 0) << done.err;
  const json result = json::parse(read_file(dir + "/out/result.json"));
  const json& best = result["analysis"]["best_sustained"];
  ASSERT_TRUE(best.is_object()) << result["analysis"].dump(2);
  EXPECT_EQ(best["level"], 2) << result["analysis"].dump(2);
  const json level6 = json::parse(read_file(dir + "/out/levels/03-6/result.json"));
  EXPECT_LT(level6["summary"]["streams"]["goodput"]["share"].get<double>(), 0.9);
  // The reconcile's endpoint is observed too: the server's count of streams, window by window.
  bool per_window = false;
  for (const json& w : level6["windows"]) {
    if (!w.contains("observed") || !w["observed"].contains("prom")) continue;
    per_window = per_window ||
                 w["observed"]["prom"].contains("proofload_streams_completed_total_per_s");
  }
  EXPECT_TRUE(per_window) << level6["windows"].dump(2);
  for (const json& row : result["rows"]) {
    EXPECT_GT(row["streams"]["tokens_per_s"].get<double>(), 0) << row.dump(2);
    EXPECT_EQ(row["reconcile"], "exact") << "every completed stream the server counted";
  }
  const std::string csv = read_file(dir + "/out/levels.csv");
  EXPECT_NE(csv.find(",tokens_per_s,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",exact,"), std::string::npos) << csv;
  const std::string summary = read_file(dir + "/out/summary.md");
  EXPECT_NE(summary.find("## Streams by level"), std::string::npos) << summary;
}

// stream_goodput without --goodput has nothing to be a share of: refused before anything is sent.
TEST(StreamScenario, AGoodputBoundWithoutItsSloIsOneLine) {
  const Completed c = run_to_completion({proofload_binary(), "run", "http://127.0.0.1:1/",
                                         "--stream", "sse", "--threshold",
                                         "stream_goodput>=90%", "--plan"},
                                        seconds(30));
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_NE(c.err.find("needs --goodput"), std::string::npos) << c.err;
  const Completed bad = run_to_completion({proofload_binary(), "run", "http://127.0.0.1:1/",
                                           "--stream", "sse", "--goodput", "latency<1s", "--plan"},
                                          seconds(30));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown metric 'latency'"), std::string::npos) << bad.err;
}

// A soak of streams (sustained streaming): each window's streams are kept (first token p95,
// inter-token p99, tokens per second, goodput share) and judged by the bar's stream parts.
TEST(StreamScenario, ASoakOfStreamsJudgesEachWindowByItsStreams) {
  const std::string dir = make_temp_dir("stream-soak");
  ServeProcess server(
      {"--routes", llm_routes(dir, "{ttft: 50ms, tokens_per_s: 100, tokens: 10}"),
       "--exit-after", "60s"});
  const Completed done = run_to_completion(
      {proofload_binary(), "soak", server.url("/chat"), "-m", "POST", "--body",
       R"({"stream": true})", "--stream", "sse", "--stream-content", "/choices/0/delta/content",
       "--goodput", "ttft<1s", "--bar", "errors<=1%,ttft_p95<1s,stream_goodput>=90%", "--rate",
       "20", "--hold", "3s", "--window", "1s", "--workers", "1", "-q", "-o", dir + "/out"},
      seconds(60));
  ASSERT_EQ(done.exit_code, 0) << done.err;
  const json result = json::parse(read_file(dir + "/out/result.json"));
  const json& windows = result["soak"]["windows"];
  ASSERT_GE(windows.size(), 2U) << result["soak"].dump(2);
  for (const json& w : windows) {
    if (w["index"].get<int64_t>() == 0) continue;  // the first window's streams may not have ended
    EXPECT_GE(w["ttft_p95_ms"].get<double>(), 50) << w.dump(2);
    EXPECT_GT(w["tokens_per_s"].get<double>(), 0) << w.dump(2);
    EXPECT_EQ(w["stream_goodput"], 1.0) << w.dump(2);
  }
  const std::string summary = read_file(dir + "/out/summary.md");
  EXPECT_NE(summary.find("first token p95 ms"), std::string::npos) << summary;
}

}  // namespace
}  // namespace proofload::testing
