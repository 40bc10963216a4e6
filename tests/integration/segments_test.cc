// One load as three segments (`--segment I/3`), each a process of its own bound to its own
// 127.0.0.x source, started together (`--start-at`) against the built-in server, then merged
// (`proofload merge`): the merge holds every request the server answered, the open-loop shares
// add up to the whole schedule exactly, the merged histogram is the histogram of every segment's
// samples, a missing or killed segment is said, and data rows are never sent twice. Every load
// goes to 127.0.0.1 and ends by itself. (Network namespaces of their own are not made here: a
// segment's own source address is what the server, and a rate limit, tells apart.)
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "measure/hlog.h"
#include "process.h"
#include "raw_server.h"

namespace proofload::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

json read_json(const std::string& path) { return json::parse(read_file(path)); }

std::string fmt_row(const std::vector<std::string>& cells) {
  std::string row;
  for (const std::string& cell : cells) row += (row.empty() ? "" : ",") + cell;
  return row + "\n";
}

constexpr int kSegments = 3;
constexpr int64_t kRate = 1000;  // requests/s over 2 s: 2000 arrivals, not a multiple of 3
constexpr int64_t kArrivals = 2 * kRate;

// What the server answered on `/`, from its own /metrics.
int64_t server_answers(int port) {
  const std::string metrics = http_get(port, "/metrics");
  const std::regex line(R"re(proofload_requests_total\{route="GET /",status="200"\} (\d+))re");
  std::smatch m;
  if (!std::regex_search(metrics, m, line)) {
    throw std::runtime_error("no request count for / in /metrics:\n" + metrics);
  }
  return std::stoll(m[1]);
}

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
    const std::string at = "+3s";
    const auto now = std::chrono::system_clock::now() + 3s;
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

Completed merge(const std::vector<std::string>& dirs, const std::string& out) {
  std::vector<std::string> args = {proofload_binary(), "merge"};
  args.insert(args.end(), dirs.begin(), dirs.end());
  args.insert(args.end(), {"--out", out});
  return run_to_completion(args, 60s);
}

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

namespace proofload::testing {
namespace {

// A table `proofload analyze` reads, made of the merged levels' own result.json: the per-level
// tables judged by the analysis on another path than the ladder's rows.
std::string table_of_levels(const std::string& merged) {
  const json ladder = read_json(merged + "/result.json");
  std::string csv =
      "level,target_rps,achieved_rps,goodput_rps,error_rate,p50_ms,p95_ms,p99_ms,"
      "requests,responses,rate_429\n";
  for (const json& row : ladder["rows"]) {
    const json run = read_json(merged + "/" + row["directory"].get<std::string>() + "/result.json");
    const json& s = run["summary"];
    const double responses = s["requests"].get<double>();
    const double limited = s["status"].value("429", 0.0);
    csv += fmt_row({run["spec"]["rate_per_s"].dump(), run["spec"]["rate_per_s"].dump(),
                    s["throughput_rps"].dump(), s["goodput_rps"].dump(), s["error_rate"].dump(),
                    s["latency_ms"]["p50"].dump(), s["latency_ms"]["p95"].dump(),
                    s["latency_ms"]["p99"].dump(), s["requests"].dump(), s["requests"].dump(),
                    std::to_string(responses > 0 ? limited / responses : 0)});
  }
  return csv;
}

TEST(LadderOverSegments, TheMergedVerdictsAreThoseOfTheMergedLevels) {
  const std::string dir = make_temp_dir("segments-ladder");
  // 200/s shared by every caller: level 150 is within it, level 400 is half refused.
  write_file(dir + "/routes.yaml",
             "routes:\n  - {path: /, body: \"ok\\n\", limit: {rate: 200/s, burst: 20, key: "
             "\"shared:1\"}}\n");
  ServeProcess server({"--routes", dir + "/routes.yaml", "--exit-after", "90s"});
  std::vector<std::unique_ptr<Process>> running;
  for (int i = 0; i < kSegments; ++i) {
    running.push_back(
        std::make_unique<Process>(std::vector<std::string>{proofload_binary(),
                                                           "ladder",
                                                           server.url("/"),
                                                           "--rates",
                                                           "150,400",
                                                           "--hold",
                                                           "2s",
                                                           "--warmup",
                                                           "0s",
                                                           "--grace",
                                                           "1s",
                                                           "-c",
                                                           "6",
                                                           "--segment",
                                                           std::to_string(i) + "/3",
                                                           "--start-at",
                                                           "+2s",
                                                           "-q",
                                                           "-o",
                                                           dir + "/s" + std::to_string(i)}));
  }
  for (auto& p : running) {
    const std::optional<int> code = p->wait(60s);
    ASSERT_TRUE(code.has_value());
    ASSERT_EQ(*code, 0) << p->err();
  }
  const Completed done = run_to_completion({proofload_binary(), "merge", dir + "/s1", dir + "/s0",
                                            dir + "/s2", "--out", dir + "/merged"});
  ASSERT_EQ(done.exit_code, 0) << done.err;
  EXPECT_NE(done.out.find("(ladder)"), std::string::npos) << done.out;
  const json merged = read_json(dir + "/merged/result.json");
  ASSERT_EQ(merged["rows"].size(), 2u);
  for (size_t level = 0; level < 2; ++level) {
    int64_t sum = 0;
    for (int i = 0; i < kSegments; ++i) {
      sum += read_json(dir + "/s" + std::to_string(i) + "/result.json")["rows"][level]["requests"]
                 .get<int64_t>();
    }
    EXPECT_EQ(merged["rows"][level]["requests"].get<int64_t>(), sum) << "level " << level;
    // Every segment started the level at the agreed time: together, within a window.
    const json run = read_json(
        dir + "/merged/" + merged["rows"][level]["directory"].get<std::string>() + "/result.json");
    EXPECT_LT(run["merged"]["start_spread_ms"].get<double>(), 1000.0) << "level " << level;
  }
  // The whole load broke at 400/s (half refused), which a segment alone cannot show.
  EXPECT_GT(merged["rows"][1]["rate_429"].get<double>(), 0.3);
  write_file(dir + "/levels-table.csv", table_of_levels(dir + "/merged"));
  const Completed analyzed =
      run_to_completion({proofload_binary(), "analyze", dir + "/levels-table.csv", "--loop", "open",
                         "--out", dir + "/analyzed"});
  ASSERT_EQ(analyzed.exit_code, 0) << analyzed.err;
  const json table = read_json(dir + "/analyzed/result.json");
  ASSERT_EQ(table["analysis"]["levels"].size(), 2u);
  for (size_t level = 0; level < 2; ++level) {
    EXPECT_EQ(merged["analysis"]["levels"][level]["verdict"],
              table["analysis"]["levels"][level]["verdict"])
        << "level " << level;
  }
  EXPECT_NE(read_file(dir + "/merged/summary.md").find("Merged from 3 of 3 segments"),
            std::string::npos);
}

TEST(LadderOverSegments, WhatOnlyTheWholeLoadCouldDecideIsRefused) {
  const std::string url = "http://127.0.0.1:" + std::to_string(unused_loopback_port()) + "/";
  for (const auto& [flags, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--rates", "100,200", "--segment", "0/2"}, "needs --start-at"},
           {{"--search", "--segment", "0/2", "--start-at", "+5s"}, "cannot --search"},
           {{"--rates", "100,200", "--stop-on-fail", "--segment", "0/2", "--start-at", "+5s"},
            "cannot --stop-on-fail"}}) {
    std::vector<std::string> args = {proofload_binary(), "ladder", url, "-q"};
    args.insert(args.end(), flags.begin(), flags.end());
    const Completed done = run_to_completion(args, 20s);
    EXPECT_EQ(done.exit_code, 2) << done.err;
    EXPECT_NE(done.err.find(says), std::string::npos) << done.err;
  }
}

}  // namespace
}  // namespace proofload::testing

namespace proofload::testing {
namespace {

// Starts `args_of(i)` for each segment at once and waits for all: each must exit 0.
void run_segments(const std::function<std::vector<std::string>(int)>& args_of) {
  std::vector<std::unique_ptr<Process>> running;
  for (int i = 0; i < kSegments; ++i) running.push_back(std::make_unique<Process>(args_of(i)));
  for (auto& p : running) {
    const std::optional<int> code = p->wait(60s);
    ASSERT_TRUE(code.has_value());
    ASSERT_EQ(*code, 0) << p->err();
  }
}

TEST(SoakOverSegments, TheMergedSoakJudgesTheWholeLoadAndItsMarkRanOnce) {
  const std::string dir = make_temp_dir("segments-soak");
  write_file(dir + "/routes.yaml",
             "routes:\n  - {path: /, body: \"ok\\n\"}\n  - {path: /metrics, builtin: metrics}\n");
  ServeProcess server({"--routes", dir + "/routes.yaml", "--exit-after", "60s"});
  const std::string hook_log = dir + "/mark-hook.log";
  run_segments([&](int i) {
    return std::vector<std::string>{proofload_binary(),
                                    "soak",
                                    server.url("/"),
                                    "--rate",
                                    "300",
                                    "--hold",
                                    "6s",
                                    "--window",
                                    "2s",
                                    "--mark-at",
                                    "3s:deploy:echo ran >> " + hook_log,
                                    "--segment",
                                    std::to_string(i) + "/3",
                                    "--start-at",
                                    "+2s",
                                    "-q",
                                    "-o",
                                    dir + "/s" + std::to_string(i)};
  });
  // The mark's hook (a rollout) ran once, on segment 0; every segment marked the moment.
  EXPECT_EQ(read_file(hook_log), "ran\n");
  const Completed done = run_to_completion({proofload_binary(), "merge", dir + "/s0", dir + "/s1",
                                            dir + "/s2", "--out", dir + "/merged"});
  ASSERT_EQ(done.exit_code, 0) << done.err;
  EXPECT_NE(done.out.find("(soak)"), std::string::npos) << done.out;
  const json merged = read_json(dir + "/merged/result.json");
  int64_t sum = 0;
  for (int i = 0; i < kSegments; ++i) {
    sum += read_json(dir + "/s" + std::to_string(i) + "/result.json")["soak"]["summary"]["requests"]
               .get<int64_t>();
  }
  EXPECT_EQ(merged["soak"]["summary"]["requests"].get<int64_t>(), sum);
  EXPECT_EQ(merged["soak"]["summary"]["requests"].get<int64_t>(), server_answers(server.port()));
  EXPECT_EQ(merged["soak"]["windows"].size(), 3u);
  EXPECT_EQ(merged["soak"]["marks"].size(), 1u);  // once, though three segments logged it
  EXPECT_EQ(merged["merged"]["count"], 3);
  EXPECT_NE(read_file(dir + "/merged/summary.md").find("Merged from 3 of 3 segments"),
            std::string::npos);
}

TEST(ProbeOverSegments, EachSegmentsOwnSourcesAreSideBySideInTheMerge) {
  const std::string dir = make_temp_dir("segments-probe");
  write_file(dir + "/routes.yaml",
             "routes:\n  - {path: /limited, body: \"ok\\n\", limit: {rate: 50/s, burst: 10, key: "
             "address}}\n");
  ServeProcess server({"--routes", dir + "/routes.yaml", "--exit-after", "60s"});
  run_segments([&](int i) {
    return std::vector<std::string>{proofload_binary(),
                                    "probe",
                                    server.url("/limited"),
                                    "--sources",
                                    "127.0.0.2,127.0.0.3,127.0.0.4",
                                    "-d",
                                    "4s",
                                    "--settle",
                                    "1s",
                                    "--segment",
                                    std::to_string(i) + "/3",
                                    "--start-at",
                                    "+2s",
                                    "-q",
                                    "-o",
                                    dir + "/p" + std::to_string(i)};
  });
  for (int i = 0; i < kSegments; ++i) {
    // Each segment sent from its own address only.
    const json p = read_json(dir + "/p" + std::to_string(i) + "/result.json");
    ASSERT_EQ(p["probe"]["sources"].size(), 1u);
    EXPECT_EQ(p["probe"]["sources"][0]["address"], "127.0.0." + std::to_string(2 + i));
  }
  const Completed done = run_to_completion({proofload_binary(), "merge", dir + "/p2", dir + "/p0",
                                            dir + "/p1", "--out", dir + "/merged"});
  ASSERT_EQ(done.exit_code, 0) << done.err;
  const json merged = read_json(dir + "/merged/result.json");
  ASSERT_EQ(merged["probe"]["sources"].size(), 3u);
  for (int i = 0; i < kSegments; ++i) {
    EXPECT_EQ(merged["probe"]["sources"][i]["address"], "127.0.0." + std::to_string(2 + i));
  }
  // Keyed by address, each gets its own allowance: the analysis of all three says so.
  EXPECT_NE(merged["probe"]["verdict"].get<std::string>().find("separate"), std::string::npos)
      << merged["probe"]["verdict"];
}

}  // namespace
}  // namespace proofload::testing

namespace proofload::testing {
namespace {

TEST(MergeVerdict, AThresholdTheWholeLoadMissesMakesTheMergeExit99) {
  const std::string dir = make_temp_dir("segments-threshold");
  ServeProcess server({"--exit-after", "60s"});
  for (int i = 0; i < 2; ++i) {
    // Nothing fails, so a bound of more than half failing is missed, by each segment and by the
    // whole load alike.
    const Completed done =
        run_to_completion({proofload_binary(), "run", server.url("/"), "-c", "2", "-d", "1s",
                           "--threshold", "errors > 50%", "--segment", std::to_string(i) + "/2",
                           "-q", "-o", dir + "/s" + std::to_string(i)},
                          30s);
    ASSERT_EQ(done.exit_code, 99) << done.err;
  }
  const Completed done = run_to_completion(
      {proofload_binary(), "merge", dir + "/s0", dir + "/s1", "--out", dir + "/merged"});
  EXPECT_EQ(done.exit_code, 99) << done.err;
  const json merged = read_json(dir + "/merged/result.json");
  EXPECT_EQ(merged["thresholds_passed"], false);
  EXPECT_EQ(merged["thresholds"][0]["expression"], "errors > 50%");
}

}  // namespace
}  // namespace proofload::testing

namespace proofload::testing {
namespace {

// A server's network namespace and one per segment, the test's own: the server on a bridge at
// 10.231.K.1, segment i at 10.231.K.(10+i) through a veth pair of its own. Removed (with their
// links) when it goes.
class SegmentNamespaces {
 public:
  explicit SegmentNamespaces(int segments) {
    const std::string tag = std::to_string(getpid() % 1'000'000);
    subnet_ = "10.231." + std::to_string(getpid() % 250) + ".";
    server_ = "pl" + tag + "s";
    ip({"netns", "add", server_});
    in(server_, {"ip", "link", "set", "lo", "up"});
    in(server_, {"ip", "link", "add", "br0", "type", "bridge"});
    in(server_, {"ip", "addr", "add", server_address() + "/24", "dev", "br0"});
    in(server_, {"ip", "link", "set", "br0", "up"});
    for (int i = 0; i < segments; ++i) {
      const std::string ns = "pl" + tag + "n" + std::to_string(i);
      const std::string near = "pv" + tag + std::to_string(i);
      const std::string far = "pp" + tag + std::to_string(i);
      ip({"netns", "add", ns});
      segments_.push_back(ns);
      in(ns, {"ip", "link", "set", "lo", "up"});
      ip({"link", "add", near, "type", "veth", "peer", "name", far});
      ip({"link", "set", near, "netns", server_});
      ip({"link", "set", far, "netns", ns});
      in(server_, {"ip", "link", "set", near, "master", "br0"});
      in(server_, {"ip", "link", "set", near, "up"});
      in(ns, {"ip", "addr", "add", subnet_ + std::to_string(10 + i) + "/24", "dev", far});
      in(ns, {"ip", "link", "set", far, "up"});
    }
  }
  ~SegmentNamespaces() {
    for (const std::string& ns : segments_)
      run_to_completion({"/usr/bin/env", "ip", "netns", "del", ns});
    run_to_completion({"/usr/bin/env", "ip", "netns", "del", server_});
  }

  std::string server_address() const { return subnet_ + "1"; }
  // `args` run inside the server's namespace, or segment i's.
  std::vector<std::string> in_server(std::vector<std::string> args) const {
    return inside(server_, std::move(args));
  }
  std::vector<std::string> in_segment(int i, std::vector<std::string> args) const {
    return inside(segments_.at(static_cast<size_t>(i)), std::move(args));
  }

 private:
  static std::vector<std::string> inside(const std::string& ns, std::vector<std::string> args) {
    std::vector<std::string> out = {"/usr/bin/env", "ip", "netns", "exec", ns};
    out.insert(out.end(), args.begin(), args.end());
    return out;
  }
  static void ip(std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/env", "ip"});
    check(run_to_completion(args, 20s), args);
  }
  static void in(const std::string& ns, std::vector<std::string> args) {
    args = inside(ns, std::move(args));
    check(run_to_completion(args, 20s), args);
  }
  static void check(const Completed& done, const std::vector<std::string>& args) {
    if (done.exit_code != 0) {
      std::string command;
      for (const std::string& a : args) command += a + " ";
      throw std::runtime_error(command + "failed: " + done.err);
    }
  }

  std::string subnet_;
  std::string server_;
  std::vector<std::string> segments_;
};

TEST(SegmentsInNamespaces, EachSegmentOnANetworkStackOfItsOwnMergesToTheWholeLoad) {
  if (geteuid() != 0) GTEST_SKIP() << "making network namespaces needs root (CI runs as root)";
  if (run_to_completion({"/usr/bin/env", "ip", "-V"}).exit_code != 0) {
    GTEST_SKIP() << "no `ip` (iproute2, which scripts/bootstrap installs)";
  }
  const std::string dir = make_temp_dir("segments-netns");
  const SegmentNamespaces net(kSegments);
  Process server(net.in_server({proofload_binary(), "serve", "--host", net.server_address(),
                                "--port", "0", "--exit-after", "60s"}));
  const std::optional<std::string> line = server.read_stdout_line(10s);
  ASSERT_TRUE(line.has_value()) << server.err();
  const std::string url = "http://" + line->substr(line->find(net.server_address())) + "/";
  std::vector<std::unique_ptr<Process>> running;
  for (int i = 0; i < kSegments; ++i) {
    running.push_back(std::make_unique<Process>(
        net.in_segment(i, {proofload_binary(), "run", url, "--rate", "600", "-c", "6", "-d", "2s",
                           "--segment", std::to_string(i) + "/3", "--start-at", "+2s", "-q", "-o",
                           dir + "/s" + std::to_string(i)})));
  }
  int64_t sum = 0;
  for (int i = 0; i < kSegments; ++i) {
    const std::optional<int> code = running[static_cast<size_t>(i)]->wait(60s);
    ASSERT_TRUE(code.has_value());
    ASSERT_EQ(*code, 0) << running[static_cast<size_t>(i)]->err();
    const json r = read_json(dir + "/s" + std::to_string(i) + "/result.json");
    EXPECT_EQ(r["summary"]["intended"].get<int64_t>(), 400) << "segment " << i;  // 1200 / 3
    EXPECT_EQ(r["summary"]["errors"].get<int64_t>(), 0) << "segment " << i;
    sum += r["summary"]["requests"].get<int64_t>();
  }
  const Completed done = run_to_completion({proofload_binary(), "merge", dir + "/s0", dir + "/s1",
                                            dir + "/s2", "--out", dir + "/merged"});
  ASSERT_EQ(done.exit_code, 0) << done.err;
  const json merged = read_json(dir + "/merged/result.json");
  EXPECT_EQ(merged["summary"]["requests"].get<int64_t>(), sum);
  EXPECT_EQ(merged["summary"]["intended"].get<int64_t>(), 1200);
  EXPECT_TRUE(merged["merged"]["missing"].empty());
}

}  // namespace
}  // namespace proofload::testing
