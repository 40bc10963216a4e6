// The sizing's planner: configuration names, their hooks' environment, and the --plan text.
#include <gtest/gtest.h>

#include "common/usage_error.h"
#include "experiments/sizing.h"

namespace proofload::experiments {
namespace {

TEST(SizingConfig, ReadsInstancesMillicoresAndGibibytes) {
  const SizingConfig c = parse_sizing_config("2x500m/1Gi");
  EXPECT_EQ(c.instances, 2);
  EXPECT_DOUBLE_EQ(*c.cpu_per_instance, 0.5);
  EXPECT_DOUBLE_EQ(*c.cores, 1.0);
  EXPECT_EQ(c.cores_basis, "the name");
  EXPECT_EQ(c.memory_per_instance_bytes, int64_t{1} << 30);
  EXPECT_EQ(c.slug, "2x500m-1Gi");
}

TEST(SizingConfig, ReadsCoresAndMebibytes) {
  const SizingConfig c = parse_sizing_config("4x0.5/512Mi");
  EXPECT_EQ(c.instances, 4);
  EXPECT_DOUBLE_EQ(*c.cores, 2.0);
  EXPECT_EQ(c.memory_per_instance_bytes, int64_t{512} << 20);
  EXPECT_EQ(parse_sizing_config("1x2/1G").memory_per_instance_bytes, 1'000'000'000);
}

TEST(SizingConfig, AnyOtherNameIsFreeFormWithUnknownCores) {
  for (const char* name : {"large", "2x-fast/x", "m5.xlarge", "0x500m/1Gi", "2x500m/lots"}) {
    const SizingConfig c = parse_sizing_config(name);
    EXPECT_EQ(c.name, name);
    EXPECT_FALSE(c.cores) << name;
    EXPECT_FALSE(c.instances) << name;
  }
  EXPECT_EQ(parse_sizing_config("m5.xlarge").slug, "m5.xlarge");
  EXPECT_THROW(parse_sizing_config(""), UsageError);
  EXPECT_THROW(parse_sizing_config("it's"), UsageError);
}

TEST(SizingConfig, CoresFlagGivesAFreeFormNameItsCores) {
  const std::vector<SizingConfig> configs =
      parse_sizing_configs("small, 2x1000m/2Gi", {"small=1.5"});
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].name, "small");
  EXPECT_DOUBLE_EQ(*configs[0].cores, 1.5);
  EXPECT_EQ(configs[0].cores_basis, "--cores");
  EXPECT_DOUBLE_EQ(*configs[1].cores, 2.0);
  EXPECT_THROW(parse_sizing_configs("a,b", {"c=1"}), UsageError);
  EXPECT_THROW(parse_sizing_configs("a,b", {"a=0"}), UsageError);
  EXPECT_THROW(parse_sizing_configs("a,a", {}), UsageError);
  EXPECT_THROW(parse_sizing_configs("a/b,a-b", {}), UsageError);  // one directory name
  EXPECT_THROW(parse_sizing_configs("a,,b", {}), UsageError);
}

TEST(SizingConfig, EnvironmentAndSubstitution) {
  const auto env = config_env(parse_sizing_config("2x500m/1Gi"), 3);
  auto value = [&](const std::string& name) {
    for (const auto& [k, v] : env) {
      if (k == name) return v;
    }
    return std::string("(unset)");
  };
  EXPECT_EQ(value("PROOFLOAD_CONFIG"), "2x500m/1Gi");
  EXPECT_EQ(value("PROOFLOAD_CONFIG_INDEX"), "3");
  EXPECT_EQ(value("PROOFLOAD_INSTANCES"), "2");
  EXPECT_EQ(value("PROOFLOAD_CPU"), "0.5");
  EXPECT_EQ(value("PROOFLOAD_CPU_MILLI"), "500");
  EXPECT_EQ(value("PROOFLOAD_MEMORY"), "1Gi");
  EXPECT_EQ(value("PROOFLOAD_MEMORY_BYTES"), "1073741824");
  EXPECT_EQ(value("PROOFLOAD_CORES"), "1");
  EXPECT_EQ(substitute_config("cgroup:/sys/fs/cgroup/cpu/x-${PROOFLOAD_CONFIG_SLUG}/i0", env),
            "cgroup:/sys/fs/cgroup/cpu/x-2x500m-1Gi/i0");
  EXPECT_EQ(substitute_config("pidfile:/run/${PROOFLOAD_CONFIG_INDEX}.pid", env),
            "pidfile:/run/3.pid");
  EXPECT_EQ(value("PROOFLOAD_CONFIG_SLUG"), "2x500m-1Gi");
}

TEST(SizingConfig, AnObserverNamingTheInstanceIsOnePerInstanceOfTheShape) {
  const std::vector<std::string> specs = {"pidfile:/run/${PROOFLOAD_CONFIG_SLUG}-${INSTANCE}.pid",
                                          "host"};
  const SizingConfig two = parse_sizing_config("2x500m/1Gi");
  EXPECT_EQ(config_observers(specs, two, config_env(two, 1)),
            (std::vector<std::string>{"pidfile:/run/2x500m-1Gi-0.pid",
                                      "pidfile:/run/2x500m-1Gi-1.pid", "host"}));
  // A smaller shape is not asked for an instance it lacks; a free-form one counts as one.
  const SizingConfig one = parse_sizing_config("1x1/1Gi");
  EXPECT_EQ(config_observers(specs, one, config_env(one, 2)),
            (std::vector<std::string>{"pidfile:/run/1x1-1Gi-0.pid", "host"}));
  const SizingConfig free_form = parse_sizing_config("big");
  EXPECT_EQ(config_observers(specs, free_form, config_env(free_form, 3)).front(),
            "pidfile:/run/big-0.pid");
}

SizingPlan two_config_plan() {
  SizingPlan plan;
  plan.configs = parse_sizing_configs("1x1/64Mi,big", {});
  plan.apply = "./apply.sh";
  plan.context.guards.hooks.restore = "./restore.sh";
  plan.context.guards.drain_until = "http://127.0.0.1:8080/health";
  plan.context.guards.drain_timeout_ns = 30'000'000'000;
  plan.context.guards.hooks.timeout_ns = 10'000'000'000;
  plan.ladder.loop = analyze::Loop::kClosed;
  plan.ladder.levels = {2, 8};
  plan.ladder.hold_ns = 2'000'000'000;
  plan.ladder.warmup_ns = 1'000'000'000;
  plan.ladder.base_run.observe = {"cgroup:/sys/fs/cgroup/cpu/${PROOFLOAD_CONFIG_SLUG}"};
  plan.context.out_dir = "out";
  return plan;
}

TEST(SizingPlanText, ListsEveryApplyLevelAndRestoreWithTheTotal) {
  EXPECT_EQ(describe_sizing_plan(two_config_plan()),
            "Sizing: 2 configurations, each a closed loop ladder of 2 level runs, each 1 s "
            "warm-up + 2 s measured.\n"
            "  1. 1x1/64Mi (1 core, from the name) -> out/configs/01-1x1-64Mi\n"
            "       apply    ./apply.sh\n"
            "       ready    http://127.0.0.1:8080/health (at most 30 s)\n"
            "       level 2 connections\n"
            "       level 8 connections\n"
            "  2. big (cores not known: give --cores NAME=N) -> out/configs/02-big\n"
            "       apply    ./apply.sh\n"
            "       ready    http://127.0.0.1:8080/health (at most 30 s)\n"
            "       level 2 connections\n"
            "       level 8 connections\n"
            "At the end, once, on every exit path: restore ./restore.sh\n"
            "Observed, resolved again after each apply: "
            "cgroup:/sys/fs/cgroup/cpu/${PROOFLOAD_CONFIG_SLUG}\n"
            "Total: 12 s of load, plus at most 90 s in hooks and ready waits.\n"
            "Results: out\n"
            "Nothing was sent (--plan).\n");
}

}  // namespace
}  // namespace proofload::experiments
