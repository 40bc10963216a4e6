// Accuracy on a known stall: open loop at 1000 requests/s for 15 s against a server that answers
// in 1 ms but freezes for 1 s every 5 s (first at 2 s). 20% of requests arrive during a stall and
// wait out the rest of it, uniformly, so the truth is known by construction:
//   p50 = 1 ms, p90 = 501 ms, p99 = 951 ms, p99.9 = 996 ms, mean = 0.8 * 1 + 0.2 * 501 = 101 ms.
// A generator that times from the send (coordinated omission) reports a p90 of about 1 ms.
#include <gtest/gtest.h>

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

TEST(Accuracy, OpenLoopLatencyOnAKnownStallMatchesTheTruth) {
  Process server(pinned(1, {proofload_binary(), "serve", "--port", "0", "--delay", "1ms",
                            "--stall", "1s", "--stall-every", "5s", "--stall-first", "2s"}));
  auto line = server.read_stdout_line(std::chrono::seconds(10));
  ASSERT_TRUE(line.has_value()) << server.err();
  std::string port = line->substr(line->rfind(':') + 1);

  std::string out = make_temp_dir("accuracy");
  auto run = run_to_completion(
      pinned(0, {proofload_binary(), "run", "http://127.0.0.1:" + port + "/", "--rate", "1000",
                 "-d", "15s", "-c", "100", "--workers", "1", "--out", out}),
      std::chrono::seconds(60));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json summary = json::parse(read_file(out + "/result.json"))["summary"];
  const json& latency = summary["latency_ms"];
  std::cout << "measured latency (ms): p50 " << latency["p50"] << "  p90 " << latency["p90"]
            << "  p99 " << latency["p99"] << "  p99.9 " << latency["p99_9"] << "  mean "
            << latency["mean"] << "\n";

  EXPECT_EQ(summary["intended"], 15000);
  EXPECT_EQ(summary["never_started"], 0);
  EXPECT_EQ(summary["errors"], 0);
  EXPECT_GE(latency["p50"].get<double>(), 1.0);
  EXPECT_LE(latency["p50"].get<double>(), 1.3);
  EXPECT_NEAR(latency["p90"].get<double>(), 501, 501 * 0.03);
  EXPECT_NEAR(latency["p99"].get<double>(), 951, 951 * 0.03);
  EXPECT_NEAR(latency["p99_9"].get<double>(), 996, 996 * 0.03);
  EXPECT_NEAR(latency["mean"].get<double>(), 101, 101 * 0.05);
}

}  // namespace
}  // namespace proofload::testing
