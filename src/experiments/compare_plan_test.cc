// Tests of the comparison's plan: the order of its cells and hooks (A and B interleaved as
// stated), each cell's run, and the --plan text.
#include <gtest/gtest.h>

#include "experiments/compare.h"

namespace proofload::experiments {
namespace {

ComparePlan plan_of(const std::string& matrix) {
  ComparePlan plan;
  plan.matrix = parse_compare_matrix(matrix, "m.yaml", ".");
  plan.a_target = "http://127.0.0.1:8001/";
  plan.b_target = "http://127.0.0.1:8002/";
  plan.base_run.target = plan.a_target;
  plan.context.out_dir = "/tmp/cmp";
  return plan;
}

std::string order_of(const ComparePlan& plan) {
  std::string out;
  for (const CompareStep& s : compare_steps(plan)) {
    if (s.apply_setting) out += "+";
    if (s.switch_side) out += "^";
    out += s.side + ":" + plan.matrix.checks.requests[s.check].name + "/" + s.condition + "/" +
           std::to_string(s.repeat);
    if (s.restore_setting) out += "-";
    out += " ";
  }
  return out;
}

constexpr const char* kTwoChecks =
    "checks:\n  x: {path: /x}\n  y: {path: /y}\nrepeat: 2\nrun: {duration: 1s}\n";

TEST(ComparePlan, TwoTargetsAlternateAAndBCellByCell) {
  EXPECT_EQ(order_of(plan_of(kTwoChecks)),
            "a:x//1 b:x//1 a:y//1 b:y//1 a:x//2 b:x//2 a:y//2 b:y//2 ");
}

TEST(ComparePlan, HooksSwitchEachSideOncePerRepeat) {
  ComparePlan plan = plan_of(kTwoChecks);
  plan.a_apply = "deploy v3";
  plan.b_apply = "deploy v4";
  EXPECT_EQ(order_of(plan), "^a:x//1 a:y//1 ^b:x//1 b:y//1 ^a:x//2 a:y//2 ^b:x//2 b:y//2 ");
  EXPECT_EQ(compare_order_text(plan),
            "for each repeat, A is applied (--a-apply) and all its cells run, then B's");
}

TEST(ComparePlan, SettingsWrapTheirCellsAndNameTheConditions) {
  const ComparePlan plan = plan_of(
      "checks:\n  x: {path: /x}\nconditions: [cold, warm]\nrepeat: 1\n"
      "settings:\n  small: {apply: a1, restore: r1}\n  big: {apply: a2}\n");
  EXPECT_EQ(order_of(plan),
            "+a:x/cold at small/1 b:x/cold at small/1 a:x/warm at small/1 b:x/warm at small/1- "
            "+a:x/cold at big/1 b:x/cold at big/1 a:x/warm at big/1 b:x/warm at big/1- ");
}

TEST(ComparePlan, EachCellRunsItsCheckAloneOnItsSide) {
  ComparePlan plan = plan_of(
      "checks:\n  x: {path: /x}\n  y: {path: /y}\nconditions: [cold, warm]\n"
      "run: {connections: 4, duration: 2s, warmup: 3s}\nsettings:\n  'a/b': {apply: z}\n");
  const std::vector<CompareStep> steps = compare_steps(plan);
  const CompareStep& cold_y_b = steps[3];
  ASSERT_EQ(cold_y_b.side, "b");
  EXPECT_EQ(cold_y_b.directory, "b/cold at a_b/y-r1") << "a '/' in a name is no directory";
  const plan::RunSpec cold = compare_cell_run(plan, cold_y_b);
  EXPECT_EQ(cold.target, "http://127.0.0.1:8002/");
  ASSERT_TRUE(cold.scenario);
  ASSERT_EQ(cold.scenario->requests.size(), 1u);
  EXPECT_EQ(cold.scenario->requests[0].name, "y");
  ASSERT_EQ(cold.scenario->mix.size(), 1u);
  EXPECT_EQ(cold.scenario->mix[0].name, "y");
  EXPECT_EQ(cold.connections, 4);
  EXPECT_EQ(cold.executor, engine::Executor::kClosedLoop);
  EXPECT_EQ(cold.duration_ns, int64_t{2} * 1'000'000'000);
  EXPECT_EQ(cold.warmup_ns, 0);
  EXPECT_EQ(cold.out_dir, std::filesystem::path("/tmp/cmp/b/cold at a_b/y-r1"));
  const plan::RunSpec warm = compare_cell_run(plan, steps[4]);
  EXPECT_EQ(steps[4].condition_kind, kWarm);
  EXPECT_EQ(warm.warmup_ns, int64_t{3} * 1'000'000'000);
}

TEST(ComparePlan, EachSidesObserversWatchOnlyItsCells) {
  ComparePlan plan = plan_of(kTwoChecks);
  plan.base_run.observe = {"host"};
  plan.a_observe = {"pid:101"};
  plan.b_observe = {"pid:202"};
  const std::vector<CompareStep> steps = compare_steps(plan);
  EXPECT_EQ(compare_cell_run(plan, steps[0]).observe,
            (std::vector<std::string>{"host", "pid:101"}));
  EXPECT_EQ(compare_cell_run(plan, steps[1]).observe,
            (std::vector<std::string>{"host", "pid:202"}));
}

TEST(ComparePlan, OpenLoopCellsRunAtTheMatrixRate) {
  const ComparePlan plan = plan_of("checks:\n  x: {path: /x}\nrun: {rate: 250/s}\n");
  const plan::RunSpec run = compare_cell_run(plan, compare_steps(plan).front());
  EXPECT_EQ(run.executor, engine::Executor::kOpenLoop);
  EXPECT_EQ(run.rate_per_s, 250);
}

TEST(ComparePlan, ThePlanListsEveryHookAndCellAndSendsNothing) {
  ComparePlan plan = plan_of(
      "checks:\n  x: {path: /x}\nconditions: [cold]\nrepeat: 1\nrun: {duration: 10s}\n"
      "settings:\n  small: {apply: limit, restore: unlimit}\n");
  plan.reset = "flush";
  plan.context.guards.hooks.restore = "put back";
  const std::string text = describe_compare_plan(plan);
  EXPECT_NE(text.find("Compare: 1 check × 1 condition × 1 setting, 1 repeat on each side: 2 runs "
                      "of 10s (10 connections), 20s of load in all"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  A: http://127.0.0.1:8001/\n  B: http://127.0.0.1:8002/\n"),
            std::string::npos)
      << text;
  const size_t apply = text.find("apply-setting hook: limit");
  const size_t reset = text.find("reset hook: flush");
  const size_t first = text.find("1. x on A (cold at small), repeat 1 -> a/cold at small/x-r1");
  const size_t unlimit = text.find("restore-setting hook: unlimit");
  const size_t restore = text.find("restore hook: put back");
  ASSERT_NE(apply, std::string::npos) << text;
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_LT(apply, reset);
  EXPECT_LT(reset, first);
  EXPECT_LT(first, unlimit);
  EXPECT_LT(unlimit, restore);
  EXPECT_NE(text.find("Nothing was sent (--plan)."), std::string::npos);
}

}  // namespace
}  // namespace proofload::experiments
