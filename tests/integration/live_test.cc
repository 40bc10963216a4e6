// The live view end to end, the real binary against `proofload serve` on 127.0.0.1: the
// metrics scraped while a run goes (Prometheus' own promtool checks the text, and proofload's
// prom: observer reads the rate back), the dashboard's Server-Sent Events over a ladder's levels
// (each window as result.json holds it, the level's label, then `event: end` and a prompt exit),
// the refusals before any load, and the progress lines when stderr is not a terminal.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "process.h"

namespace proofload::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// The port a line "NAME: http://127.0.0.1:PORT/..." on the process's stderr names; 0 if none
// came within 10 s.
int announced_port(Process& process, const std::string& name) {
  const std::string prefix = name + ": http://127.0.0.1:";
  if (!process.wait_for_err(prefix, 10s)) return 0;
  const std::string& err = process.err();
  return std::stoi(err.substr(err.find(prefix) + prefix.size()));
}

std::string body_of(const std::string& response) {
  const size_t end = response.find("\r\n\r\n");
  return end == std::string::npos ? "" : response.substr(end + 4);
}

// GET `path` and read until the server closes the connection (or `deadline` passes).
std::string read_until_closed(int port, const std::string& path, std::chrono::seconds deadline) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string got;
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
    const auto until = std::chrono::steady_clock::now() + deadline;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          until - std::chrono::steady_clock::now());
      pollfd p{fd, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      char buffer[8192];
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n <= 0) break;
      got.append(buffer, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return got;
}

// The events of a text/event-stream body: {name, data}.
std::vector<std::pair<std::string, std::string>> events_of(const std::string& body) {
  std::vector<std::pair<std::string, std::string>> events;
  size_t at = 0;
  for (size_t end; (end = body.find("\n\n", at)) != std::string::npos; at = end + 2) {
    std::string name, data;
    const std::string block = body.substr(at, end - at);
    size_t line_at = 0;
    while (line_at <= block.size()) {
      const size_t line_end = std::min(block.find('\n', line_at), block.size());
      const std::string line = block.substr(line_at, line_end - line_at);
      if (line.rfind("event: ", 0) == 0) name = line.substr(7);
      if (line.rfind("data: ", 0) == 0) data = line.substr(6);
      line_at = line_end + 1;
    }
    if (!name.empty()) events.emplace_back(name, data);
  }
  return events;
}

TEST(LiveMetrics, ScrapedMidRunPassPromtoolAndTheProjectsPromObserverReadsTheRate) {
  if (!std::filesystem::exists("/usr/bin/promtool")) {
    GTEST_SKIP() << "needs /usr/bin/promtool (Debian's prometheus package; scripts/bootstrap)";
  }
  ServeProcess server({"--exit-after", "60s"});
  // Not -q: each window's line on stderr says how far the run is, without polling the endpoint.
  Process run({proofload_binary(), "run", server.url(), "--rate", "200", "-d", "5s", "--workers",
               "1", "--metrics-listen", "127.0.0.1:0"});
  const int port = announced_port(run, "metrics");
  ASSERT_GT(port, 0) << run.err();
  // A window reaches the metrics once observed, after the next window's line is printed: by the
  // third line, the first window is in.
  ASSERT_TRUE(run.wait_for_err("3s of 5s", 10s)) << run.err();
  const std::string response = http_get(port, "/metrics");
  EXPECT_NE(response.find("Content-Type: text/plain; version=0.0.4"), std::string::npos)
      << response;
  const std::string text = body_of(response);
  EXPECT_NE(text.find("proofload_windows_total "), std::string::npos) << text;
  EXPECT_EQ(text.find("proofload_windows_total 0\n"), std::string::npos) << text;
  const std::string file = make_temp_dir("live-metrics") + "/metrics.txt";
  write_file(file, text);
  const Completed check =
      run_to_completion({"/bin/sh", "-c", "/usr/bin/promtool check metrics < " + file}, 30s);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err << text;
  EXPECT_EQ(check.out + check.err, "") << "promtool's lint found something";

  // proofload's own Prometheus observer scrapes it while the run goes on.
  const std::string out = make_temp_dir("live-observed") + "/out";
  const Completed observed = run_to_completion(
      {proofload_binary(), "observe",
       "prom:http://127.0.0.1:" + std::to_string(port) + "/metrics?match=proofload_requests_total",
       "-d", "2s", "-o", out},
      30s);
  ASSERT_EQ(observed.exit_code, 0) << observed.err;
  const json result = json::parse(read_file(out + "/result.json"));
  double rate = 0;
  for (const json& window : result["windows"]) {
    const json& prom = window["observed"]["prom"];
    const auto key = "proofload_requests_total{outcome=\"success\"}_per_s";
    if (prom.contains(key)) rate = std::max(rate, prom[key].get<double>());
  }
  EXPECT_NEAR(rate, 200, 40) << result["windows"].dump(2);

  ASSERT_EQ(run.wait(20s), 0) << run.err();
}

TEST(LiveMetrics, AScenariosRequestsAreCountedByName) {
  ServeProcess server({"--exit-after", "60s"});
  const std::string dir = make_temp_dir("live-named");
  write_file(dir + "/mix.yaml",
             "requests:\n  home: {path: /}\n  other: {path: /other}\nmix: {home: 1, other: 1}\n");
  Process run({proofload_binary(), "run", dir + "/mix.yaml", server.url(), "--rate", "200", "-d",
               "4s", "--workers", "1", "--metrics-listen", "127.0.0.1:0"});
  const int port = announced_port(run, "metrics");
  ASSERT_GT(port, 0) << run.err();
  ASSERT_TRUE(run.wait_for_err("3s of 4s", 10s)) << run.err();
  const std::string text = body_of(http_get(port, "/metrics"));
  ASSERT_EQ(run.wait(20s), 0) << run.err();
  // Both names, and each about half of the requests counted so far.
  const auto count_of = [&](const std::string& name) -> int64_t {
    const std::string key =
        "proofload_named_requests_total{request=\"" + name + "\",outcome=\"success\"} ";
    const size_t at = text.find(key);
    return at == std::string::npos ? -1 : std::stoll(text.substr(at + key.size()));
  };
  const int64_t home = count_of("home"), other = count_of("other");
  ASSERT_GT(home, 0) << text;
  ASSERT_GT(other, 0) << text;
  const std::string total_key = "proofload_requests_total{outcome=\"success\"} ";
  const size_t total_at = text.find(total_key);
  ASSERT_NE(total_at, std::string::npos);
  EXPECT_EQ(home + other, std::stoll(text.substr(total_at + total_key.size()))) << text;
}

TEST(LiveDashboard, StreamsEveryLevelsWindowsThenTheEndAndTheProcessExits) {
  ServeProcess server({"--exit-after", "60s"});
  const std::string out = make_temp_dir("live-ladder") + "/out";
  Process ladder({proofload_binary(), "ladder", server.url(), "--rates", "50,100", "--hold", "2s",
                  "--warmup", "0s", "--workers", "1", "-q", "-o", out, "--dashboard", "127.0.0.1:0",
                  "--metrics-listen", "127.0.0.1:0"});
  const int port = announced_port(ladder, "dashboard");
  ASSERT_GT(port, 0) << ladder.err();
  const std::string page = http_get(port, "/");
  EXPECT_EQ(page.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << page.substr(0, 300);
  EXPECT_NE(page.find("Content-Type: text/html"), std::string::npos);
  EXPECT_NE(page.find("id=\"live-windows\""), std::string::npos);

  // The stream ends when the ladder does: every window of both levels, then `end`.
  const std::string stream = read_until_closed(port, "/events", 60s);
  EXPECT_NE(stream.find("Content-Type: text/event-stream\r\n"), std::string::npos) << stream;
  EXPECT_NE(stream.find("Cache-Control: no-store\r\n"), std::string::npos);
  const auto events = events_of(body_of(stream));
  ASSERT_FALSE(events.empty()) << stream;
  EXPECT_EQ(events.back().first, "end");
  std::vector<std::string> labels;
  int windows = 0;
  for (const auto& [name, data] : events) {
    if (name != "window") continue;
    ++windows;
    const json event = json::parse(data);
    EXPECT_TRUE(event["window"].contains("throughput_rps")) << data;
    EXPECT_TRUE(event["window"].contains("latency_ms")) << data;
    EXPECT_TRUE(event["window"]["observed"].contains("self")) << data;  // observed, then sent
    EXPECT_EQ(event["planned_s"], 2.0) << data;
    const std::string label = event["label"];
    if (labels.empty() || labels.back() != label) labels.push_back(label);
  }
  EXPECT_GE(windows, 4);
  EXPECT_EQ(labels, (std::vector<std::string>{"level 1 of 2 (50/s)", "level 2 of 2 (100/s)"}));
  // Each window sent is one result.json holds (the two levels' runs).
  std::vector<std::filesystem::path> levels;
  for (const auto& entry : std::filesystem::directory_iterator(out + "/levels")) {
    levels.push_back(entry.path());
  }
  std::sort(levels.begin(), levels.end());
  ASSERT_EQ(levels.size(), 2u);
  const json level = json::parse(read_file(levels[0] / "result.json"));
  EXPECT_EQ(json::parse(events.front().second)["window"], level["windows"][0])
      << "the live window is not result.json's";
  // The process ends at once after its last window: nothing lingers for a browser.
  ASSERT_EQ(ladder.wait(10s), 0) << ladder.err();
  EXPECT_FALSE(loopback_accepts(port));
}

TEST(LiveRefusals, APortInUseOrAPublicDashboardIsRefusedBeforeAnyLoad) {
  ServeProcess server({"--exit-after", "60s"});
  const std::string out = make_temp_dir("live-refused") + "/out";
  const std::string taken = "127.0.0.1:" + std::to_string(server.port());
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--metrics-listen", taken}, "--metrics-listen " + taken + ": cannot listen on"},
      {{"--dashboard", taken}, "--dashboard " + taken + ": cannot listen on"},
      {{"--dashboard", "0.0.0.0:0"}, "is not a loopback address"},
      {{"--dashboard", "127.0.0.1"}, "--dashboard needs ADDRESS:PORT"},
      {{"--dashboard-public"}, "--dashboard-public needs --dashboard"}};
  for (const auto& [flags, message] : cases) {
    SCOPED_TRACE(flags[0]);
    std::vector<std::string> args = {
        proofload_binary(), "run", server.url(), "-d", "2s", "-o", out};
    args.insert(args.end(), flags.begin(), flags.end());
    const Completed run = run_to_completion(args, 20s);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_NE(run.err.find(message), std::string::npos) << run.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << "a run was recorded";
  }
}

TEST(LiveProgress, PlainLinesWhenStderrIsNoTerminalAndNoneWithQuiet) {
  ServeProcess server({"--exit-after", "60s"});
  const Completed shown = run_to_completion(
      {proofload_binary(), "run", server.url(), "--rate", "50", "-d", "3s", "--workers", "1"}, 20s);
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  for (const char* line : {"   1s of 3s (2s left)  target 50.0/s  ", "   3s of 3s (0s left)"}) {
    EXPECT_NE(shown.err.find(line), std::string::npos) << shown.err;
  }
  EXPECT_NE(shown.err.find("generator CPU "), std::string::npos) << shown.err;
  EXPECT_EQ(shown.err.find('\r'), std::string::npos) << "no terminal: nothing is redrawn";
  EXPECT_EQ(shown.err.find('\033'), std::string::npos) << shown.err;
  const Completed quiet = run_to_completion(
      {proofload_binary(), "run", server.url(), "--rate", "50", "-d", "2s", "-q"}, 20s);
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
}

}  // namespace
}  // namespace proofload::testing
