// Every command that takes a criterion (run --threshold, ladder/search/sizing --slo, ladder and
// soak --abort-when) refuses, before anything is sent and under --plan too, a name the scenario
// lacks (suggesting the nearest) and a stream figure of a load that reads no stream: otherwise the
// whole experiment runs and reports "no data".
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "process.h"

namespace proofload::testing {
namespace {

// Nothing listens on port 1: a command that got as far as sending would fail differently.
const std::string kNowhere = "http://127.0.0.1:1/";

std::string two_request_scenario(const std::string& name) {
  const std::string dir = make_temp_dir(name);
  const std::string file = dir + "/s.yaml";
  write_file(file, "requests:\n  read: {path: /ok}\n  write: {method: POST, path: /ok}\n");
  return file;
}

// Exit 2, one "proofload: error: ..." line holding every one of `expected`, nothing on stdout.
void expect_refused(const std::vector<std::string>& args,
                    const std::vector<std::string>& expected) {
  std::vector<std::string> command = {proofload_binary()};
  command.insert(command.end(), args.begin(), args.end());
  const Completed done = run_to_completion(command, std::chrono::seconds(20));
  EXPECT_EQ(done.exit_code, 2) << done.err;
  EXPECT_EQ(std::count(done.err.begin(), done.err.end(), '\n'), 1) << done.err;
  EXPECT_EQ(done.err.rfind("proofload: error: ", 0), 0u) << done.err;
  for (const std::string& text : expected) {
    EXPECT_NE(done.err.find(text), std::string::npos) << "wanted: " << text << "\n" << done.err;
  }
  EXPECT_TRUE(done.out.empty()) << done.out;
}

TEST(Criteria, LadderSloNamingNoRequestIsRefusedWithTheNearestName) {
  const std::string file = two_request_scenario("slo-typo");
  for (bool plan : {true, false}) {
    std::vector<std::string> args = {"ladder", file, kNowhere, "--concurrency",  "1,2",
                                     "--hold", "1s", "--slo",  "p99(wrte)<200ms"};
    if (plan) args.push_back("--plan");
    expect_refused(args,
                   {"p99(wrte)<200ms", "'wrte' is no request or flow", "did you mean 'write'?"});
  }
  expect_refused(
      {"ladder", file, kNowhere, "--search", "--slo", "errors<1%,p95(raed)<1s", "--plan"},
      {"did you mean 'read'?"});
}

TEST(Criteria, SizingSloNamingNoRequestIsRefused) {
  const std::string file = two_request_scenario("sizing-slo-typo");
  expect_refused({"sizing", file, kNowhere, "--configs", "a,b", "--apply", "true", "--restore",
                  "true", "--concurrency", "1,2", "--slo", "p99(wrte)<200ms", "--plan"},
                 {"did you mean 'write'?"});
}

TEST(Criteria, StreamFiguresOfALoadThatReadsNoStreamAreRefused) {
  expect_refused({"ladder", kNowhere, "--concurrency", "1,2", "--slo", "ttft_p95<500ms", "--plan"},
                 {"ttft_p95<500ms", "reads streams", "--stream"});
  expect_refused({"run", kNowhere, "-d", "1s", "--threshold", "itl_p99 < 50ms", "--plan"},
                 {"reads streams"});
  // A scenario whose named request is not read as a stream: its stream figures are never there.
  const std::string file = two_request_scenario("stream-scope");
  expect_refused(
      {"ladder", file, kNowhere, "--rates", "10", "--slo", "ttft_p95(read)<500ms", "--plan"},
      {"'read' is not read as one"});
}

TEST(Criteria, RunThresholdTypoSuggestsTheNearestName) {
  const std::string file = two_request_scenario("threshold-typo");
  expect_refused({"run", file, kNowhere, "-d", "1s", "--threshold", "p99(wrte) < 200ms", "--plan"},
                 {"'wrte' is no request or flow", "did you mean 'write'?"});
}

TEST(Criteria, AFlowHasNoRatePerSecondOfItsOwn) {
  // rps and goodput count requests; a flow's success is rate(flow_success, FLOW).
  const std::string dir = make_temp_dir("flow-goodput");
  const std::string file = dir + "/s.yaml";
  write_file(file,
             "requests:\n  read: {path: /ok}\n  write: {method: POST, path: /ok}\n"
             "flows:\n  both: {steps: [read, write]}\n");
  expect_refused({"run", file, kNowhere, "-d", "1s", "--threshold", "goodput(both) > 1", "--plan"},
                 {"'both' is a flow", "rate(flow_success, both)"});
  expect_refused({"ladder", file, kNowhere, "--rates", "10", "--slo", "rps(both)>1", "--plan"},
                 {"'both' is a flow"});
}

TEST(Criteria, AbortRulesReadingNoStreamAreRefused) {
  expect_refused(
      {"ladder", kNowhere, "--concurrency", "1", "--abort-when", "ttft_p95 > 1s for 10s", "--plan"},
      {"--abort-when", "reads streams"});
  expect_refused({"soak", kNowhere, "--rate", "10", "--hold", "10s", "--window", "5s",
                  "--abort-when", "ttft_p95 > 1s for 10s", "--plan"},
                 {"--abort-when", "reads streams"});
}

}  // namespace
}  // namespace proofload::testing
