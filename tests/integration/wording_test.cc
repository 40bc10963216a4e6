// What the user reads, said right: `--plan` counts in the singular when there is one, and a
// report printed to stdout is whole before the line stderr adds after it (`make demo`).
#include <gtest/gtest.h>

#include <string>

#include "process.h"

namespace proofload::testing {
namespace {

TEST(Wording, PlanCountsOneInTheSingular) {
  const std::string dir = make_temp_dir("plan-singular");
  write_file(dir + "/s.yaml",
             "requests:\n  create: {method: POST, path: /items}\n"
             "flows:\n  only: {steps: [create]}\n");
  const Completed plan = run_to_completion(
      {proofload_binary(), "run", dir + "/s.yaml", "http://127.0.0.1:1/", "-c", "1", "-d", "1s",
       "--plan"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find(": 1 request, 1 flow, seed "), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("closed loop, 1 connection\n"), std::string::npos) << plan.out;
}

// stdout and stderr into one pipe, as `make demo | less` or a CI log reads them: the report comes
// whole, and the demo's last line after it.
TEST(Wording, TheDemosLastLineComesAfterItsReport) {
  const std::string dir = make_temp_dir("demo-order");
  const Completed demo = run_to_completion(
      {"/bin/sh", "-c",
       "exec \"$0\" demo --rates 20 --hold 1s --warmup 0s -o \"$1\" 2>&1", proofload_binary(),
       dir + "/out"},
      std::chrono::seconds(60));
  ASSERT_EQ(demo.exit_code, 0) << demo.out;
  const std::string report = read_file(dir + "/out/summary.md");
  ASSERT_FALSE(report.empty());
  const size_t at = demo.out.find(report);
  ASSERT_NE(at, std::string::npos) << "the report is not whole in the output:\n" << demo.out;
  const size_t last_line = demo.out.find("demo: every level ran; report in");
  ASSERT_NE(last_line, std::string::npos) << demo.out;
  EXPECT_GE(last_line, at + report.size()) << demo.out;
}

}  // namespace
}  // namespace proofload::testing
