// The synthetic run behind the golden files, and the golden/scratch helpers.
#include "report/test_fixtures.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "measure/outcome.h"

namespace proofload::report::testing_support {

using measure::Outcome;
using measure::WindowStats;

namespace {

void add(WindowStats& w, Outcome outcome, int64_t n) { w.outcomes[static_cast<int>(outcome)] += n; }

}  // namespace

std::vector<WindowStats> make_synthetic_windows() {
  std::vector<WindowStats> windows(4);

  // Window 0: warm-up, 100 clean requests of 2 ms.
  WindowStats& w0 = windows[0];
  w0.index = 0;
  w0.start_ns = 0;
  w0.duration_ns = 1'000'000'000;
  w0.warmup = true;
  w0.intended = 100;
  w0.arrivals = 100;
  w0.latency_us.record_n(2000, 100);
  w0.service_us.record_n(1900, 100);
  w0.send_lag_us.record_n(100, 100);  // latency = send lag + service time
  w0.ttfb_us.record_n(1500, 100);
  add(w0, Outcome::kSuccess, 100);
  for (int i = 0; i < 100; ++i) w0.add_status(200);
  w0.bytes_in = 100 * 150;
  w0.bytes_out = 100 * 80;
  w0.connects = 10;
  w0.connection.connect_us.record_n(150, 9);
  w0.connection.connect_us.record_n(900, 1);

  // Window 1: 1,000 intended: 990 successes (900 at 1 ms, 90 at 3 ms), 5 503s at 20 ms,
  // 2 timeouts, 3 never started. 3000 and 20000 lie in buckets [3000, 3001] and
  // [20000, 20015]: the percentiles report the highest equivalent value (3.001 and 20.015 ms).
  WindowStats& w1 = windows[1];
  w1.index = 1;
  w1.start_ns = 1'000'000'000;
  w1.duration_ns = 1'000'000'000;
  w1.intended = 1000;
  w1.arrivals = 1000;
  w1.latency_us.record_n(1000, 900);
  w1.latency_us.record_n(3000, 90);
  w1.latency_us.record_n(20000, 5);
  w1.service_us.record_n(900, 900);
  w1.service_us.record_n(2900, 90);
  w1.service_us.record_n(19900, 5);
  w1.send_lag_us.record_n(100, 995);
  w1.ttfb_us.record_n(500, 995);
  add(w1, Outcome::kSuccess, 990);
  add(w1, Outcome::kStatus503, 5);
  add(w1, Outcome::kTimeout, 2);
  add(w1, Outcome::kNeverStarted, 3);
  for (int i = 0; i < 990; ++i) w1.add_status(200);
  for (int i = 0; i < 5; ++i) w1.add_status(503);
  w1.bytes_in = 995 * 150;
  w1.bytes_out = 997 * 80;
  w1.connects = 2;
  w1.connection.connect_us.record_n(200, 2);
  w1.in_flight_end = 12;
  w1.queued_end = 3;

  // Window 2: 1,000 clean requests, 999 at 1.2 ms and one at 50 ms.
  WindowStats& w2 = windows[2];
  w2.index = 2;
  w2.start_ns = 2'000'000'000;
  w2.duration_ns = 1'000'000'000;
  w2.intended = 1000;
  w2.arrivals = 1000;
  w2.latency_us.record_n(1200, 999);
  w2.latency_us.record(50000);
  w2.service_us.record_n(1100, 999);
  w2.service_us.record(49000);
  w2.send_lag_us.record_n(100, 999);
  w2.send_lag_us.record(1000);
  w2.ttfb_us.record_n(600, 1000);
  add(w2, Outcome::kSuccess, 1000);
  for (int i = 0; i < 1000; ++i) w2.add_status(200);
  w2.bytes_in = 1000 * 150;
  w2.bytes_out = 1000 * 80;
  w2.in_flight_end = 8;

  // Window 3: the last, 0.5 s long, in which nothing ended.
  WindowStats& w3 = windows[3];
  w3.index = 3;
  w3.start_ns = 3'000'000'000;
  w3.duration_ns = 500'000'000;

  return windows;
}

RunResult make_synthetic_result() {
  RunResult r;
  // Hand-written, as a partial spec: whole numbers stay integers in the golden result.json.
  r.spec = result::spec_from_json({{"target", "http://127.0.0.1:8080/"},
                                   {"executor", "open_loop"},
                                   {"rate_per_s", 1000},
                                   {"connections", 10},
                                   {"duration_s", 3},
                                   {"warmup_s", 1}},
                                  "fixture");
  r.command_line = "proofload run --rate 1000 --duration 3s --warmup 1s http://127.0.0.1:8080/";
  r.proofload_version = "0.1.0";
  r.start_wall_ns = 1'714'564'800'123'456'789;  // 2024-05-01T12:00:00.123Z
  r.window_ns = 1'000'000'000;
  for (const WindowStats& w : make_synthetic_windows()) {
    (w.warmup ? r.warmup_total : r.total).merge(w);
    r.windows.push_back(summarize_window(w));
    if (w.warmup) r.warmup_duration_s += static_cast<double>(w.duration_ns) / 1e9;
    // The measured span: windows 1 and 2 (window 3 is the drain after the schedule ended).
    if (!w.warmup && w.index <= 2) {
      r.span.counts.responses += w.responses();
      r.span.counts.successes += w.count(Outcome::kSuccess);
      r.span.counts.iterations += w.ended();
      r.span.counts.iterations_succeeded += w.count(Outcome::kSuccess);
      r.span.duration_ns += w.duration_ns;
    }
  }
  r.measured_duration_s = static_cast<double>(r.span.duration_ns) / 1e9;
  r.end_reason = "duration";
  return r;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

void expect_matches_golden(std::string_view name, const std::string& actual) {
  const std::filesystem::path path = std::filesystem::path(PL_REPORT_TESTDATA_DIR) / name;
  const char* update = std::getenv("PROOFLOAD_UPDATE_GOLDEN");
  if (update != nullptr && std::string_view(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing";
  EXPECT_EQ(read_file(path), actual)
      << "differs from " << path << " (PROOFLOAD_UPDATE_GOLDEN=1 rewrites it)";
}

ScratchDirectory::ScratchDirectory() {
  std::string pattern = (std::filesystem::path(::testing::TempDir()) / "report_test.XXXXXX");
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

ScratchDirectory::~ScratchDirectory() {
  std::error_code ignored;
  std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add, ignored);
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace proofload::report::testing_support
