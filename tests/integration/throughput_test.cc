// Throughput is what the windows show: completions per second of the measured span (the end of
// the warm-up to the end of the schedule), whatever the latency against the hold. Each test runs
// the real binary against a server with a known service rate (tests/integration/paced_server.h:
// one request every 5 ms or 1 ms of wall time, in arrival order) far below the load, so the
// answer is known: the service rate. Timing: the generator needs a core of its own.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "paced_server.h"
#include "process.h"

namespace proofload::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

struct Measured {
  json summary;
  double windows_mean_rps = 0;  // the mean of the measured span's windows' throughput_rps
  int span_windows = 0;
  int drain_windows = 0;
};

Measured run(const PacedServer& server, std::vector<std::string> flags, const std::string& name) {
  const std::string dir = make_temp_dir(name);
  std::vector<std::string> args = {proofload_binary(), "run", server.url(), "-q", "-o", dir,
                                   "--workers",        "1"};
  args.insert(args.end(), flags.begin(), flags.end());
  const Completed c = run_to_completion(args, 60s);
  EXPECT_EQ(c.exit_code, 0) << c.err;
  Measured m;
  m.summary = json::parse(read_file(dir + "/result.json"))["summary"];
  // windows.csv: columns by name from the header.
  std::istringstream csv(read_file(dir + "/windows.csv"));
  std::string line;
  std::getline(csv, line);
  std::vector<std::string> header;
  for (std::istringstream cells(line); std::getline(cells, line, ',');) header.push_back(line);
  auto column = [&](const std::string& name) {
    const auto at = std::find(header.begin(), header.end(), name);
    EXPECT_NE(at, header.end()) << "windows.csv has no column " << name;
    return static_cast<size_t>(at - header.begin());
  };
  for (const char* name : {"warmup", "drain", "throughput_rps"}) {
    if (std::find(header.begin(), header.end(), name) == header.end()) {
      ADD_FAILURE() << "windows.csv has no column " << name;
      return m;
    }
  }
  double sum = 0;
  while (std::getline(csv, line)) {
    std::vector<std::string> row;
    for (std::istringstream cells(line); std::getline(cells, line, ',');) row.push_back(line);
    if (row.size() < header.size()) row.resize(header.size());
    if (row[column("warmup")] == "1") continue;
    if (row[column("drain")] == "1") {
      ++m.drain_windows;
      continue;
    }
    sum += std::stod(row[column("throughput_rps")]);
    ++m.span_windows;
  }
  if (m.span_windows > 0) m.windows_mean_rps = sum / m.span_windows;
  return m;
}

double rps(const Measured& m) { return m.summary["throughput_rps"].get<double>(); }

TEST(Throughput, ClosedLoopFarAboveTheServiceRateIsTheServiceRateWithAWarmup) {
  // 400 in flight before a 200/s server: 2 s of queue. Counted as responses to requests started
  // in the hold over the hold plus the last one's latency, this read about 139/s.
  PacedServer server(5'000'000);
  const Measured m = run(server, {"-c", "400", "--warmup", "2s", "-d", "4s"}, "tp-warmup");
  EXPECT_NEAR(rps(m), 200, 200 * 0.03) << m.summary.dump(2);
  EXPECT_NEAR(rps(m), m.windows_mean_rps, m.windows_mean_rps * 0.02);
  EXPECT_EQ(m.span_windows, 4);
  EXPECT_GE(m.drain_windows, 1);  // the queue drained after the schedule ended
  EXPECT_DOUBLE_EQ(m.summary["duration_s"].get<double>(), 4.0);
  EXPECT_NEAR(m.summary["goodput_rps"].get<double>(), rps(m), 1e-9);  // every answer a 200
  // Latency still belongs to the requests intended in the measured part: about 2 s of queue.
  EXPECT_GT(m.summary["latency_ms"]["p50"].get<double>(), 1500);
}

TEST(Throughput, LatencyLongAgainstTheHoldDoesNotShrinkIt) {
  // 2,000 in flight before a 1,000/s server: 2 s latency against an 8 s hold. Measured to the
  // last response this read 8,000 / 10 s, a fall the ladder called beyond the noise floor.
  PacedServer server(1'000'000);
  const Measured m = run(server, {"-c", "2000", "-d", "8s"}, "tp-long");
  EXPECT_NEAR(rps(m), 1000, 1000 * 0.03) << m.summary.dump(2);
  EXPECT_NEAR(rps(m), m.windows_mean_rps, m.windows_mean_rps * 0.02);
  EXPECT_EQ(m.span_windows, 8);
}

TEST(Throughput, OpenLoopAboveTheServiceRateIsTheServiceRate) {
  PacedServer server(5'000'000);
  const Measured m =
      run(server,
          {"--rate", "400", "-c", "50", "--max-connections", "400", "--warmup", "1s", "-d", "3s"},
          "tp-open");
  EXPECT_NEAR(rps(m), 200, 200 * 0.03) << m.summary.dump(2);
  EXPECT_NEAR(rps(m), m.windows_mean_rps, m.windows_mean_rps * 0.02);
}

}  // namespace
}  // namespace proofload::testing
