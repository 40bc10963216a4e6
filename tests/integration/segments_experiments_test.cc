// Experiments over segments, each segment its own process, merged with `proofload merge`: a
// ladder against a shared limit whose merged verdicts are those of the merged levels' own table,
// a soak whose mark hook runs once, a probe whose segments' sources sit side by side, a threshold
// the whole load misses making the merge exit 99, and three segments each in a network namespace
// of its own (made by the test; root, as in CI). Every load goes to 127.0.0.1 or to the test's
// own namespaces, and ends by itself.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process.h"
#include "segments_support.h"

namespace proofload::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

std::string fmt_row(const std::vector<std::string>& cells) {
  std::string row;
  for (const std::string& cell : cells) row += (row.empty() ? "" : ",") + cell;
  return row + "\n";
}

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
  run_segments([&](int i) {
    return std::vector<std::string>{proofload_binary(),
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
                                    dir + "/s" + std::to_string(i)};
  });
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
  // A ladder whose file names a level outside its directory sends the merge nowhere.
  json hostile = read_json(dir + "/s1/result.json");
  hostile["rows"][0]["directory"] = "../../escaped";
  write_file(dir + "/s1/result.json", hostile.dump());
  const Completed refused = run_to_completion(
      {proofload_binary(), "merge", dir + "/s0", dir + "/s1", dir + "/s2", "--out", dir + "/m2"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("not a path inside it"), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/../escaped"));
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
  run_segments([&](int i) {
    return net.in_segment(i, {proofload_binary(), "run", url, "--rate", "600", "-c", "6", "-d",
                              "2s", "--segment", std::to_string(i) + "/3", "--start-at", "+2s",
                              "-q", "-o", dir + "/s" + std::to_string(i)});
  });
  int64_t sum = 0;
  for (int i = 0; i < kSegments; ++i) {
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
