// `proofload run --stream sse` end to end against the built-in server's OpenAI-compatible llm
// route, whose truth the test sets: the time to first token, the rate and the token count.
// Every run here is bounded by -d and a deadline on the child process.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "process.h"

namespace proofload::testing {
namespace {

using nlohmann::json;
using std::chrono::seconds;

// 20 tokens, the first 100 ms after the request, then one every 20 ms (50/s).
std::string llm_routes(const std::string& dir) {
  const std::string path = dir + "/routes.yaml";
  write_file(path,
             "routes:\n  - {method: POST, path: /v1/chat/completions, "
             "llm: {ttft: 100ms, tokens_per_s: 50, tokens: 20}}\n");
  return path;
}

Completed stream_run(ServeProcess& server, const std::string& out,
                     const std::vector<std::string>& more) {
  std::vector<std::string> args = {proofload_binary(), "run",
                                   server.url("/v1/chat/completions"),
                                   "-m", "POST", "--body", R"({"stream": true})",
                                   "--stream", "sse", "-c", "2", "-d", "2s", "-q", "-o", out};
  args.insert(args.end(), more.begin(), more.end());
  return run_to_completion(args, seconds(60));
}

TEST(StreamRun, EachStreamIsMeasuredEventByEventAgainstTheServersTruth) {
  const std::string dir = make_temp_dir("stream-run");
  ServeProcess server({"--routes", llm_routes(dir), "--exit-after", "60s"});
  const Completed run = stream_run(server, dir + "/out",
                                   {"--stream-content", "/choices/0/delta/content",
                                    "--stream-tokens", "/usage/completion_tokens"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json result = json::parse(read_file(dir + "/out/result.json"));
  EXPECT_EQ(result["spec"]["stream"]["content"], "/choices/0/delta/content");
  const json& s = result["summary"]["streams"];
  const int64_t completed = s["completed"].get<int64_t>();
  EXPECT_GT(completed, 0) << s.dump(2);
  EXPECT_EQ(completed, result["summary"]["requests"].get<int64_t>());
  EXPECT_EQ(s["cut_short"], 0);
  EXPECT_EQ(s["malformed"], 0);
  EXPECT_EQ(s["tokens"].get<int64_t>(), 20 * completed) << "the server's own usage count";
  // The role chunk, 20 content chunks, the usage chunk and [DONE].
  EXPECT_EQ(s["events"].get<int64_t>(), 23 * completed);
  // Times against the configured truth, with room for a loaded or sanitized machine: never
  // earlier than the server made them.
  const double ttft = s["ttfce_ms"]["p50"].get<double>();
  EXPECT_GE(ttft, 100) << s.dump(2);
  EXPECT_LT(ttft, 160) << s.dump(2);
  const double itl = s["inter_event_ms"]["p50"].get<double>();
  EXPECT_GT(itl, 18) << s.dump(2);
  EXPECT_LT(itl, 30) << s.dump(2);
  EXPECT_GE(s["duration_ms"]["p50"].get<double>(), 100 + 19 * 20);
  const std::string summary = read_file(dir + "/out/summary.md");
  EXPECT_NE(summary.find("## Streams"), std::string::npos) << summary;
}

TEST(StreamRun, AStreamWithoutItsTerminatorIsCutShort) {
  const std::string dir = make_temp_dir("stream-cut");
  ServeProcess server({"--routes", llm_routes(dir), "--exit-after", "60s"});
  const Completed run = stream_run(server, dir + "/out", {"--stream-end", "[NEVER]"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json result = json::parse(read_file(dir + "/out/result.json"));
  const json& s = result["summary"]["streams"];
  EXPECT_EQ(s["completed"], 0) << s.dump(2);
  EXPECT_GT(s["cut_short"].get<int64_t>(), 0) << s.dump(2);
  EXPECT_EQ(s["tokens_per_s"], 0) << "rates count completed streams only";
}

TEST(StreamRun, StreamFlagsWithoutAStreamOrOverHttp2AreOneLine) {
  const Completed no_stream = run_to_completion(
      {proofload_binary(), "run", "http://127.0.0.1:1/", "--stream-content", "/a", "-d", "1s"},
      seconds(30));
  EXPECT_EQ(no_stream.exit_code, 2);
  EXPECT_NE(no_stream.err.find("need --stream sse"), std::string::npos) << no_stream.err;
  const Completed h2 = run_to_completion({proofload_binary(), "run", "http://127.0.0.1:1/",
                                          "--stream", "chunked", "--http2", "--plan"},
                                         seconds(30));
  EXPECT_EQ(h2.exit_code, 2);
  EXPECT_NE(h2.err.find("HTTP/2 has no chunks"), std::string::npos) << h2.err;
  const Completed pointer = run_to_completion({proofload_binary(), "run", "http://127.0.0.1:1/",
                                               "--stream", "sse", "--stream-tokens", "usage",
                                               "--plan"},
                                              seconds(30));
  EXPECT_EQ(pointer.exit_code, 2);
  EXPECT_NE(pointer.err.find("--stream-tokens 'usage'"), std::string::npos) << pointer.err;
}

}  // namespace
}  // namespace proofload::testing
