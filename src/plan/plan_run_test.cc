// What an experiment relies on when it plans a run from a typed RunSpec: the load, the recorded
// spec and the Reproduce command all come from the one value (a level varies a field, nothing is
// formatted back into a flag); every check a typed run meets is the command line's; and a run is
// aimed at an address only by pre-flight.
#include "plan/plan_run.h"

#include <gtest/gtest.h>

#include "common/usage_error_test_support.h"

namespace proofload::plan {
namespace {

RunSpec open_loop_at(double rate_per_s) {
  RunSpec spec;
  spec.target = "http://127.0.0.1:8080/hello";
  spec.executor = engine::Executor::kOpenLoop;
  spec.rate_per_s = rate_per_s;
  spec.duration_ns = 8 * kNsPerS;
  spec.warmup_ns = 2 * kNsPerS;
  spec.seed = 7;
  return spec;
}

std::string usage_error_of(const RunSpec& spec) {
  return testing::usage_error_of([&] { plan_run(spec); });
}

TEST(PlanRun, ALevelsRateIsTheLoadTheRecordedSpecAndTheCommandAlike) {
  const PlannedRun run = plan_run(open_loop_at(412.5));
  EXPECT_EQ(run.load.executor, engine::Executor::kOpenLoop);
  EXPECT_DOUBLE_EQ(run.load.profile.target_at(kNsPerS), 412.5);
  EXPECT_EQ(run.load.warmup_ns, 2 * kNsPerS);
  EXPECT_EQ(result::spec_to_json(run.spec)["rate_per_s"], 412.5);
  EXPECT_EQ(result::spec_to_json(run.spec)["duration_s"], 8.0);
  EXPECT_EQ(result::spec_to_json(run.spec)["executor"], "open_loop");
  // Without a typed command line, Reproduce is the spec's own `proofload run`.
  EXPECT_NE(run.command_line.find("--rate 412.5"), std::string::npos) << run.command_line;
  EXPECT_NE(run.command_line.find("-d 8s"), std::string::npos) << run.command_line;
  EXPECT_EQ(run.command_line.find(" -o "), std::string::npos) << run.command_line;
}

TEST(PlanRun, AClosedLoopLevelIsItsConnections) {
  RunSpec spec;
  spec.target = "http://127.0.0.1:8080/";
  spec.connections = 64;
  const PlannedRun run = plan_run(spec);
  EXPECT_EQ(run.load.executor, engine::Executor::kClosedLoop);
  EXPECT_EQ(run.load.connections, 64);
  EXPECT_EQ(result::spec_to_json(run.spec)["connections"], 64);
  EXPECT_NE(run.command_line.find("-c 64"), std::string::npos) << run.command_line;
}

TEST(PlanRun, ATypedRunMeetsTheCommandLinesChecks) {
  RunSpec too_many;
  too_many.target = "http://127.0.0.1:8080/";
  too_many.connections = kMaxConnections + 1;
  EXPECT_NE(usage_error_of(too_many).find("-c must be at most"), std::string::npos);
  RunSpec closed_with_rate = open_loop_at(100);
  closed_with_rate.executor = engine::Executor::kClosedLoop;
  EXPECT_NE(usage_error_of(closed_with_rate).find("--rate sets an open-loop schedule"),
            std::string::npos);
  RunSpec no_target = open_loop_at(100);
  no_target.target.clear();
  EXPECT_EQ(usage_error_of(no_target), "run needs a URL or a scenario file");
}

TEST(PlanRun, OnlyPreflightAimsARun) {
  PlannedRun run = plan_run(open_loop_at(100));
  EXPECT_EQ(result::spec_to_json(run.spec)["address"], "");  // planned (or --plan): aimed nowhere
  Preflight found;
  found.address.text = "127.0.0.1:8080";
  aim(run, found);
  EXPECT_EQ(result::spec_to_json(run.spec)["address"], "127.0.0.1:8080");
  EXPECT_EQ(run.load.address.text, "127.0.0.1:8080");
}

// --sources: a worker per source, the connections and rate split over them, each source in the
// recorded spec and the command; what cannot work is refused before anything is sent.
TEST(PlanRun, SourcesGiveAWorkerEachAndAreRecorded) {
  RunSpec spec = open_loop_at(300);
  spec.connections = 6;
  spec.sources = {"127.0.0.2", "127.0.0.3", "127.0.0.4"};
  const PlannedRun run = plan_run(spec);
  EXPECT_EQ(run.load.workers, 3);
  ASSERT_EQ(run.load.sources.size(), 3u);
  EXPECT_EQ(run.load.sources[1].text, "127.0.0.3");
  EXPECT_EQ(result::spec_to_json(run.spec)["sources"],
            nlohmann::json({"127.0.0.2", "127.0.0.3", "127.0.0.4"}));
  EXPECT_NE(run.command_line.find("--sources 127.0.0.2,127.0.0.3,127.0.0.4"), std::string::npos)
      << run.command_line;

  RunSpec too_few = spec;
  too_few.connections = 2;
  EXPECT_EQ(usage_error_of(too_few),
            "--sources: each of the 3 sources needs a connection of its own, so -c must be at "
            "least 3");
  RunSpec twice = spec;
  twice.sources = {"127.0.0.2", "127.0.0.2"};
  EXPECT_EQ(usage_error_of(twice), "--sources: 127.0.0.2 is given twice");
  RunSpec workers = spec;
  workers.workers = 2;
  EXPECT_EQ(usage_error_of(workers),
            "--workers with --sources: each source has its own worker, so leave --workers out");
  RunSpec not_an_address = spec;
  not_an_address.sources = {"localhost"};
  EXPECT_EQ(usage_error_of(not_an_address),
            "'localhost' is not an IP address (a source is a local address, such as 127.0.0.2)");
}

// --target repeated: every target is recorded and repeated in Reproduce; pre-flight aims the
// load at each target's address, in order; targets differing in more than the address are refused.
TEST(PlanRun, MoreTargetsAreRecordedAimedAndMustShareSchemeAndPath) {
  RunSpec spec = open_loop_at(100);
  spec.more_targets = {"http://127.0.0.1:8081/hello"};
  PlannedRun run = plan_run(spec);
  EXPECT_EQ(result::spec_to_json(run.spec)["targets"],
            nlohmann::json({"http://127.0.0.1:8080/hello", "http://127.0.0.1:8081/hello"}));
  EXPECT_NE(run.command_line.find("--target http://127.0.0.1:8081/hello"), std::string::npos)
      << run.command_line;
  Preflight found;
  found.address.text = "127.0.0.1:8080";
  found.targets.resize(2);
  found.targets[0].text = "127.0.0.1:8080";
  found.targets[1].text = "127.0.0.1:8081";
  aim(run, found);
  ASSERT_EQ(run.load.targets.size(), 2u);
  EXPECT_EQ(run.load.targets[1].text, "127.0.0.1:8081");
  EXPECT_EQ(result::spec_to_json(run.spec)["addresses"],
            nlohmann::json({"127.0.0.1:8080", "127.0.0.1:8081"}));
  for (const char* other : {"http://127.0.0.1:8081/other", "https://127.0.0.1:8081/hello"}) {
    spec.more_targets = {other};
    EXPECT_NE(usage_error_of(spec).find("share the scheme and path"), std::string::npos) << other;
  }
}

}  // namespace
}  // namespace proofload::plan
