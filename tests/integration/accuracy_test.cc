// Accuracy on a known stall: open loop at 1000 requests/s for 15 s against a server that answers
// in 1 ms but freezes for 1 s every 5 s (first at 2 s). 20% of requests arrive during a stall and
// wait out the rest of it, uniformly, so the truth is known by construction:
//   p50 = 1 ms, p90 = 501 ms, p99 = 951 ms, p99.9 = 996 ms, mean = 0.8 * 1 + 0.2 * 501 = 101 ms.
// A generator that times from the send (coordinated omission) reports a p90 of about 1 ms.
// The same truth holds over TLS (the server's --tls-self-signed, the load verifying it): the
// handshakes are done before the schedule starts and each request adds only its record crypto.
// And over HTTP/2 (h2c, streams on 10 connections) against h2_stall_server's same schedule. Plain
// HTTP/1.1 runs over each I/O backend (--io uring, --io epoll).
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <thread>

#include "process.h"

namespace proofload::testing {
namespace {

using nlohmann::json;

// With two or more cores, the server and the generator run on different ones.
std::vector<std::string> pinned(int cpu, std::vector<std::string> args) {
  if (std::thread::hardware_concurrency() < 2) return args;
  std::vector<std::string> command = {"/usr/bin/taskset", "-c", std::to_string(cpu)};
  command.insert(command.end(), args.begin(), args.end());
  return command;
}

// How the load reaches the server: plain HTTP/1.1 (over io_uring, and over epoll), over TLS, or
// HTTP/2 (h2c).
enum class Path { kTcp, kTcpEpoll, kTls, kH2c };

class Accuracy : public ::testing::TestWithParam<Path> {};

TEST_P(Accuracy, OpenLoopLatencyOnAKnownStallMatchesTheTruth) {
  const Path path = GetParam();
  const bool tls = path == Path::kTls;
  std::string out = make_temp_dir(tls ? "accuracy-tls" : "accuracy");
  std::vector<std::string> serve = {proofload_binary(), "serve", "--port",        "0",
                                    "--delay",          "1ms",   "--stall",       "1s",
                                    "--stall-every",    "5s",    "--stall-first", "2s"};
  if (tls) serve.insert(serve.end(), {"--tls-self-signed", out + "/serve.pem"});
  // `proofload serve` speaks HTTP/1.1 only: over HTTP/2 a test server with the same schedule.
  if (path == Path::kH2c) serve = {PL_H2_STALL_SERVER, "1000", "1000", "5000", "2000"};
  Process server(pinned(1, serve));
  auto line = server.read_stdout_line(std::chrono::seconds(10));
  ASSERT_TRUE(line.has_value()) << server.err();
  std::string port = line->substr(line->rfind(':') + 1);

  std::vector<std::string> load = {
      proofload_binary(),
      "run",
      std::string(tls ? "https" : "http") + "://127.0.0.1:" + port + "/",
      "--rate",
      "1000",
      "-d",
      "15s",
      "-c",
      "100",
      "--workers",
      "1",
      "--out",
      out + "/run"};
  if (tls) load.insert(load.end(), {"--cacert", out + "/serve.pem"});
  if (path == Path::kTcp) load.insert(load.end(), {"--io", "uring"});
  if (path == Path::kTcpEpoll) load.insert(load.end(), {"--io", "epoll"});
  // The same 100 requests in flight at most: 10 connections of 10 streams.
  if (path == Path::kH2c) {
    *(std::find(load.begin(), load.end(), "-c") + 1) = "10";
    load.insert(load.end(), {"--http2", "--h2-streams", "10"});
  }
  auto run = run_to_completion(pinned(0, load), std::chrono::seconds(60));
  out += "/run";
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json summary = json::parse(read_file(out + "/result.json"))["summary"];
  const json& latency = summary["latency_ms"];
  std::cout << "measured latency (ms): p50 " << latency["p50"] << "  p90 " << latency["p90"]
            << "  p99 " << latency["p99"] << "  p99.9 " << latency["p99_9"] << "  mean "
            << latency["mean"] << "\n";

  EXPECT_EQ(summary["intended"], 15000);
  EXPECT_EQ(summary["never_started"], 0);
  EXPECT_EQ(summary["errors"], 0);
  // Besides the relative tolerances, a fixed allowance for what a shared 2-core machine adds.
  // After each stall the server works through the 1,000 requests that waited it out, 100
  // connections at a time: on a quiet machine that puts p90 at 508-512 ms, not 501, and a noisy
  // neighbour stretches it (CI once measured 534 ms, the old binary 529). The requests that never
  // waited get up to 4 ms of scheduling on top of the server's 1 ms: p50 is 1.15-1.2 ms on a
  // quiet machine, but CI once measured 3.14 ms over TLS, in that run with p90 at 534 ms. A
  // generator that timed from the send (coordinated omission) still fails every bound above p50
  // by hundreds of milliseconds, and one that added a constant delay of 4 ms or more fails p50.
  constexpr double kBurstMs = 40;
  constexpr double kSchedulingMs = 4;
  EXPECT_GE(latency["p50"].get<double>(), 1.0);
  EXPECT_LE(latency["p50"].get<double>(), 1.0 + kSchedulingMs);
  EXPECT_NEAR(latency["p90"].get<double>(), 501, 501 * 0.03 + kBurstMs);
  EXPECT_NEAR(latency["p99"].get<double>(), 951, 951 * 0.03 + kBurstMs);
  EXPECT_NEAR(latency["p99_9"].get<double>(), 996, 996 * 0.03 + kBurstMs);
  // A fifth of the requests waited: the burst moves the mean by a fifth of it.
  EXPECT_NEAR(latency["mean"].get<double>(), 101, 101 * 0.05 + kBurstMs / 5);
  if (tls) {
    EXPECT_EQ(json::parse(read_file(out + "/result.json"))["spec"]["tls"]["verify"], true);
  }
}

INSTANTIATE_TEST_SUITE_P(PlainTlsAndH2, Accuracy,
                         ::testing::Values(Path::kTcp, Path::kTcpEpoll, Path::kTls, Path::kH2c),
                         [](const ::testing::TestParamInfo<Path>& info) {
                           return info.param == Path::kTcp        ? "OverTcp"
                                  : info.param == Path::kTcpEpoll ? "OverTcpWithEpoll"
                                  : info.param == Path::kTls      ? "OverTls"
                                                                  : "OverH2c";
                         });

}  // namespace
}  // namespace proofload::testing
