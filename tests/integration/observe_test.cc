// Observers end to end: `proofload run --observe ...` and `proofload observe ...` as a user runs
// them, against `proofload serve` (whose own /metrics is the independent witness), a process
// restarted behind a pidfile, and endpoints that fail. Everything is on 127.0.0.1, every run is
// bounded by -d or -n and a deadline on the child.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "process.h"
#include "raw_server.h"

namespace proofload::testing {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

// The route of the demo profile the loads below use: ~0.2 ms of server CPU per request, so the
// server's CPU is well above what a sampler can miss.
constexpr const char* kLookupPath = "/sic/62012";


// The sum of every series of the family `name` on the server's /metrics page whose line contains
// `label` ("" for all), read with a raw GET; nullopt when the page could not be read.
std::optional<double> scrape(int port, const std::string& name, const std::string& label = "") {
  const std::string page = http_get(port, "/metrics");
  if (page.find(" 200 ") == std::string::npos) return std::nullopt;
  std::istringstream lines(page);
  double total = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(name, 0) != 0) continue;
    const char after = line.size() > name.size() ? line[name.size()] : '\0';
    if (after != ' ' && after != '{') continue;  // another family with this prefix
    if (!label.empty() && line.find(label) == std::string::npos) continue;
    total += std::stod(line.substr(line.rfind(' ') + 1));
  }
  return total;
}

int online_cpus() { return static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)); }

// windows.csv as rows of column -> cell ("" for an empty cell).
struct Csv {
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
};

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream stream(line);
  for (std::string cell; std::getline(stream, cell, ',');) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

Csv read_csv(const std::string& path) {
  Csv csv;
  std::istringstream lines(read_file(path));
  std::string line;
  if (!std::getline(lines, line)) return csv;
  csv.header = split_commas(line);
  while (std::getline(lines, line)) {
    std::vector<std::string> cells = split_commas(line);
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < csv.header.size(); ++i)
      row[csv.header[i]] = i < cells.size() ? cells[i] : "";
    csv.rows.push_back(std::move(row));
  }
  return csv;
}

bool has_column(const Csv& csv, const std::string& name) {
  return std::find(csv.header.begin(), csv.header.end(), name) != csv.header.end();
}

// A run (or an observe) with -o: what it printed, result.json and windows.csv.
struct Observed {
  Completed run;
  json result;
  Csv csv;
};

Observed read_outputs(Completed run, const std::string& out) {
  Observed o{std::move(run), nullptr, read_csv(out + "/windows.csv")};
  const std::string text = read_file(out + "/result.json");
  if (!text.empty()) o.result = json::parse(text);
  return o;
}

// `proofload run URL ARGS... -q -o OUT`.
Observed run_observed(const std::string& url, const std::vector<std::string>& args,
                      const std::string& out) {
  std::vector<std::string> command = {proofload_binary(), "run", url};
  command.insert(command.end(), args.begin(), args.end());
  command.insert(command.end(), {"-q", "-o", out});
  return read_outputs(run_to_completion(command, seconds(30)), out);
}

// Windows a figure can honestly be given for: measured, and at least one sampling period long.
// (The closing window of a run holds only the requests that finished in the grace period, often
// a few milliseconds: shorter than a period, it holds no sample of its own.)
bool is_whole_measured_window(const json& window, double period_s) {
  return !window["warmup"].get<bool>() && window["duration_s"].get<double>() >= period_s;
}

// The name of the per-window rate of the requests counter of `route` (series keys carry their
// labels, so the status label comes along).
std::optional<std::string> requests_rate_key(const json& figures, const std::string& route) {
  for (const auto& [key, value] : figures.items()) {
    if (key.rfind("proofload_requests_total{", 0) == 0 &&
        key.find("route=\"" + route + "\"") != std::string::npos && key.ends_with("_per_s")) {
      return key;
    }
  }
  return std::nullopt;
}

// Writes a pidfile the way a daemon should: whole, by rename, so a reader never sees half of it.
void write_pidfile(const std::string& path, pid_t pid) {
  const std::string temporary = path + ".tmp";
  std::ofstream(temporary) << pid << "\n";
  std::filesystem::rename(temporary, path);
}

// Waits until windows.csv holds `rows` rows or the run ends; false when the run ended first or
// 10 s passed. Waiting on the child doubles as the poll step.
bool wait_for_rows(Process& run, const std::string& out, size_t rows) {
  const auto until = std::chrono::steady_clock::now() + seconds(10);
  for (;;) {
    const std::string text = read_file(out + "/windows.csv");
    if (static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) >= rows + 1) return true;
    if (std::chrono::steady_clock::now() > until) return false;
    if (run.wait(milliseconds(20)).has_value()) return false;
  }
}

// ---- the server's CPU and memory ------------------------------------------------------------

TEST(Observe, ServerProcessCpuAndMemoryInTheSummaryAndInEveryWindow) {
  ServeProcess server({"--profile", "demo"});
  const std::string out = make_temp_dir("observe-pid");
  const std::string pid = std::to_string(server.process().pid());
  Observed r = run_observed(
      server.url(kLookupPath),
      {"-d", "2s", "--workers", "1", "--observe", "pid:" + pid, "--observe-every", "100ms"}, out);
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  const json& observed = r.result["observed"]["pid"];
  ASSERT_TRUE(observed.is_object()) << r.result["observed"].dump(2);
  EXPECT_EQ(observed["source"], "pid:" + pid);
  EXPECT_EQ(observed["gaps"], 0) << observed.dump(2);

  const double cores = observed["cpu_cores_mean"].get<double>();
  EXPECT_GT(cores, 0.05) << observed.dump(2);
  EXPECT_LE(cores, online_cpus() * 1.02) << observed.dump(2);
  EXPECT_GE(observed["cpu_cores_max"].get<double>(), cores);

  const int64_t requests = r.result["summary"]["requests"].get<int64_t>();
  ASSERT_GT(requests, 0);
  const double expected_ms = observed["cpu_seconds"].get<double>() * 1000.0 / requests;
  EXPECT_NEAR(observed["cpu_ms_per_request"].get<double>(), expected_ms, expected_ms * 0.01);
  EXPECT_GT(observed["rss_bytes_end"].get<double>(), 1024.0 * 1024.0);
  EXPECT_GE(observed["rss_bytes_peak"].get<double>(), observed["rss_bytes_end"].get<double>());

  // windows.csv: the pid's columns after the generator's, a value in every whole window.
  // (restarts is a pidfile column only: a pid cannot restart.)
  EXPECT_FALSE(has_column(r.csv, "pid.restarts"));
  const std::vector<std::string> columns = {"pid.cpu_cores", "pid.rss_bytes", "pid.rss_bytes_peak",
                                            "pid.threads", "pid.open_files"};
  for (const std::string& column : columns) EXPECT_TRUE(has_column(r.csv, column)) << column;
  ASSERT_EQ(r.csv.rows.size(), r.result["windows"].size());
  int whole_windows = 0;
  for (size_t i = 0; i < r.csv.rows.size(); ++i) {
    if (!is_whole_measured_window(r.result["windows"][i], 0.1)) continue;
    ++whole_windows;
    for (const std::string& column : columns) {
      EXPECT_FALSE(r.csv.rows[i][column].empty()) << "window " << i << " " << column;
    }
    EXPECT_GT(std::stod(r.csv.rows[i]["pid.cpu_cores"]), 0.05) << "window " << i;
    EXPECT_GT(std::stod(r.csv.rows[i]["pid.rss_bytes"]), 1024.0 * 1024.0) << "window " << i;
  }
  EXPECT_GE(whole_windows, 2);
  EXPECT_NE(r.run.out.find("observed (measured part)"), std::string::npos) << r.run.out;
  EXPECT_NE(r.run.out.find("pid (pid:" + pid + "): CPU"), std::string::npos) << r.run.out;
}

TEST(Observe, ServerCpuAgreesWithTheServersOwnProcessCpuCounter) {
  ServeProcess server({"--profile", "demo"});
  const std::string out = make_temp_dir("observe-cpu-witness");
  const std::optional<double> before = scrape(server.port(), "process_cpu_seconds_total");
  ASSERT_TRUE(before.has_value());
  Observed r =
      run_observed(server.url(kLookupPath),
                   {"-d", "2s", "--workers", "1", "--observe",
                    "pid:" + std::to_string(server.process().pid()), "--observe-every", "100ms"},
                   out);
  const std::optional<double> after = scrape(server.port(), "process_cpu_seconds_total");
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  ASSERT_TRUE(after.has_value());
  const double witnessed_s = *after - *before;
  const double observed_s = r.result["observed"]["pid"]["cpu_seconds"].get<double>();
  ASSERT_GT(witnessed_s, 0.1) << "the load did not cost the server CPU";
  EXPECT_NEAR(observed_s, witnessed_s, std::max(0.1 * witnessed_s, 0.05))
      << "proofload saw " << observed_s << " s, the server's counter moved " << witnessed_s << " s";
}

// ---- a Prometheus endpoint ------------------------------------------------------------------

TEST(Observe, PrometheusCountersBecomeRatesThatAddUpToTheRequestsSent) {
  ServeProcess server({"--profile", "demo"});
  const std::string out = make_temp_dir("observe-prom");
  Observed r = run_observed(
      server.url(kLookupPath),
      {"-d", "2s", "--workers", "1", "--observe",
       "prom:" + server.url("/metrics") + "?match=proofload_", "--observe-every", "100ms"},
      out);
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  const json& prom = r.result["observed"]["prom"];
  ASSERT_TRUE(prom.is_object()) << r.result["observed"].dump(2);
  EXPECT_GT(prom["samples"].get<int64_t>(), 0);
  EXPECT_EQ(prom["gaps"], 0) << prom.dump(2);
  // A Prometheus endpoint's series vary: they are in result.json only, not windows.csv columns.
  for (const std::string& column : r.csv.header) EXPECT_NE(column.rfind("prom.", 0), 0u) << column;
  // match=proofload_ keeps the server's own families and drops the process_* ones.
  for (const auto& [key, value] : prom.items()) {
    EXPECT_EQ(key.rfind("process_", 0), std::string::npos) << key;
  }

  double counted = 0;
  int whole_windows = 0;
  for (const json& window : r.result["windows"]) {
    if (window["warmup"].get<bool>()) continue;
    const json& figures = window["observed"]["prom"];
    const std::optional<std::string> key = requests_rate_key(figures, "lookup");
    if (!is_whole_measured_window(window, 0.1)) {
      if (key) counted += figures[*key].get<double>() * window["duration_s"].get<double>();
      continue;
    }
    ++whole_windows;
    ASSERT_TRUE(key.has_value()) << "window " << window["index"] << ": " << figures.dump(2);
    counted += figures[*key].get<double>() * window["duration_s"].get<double>();
  }
  EXPECT_GE(whole_windows, 2);
  const auto sent = static_cast<double>(r.result["summary"]["requests"].get<int64_t>());
  ASSERT_GT(sent, 0);
  EXPECT_NEAR(counted, sent, 0.1 * sent)
      << "the server counted " << counted << ", proofload sent " << sent;
}

// ---- failing observers ----------------------------------------------------------------------

TEST(Observe, FailingEndpointsRecordGapsAndTheRunGoesOn) {
  ServeProcess server;
  RawServer garbage("HTTP/1.1 200 OK\r\nContent-Length: 21\r\n\r\nthis is not a metric\n", true);
  const std::string refused = "http://127.0.0.1:" + std::to_string(unused_loopback_port()) + "/metrics";
  const std::string out = make_temp_dir("observe-gaps");
  Observed r = run_observed(server.url(),
                            {"-d", "1s", "--rate", "100", "--workers", "1", "--observe",
                             "prom:" + garbage.url() + "metrics", "--observe", "prom:" + refused,
                             "--observe-every", "100ms"},
                            out);
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_GT(r.result["summary"]["requests"].get<int64_t>(), 50) << "the load did not go on";

  const json& observed = r.result["observed"];
  for (const char* label : {"prom", "prom2"}) {
    const json& source = observed[label];
    ASSERT_TRUE(source.is_object()) << label << " missing: " << observed.dump(2);
    EXPECT_GT(source["gaps"].get<int64_t>(), 0) << label;
    EXPECT_EQ(source["samples"], 0) << label;
    EXPECT_FALSE(source.value("error", "").empty()) << label;
  }
  EXPECT_EQ(observed["prom2"]["source"], "prom:" + refused);
  EXPECT_NE(observed["prom2"]["error"].get<std::string>().find("refused"), std::string::npos)
      << observed["prom2"]["error"];
  EXPECT_EQ(observed["prom"]["error"].get<std::string>().find("refused"), std::string::npos)
      << observed["prom"]["error"];
  // Each window says so too.
  for (const json& window : r.result["windows"]) {
    if (!is_whole_measured_window(window, 0.1)) continue;
    EXPECT_GT(window["observed"]["prom"]["gaps"].get<int64_t>(), 0) << window.dump(2);
  }
  EXPECT_NE(r.run.out.find("GAPS"), std::string::npos) << r.run.out;
}

TEST(Observe, PidfileWhoseProcessIsRestartedMidRunCountsOneRestart) {
  ServeProcess server;
  const std::string out = make_temp_dir("observe-pidfile");
  const std::string pidfile = make_temp_dir("observe-pidfile-run") + "/app.pid";
  auto first = std::make_unique<Process>(std::vector<std::string>{"/bin/sleep", "30"});
  write_pidfile(pidfile, first->pid());

  Process run({proofload_binary(), "run", server.url(), "-d", "3s", "--rate", "50", "--workers",
               "1", "--observe", "pidfile:" + pidfile, "--observe-every", "100ms", "-q", "-o",
               out});
  // The first window has been written (about 2 s in): restart the process, as a supervisor does.
  ASSERT_TRUE(wait_for_rows(run, out, 1)) << run.err();
  first->signal(SIGKILL);
  ASSERT_TRUE(first->wait(seconds(5)).has_value());
  Process second({"/bin/sleep", "30"});
  write_pidfile(pidfile, second.pid());

  ASSERT_EQ(run.wait(seconds(20)), 0) << run.err();
  Observed r = read_outputs({0, run.out(), run.err()}, out);
  const json& observed = r.result["observed"]["pidfile"];
  ASSERT_TRUE(observed.is_object()) << r.result["observed"].dump(2);
  EXPECT_EQ(observed["restarts"], 1) << observed.dump(2);
  EXPECT_GT(observed["samples"].get<int64_t>(), 0);
  // The restart is in one window, after the one that was written before it.
  double restarts_in_windows = 0;
  for (const json& window : r.result["windows"]) {
    const double restarts = window["observed"]["pidfile"].value("restarts", 0.0);
    if (restarts > 0) {
      EXPECT_GT(window["index"].get<int>(), 0) << window.dump(2);
    }
    restarts_in_windows += restarts;
  }
  EXPECT_EQ(restarts_in_windows, 1);
  EXPECT_TRUE(has_column(r.csv, "pidfile.restarts"));
  EXPECT_NE(r.run.out.find("1 restarts"), std::string::npos) << r.run.out;
}

// ---- `proofload observe` --------------------------------------------------------------------

TEST(Observe, ObserveAloneWritesTheSameFilesAsARun) {
  Process watched({"/bin/sleep", "30"});
  const std::string out = make_temp_dir("observe-alone");
  const std::string pid = std::to_string(watched.pid());
  Observed r = read_outputs(run_to_completion({proofload_binary(), "observe", "host", "pid:" + pid,
                                               "-d", "1.5s", "--every", "100ms", "-o", out},
                                              seconds(20)),
                            out);
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_EQ(r.result["spec"]["command"], "observe");
  EXPECT_EQ(r.result["status"], "complete");
  ASSERT_EQ(r.csv.rows.size(), 2u) << read_file(out + "/windows.csv");
  for (const char* column : {"host.load1", "pid.cpu_cores", "pid.rss_bytes", "self.cpu_cores"}) {
    EXPECT_TRUE(has_column(r.csv, column)) << column;
    for (size_t i = 0; i < r.csv.rows.size(); ++i) {
      EXPECT_FALSE(r.csv.rows[i][column].empty()) << "row " << i << " " << column;
    }
  }
  EXPECT_EQ(r.csv.rows[0]["duration_s"], "1.000");
  EXPECT_EQ(r.csv.rows[1]["duration_s"], "0.500");
  // A sleeping process uses no CPU; its memory is there.
  EXPECT_LT(r.result["observed"]["pid"]["cpu_cores_max"].get<double>(), 0.05);
  EXPECT_GT(r.result["observed"]["pid"]["rss_bytes_end"].get<double>(), 0);
  EXPECT_EQ(r.result["observed"]["pid"]["source"], "pid:" + pid);
  EXPECT_TRUE(r.result["observed"]["host"].contains("load1_max")) << r.result["observed"].dump(2);
  EXPECT_NE(r.run.out.find("observed (measured part)"), std::string::npos) << r.run.out;
}

TEST(Observe, InterruptedObserveEndsPromptlyAndSaysSo) {
  const std::string out = make_temp_dir("observe-interrupted");
  Process observe(
      {proofload_binary(), "observe", "host", "-d", "60s", "--every", "100ms", "-o", out});
  // result.json appears once the observers run (the signal handlers are in place by then).
  const auto until = std::chrono::steady_clock::now() + seconds(10);
  while (read_file(out + "/result.json").empty()) {
    ASSERT_LT(std::chrono::steady_clock::now(), until)
        << "observe never started: " << observe.err();
    ASSERT_FALSE(observe.wait(milliseconds(20)).has_value()) << observe.err();
  }
  const auto signalled = std::chrono::steady_clock::now();
  observe.signal(SIGINT);
  const std::optional<int> code = observe.wait(seconds(5));
  ASSERT_TRUE(code.has_value()) << "observe still ran 5 s after SIGINT";
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, seconds(3));
  EXPECT_EQ(*code, 130) << observe.err();
  const json result = json::parse(read_file(out + "/result.json"));
  EXPECT_EQ(result["status"], "interrupted");
  EXPECT_TRUE(result["observed"].contains("host")) << result.dump(2);
}

// ---- hostile metrics endpoints (issue 34) --------------------------------------------------

std::string metrics_response(const std::string& body) {
  return "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

// `proofload observe prom:URL -d 3s --every 100ms -o OUT`, and how long it took.
Observed observe_prom(const std::string& url, const std::string& out,
                      std::chrono::steady_clock::duration& took) {
  const auto start = std::chrono::steady_clock::now();
  // Every 500 ms: a scrape's deadline is 80% of the period, and a page of 25,000 series must be
  // read and parsed within it under the sanitizers too.
  Observed r = read_outputs(run_to_completion({proofload_binary(), "observe", "prom:" + url, "-d",
                                               "4s", "--every", "500ms", "-o", out},
                                              seconds(40)),
                            out);
  took = std::chrono::steady_clock::now() - start;
  return r;
}

// A 12 MiB label value once made a 6 s run hold 1.14 GiB and write 337 MB: the series is skipped,
// the others kept, the run ends on time and its result says what was left out.
TEST(ObserveHostile, AHugeLabelValueIsSkippedAndTheResultSaysSo) {
  RawServer server(
      metrics_response("up 1\nhuge{v=\"" + std::string(size_t{12} << 20, 'x') + "\"} 1\n"), true);
  const std::string out = make_temp_dir("observe-huge-label");
  std::chrono::steady_clock::duration took{};
  Observed r = observe_prom(server.url() + "metrics", out, took);
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_LT(took, seconds(8));
  const json& prom = r.result["observed"]["prom"];
  EXPECT_EQ(prom["gaps"], 0) << prom.dump(2);
  EXPECT_EQ(prom.value("up_end", 0.0), 1) << prom.dump(2);
  EXPECT_EQ(prom.value("prom_series_too_long_peak", 0.0), 1) << prom.dump(2);
  EXPECT_LT(read_file(out + "/result.json").size(), size_t{1} << 20);
  const std::string summary = read_file(out + "/summary.md");
  EXPECT_NE(summary.find("up to 1 series a scrape skipped for a key over 2,048 bytes "
                         "(label_value_length_limit)"),
            std::string::npos)
      << summary;
}

// 100,000 series with new labels every scrape made a 6 s run end after 43.5 s (and 10,000 grew it
// ~3 MiB/s): here 20,000 churning beside 5,000 that stay. The first 10,000 series are kept (the
// 5,000 that stay, and the first scrape's first 5,000 churning ones, gone at the next scrape),
// the rest counted, and the run ends on time.
TEST(ObserveHostile, ChurningSeriesAreCappedCountedAndTheRunEndsOnTime) {
  std::atomic<int> scrapes{0};
  RawServer server(
      [&] {
        const std::string scrape = std::to_string(scrapes++);
        std::string body;
        for (int i = 0; i < 5'000; ++i) body += "stable{i=\"" + std::to_string(i) + "\"} 1\n";
        for (int i = 0; i < 20'000; ++i) {
          body += "churn{scrape=\"" + scrape + "\",i=\"" + std::to_string(i) + "\"} 1\n";
        }
        return metrics_response(body);
      },
      true);
  const std::string out = make_temp_dir("observe-churn");
  std::chrono::steady_clock::duration took{};
  Observed r = observe_prom(server.url() + "metrics", out, took);
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_LT(took, seconds(8));
  EXPECT_GE(scrapes.load(), 6);
  const json& prom = r.result["observed"]["prom"];
  EXPECT_EQ(prom.value("prom_series_not_kept_peak", 0.0), 20'000) << prom["samples"];
  // The series in the windows: the 5,000 that stay, every window; no churning one past the cap.
  for (const json& window : r.result["windows"]) {
    std::set<std::string> series;
    for (const auto& [name, value] : window["observed"]["prom"].items()) {
      if (name.find('{') != std::string::npos) series.insert(name.substr(0, name.find('}') + 1));
    }
    EXPECT_EQ(series.size(), 5'000u) << window["index"];
    EXPECT_TRUE(series.contains("stable{i=\"4999\"}")) << window["index"];
  }
  const std::string summary = read_file(out + "/summary.md");
  EXPECT_NE(summary.find("up to 20,000 series a scrape not kept, past its cap of 10,000 "
                         "distinct series over the run (sample_limit"),
            std::string::npos)
      << summary;
}

// ---- bad specs ------------------------------------------------------------------------------

TEST(Observe, BadObserverSpecsFailWithOneLineBeforeAnythingIsSent) {
  ServeProcess server({"--profile", "demo"});
  pid_t dead_pid = 0;
  {
    Process gone({"/bin/true"});
    ASSERT_TRUE(gone.wait(seconds(5)).has_value());  // exited and reaped: the pid is free
    dead_pid = gone.pid();
  }
  // The URL is checked (a connection opened) before the observers: the target must be up, so
  // the error can only be the observer's.
  const struct {
    std::string spec;
    std::string named_in_error;
  } cases[] = {{"bogus:1", "bogus:1"},
               {"pid:abc", "abc"},
               {"pid:" + std::to_string(dead_pid), std::to_string(dead_pid)},
               // A Prometheus URL without its kind is not taken for one.
               {server.url("/metrics"), server.url("/metrics")}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.spec);
    const std::string out = make_temp_dir("observe-bad");
    Completed run = run_to_completion({proofload_binary(), "run", server.url(kLookupPath), "-d",
                                       "1s", "--observe", c.spec, "-q", "-o", out},
                                      seconds(20));
    EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_NE(run.err.find(c.named_in_error), std::string::npos) << run.err;
    EXPECT_EQ(run.out, "");
    EXPECT_EQ(read_file(out + "/result.json"), "") << "a result was written";

    Completed alone = run_to_completion(
        {proofload_binary(), "observe", c.spec, "-d", "1s", "-o", out}, seconds(20));
    EXPECT_EQ(alone.exit_code, 2) << alone.out << alone.err;
    EXPECT_EQ(std::count(alone.err.begin(), alone.err.end(), '\n'), 1) << alone.err;
  }
  const std::optional<double> served =
      scrape(server.port(), "proofload_requests_total", "route=\"lookup\"");
  ASSERT_TRUE(served.has_value());
  EXPECT_EQ(*served, 0) << "requests reached the server";
}

// ---- the generator's own limit --------------------------------------------------------------

TEST(Observe, SaturatedGeneratorIsFlaggedAndALightRunIsNot) {
  ServeProcess server;
  const std::string busy_out = make_temp_dir("observe-busy");
  Observed busy = run_observed(
      server.url(), {"-d", "2s", "-c", "64", "--workers", "1", "--observe", "host"}, busy_out);
  ASSERT_EQ(busy.run.exit_code, 0) << busy.run.err;
  // Flagged are exactly the measured windows where the generator's CPU reached 80% of its one
  // worker's core; with 64 connections on one worker against a free server, that is some.
  const json& flagged = busy.result["generator_busy_windows"];
  ASSERT_TRUE(flagged.is_array());
  json expected = json::array();
  for (const json& window : busy.result["windows"]) {
    const json& self = window["observed"]["self"];
    if (!window["warmup"].get<bool>() && self.contains("cpu_cores") &&
        self["cpu_cores"].get<double>() >= 0.8) {
      expected.push_back(window["index"]);
    }
  }
  EXPECT_EQ(flagged, expected);
  EXPECT_FALSE(flagged.empty()) << busy.result["observed"].dump(2);
  EXPECT_NE(busy.run.out.find("GENERATOR BUSY"), std::string::npos) << busy.run.out;
  // The host saw at least the generator's core busy.
  const json& host = busy.result["observed"]["host"];
  EXPECT_GE(host["cpu_busy_share_mean"].get<double>() * online_cpus(),
            0.7 * busy.result["observed"]["self"]["cpu_cores_mean"].get<double>())
      << busy.result["observed"].dump(2);

  const std::string light_out = make_temp_dir("observe-light");
  Observed light =
      run_observed(server.url(), {"-d", "1s", "--rate", "100", "--workers", "1"}, light_out);
  ASSERT_EQ(light.run.exit_code, 0) << light.run.err;
  EXPECT_EQ(light.result["generator_busy_windows"], json::array());
  EXPECT_EQ(light.run.out.find("GENERATOR BUSY"), std::string::npos) << light.run.out;
  EXPECT_LT(light.result["observed"]["self"]["cpu_cores_mean"].get<double>(), 0.5);
}

}  // namespace
}  // namespace proofload::testing
