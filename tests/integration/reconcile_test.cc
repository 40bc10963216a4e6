// `--reconcile` end to end: the real binary against the built-in server, whose /metrics counts
// every answer by route and status. Exact when the counter is the one the load moves (even with a
// share of failures, which are no successes); a known number of drops when the client's successes
// include answers the chosen counter does not record (a second route, whose count the client
// itself reports per request); per level in a ladder, judged by the SLO; a command as the source;
// and the one-line errors before the run, or an unavailable reconcile when the read fails after.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process.h"

namespace proofload::testing {
namespace {

using nlohmann::json;
using std::chrono::seconds;

// `ok` answers every request; `flaky` fails a fifth of them with a 500; `unrecorded` answers
// like `ok` under a route of its own, so a counter of `ok` leaves its answers out.
constexpr const char* kRoutes = R"(seed: 3
routes:
  - name: ok
    path: /ok
    body: "ok\n"
  - name: flaky
    path: /flaky
    body: "ok\n"
    fail: {500: 20%}
  - name: unrecorded
    path: /unrecorded
    body: "ok\n"
  - {path: /metrics, builtin: metrics}
)";

// Half the arrivals to each route of the drop case.
constexpr const char* kTwoRoutes = R"(requests:
  recorded:
    path: /ok
  unrecorded:
    path: /unrecorded
mix:
  recorded: 1
  unrecorded: 1
)";

std::string routes_file(const std::string& dir) {
  write_file(dir + "/routes.yaml", kRoutes);
  return dir + "/routes.yaml";
}

// `prom:` on the server's /metrics, the series of `route` (and `status`, when given).
std::string prom_source(const ServeProcess& server, const std::string& route,
                        const std::string& status = "") {
  return "prom:" + server.url("/metrics") + "#proofload_requests_total{route=\"" + route + "\"" +
         (status.empty() ? "" : ",status=\"" + status + "\"") + "}";
}

std::vector<std::string> run_args(const std::vector<std::string>& head, const std::string& out,
                                  const std::vector<std::string>& extra) {
  std::vector<std::string> args = {proofload_binary()};
  args.insert(args.end(), head.begin(), head.end());
  for (const char* flag : {"-q", "--workers", "1", "-o"}) args.push_back(flag);
  args.push_back(out);
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

json result_of(const std::string& out) { return json::parse(read_file(out + "/result.json")); }

int64_t successes_of(const json& result) {
  return result["summary"]["outcomes"].value("success", int64_t{0}) +
         result["warmup"]["outcomes"].value("success", int64_t{0});
}

// The first line of `text` is all of it: an error is one line.
bool one_line(const std::string& text) {
  return !text.empty() && text.find('\n') == text.size() - 1;
}

TEST(ReconcileRun, ExactAgainstTheServersCounterThoughAFifthFailed) {
  const std::string dir = make_temp_dir("reconcile-exact");
  ServeProcess server({"--routes", routes_file(dir)});
  const std::string out = dir + "/out";
  Completed c = run_to_completion(
      run_args({"run", server.url("/flaky")}, out,
               {"-c", "4", "-d", "2s", "--warmup", "1s", "--reconcile",
                prom_source(server, "flaky", "200"), "--threshold", "reconcile==exact"}),
      seconds(60));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json result = result_of(out);
  const json& r = result["summary"]["reconcile"];
  ASSERT_TRUE(r.is_object()) << result["summary"].dump();
  // Successes of the whole run, warm-up included, against what the server counted meanwhile.
  EXPECT_GT(result["warmup"]["outcomes"].value("success", 0), 0);
  EXPECT_GT(result["summary"]["outcomes"].value("other_5xx", 0), 0);
  EXPECT_EQ(r["client_successes"], successes_of(result));
  EXPECT_EQ(r["server_delta"], successes_of(result));
  EXPECT_EQ(r["server_after"].get<int64_t>() - r["server_before"].get<int64_t>(),
            r["server_delta"].get<int64_t>());
  EXPECT_EQ(r["difference"], 0);
  EXPECT_EQ(r["verdict"], "exact");
  EXPECT_EQ(r["source"], prom_source(server, "flaky", "200"));
  EXPECT_EQ(result["spec"]["reconcile"], prom_source(server, "flaky", "200"));
  EXPECT_EQ(result["thresholds"][0]["passed"], true);
  const std::string summary = read_file(out + "/summary.md");
  EXPECT_NE(summary.find("## Reconciled with the server"), std::string::npos);
  EXPECT_NE(summary.find("0 drops = "), std::string::npos) << summary;
  EXPECT_NE(summary.find("| Did the server count every success? | Yes: exact"), std::string::npos);
  EXPECT_NE(c.out.find("reconcile     the server recorded"), std::string::npos) << c.out;
}

TEST(ReconcileRun, AKnownNumberOfDropsIsAFindingNotAFailure) {
  const std::string dir = make_temp_dir("reconcile-drops");
  ServeProcess server({"--routes", routes_file(dir)});
  write_file(dir + "/two.yaml", kTwoRoutes);
  const std::string out = dir + "/out";
  // The counter is the `ok` route's: the `unrecorded` request's successes are drops.
  Completed c =
      run_to_completion(run_args({"run", dir + "/two.yaml", server.url()}, out,
                                 {"-c", "2", "-d", "2s", "--reconcile", prom_source(server, "ok")}),
                        seconds(60));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json result = result_of(out);
  const json& r = result["summary"]["reconcile"];
  const int64_t dropped = result["requests"]["unrecorded"]["outcomes"].value("success", 0);
  const int64_t recorded = result["requests"]["recorded"]["outcomes"].value("success", 0);
  ASSERT_GT(dropped, 0);
  EXPECT_EQ(r["client_successes"], recorded + dropped);
  EXPECT_EQ(r["server_delta"], recorded);
  EXPECT_EQ(r["difference"], dropped);
  EXPECT_DOUBLE_EQ(r["drop_share"].get<double>(),
                   static_cast<double>(dropped) / static_cast<double>(recorded + dropped));
  EXPECT_EQ(r["verdict"], "mismatch");
  const std::string summary = read_file(out + "/summary.md");
  EXPECT_NE(summary.find(" drops ("), std::string::npos) << summary;
  EXPECT_NE(summary.find("| Did the server count every success? | No: "), std::string::npos);

  // As a threshold, the same drops fail the run's bar (exit 99), and an exact bar with them.
  Completed judged =
      run_to_completion(run_args({"run", dir + "/two.yaml", server.url()}, dir + "/judged",
                                 {"-c", "2", "-d", "1s", "--reconcile", prom_source(server, "ok"),
                                  "--threshold", "drops<=0.1%", "--threshold", "reconcile==exact"}),
                        seconds(60));
  EXPECT_EQ(judged.exit_code, 99) << judged.err;
  const json thresholds = result_of(dir + "/judged")["thresholds"];
  ASSERT_EQ(thresholds.size(), 2u);
  EXPECT_EQ(thresholds[0]["passed"], false);
  EXPECT_EQ(thresholds[1]["passed"], false);
  EXPECT_NE(thresholds[1]["observed_text"].get<std::string>().find("reconcile = mismatch"),
            std::string::npos);
}

TEST(ReconcileRun, EachLadderLevelReconcilesItsOwnRunAndTheSloJudgesIt) {
  const std::string dir = make_temp_dir("reconcile-ladder");
  ServeProcess server({"--routes", routes_file(dir)});
  const std::string out = dir + "/exact";
  Completed c = run_to_completion(
      run_args({"ladder", server.url("/ok")}, out,
               {"--concurrency", "1,2", "--hold", "1s", "--slo", "p95<1s,reconcile==exact",
                "--reconcile", prom_source(server, "ok", "200")}),
      seconds(90));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json ladder = result_of(out);
  ASSERT_EQ(ladder["rows"].size(), 2u);
  for (const char* level : {"/levels/01-1", "/levels/02-2"}) {
    const json run = result_of(out + level);
    const json& r = run["summary"]["reconcile"];
    EXPECT_EQ(r["verdict"], "exact") << level;
    EXPECT_EQ(r["client_successes"], successes_of(run)) << level;
    EXPECT_GT(r["client_successes"].get<int64_t>(), 0) << level;
  }
  for (const json& level : ladder["analysis"]["levels"]) {
    EXPECT_EQ(level["meets_slo"], true) << level.dump();
  }

  // With a counter that misses half the answers, no level holds `drops<=0.1%`.
  write_file(dir + "/two.yaml", kTwoRoutes);
  Completed drops =
      run_to_completion(run_args({"ladder", dir + "/two.yaml", server.url()}, dir + "/drops",
                                 {"--concurrency", "1,2", "--hold", "1s", "--slo", "drops<=0.1%",
                                  "--reconcile", prom_source(server, "ok")}),
                        seconds(90));
  ASSERT_NE(drops.exit_code, 2) << drops.err;
  const json judged = result_of(dir + "/drops");
  ASSERT_EQ(judged["analysis"]["levels"].size(), 2u);
  for (const json& level : judged["analysis"]["levels"]) {
    EXPECT_EQ(level["meets_slo"], false) << level.dump();
  }
  for (const json& row : judged["rows"]) {
    EXPECT_GT(row["extra_metrics"]["drops"].get<double>(), 0.2) << row.dump();
  }
}

TEST(ReconcileRun, ACommandPrintingTheCountIsASource) {
  const std::string dir = make_temp_dir("reconcile-command");
  ServeProcess server({"--routes", routes_file(dir)});
  // The server's count of `ok` read by a shell, as a team would read rows from a database.
  const std::string command =
      "bash -c 'exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(server.port()) +
      "; printf \"GET /metrics HTTP/1.0\\r\\n\\r\\n\" >&3; cat <&3' | awk "
      "'/^proofload_requests_total[{]route=\"ok\",status=\"200\"[}]/ {n += $2} END {print n + 0}'";
  const std::string out = dir + "/out";
  Completed c = run_to_completion(
      run_args({"run", server.url("/ok")}, out, {"-c", "2", "-d", "1s", "--reconcile", command}),
      seconds(60));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json result = result_of(out);
  const json& r = result["summary"]["reconcile"];
  EXPECT_EQ(r["verdict"], "exact") << r.dump();
  EXPECT_EQ(r["server_delta"], successes_of(result));
}

TEST(ReconcileRun, ACounterThatFailsAfterTheRunIsUnavailableNeverACrash) {
  const std::string dir = make_temp_dir("reconcile-after");
  ServeProcess server({"--routes", routes_file(dir)});
  // The first read (before the run) prints 5; every later one fails.
  const std::string marker = dir + "/read-once";
  const std::string command = "if [ -e " + marker +
                              " ]; then echo database gone >&2; exit 1; fi; "
                              "touch " +
                              marker + "; echo 5";
  const std::string out = dir + "/out";
  Completed c = run_to_completion(
      run_args({"run", server.url("/ok")}, out,
               {"-c", "1", "-d", "1s", "--reconcile", command, "--threshold", "reconcile==exact"}),
      seconds(60));
  EXPECT_EQ(c.exit_code, 99) << c.err;  // the run held; only the bar that needed the count fails
  const json result = result_of(out);
  const json& r = result["summary"]["reconcile"];
  EXPECT_EQ(r["verdict"], "unavailable");
  EXPECT_EQ(r["server_before"], 5);
  EXPECT_TRUE(r["server_after"].is_null());
  EXPECT_TRUE(r["difference"].is_null());
  EXPECT_EQ(r["reason"], "the command failed: exit 1: database gone");
  EXPECT_EQ(result["thresholds"][0]["observed_text"], "no data");
  EXPECT_NE(read_file(out + "/summary.md").find("Not measured: not reconciled"), std::string::npos);
}

TEST(ReconcileRun, BadSourcesAreOneLineBeforeAnythingIsSent) {
  const std::string dir = make_temp_dir("reconcile-bad");
  ServeProcess server({"--routes", routes_file(dir)});
  const std::string url = server.url("/ok");
  struct Case {
    std::string source;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"prom:" + server.url("/metrics"), "names no metric: add '#'"},
      {"prom:" + server.url("/metrics") + "#", "no metric after '#'"},
      {"prom:http://127.0.0.1:" + std::to_string(unused_loopback_port()) + "/metrics#x",
       "could not be read before the run: http://127.0.0.1:"},
      {"true", "could not be read before the run: the command printed nothing"},
      {"exit 4", "could not be read before the run: the command failed: exit 4"},
  };
  for (const Case& bad : cases) {
    Completed c = run_to_completion(
        {proofload_binary(), "run", url, "-d", "1s", "-q", "--reconcile", bad.source}, seconds(30));
    EXPECT_EQ(c.exit_code, 2) << bad.source << ": " << c.err;
    EXPECT_NE(c.err.find(bad.says), std::string::npos) << c.err;
    EXPECT_TRUE(one_line(c.err)) << c.err;
  }
  Completed no_source = run_to_completion(
      {proofload_binary(), "run", url, "-d", "1s", "-q", "--threshold", "reconcile==exact"},
      seconds(30));
  EXPECT_EQ(no_source.exit_code, 2);
  EXPECT_NE(no_source.err.find("needs --reconcile"), std::string::npos) << no_source.err;
  Completed ladder_without =
      run_to_completion({proofload_binary(), "ladder", url, "--concurrency", "1", "--hold", "1s",
                         "--slo", "reconcile==exact", "-o", dir + "/ladder"},
                        seconds(30));
  EXPECT_EQ(ladder_without.exit_code, 2);
  EXPECT_NE(ladder_without.err.find("needs --reconcile"), std::string::npos) << ladder_without.err;
  // Nothing reached the route: its series would appear with its first request.
  EXPECT_EQ(http_get(server.port(), "/metrics").find("route=\"ok\""), std::string::npos);
}

}  // namespace
}  // namespace proofload::testing
