// One load as three segments (`--segment I/3`), each a process of its own bound to its own
// 127.0.0.x source, started together (`--start-at`) against the built-in server, then merged
// (`proofload merge`): the merge holds every request the server answered, the open-loop shares
// add up to the whole schedule exactly, the merged histogram is the histogram of every segment's
// samples, a missing or killed segment is said, and data rows are never sent twice. Every load
// goes to 127.0.0.1 and ends by itself. Ladders, soaks and probes over segments, and segments in
// network namespaces of their own: segments_experiments_test.cc.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "measure/hlog.h"
#include "process.h"
#include "raw_server.h"
#include "segments_support.h"

namespace proofload::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr int64_t kRate = 1000;  // requests/s over 2 s: 2000 arrivals, not a multiple of 3
constexpr int64_t kArrivals = 2 * kRate;

std::vector<std::string> segment_args(const std::string& url, int index, const std::string& at,
                                      const std::string& out) {
  return {proofload_binary(),
          "run",
          url,
          "--rate",
          std::to_string(kRate),
          "-c",
          "6",
          "-d",
          "2s",
          "--sources",
          "127.0.0.2,127.0.0.3,127.0.0.4",
          "--segment",
          std::to_string(index) + "/" + std::to_string(kSegments),
          "--start-at",
          at,
          "-q",
          "-o",
          out};
}

// Every interval of a latency.hlog added up.
measure::HdrHistogram all_samples(const std::string& hlog_path) {
  std::ifstream in(hlog_path);
  measure::HdrHistogram sum;
  for (const measure::HlogInterval& i : measure::read_hlog(in)) sum.merge(i.histogram);
  return sum;
}

// The three segments of one load, run once for the suite.
class Segments : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(make_temp_dir("segments"));
    write_file(*dir_ + "/routes.yaml",
               "routes:\n  - {path: /, body: \"ok\\n\"}\n  - {path: /metrics, builtin: metrics}\n");
    server_ = new ServeProcess({"--routes", *dir_ + "/routes.yaml", "--exit-after", "120s"});
    // Far enough ahead that all three have started and wait: they then start together.
    const auto now = std::chrono::system_clock::now() + 2s;
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    start_at_ = new std::string(text);
    std::vector<std::unique_ptr<Process>> running;
    for (int i = 0; i < kSegments; ++i) {
      running.push_back(std::make_unique<Process>(
          segment_args(server_->url("/"), i, *start_at_, segment_dir(i))));
    }
    for (auto& p : running) {
      const std::optional<int> code = p->wait(60s);
      ASSERT_TRUE(code.has_value());
      ASSERT_EQ(*code, 0) << p->err();
    }
    answered_ = server_answers(server_->port());
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
    delete start_at_;
  }
  static std::string segment_dir(int i) { return *dir_ + "/s" + std::to_string(i); }
  static json segment(int i) { return read_json(segment_dir(i) + "/result.json"); }

  static std::string* dir_;
  static std::string* start_at_;
  static ServeProcess* server_;
  static int64_t answered_;
};
std::string* Segments::dir_ = nullptr;
std::string* Segments::start_at_ = nullptr;
ServeProcess* Segments::server_ = nullptr;
int64_t Segments::answered_ = 0;

TEST_F(Segments, EachTakesItsExactShareOfTheScheduleAndItsOwnSource) {
  int64_t intended = 0;
  for (int i = 0; i < kSegments; ++i) {
    const json r = segment(i);
    // Arrival k belongs to segment k mod 3: 667, 667 and 666 of the 2000.
    const int64_t share = kArrivals / kSegments + (i < kArrivals % kSegments ? 1 : 0);
    EXPECT_EQ(r["summary"]["intended"].get<int64_t>(), share) << "segment " << i;
    intended += r["summary"]["intended"].get<int64_t>();
    EXPECT_EQ(r["segment"]["index"], i);
    EXPECT_EQ(r["segment"]["count"], kSegments);
    EXPECT_FALSE(r["segment"]["host"].get<std::string>().empty());
    EXPECT_FALSE(r["segment"]["clock"]["description"].get<std::string>().empty());
    // It started at the agreed moment, not before it.
    EXPECT_GE(r["segment"]["start_unix_ns"].get<int64_t>(),
              r["segment"]["start_at_unix_ns"].get<int64_t>());
    EXPECT_TRUE(r["segment"]["start_skew_ms"].is_number());
    EXPECT_NE(read_file(segment_dir(i) + "/summary.md")
                  .find("Segment " + std::to_string(i) + " of 3 of one load"),
              std::string::npos);
  }
  EXPECT_EQ(intended, kArrivals);  // the shares add up to the whole schedule, exactly
}

TEST_F(Segments, TheMergeHoldsEveryRequestTheServerAnswered) {
  const std::string out = *dir_ + "/merged";
  const Completed done = merge({segment_dir(2), segment_dir(0), segment_dir(1)}, out);
  ASSERT_EQ(done.exit_code, 0) << done.err;
  EXPECT_NE(done.out.find("merge: 3 of 3 segments"), std::string::npos) << done.out;
  const json merged = read_json(out + "/result.json");
  int64_t sum = 0;
  for (int i = 0; i < kSegments; ++i) sum += segment(i)["summary"]["requests"].get<int64_t>();
  EXPECT_EQ(merged["summary"]["requests"].get<int64_t>(), sum);
  EXPECT_EQ(merged["summary"]["requests"].get<int64_t>(), answered_);
  EXPECT_EQ(merged["summary"]["intended"].get<int64_t>(), kArrivals);
  EXPECT_EQ(merged["merged"]["count"], kSegments);
  EXPECT_EQ(merged["merged"]["segments"].size(), 3u);
  EXPECT_TRUE(merged["merged"]["missing"].empty());
  EXPECT_EQ(merged["spec"].count("segment"), 0u);  // the merge is the whole load
  // The generators' CPU is summed as "self"; each segment's own is kept.
  for (const char* label : {"self", "self_s0", "self_s1", "self_s2"}) {
    EXPECT_TRUE(merged["observed"].contains(label)) << label;
  }
  // An ordinary run directory: the report renders again, byte for byte.
  const std::string summary = read_file(out + "/summary.md");
  EXPECT_NE(summary.find("Merged from 3 of 3 segments"), std::string::npos) << summary;
  const Completed again = run_to_completion({proofload_binary(), "report", out});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(read_file(out + "/summary.md"), summary);
  EXPECT_FALSE(read_file(out + "/report.html").empty());
}

TEST_F(Segments, TheMergedHistogramIsTheHistogramOfEverySample) {
  const std::string out = *dir_ + "/merged-hist";
  ASSERT_EQ(merge({segment_dir(0), segment_dir(1), segment_dir(2)}, out).exit_code, 0);
  measure::HdrHistogram every;
  for (int i = 0; i < kSegments; ++i) every.merge(all_samples(segment_dir(i) + "/latency.hlog"));
  const measure::HdrHistogram merged = all_samples(out + "/latency.hlog");
  EXPECT_TRUE(merged.same_counts(every));
  EXPECT_EQ(merged.total_count(), answered_);
  const json result = read_json(out + "/result.json");
  for (const auto& [key, percentile] : {std::pair{"p50", 50.0}, {"p99", 99.0}, {"max", 100.0}}) {
    EXPECT_DOUBLE_EQ(result["summary"]["latency_ms"][key].get<double>(),
                     static_cast<double>(every.value_at_percentile(percentile)) / 1000.0)
        << key;
  }
}

TEST_F(Segments, AMissingSegmentIsSaid) {
  const std::string out = *dir_ + "/two-of-three";
  const Completed done = merge({segment_dir(0), segment_dir(2)}, out);
  ASSERT_EQ(done.exit_code, 0) << done.err;
  EXPECT_NE(done.out.find("segment 1 of 3 missing: figures are for 2/3 of the load."),
            std::string::npos)
      << done.out;
  const json merged = read_json(out + "/result.json");
  ASSERT_EQ(merged["merged"]["missing"].size(), 1u);
  EXPECT_EQ(merged["merged"]["missing"][0]["index"], 1);
  EXPECT_EQ(merged["summary"]["requests"].get<int64_t>(),
            segment(0)["summary"]["requests"].get<int64_t>() +
                segment(2)["summary"]["requests"].get<int64_t>());
  EXPECT_NE(read_file(out + "/summary.md")
                .find("**Segment 1 of 3 missing: figures are for 2/3 of the load.**"),
            std::string::npos);
}

TEST_F(Segments, ASegmentKilledBeforeItsEndIsMissingNotHalfCounted) {
  const std::string killed = *dir_ + "/killed";
  std::vector<std::string> args = segment_args(server_->url("/"), 1, "+0s", killed);
  args[std::find(args.begin(), args.end(), "-d") - args.begin() + 1] = "30s";
  Process p(args);
  // Killed outright once it has streamed a window.
  for (int i = 0;
       i < 100 && read_file(killed + "/segment.jsonl").find("\"window\"") == std::string::npos;
       ++i) {
    std::this_thread::sleep_for(100ms);
  }
  p.signal(SIGKILL);
  p.wait(10s);
  const std::string out = *dir_ + "/with-killed";
  const Completed done = merge({segment_dir(0), killed, segment_dir(2)}, out);
  ASSERT_EQ(done.exit_code, 0) << done.err;
  const json merged = read_json(out + "/result.json");
  ASSERT_EQ(merged["merged"]["missing"].size(), 1u);
  EXPECT_EQ(merged["merged"]["missing"][0]["index"], 1);
  EXPECT_NE(merged["merged"]["missing"][0]["reason"].get<std::string>().find("killed"),
            std::string::npos);
}

TEST_F(Segments, SegmentsOfDifferentLoadsOrTwiceTheSameAreRefused) {
  const std::string other = *dir_ + "/other-load";
  std::vector<std::string> args = segment_args(server_->url("/"), 1, "+0s", other);
  args[std::find(args.begin(), args.end(), "--rate") - args.begin() + 1] = "300";
  ASSERT_EQ(run_to_completion(args, 30s).exit_code, 0);
  Completed done = merge({segment_dir(0), other}, *dir_ + "/refused");
  EXPECT_EQ(done.exit_code, 2);
  EXPECT_NE(done.err.find("ran another load"), std::string::npos) << done.err;
  done = merge({segment_dir(0), segment_dir(0)}, *dir_ + "/refused");
  EXPECT_EQ(done.exit_code, 2);
  EXPECT_NE(done.err.find("given twice"), std::string::npos) << done.err;
  done = merge({*dir_}, *dir_ + "/refused");  // not a segment's directory
  EXPECT_EQ(done.exit_code, 2);
  EXPECT_EQ(std::count(done.err.begin(), done.err.end(), '\n'), 1) << done.err;
}

TEST_F(Segments, ADamagedSegmentFileIsOneLineNamingItsLineAndKey) {
  const std::string damaged = *dir_ + "/damaged";
  std::filesystem::copy(segment_dir(1), damaged, std::filesystem::copy_options::recursive);
  std::string text = read_file(damaged + "/segment.jsonl");
  const size_t at = text.find("\"intended\":", text.find("\"window\""));
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("\"intended\":").size(), "\"intended\":-5,\"x\":");
  write_file(damaged + "/segment.jsonl", text);
  const Completed done = merge({segment_dir(0), damaged, segment_dir(2)}, *dir_ + "/refused");
  EXPECT_EQ(done.exit_code, 2);
  EXPECT_NE(done.err.find("segment.jsonl line 2: segment file: 'intended' is not a count"),
            std::string::npos)
      << done.err;
  EXPECT_EQ(std::count(done.err.begin(), done.err.end(), '\n'), 1) << done.err;
}

TEST(SegmentFlags, BadSegmentsAreOneLineBeforeAnythingIsSent) {
  const int port = unused_loopback_port();  // nothing listens: a check that passed would fail later
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/";
  for (const auto& [flags, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--segment", "3/3"}, "the index goes from 0 to 2"},
           {{"--segment", "1of3"}, "expected I/N"},
           {{"--segment", "0/3", "-c", "2"}, "-c must be at least 3"},
           {{"--segment", "0/3", "-n", "2"}, "cannot give each of the 3 segments a request"},
           {{"--start-at", "yesterday"}, "expected an RFC 3339 time"},
           {{"--start-at", "2001-01-01T00:00:00Z"}, "more than a day ago"}}) {
    std::vector<std::string> args = {proofload_binary(), "run", url, "-d", "1s", "-q"};
    args.insert(args.end(), flags.begin(), flags.end());
    const Completed done = run_to_completion(args, 20s);
    EXPECT_EQ(done.exit_code, 2) << flags[1];
    EXPECT_NE(done.err.find(says), std::string::npos) << done.err;
    EXPECT_EQ(std::count(done.err.begin(), done.err.end(), '\n'), 1) << done.err;
  }
}

TEST(SegmentFlags, CtrlCWhileWaitingForTheStartSendsNothing) {
  RawServer server("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n", false);
  const std::string dir = make_temp_dir("segments-wait");
  Process run({proofload_binary(), "run", server.url(), "-d", "1s", "--segment", "0/2", "-c", "2",
               "--start-at", "+60s", "-q", "-o", dir + "/out"});
  // The result directory is made once everything is checked, before the wait.
  for (int i = 0; i < 200 && !std::filesystem::exists(dir + "/out"); ++i) {
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_TRUE(std::filesystem::exists(dir + "/out")) << run.err();
  run.signal(SIGINT);
  const std::optional<int> code = run.wait(10s);
  ASSERT_TRUE(code.has_value()) << "still waiting for its start after Ctrl-C";
  EXPECT_EQ(*code, 130);
  EXPECT_NE(run.err().find("interrupted before the start time: nothing was sent"),
            std::string::npos)
      << run.err();
  EXPECT_TRUE(server.request_lines().empty());
}

TEST(SegmentData, NoTwoSegmentsSendTheSameRowOfADataFile) {
  RawServer server("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n", false);
  const std::string dir = make_temp_dir("segments-data");
  std::string rows;
  for (int i = 1; i <= 30; ++i) rows += "row" + std::to_string(i) + "\n";
  write_file(dir + "/rows.txt", rows);
  write_file(dir + "/rows.yaml", "target: " + server.url() +
                                     "\ndata:\n  row: {file: rows.txt, order: sequential}\n"
                                     "requests:\n  item:\n    path: /item/${row}\n");
  for (int i = 0; i < kSegments; ++i) {
    const Completed done = run_to_completion(
        {proofload_binary(), "run", dir + "/rows.yaml", "-c", "6", "-n", "30", "--segment",
         std::to_string(i) + "/3", "-q", "-o", dir + "/s" + std::to_string(i)},
        30s);
    ASSERT_EQ(done.exit_code, 0) << done.err;
  }
  const std::vector<std::string> lines = server.request_lines();
  ASSERT_EQ(lines.size(), 30u);
  const std::set<std::string> distinct(lines.begin(), lines.end());
  EXPECT_EQ(distinct.size(), 30u);  // every row once: the segments' shares are disjoint
  EXPECT_EQ(distinct.count("GET /item/row1 HTTP/1.1"), 1u);
  EXPECT_EQ(distinct.count("GET /item/row30 HTTP/1.1"), 1u);
}

}  // namespace
}  // namespace proofload::testing
